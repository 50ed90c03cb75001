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
    EXPECT_EQ(MemoryPlan::parse("50%").to_string(), "50% of available");
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
    expect_bad("1e30 TiB", "64 bits");
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
