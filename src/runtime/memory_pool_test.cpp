// The memory pool: leases add up and are given back, a refusal names what is held, the pool is
// safe to share between threads; prepared models plan within what an execution's other work
// left and borrow streaming windows per pass, with the bits of an unlimited budget.
#include <atomic>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/runtime/memory_pool.hpp>
#include <laddu/runtime/prepared_model.hpp>

#include "toy_model.hpp"

namespace laddu::runtime {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

TEST(MemoryPool, LeasesAddUpAndAreGivenBackWhenDestroyed) {
    const auto pool = std::make_shared<MemoryPool>(MemoryPlan::bytes(10 * kMiB));
    EXPECT_EQ(pool->budget(), 10 * kMiB);
    EXPECT_EQ(pool->budget_text(), "10485760 B");
    {
        const MemoryLease a = pool->lease(3 * kMiB, "a");
        MemoryLease b = pool->lease(4 * kMiB, "b");
        EXPECT_EQ(pool->leased(), 7 * kMiB);
        EXPECT_EQ(pool->available(), 3 * kMiB);
        ASSERT_EQ(pool->leases().size(), 2U);
        EXPECT_EQ(pool->leases()[1].label, "b");
        const MemoryLease moved = std::move(b);
        EXPECT_EQ(b.bytes(), 0U);
        EXPECT_EQ(pool->leased(), 7 * kMiB);
    }
    EXPECT_EQ(pool->leased(), 0U);
    EXPECT_EQ(pool->available(), 10 * kMiB);
    EXPECT_TRUE(pool->leases().empty());
    const std::vector<LeaseDecision> log = pool->decisions();
    ASSERT_EQ(log.size(), 4U);
    EXPECT_EQ(log[0].kind, LeaseDecision::Kind::kGranted);
    EXPECT_EQ(log[1].leased, 7 * kMiB);
    EXPECT_EQ(log[3].kind, LeaseDecision::Kind::kReleased);
    EXPECT_EQ(log[3].leased, 0U);
}

TEST(MemoryPool, ShrinkingALeaseGivesBackTheRest) {
    const auto pool = std::make_shared<MemoryPool>(10 * kMiB, "10 MiB");
    MemoryLease lease = pool->lease(6 * kMiB, "a cache and its reads");
    lease.shrink_to(2 * kMiB);
    EXPECT_EQ(lease.bytes(), 2 * kMiB);
    EXPECT_EQ(pool->leased(), 2 * kMiB);
    lease.shrink_to(0);
    EXPECT_EQ(pool->leased(), 0U);
    EXPECT_TRUE(pool->leases().empty());
}

TEST(MemoryPool, ARefusalNamesWhatIsHeldAndTheBudgetThatWouldFit) {
    const auto pool = std::make_shared<MemoryPool>(2 * kMiB, "2 MiB");
    const MemoryLease data = pool->lease(kMiB + kMiB / 2, "the data (resident cache)");
    EXPECT_FALSE(pool->try_lease(kMiB, "the accepted Monte Carlo").has_value());
    try {
        (void)pool->lease(kMiB, "the accepted Monte Carlo");
        FAIL() << "a lease beyond the budget";
    } catch (const DataError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("the accepted Monte Carlo needs 1.0 MiB but only 0.5 MiB of the 2.0 "
                            "MiB memory budget (2 MiB) is left: the data (resident cache) holds "
                            "1.5 MiB; raise the budget (Execution::memory) to at least 2.5 MiB"),
                  std::string::npos)
            << what;
    }
    EXPECT_EQ(pool->leased(), kMiB + kMiB / 2);
    const std::vector<LeaseDecision> log = pool->decisions();
    ASSERT_EQ(log.size(), 3U);
    EXPECT_EQ(log[1].kind, LeaseDecision::Kind::kRefused);
    EXPECT_EQ(log[1].label, "the accepted Monte Carlo");
    EXPECT_EQ(log[1].bytes, kMiB);
}

