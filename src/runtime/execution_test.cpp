#include <cstdint>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include <laddu/runtime/execution.hpp>

namespace laddu::runtime {
namespace {

TEST(MemoryPlan, ParsesBinaryAndDecimalUnits) {
    EXPECT_EQ(MemoryPlan::parse("2 GiB").resolve(), 2ULL << 30U);
    EXPECT_EQ(MemoryPlan::parse("512 MiB").resolve(), 512ULL << 20U);
    EXPECT_EQ(MemoryPlan::parse("512mib").resolve(), 512ULL << 20U);
    EXPECT_EQ(MemoryPlan::parse(" 1.5 GB ").resolve(), 1500000000ULL);
    EXPECT_EQ(MemoryPlan::parse("4096").resolve(), 4096U);
    EXPECT_EQ(MemoryPlan::parse("4096 B").resolve(), 4096U);
    EXPECT_EQ(MemoryPlan::parse("3 KiB").resolve(), 3072U);
    EXPECT_EQ(MemoryPlan::parse("1 TB").resolve(), 1000000000000ULL);
}

TEST(MemoryPlan, DefaultIsUnlimited) {
    const MemoryPlan plan;
    EXPECT_TRUE(plan.is_unlimited());
    EXPECT_EQ(plan.resolve(), std::numeric_limits<std::size_t>::max());
    EXPECT_EQ(plan.to_string(), "unlimited");
}

TEST(MemoryPlan, FractionOfAvailableReadsMeminfo) {
    const auto available = available_host_memory();
    ASSERT_TRUE(available.has_value()) << available.error().message;
    EXPECT_GT(*available, 0U);
    const std::size_t budget = MemoryPlan::parse("70% available").resolve();
    // MemAvailable moves between the two reads; allow 10% slack.
    EXPECT_GT(static_cast<double>(budget), 0.6 * static_cast<double>(*available));
    EXPECT_LT(static_cast<double>(budget), 0.8 * static_cast<double>(*available));
    EXPECT_EQ(MemoryPlan::parse("50% free").to_string(), "50% available");
    EXPECT_EQ(MemoryPlan::parse("5%remaining").to_string(), "5% available");
}

TEST(MemoryPlan, FractionOfTotalReadsMemTotal) {
    const auto total = total_host_memory();
    ASSERT_TRUE(total.has_value()) << total.error().message;
    const auto available = available_host_memory();
    ASSERT_TRUE(available.has_value()) << available.error().message;
    EXPECT_GE(*total, *available);
    // MemTotal does not move: the budget is exactly floor(total / 2).
    EXPECT_EQ(MemoryPlan::parse("50% total").resolve(), *total / 2);
    EXPECT_EQ(MemoryPlan::parse("50%").resolve(), *total / 2);  // laddu: a bare % is of total
    EXPECT_EQ(MemoryPlan::fraction_of_total(100).resolve(), *total);
    EXPECT_EQ(MemoryPlan::parse("50 % TOTAL").to_string(), "50% total");
    EXPECT_EQ(MemoryPlan::fraction_of_total(33.3).to_string(), "33.3% total");
}

TEST(MemoryPlan, AutoIsEightyPercentOfAvailable) {
    const MemoryPlan plan = MemoryPlan::parse(" Auto ");
    EXPECT_FALSE(plan.is_unlimited());
    EXPECT_EQ(plan.to_string(), "auto");
    const auto available = available_host_memory();
    ASSERT_TRUE(available.has_value()) << available.error().message;
    EXPECT_GT(static_cast<double>(plan.resolve()), 0.7 * static_cast<double>(*available));
    EXPECT_LT(static_cast<double>(plan.resolve()), 0.9 * static_cast<double>(*available));
}

TEST(MemoryPlan, ResolvesAgainstAGivenMemory) {
    constexpr std::size_t kTotal = 1000;
    constexpr std::size_t kAvailable = 600;
    EXPECT_EQ(MemoryPlan::bytes(123).resolve_against(kTotal, kAvailable), 123U);
    EXPECT_EQ(MemoryPlan::parse("50% total").resolve_against(kTotal, kAvailable), 500U);
    EXPECT_EQ(MemoryPlan::parse("50% available").resolve_against(kTotal, kAvailable), 300U);
    EXPECT_EQ(MemoryPlan::parse("auto").resolve_against(kTotal, kAvailable), 480U);
    EXPECT_EQ(MemoryPlan{}.resolve_against(kTotal, kAvailable),
              std::numeric_limits<std::size_t>::max());
}

TEST(MemoryPlan, WithoutMeminfoAPercentageIsABackendErrorNamingTheFix) {
    const auto missing = meminfo_bytes("/nonexistent/meminfo", "MemTotal");
    ASSERT_FALSE(missing.has_value());
    EXPECT_EQ(missing.error().kind, ErrorKind::kBackend);
    EXPECT_NE(missing.error().message.find("only Linux"), std::string::npos);
    EXPECT_NE(missing.error().message.find("in bytes"), std::string::npos);
    try {
        (void)missing.value();
        FAIL() << "no exception";
    } catch (const BackendError& error) {
        EXPECT_NE(std::string(error.what()).find("MemTotal"), std::string::npos);
    }
}

TEST(MemoryPlan, ByteCountsAreExactIntegersAsLadduParsesThem) {
    EXPECT_EQ(MemoryPlan::parse("1.5 KiB").resolve(), 1536U);
    EXPECT_EQ(MemoryPlan::parse(".5 kb").resolve(), 500U);
    EXPECT_EQ(MemoryPlan::parse("1.999 B").resolve(), 1U);
    EXPECT_EQ(MemoryPlan::parse("0.1 B").resolve(), 0U);
    EXPECT_EQ(MemoryPlan::parse("1 bytes").resolve(), 1U);
    EXPECT_EQ(MemoryPlan::parse("9007199254740993 B").resolve(), 9007199254740993ULL);
    EXPECT_EQ(MemoryPlan::parse("18446744073709551615 B").resolve(),
              std::numeric_limits<std::uint64_t>::max());
    EXPECT_EQ(MemoryPlan::parse("18446744073709551.615 KB").resolve(),
              std::numeric_limits<std::uint64_t>::max());
    EXPECT_EQ(MemoryPlan::parse("2 GiB").to_string(), "2147483648 B");
    EXPECT_EQ(MemoryPlan::bytes(0).to_string(), "0 B");
}

void expect_bad(const std::string& text, const std::string& fragment) {
    try {
        (void)MemoryPlan::parse(text);
        FAIL() << "parsed '" << text << "'";
    } catch (const ModelError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find(fragment), std::string::npos) << message;
        EXPECT_NE(message.find("'" + text + "'"), std::string::npos) << message;
        EXPECT_NE(message.find("2 GiB"), std::string::npos) << message;
    }
}

TEST(MemoryPlan, RejectsBadTextWithTheFix) {
    expect_bad("lots", "expected a number");
    expect_bad("2 GiBs", "unknown unit 'gibs'");
    expect_bad("-1 GiB", "non-negative");
    expect_bad("150% available", "(0, 100]");
    expect_bad("0%", "(0, 100]");
    expect_bad("70% of free", "unexpected 'of free'");
    expect_bad("1e9", "unknown unit 'e9'");
    expect_bad("0", "greater than zero");
    expect_bad("1.2.3 B", "decimal point");
    expect_bad("18446744073709551616 B", "64 bits");
    expect_bad("18446744073709551.616 KB", "64 bits");
    expect_bad("nan%", "(0, 100]");
}

TEST(Execution, ResolvesThreads) {
    Execution execution;
    EXPECT_GE(execution.resolved_threads(), 1U);
    execution.threads = 3;
    EXPECT_EQ(execution.resolved_threads(), 3U);
    EXPECT_EQ(execution.precision, ir::Precision::kF64);
    EXPECT_EQ(execution.device, Device::kCpu);
    EXPECT_EQ(execution.jit, JitPolicy::kAuto);
    EXPECT_EQ(execution.autodiff, AutodiffMode::kAuto);
}

}  // namespace
}  // namespace laddu::runtime
