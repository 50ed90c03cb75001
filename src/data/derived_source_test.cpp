// EventData's lazy take/subsample/bootstrap over a Parquet source against the same operations on
// the resident dataset: the same events and weights bit for bit, in batches, ranges and sums.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/data/parquet.hpp>

#include "test_util.hpp"

namespace laddu::data {
namespace {

using testing::ScratchDir;

// Scalar x = i and weight 1 + i / 8 for events i = 0 .. n-1, written with row groups of 37
// events so that reads cross row-group boundaries.
struct Fixture {
    ScratchDir dir;
    Dataset resident;
    EventData lazy = EventData(Dataset{});

    explicit Fixture(std::size_t n) {
        std::vector<double> x(n);
        std::vector<double> w(n);
        for (std::size_t i = 0; i < n; ++i) {
            x[i] = static_cast<double>(i);
            w[i] = 1.0 + static_cast<double>(i) / 8.0;
        }
        const std::vector<ScalarInput> scalars{{"x", x}};
        resident = Dataset::from_scalars(scalars, w);
        ParquetWriteOptions options;
        options.row_group_size = 37;
        write_parquet(resident, dir.file("events.parquet"), options);
        lazy = EventData::from_source(
            std::make_shared<ParquetSource>(std::vector<std::string>{dir.file("events.parquet")}));
    }
};

struct Columns {
    std::vector<double> x;
    std::vector<double> w;
    std::size_t batches = 0;
};

Columns read(const EventData& events, const ReadPlan& plan = {}) {
    Columns out;
    events.for_each_batch(plan, [&out](const EventBatch& batch, std::uint64_t first) {
        EXPECT_EQ(first, out.x.size());
        ++out.batches;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            out.x.push_back(batch.scalar_at(0, i));
            out.w.push_back(batch.weight_at(i));
        }
    });
    return out;
}

void expect_same(const EventData& lazy, const EventData& resident) {
    ASSERT_EQ(lazy.dataset(), nullptr);
    ASSERT_NE(resident.dataset(), nullptr);
    const Columns a = read(lazy);
    const Columns b = read(resident);
    EXPECT_EQ(lazy.num_events(), resident.num_events());
    EXPECT_EQ(a.x, b.x);
    EXPECT_EQ(a.w, b.w);
    EXPECT_EQ(lazy.weights(), resident.weights());
    EXPECT_EQ(lazy.sum_weights(), resident.sum_weights());
    std::size_t total = 0;
    for (const std::size_t size : lazy.fragment_sizes()) {
        EXPECT_GT(size, 0U);
        total += size;
    }
    EXPECT_EQ(total, lazy.num_events());
    for (std::uint64_t i = 0; i < lazy.num_events(); ++i) {
        EXPECT_EQ(lazy.replica_index(i), resident.replica_index(i)) << "row " << i;
    }
}

TEST(DerivedSource, SubsampleBootstrapAndTakeMatchTheResidentOperations) {
    const Fixture f(500);
    EventData lazy = f.lazy;
    EventData resident = f.resident;
    ASSERT_EQ(lazy.dataset(), nullptr);
    lazy = lazy.subsample(0.6, 7);
    resident = resident.subsample(0.6, 7);
    expect_same(lazy, resident);
    lazy = lazy.bootstrap(3);
    resident = resident.bootstrap(3);
    expect_same(lazy, resident);
    lazy = lazy.subsample(0.5, 9);  // keyed on the original indices, through the bootstrap
    resident = resident.subsample(0.5, 9);
    expect_same(lazy, resident);
    std::vector<std::uint64_t> every_third;
    for (std::uint64_t i = 0; i < lazy.num_events(); i += 3) {
        every_third.push_back(i);
    }
    lazy = lazy.take(every_third);  // a new dataset: replica index = row
    resident = resident.take(every_third);
    expect_same(lazy, resident);
    lazy = lazy.bootstrap(11).subsample(0.7, 2);
    resident = resident.bootstrap(11).subsample(0.7, 2);
    expect_same(lazy, resident);
    EXPECT_NE(lazy.dataset(), resident.dataset());
    EXPECT_GT(lazy.num_events(), 10U);
}

TEST(DerivedSource, RangesAndProjectionsReadTheDerivedRows) {
    const Fixture f(300);
    const EventData lazy = f.lazy.subsample(0.5, 1).bootstrap(4);
    const EventData resident = EventData(f.resident).subsample(0.5, 1).bootstrap(4);
    const std::uint64_t n = lazy.num_events();
    ReadPlan plan;
    plan.chunk_size = 5;
    plan.ranges = {{1, 20}, {20, 21}, {40, n - 3}};
    plan.columns = {"x"};
    const Columns a = read(lazy, plan);
    const Columns b = read(resident, plan);
    EXPECT_EQ(a.x, b.x);
    EXPECT_EQ(a.w, b.w);
    EXPECT_EQ(a.x.size(), (20 - 1) + 1 + (n - 3 - 40));
    const Dataset materialized = lazy.materialize();
    EXPECT_EQ(materialized.size(), n);
    EXPECT_EQ(std::vector<double>(materialized.weights().begin(), materialized.weights().end()),
              resident.weights());
}

TEST(DerivedSource, EmptyResultsAndBadArgumentsAreHandled) {
    const Fixture f(50);
    const EventData none = f.lazy.subsample(0.0, 1);
    EXPECT_EQ(none.num_events(), 0U);
    EXPECT_TRUE(read(none).x.empty());
    EXPECT_EQ(none.sum_weights(), 0.0);
    EXPECT_EQ(f.lazy.subsample(1.0, 1).num_events(), 50U);
    EXPECT_THROW((void)f.lazy.subsample(1.5, 1), DataError);
    EXPECT_THROW((void)f.lazy.subsample(-0.1, 1), DataError);
    EXPECT_THROW((void)f.lazy.take({3, 3}), DataError);
    EXPECT_THROW((void)f.lazy.take({50}), DataError);
    EXPECT_THROW((void)EventData(f.resident).take({2, 1}), DataError);
    EXPECT_EQ(f.lazy.take({}).num_events(), 0U);
}

}  // namespace
}  // namespace laddu::data