TEST(MemoryPool, AnUnlimitedPoolGrantsEveryLease) {
    const auto pool = std::make_shared<MemoryPool>(MemoryPlan{});
    EXPECT_TRUE(pool->is_unlimited());
    const MemoryLease a = pool->lease(std::size_t{1} << 60, "a");
    const MemoryLease b = pool->lease(std::size_t{1} << 60, "b");
    EXPECT_EQ(pool->available(), std::numeric_limits<std::size_t>::max());
    EXPECT_EQ(pool->leased(), std::size_t{2} << 60);
    EXPECT_EQ(pool->remainder_text(), "what is left of the unlimited budget (unlimited) once a "
                                      "holds 1099511627776.0 MiB, b holds 1099511627776.0 MiB");
}

TEST(MemoryPool, ThreadsLeasingAtOnceNeverExceedTheBudget) {
    constexpr std::size_t kThreads = 8;
    constexpr std::size_t kRounds = 2000;
    const auto pool = std::make_shared<MemoryPool>(kThreads * 3, "24 B");
    std::atomic<std::size_t> in_use{0};
    std::atomic<std::size_t> most{0};
    std::atomic<std::size_t> granted{0};
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (std::size_t round = 0; round < kRounds; ++round) {
                const std::size_t bytes = 1 + (t + round) % 5;
                std::optional<MemoryLease> lease = pool->try_lease(bytes, "worker");
                if (!lease) {
                    continue;
                }
                const std::size_t now = in_use.fetch_add(bytes) + bytes;
                std::size_t seen = most.load();
                while (now > seen && !most.compare_exchange_weak(seen, now)) {
                }
                granted.fetch_add(1);
                in_use.fetch_sub(bytes);
            }
        });
    }
    for (std::thread& t : threads) {
        t.join();
    }
    EXPECT_LE(most.load(), kThreads * 3);
    EXPECT_GT(granted.load(), 0U);
    EXPECT_EQ(pool->leased(), 0U);
    EXPECT_EQ(pool->decisions().size(), MemoryPool::kLoggedDecisions);
}

class SharedBudget : public ::testing::Test {
protected:
    compile::CompiledModel compiled_ = compile::compile_model(laddu::testing::toy_model());
    data::Dataset first_ = laddu::testing::toy_dataset(laddu::testing::toy_events(20011, 41));
    data::Dataset second_ = laddu::testing::toy_dataset(laddu::testing::toy_events(30011, 42));
    std::vector<double> params_ = laddu::testing::toy_parameters();

    // The report of `data` prepared alone under `budget` bytes.
    MemoryReport alone(const data::Dataset& data, std::size_t budget) const {
        return PreparedModel::prepare(compiled_, data, laddu::testing::with_threads(2, budget))
            .memory_report();
    }
};

TEST_F(SharedBudget, TheSecondModelPlansWithinWhatTheFirstLeft) {
    const MemoryReport first_alone = alone(first_, 0);
    const MemoryReport second_alone = alone(second_, 0);
    // Each fits alone, its cache read a chunk at a time; the two caches do not fit together.
    const std::size_t budget = second_alone.held_bytes + first_alone.held_bytes / 2;
    ASSERT_EQ(alone(first_, budget).policy, data::MemoryPolicy::kResident);
    ASSERT_EQ(alone(second_, budget).policy, data::MemoryPolicy::kResident);

    Execution execution = laddu::testing::with_threads(2, budget);
    execution.memory_pool = std::make_shared<MemoryPool>(execution.memory);
    const MemoryPool& pool = *execution.memory_pool;
    std::optional<PreparedModel> second;
    {
        const PreparedModel first = PreparedModel::prepare(compiled_, first_, execution, "first");
        EXPECT_TRUE(first.is_resident());
        EXPECT_EQ(pool.leased(), first.memory_report().held_bytes);
        second.emplace(PreparedModel::prepare(compiled_, second_, execution, "second"));
        const MemoryReport& report = second->memory_report();
        EXPECT_EQ(report.policy, data::MemoryPolicy::kStreaming);
        EXPECT_EQ(report.label, "second");
        EXPECT_EQ(report.available_bytes, budget - first.memory_report().held_bytes);
        EXPECT_LE(first.memory_report().held_bytes + report.peak_bytes, budget);
        EXPECT_NE(report.decision.find("what is left of the"), std::string::npos)
            << report.decision;
        EXPECT_EQ(pool.leased(), first.memory_report().held_bytes + report.held_bytes);
        EXPECT_EQ(second->reduce(params_, ReductionTransform::kLogPositiveReal),
                  PreparedModel::prepare(compiled_, second_)
                      .reduce(params_, ReductionTransform::kLogPositiveReal));
    }
    // The first model is gone: its cache is back in the pool.
    EXPECT_EQ(pool.leased(), second->memory_report().held_bytes);
    for (const LeaseDecision& d : pool.decisions()) {
        EXPECT_LE(d.leased, budget) << d.label;
    }
    ASSERT_EQ(pool.reports().size(), 2U);
    EXPECT_EQ(pool.reports()[0].label, "first");
}

