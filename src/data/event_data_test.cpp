// EventData, MemoryPolicy, fragment sizes and ReadPlan::ranges over memory and Parquet sources.
#include <cstring>
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

// Scalar x = offset + i and weight 1 + i / 8 for events i = 0 .. n-1.
Dataset numbered(std::size_t n, double offset = 0.0) {
    std::vector<double> x(n);
    std::vector<double> w(n);
    for (std::size_t i = 0; i < n; ++i) {
        x[i] = offset + static_cast<double>(i);
        w[i] = 1.0 + static_cast<double>(i) / 8.0;
    }
    const std::vector<ScalarInput> scalars{{"x", x}};
    return Dataset::from_scalars(scalars, w);
}

struct Read {
    std::vector<double> x;
    std::vector<double> w;
    std::vector<std::size_t> sizes;
};

Read read(const EventSource& source, const ReadPlan& plan) {
    Read out;
    for (const EventBatch& batch : read_all(source, plan)) {
        out.sizes.push_back(batch.size());
        for (std::size_t i = 0; i < batch.size(); ++i) {
            out.x.push_back(batch.scalar_at(0, i));
            out.w.push_back(batch.weight_at(i));
        }
    }
    return out;
}

std::vector<double> expected_x(const std::vector<EventRange>& ranges, double offset = 0.0) {
    std::vector<double> x;
    for (const auto& [first, end] : ranges) {
        for (std::uint64_t i = first; i < end; ++i) {
            x.push_back(offset + static_cast<double>(i));
        }
    }
    return x;
}

TEST(MemoryPolicy, ParsesItsNamesAndListsThemOnError) {
    EXPECT_EQ(parse_memory_policy("fastest"), MemoryPolicy::kFastest);
    EXPECT_EQ(parse_memory_policy("resident"), MemoryPolicy::kResident);
    EXPECT_EQ(parse_memory_policy("streaming"), MemoryPolicy::kStreaming);
    for (const MemoryPolicy p :
         {MemoryPolicy::kFastest, MemoryPolicy::kResident, MemoryPolicy::kStreaming}) {
        EXPECT_EQ(parse_memory_policy(memory_policy_name(p)), p);
    }
    try {
        (void)parse_memory_policy("lazy");
        FAIL() << "parsed an unknown policy";
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("'lazy'; choose one of fastest, resident, streaming"),
                  std::string::npos)
            << e.what();
    }
}

TEST(EventData, ADatasetIsResidentUnderFastestAndConvertsImplicitly) {
    const Dataset dataset = numbered(10);
    const EventData data = dataset;
    EXPECT_EQ(data.policy(), MemoryPolicy::kFastest);
    EXPECT_EQ(data.num_events(), 10U);
    ASSERT_NE(data.dataset(), nullptr);
    EXPECT_EQ(data.dataset()->size(), 10U);
    EXPECT_EQ(data.fragment_sizes(), std::vector<std::size_t>{10});
    EXPECT_EQ(data.schema().scalar_names(), std::vector<std::string>{"x"});
    EXPECT_EQ(data.with_policy(MemoryPolicy::kStreaming).policy(), MemoryPolicy::kStreaming);
    const Read all = read(*data.source(), {});
    EXPECT_EQ(all.x, expected_x({{0, 10}}));
}

TEST(EventData, FromASourceKeepsItLazyAndMaterializesOnRequest) {
    const std::vector<EventBatch> batches{numbered(4).batch(), numbered(6, 4.0).batch()};
    auto source = std::make_shared<MemorySource>(batches[0].schema_ptr(), batches);
    const EventData data = EventData::from_source(source, MemoryPolicy::kStreaming);
    EXPECT_EQ(data.dataset(), nullptr);
    EXPECT_EQ(data.num_events(), 10U);
    EXPECT_EQ(data.fragment_sizes(), (std::vector<std::size_t>{4, 6}));
    ReadPlan plan;
    plan.ranges = {{2, 7}};
    const Dataset part = data.materialize(plan);
    ASSERT_EQ(part.size(), 5U);
    EXPECT_EQ(part.column("x")[0], 2.0);
    EXPECT_EQ(part.weights()[4], 1.0 + 2.0 / 8.0);  // event 6 is row 2 of the second batch
    EXPECT_THROW((void)EventData::from_source(nullptr), DataError);
}