TEST_F(SharedBudget, AStreamingPassBorrowsItsWindowAndGivesItBack) {
    const std::size_t budget = 2 * kMiB;
    Execution execution = laddu::testing::with_threads(1, budget);
    execution.memory_pool = std::make_shared<MemoryPool>(execution.memory);
    const PreparedModel streaming = PreparedModel::prepare(
        compiled_, data::EventData(second_, data::MemoryPolicy::kStreaming), execution, "mc");
    const MemoryReport& report = streaming.memory_report();
    ASSERT_GT(report.window_events, kReductionChunk);
    EXPECT_LT(report.held_bytes, report.peak_bytes);
    const double expected = PreparedModel::prepare(compiled_, second_)
                                .reduce(params_, ReductionTransform::kLogPositiveReal);
    EXPECT_EQ(streaming.reduce(params_, ReductionTransform::kLogPositiveReal), expected);
    EXPECT_EQ(execution.memory_pool->leased(), report.held_bytes);
    const std::vector<LeaseDecision> log = execution.memory_pool->decisions();
    ASSERT_GE(log.size(), 3U);
    EXPECT_EQ(log.back().kind, LeaseDecision::Kind::kReleased);
    EXPECT_EQ(log.back().label, "mc (streaming), a pass's window");
    EXPECT_EQ(log.back().bytes,
              (report.window_events - kReductionChunk) *
                  (2 * report.source_bytes_per_event + report.cache_bytes_per_event));
    // With the pool nearly all held elsewhere, a pass streams one chunk at a time: same bits.
    const MemoryLease other =
        execution.memory_pool->lease(execution.memory_pool->available() - 100, "another model");
    EXPECT_EQ(streaming.reduce(params_, ReductionTransform::kLogPositiveReal), expected);
}

TEST_F(SharedBudget, AModelThatFitsNoLongerNamesWhatHoldsTheBudget) {
    const MemoryReport first_alone = alone(first_, 0);
    // The first is read one chunk at a time (each read adds the cache's fixed part: a window's
    // cache is built, then placed); then about those reads are left.
    const std::size_t chunk_reads =
        (2 * first_alone.source_bytes_per_event + first_alone.cache_bytes_per_event) *
        kReductionChunk;
    const std::size_t cache_fixed =
        first_alone.cache_bytes - first_alone.events * first_alone.cache_bytes_per_event;
    Execution execution =
        laddu::testing::with_threads(2, first_alone.held_bytes + chunk_reads + 32 * cache_fixed);
    execution.memory_pool = std::make_shared<MemoryPool>(execution.memory);
    const PreparedModel first = PreparedModel::prepare(
        compiled_, data::EventData(first_, data::MemoryPolicy::kResident), execution, "the data");
    try {
        (void)PreparedModel::prepare(compiled_, second_, execution, "the accepted Monte Carlo");
        FAIL() << "a second model in the bytes the first left";
    } catch (const DataError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("the data (resident cache) holds"), std::string::npos) << what;
        EXPECT_NE(what.find("raise the budget (Execution::memory) to at least"), std::string::npos)
            << what;
    }
    EXPECT_EQ(execution.memory_pool->leased(), first.memory_report().held_bytes);
}

}  // namespace
}  // namespace laddu::runtime