TEST(ReadPlanRanges, MemorySourceReadsOnlyTheRangesAcrossBatchBoundaries) {
    const std::vector<EventBatch> batches{numbered(5).batch(), numbered(7, 5.0).batch(),
                                          numbered(3, 12.0).batch()};
    const MemorySource source(batches[0].schema_ptr(), batches);
    ReadPlan plan;
    plan.chunk_size = 2;
    plan.ranges = {{3, 6}, {9, 13}, {14, 15}};
    const Read got = read(source, plan);
    EXPECT_EQ(got.x, expected_x(plan.ranges));
    // Pieces never cross a batch, a range or the chunk size: [3,5) [5,6) [9,11) [11,12) [12,13)
    // [14,15).
    EXPECT_EQ(got.sizes, (std::vector<std::size_t>{2, 1, 2, 1, 1, 1}));
    ASSERT_EQ(got.w.size(), got.x.size());
    EXPECT_EQ(got.w[3], 1.0 + 4.0 / 8.0);  // event 9 is row 4 of the second batch
}

TEST(ReadPlanRanges, InvalidRangesAreDataErrors) {
    const MemorySource source =
        MemorySource(numbered(10).batch().schema_ptr(), {numbered(10).batch()});
    for (const std::vector<EventRange>& ranges : std::vector<std::vector<EventRange>>{
             {{3, 3}}, {{5, 8}, {2, 4}}, {{2, 6}, {5, 7}}, {{8, 11}}}) {
        ReadPlan plan;
        plan.ranges = ranges;
        try {
            (void)source.read(plan);
            FAIL() << "accepted bad ranges";
        } catch (const DataError& e) {
            EXPECT_NE(std::string(e.what()).find("ascending, disjoint and within the source"),
                      std::string::npos)
                << e.what();
        }
    }
}

class ParquetRanges : public ::testing::Test {
protected:
    void write(const ParquetWriteOptions& options) const {
        write_parquet(numbered(100, 1000.0), path_, options);
    }

    ScratchDir dir_;
    std::string path_ = dir_.file("events.parquet");
};

TEST_F(ParquetRanges, FragmentsAreRowGroupsAndOnlyOverlappingOnesAreDecoded) {
    ParquetWriteOptions options;
    options.row_group_size = 25;
    write(options);
    const ParquetSource source({path_});
    EXPECT_EQ(source.fragment_sizes(), (std::vector<std::size_t>{25, 25, 25, 25}));
    ReadPlan plan;
    plan.chunk_size = 8;
    plan.ranges = {{10, 30}, {80, 90}};  // row groups 0, 1 (partly) and 3 (partly)
    const Read got = read(source, plan);
    EXPECT_EQ(got.x, expected_x(plan.ranges, 1000.0));
    EXPECT_EQ(got.sizes, (std::vector<std::size_t>{8, 7, 5, 8, 2}));
    EXPECT_EQ(source.fragments_decoded(), 3U);
    EXPECT_EQ(got.w.front(), 1.0 + 10.0 / 8.0);
}

TEST_F(ParquetRanges, ASkippedRowGroupIsNeverRead) {
    ParquetWriteOptions options;
    options.row_group_size = 25;
    options.compression = Compression::kUncompressed;
    options.write_statistics = false;
    write(options);
    // Corrupt the page header in front of row group 2's x values (x = 1050 .. 1074).
    std::vector<std::uint8_t> bytes = testing::read_bytes(path_);
    const double first = 1050.0;
    std::uint8_t pattern[sizeof(double)];
    std::memcpy(pattern, &first, sizeof(double));
    std::size_t at = 0;
    while (at + sizeof(double) <= bytes.size() &&
           std::memcmp(bytes.data() + at, pattern, sizeof(double)) != 0) {
        ++at;
    }
    ASSERT_LT(at + sizeof(double), bytes.size()) << "row group 2's values not found";
    ASSERT_GE(at, 12U);
    for (std::size_t i = at - 12; i < at; ++i) {
        bytes[i] = 0xFF;
    }
    testing::write_bytes(path_, bytes);
    const ParquetSource source({path_});
    EXPECT_THROW((void)read(source, {}), DataError);
    ReadPlan plan;
    plan.ranges = {{20, 50}, {75, 100}};
    EXPECT_EQ(read(source, plan).x, expected_x(plan.ranges, 1000.0));
}

}  // namespace
}  // namespace laddu::data
