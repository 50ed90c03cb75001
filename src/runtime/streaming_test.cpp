// Storage policies: resident and streaming caches give bit-identical reductions, evaluations
// and weights for any thread count and any source; the memory decisions follow the budget;
// a Collective splits the chunks over processes and still reproduces the single-process bits.
#include <cmath>
#include <complex>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/runtime/prepared_model.hpp>
#include <laddu/runtime/storage_plan.hpp>

#include "test_collective.hpp"
#include "test_reductions.hpp"
#include "toy_model.hpp"

namespace laddu::runtime {
namespace {

using Complex = std::complex<double>;
using data::EventData;
using data::MemoryPolicy;
using laddu::testing::with_threads;

constexpr std::size_t kEvents = 30011;  // 30 chunks, the last partial

// Everything a model computes, to compare bit for bit.
struct Results {
    double real = 0.0;
    double log = 0.0;
    Evaluation gradient;
    double sum_weights = 0.0;
    std::vector<Complex> values;
    std::vector<double> weights;
    std::vector<Complex> rows;

    friend bool operator==(const Results&, const Results&) = default;
};

Results run(const PreparedModel& model, const std::vector<double>& params) {
    Results r;
    r.real = model.reduce(params, ReductionTransform::kReal);
    r.log = model.reduce(params, ReductionTransform::kLogPositiveReal);
    r.gradient = model.reduce_with_gradient(params, ReductionTransform::kLogPositiveReal);
    r.sum_weights = model.sum_weights();
    r.values = model.evaluate(params);
    r.weights = model.weights();
    for (const std::size_t row : {std::size_t{0}, std::size_t{4095}, std::size_t{4096},
                                  std::size_t{12345}, model.local_events() - 1}) {
        if (row < model.local_events()) {
            r.rows.push_back(model.evaluate_row(params, row));
        }
    }
    return r;
}

std::string temp_file(const std::string& name) {
    std::random_device rd;
    return (std::filesystem::temp_directory_path() /
            ("laddu-runtime-" + std::to_string(rd()) + "-" + name))
        .string();
}

class StreamingTest : public ::testing::Test {
protected:
    // A budget whose streaming window holds `chunks` reduction chunks when `data` is prepared
    // with `execution` (its budget ignored): the cache's fixed part, the source's read buffers
    // and the workers' scratch, then per event the cache and twice the columns read.
    [[nodiscard]] std::size_t budget_for_windows(std::size_t chunks, const EventData& data,
                                                 Execution execution) const {
        execution.memory = {};
        const auto probe = PreparedModel::prepare(compiled_, data, execution);
        const MemoryReport& m = probe.memory_report();
        const std::size_t fixed = m.cache_bytes - m.cache_bytes_per_event * m.events +
                                  m.read_buffer_bytes + m.scratch_bytes;
        const std::size_t per_event = 2 * m.source_bytes_per_event + m.cache_bytes_per_event;
        return fixed + per_event * chunks * kReductionChunk + per_event / 2;
    }

    [[nodiscard]] std::size_t budget_for_windows(std::size_t chunks,
                                                 std::size_t threads = 1) const {
        return budget_for_windows(chunks, dataset_, with_threads(threads));
    }

    // An extra column the model never reads: streaming must not fetch it.
    data::Dataset dataset_ = laddu::testing::toy_dataset(
        laddu::testing::toy_events(kEvents, 23, 0.25), /*unused_column=*/true);
    compile::CompiledModel compiled_ =
        compile::compile_model(laddu::testing::toy_model({.offset = 0.1}));
    std::vector<double> params_ = laddu::testing::toy_parameters();
};

TEST(StoragePlan, ResidentCachePlanAccountsForBatchOverheadAndSourcePrefetch) {
    // Seed test 1: chunk 100 -> 45 -> 35 -> 35, resident 1000 + 100 · ceil(100/35).
    EXPECT_EQ(resident_cache_plan(100, 10, 20, 100, 2000), (ResidentPlan{1300, 35}));
    EXPECT_EQ(resident_cache_plan(100, 10, 20, 100, 1119), std::nullopt);  // minimum is 1120
    EXPECT_EQ(resident_cache_plan(100, 10, 20, 0, 0), (ResidentPlan{100, 1}));
    EXPECT_EQ(resident_cache_plan(1, SIZE_MAX, 1, 2, SIZE_MAX), std::nullopt);  // overflow
}

// 1000 fixed bytes of cache, 100 bytes of cache and 2 × 40 of reading per event, and no read
// buffers or scratch unless given.
StorageNeeds toy(std::size_t events, std::size_t read_buffers = 0, std::size_t scratch = 0) {
    return StorageNeeds{.events = events,
                        .cache_fixed = 1000,
                        .cache_bpe = 100,
                        .source_bpe = 40,
                        .read_buffers = read_buffers,
                        .scratch = scratch};
}

TEST(StoragePlan, PoliciesFollowTheBudget) {
    const std::size_t mib = std::size_t{1} << 20;
    // 100 bytes of cache and 2 × 40 of reading per event; 1e6 events need ~95 MiB resident.
    const StoragePlan fits =
        plan_storage(MemoryPolicy::kFastest, toy(1000000), 512 * mib, "512 MiB");
    EXPECT_EQ(fits.policy, MemoryPolicy::kResident);
    EXPECT_NE(fits.decision.find("resident"), std::string::npos) << fits.decision;
    const StoragePlan streams =
        plan_storage(MemoryPolicy::kFastest, toy(1000000), 8 * mib, "8 MiB");
    EXPECT_EQ(streams.policy, MemoryPolicy::kStreaming);
    EXPECT_EQ(streams.window_events % kReductionChunk, 0U);
    EXPECT_EQ(streams.window_events, (8 * mib - 1000) / 180 / kReductionChunk * kReductionChunk);
    EXPECT_LE(streams.peak_bytes, 8 * mib);
    EXPECT_NE(streams.decision.find("streaming (fastest policy, the cache needs"),
              std::string::npos)
        << streams.decision;
    // Streaming by request even when resident would fit; windows at most the events.
    const StoragePlan asked =
        plan_storage(MemoryPolicy::kStreaming, toy(5000), 512 * mib, "512 MiB");
    EXPECT_EQ(asked.policy, MemoryPolicy::kStreaming);
    EXPECT_EQ(asked.window_events,
              (5000 + kReductionChunk - 1) / kReductionChunk * kReductionChunk);
    try {
        (void)plan_storage(MemoryPolicy::kResident, toy(1000000), 8 * mib, "8 MiB");
        FAIL() << "a resident cache beyond the budget was accepted";
    } catch (const DataError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("memory budget is 8.0 MiB (8 MiB)"), std::string::npos) << message;
        EXPECT_NE(message.find("100 bytes per event"), std::string::npos) << message;
    }
    try {
        (void)plan_storage(MemoryPolicy::kStreaming, toy(1000000), 100000, "100000");
        FAIL() << "a window beyond the budget was accepted";
    } catch (const DataError& e) {
        EXPECT_NE(std::string(e.what()).find("one window of 1024 events"), std::string::npos)
            << e.what();
    }
}

TEST(StoragePlan, ReadBuffersAndScratchComeOutOfTheBudget) {
    const std::size_t mib = std::size_t{1} << 20;
    // 3 MiB of read buffers and 1 MiB of scratch leave 4 MiB for the cache's fixed part and the
    // windows; the planned peak counts all of it.
    const StoragePlan plan =
        plan_storage(MemoryPolicy::kStreaming, toy(1000000, 3 * mib, mib), 8 * mib, "8 MiB");
    EXPECT_EQ(plan.window_events, (4 * mib - 1000) / 180 / kReductionChunk * kReductionChunk);
    EXPECT_EQ(plan.peak_bytes, 1000 + 4 * mib + plan.window_events * 180);
    EXPECT_LE(plan.peak_bytes, 8 * mib);
    EXPECT_NE(plan.decision.find("3.0 MiB of source read buffers and 1.0 MiB of kernel scratch"),
              std::string::npos)
        << plan.decision;
    // The minimum is one window of a chunk beside them; below it the error names the minimum
    // and the remedy for the largest part.
    const std::size_t minimum = 1000 + 4 * mib + kReductionChunk * 180;
    EXPECT_EQ(plan_storage(MemoryPolicy::kStreaming, toy(1000000, 3 * mib, mib), minimum, "min")
                  .window_events,
              kReductionChunk);
    const auto refusal = [&](std::size_t read_buffers, std::size_t scratch) -> std::string {
        const std::size_t need = 1000 + read_buffers + scratch + kReductionChunk * 180;
        try {
            (void)plan_storage(MemoryPolicy::kStreaming, toy(1000000, read_buffers, scratch),
                               need - 1, "less");
        } catch (const DataError& e) {
            return e.what();
        }
        return "accepted";
    };
    const std::string pages = refusal(3 * mib, mib);
    EXPECT_NE(pages.find("needs at least 4.2 MiB for one window of 1024 events"), std::string::npos)
        << pages;
    EXPECT_NE(pages.find("raise the budget (Execution::memory) to at least 4.2 MiB"),
              std::string::npos)
        << pages;
    EXPECT_NE(pages.find("smaller data pages"), std::string::npos) << pages;
    const std::string threads = refusal(mib, 3 * mib);
    EXPECT_NE(threads.find("use fewer threads"), std::string::npos) << threads;
    // A resident cache must fit beside them too.
    const StoragePlan resident =
        plan_storage(MemoryPolicy::kFastest, toy(5000, 3 * mib, mib), 8 * mib, "8 MiB");
    EXPECT_EQ(resident.policy, MemoryPolicy::kResident);
    EXPECT_GE(resident.peak_bytes, 4 * mib + 1000 + std::size_t{5000} * 100);
    EXPECT_LE(resident.peak_bytes, 8 * mib);
    try {
        (void)plan_storage(MemoryPolicy::kResident, toy(5000, 4 * mib, 4 * mib - 400000), 8 * mib,
                           "8 MiB");
        FAIL() << "a resident cache beside the read buffers and scratch beyond the budget";
    } catch (const DataError& e) {
        EXPECT_NE(std::string(e.what()).find("4.0 MiB of source read buffers"), std::string::npos)
            << e.what();
    }
}

TEST_F(StreamingTest, ResidentAndStreamingAreBitIdenticalForOneTwoAndFourThreads) {
    const Results expected =
        run(PreparedModel::prepare(compiled_, dataset_, with_threads(1)), params_);
    ASSERT_EQ(expected.values.size(), kEvents);
    for (const std::size_t threads : {1U, 2U, 4U}) {
        const auto resident = PreparedModel::prepare(
            compiled_, EventData(dataset_, MemoryPolicy::kResident), with_threads(threads));
        EXPECT_TRUE(resident.is_resident());
        EXPECT_EQ(run(resident, params_), expected) << threads << " threads, resident";
        const auto streaming =
            PreparedModel::prepare(compiled_, EventData(dataset_, MemoryPolicy::kStreaming),
                                   with_threads(threads, budget_for_windows(3, threads)));
        EXPECT_FALSE(streaming.is_resident());
        EXPECT_EQ(streaming.memory_report().policy, MemoryPolicy::kStreaming);
        EXPECT_EQ(streaming.memory_report().window_events, 3 * kReductionChunk);
        EXPECT_EQ(run(streaming, params_), expected) << threads << " threads, streaming";
    }
}

TEST_F(StreamingTest, StreamedSourcesReChunkTheirBatchesIntoChunkAlignedWindows) {
    const Results expected =
        run(PreparedModel::prepare(compiled_, dataset_, with_threads(2)), params_);
    // Batches of odd sizes that never line up with the windows.
    std::vector<data::EventBatch> batches;
    for (std::size_t begin = 0; begin < kEvents; begin += 2999) {
        batches.push_back(
            dataset_.batch().slice(begin, std::min<std::size_t>(2999, kEvents - begin)));
    }
    auto memory = std::make_shared<data::MemorySource>(dataset_.batch().schema_ptr(), batches);
    const std::string path = temp_file("events.parquet");
    data::ParquetWriteOptions options;
    options.row_group_size = 5003;
    data::write_parquet(dataset_, path, options);
    auto parquet = std::make_shared<data::ParquetSource>(std::vector<std::string>{path});
    for (const std::shared_ptr<const data::EventSource>& source :
         std::vector<std::shared_ptr<const data::EventSource>>{memory, parquet}) {
        for (const std::size_t threads : {1U, 4U}) {
            const EventData data = EventData::from_source(source, MemoryPolicy::kStreaming);
            const auto streaming = PreparedModel::prepare(
                compiled_, data,
                with_threads(threads, budget_for_windows(2, data, with_threads(threads))));
            EXPECT_EQ(streaming.memory_report().window_events, 2 * kReductionChunk);
            EXPECT_EQ(run(streaming, params_), expected) << threads << " threads";
            // Fastest with room for everything caches a source resident.
            const auto fastest = PreparedModel::prepare(compiled_, EventData::from_source(source),
                                                        with_threads(threads));
            EXPECT_TRUE(fastest.is_resident());
            EXPECT_EQ(run(fastest, params_), expected) << threads << " threads";
        }
    }
    // Only the model's columns are read: 4 for k, 1 for x, and the weight.
    const EventData data = EventData::from_source(parquet, MemoryPolicy::kStreaming);
    const auto streaming = PreparedModel::prepare(
        compiled_, data, with_threads(1, budget_for_windows(2, data, with_threads(1))));
    EXPECT_EQ(streaming.memory_report().source_bytes_per_event, 6 * sizeof(double));
    std::filesystem::remove(path);
}

// f32 runs keep a float cache: half the column bytes, and the same bits whether the cache is
// resident, streamed in windows or assembled from a source's batches (EventCache::place).
TEST_F(StreamingTest, F32CachesAreFloatAndBitIdenticalResidentStreamedAndAssembled) {
    const auto f32 = [](std::size_t threads, std::size_t budget = 0) {
        Execution e = with_threads(threads, budget);
        e.precision = ir::Precision::kF32;
        return e;
    };
    const auto wide = PreparedModel::prepare(compiled_, dataset_, with_threads(1));
    const auto resident = PreparedModel::prepare(compiled_, dataset_, f32(1));
    const std::size_t wide_columns = wide.memory_report().cache_bytes_per_event - sizeof(double);
    EXPECT_EQ(resident.memory_report().cache_bytes_per_event - sizeof(double), wide_columns / 2);
    const Results expected = run(resident, params_);
    // Single precision: close to the f64 values, not equal.
    EXPECT_NEAR(expected.log, run(wide, params_).log, 1e-5 * std::abs(expected.log));
    std::vector<data::EventBatch> batches;
    for (std::size_t begin = 0; begin < kEvents; begin += 3001) {
        batches.push_back(
            dataset_.batch().slice(begin, std::min<std::size_t>(3001, kEvents - begin)));
    }
    auto source = std::make_shared<data::MemorySource>(dataset_.batch().schema_ptr(), batches);
    for (const std::size_t threads : {1U, 2U}) {
        const EventData data = EventData::from_source(source, MemoryPolicy::kStreaming);
        const auto streaming = PreparedModel::prepare(
            compiled_, data, f32(threads, budget_for_windows(2, data, f32(threads))));
        EXPECT_FALSE(streaming.is_resident());
        EXPECT_EQ(run(streaming, params_), expected) << threads << " threads, streaming";
        const auto assembled =
            PreparedModel::prepare(compiled_, EventData::from_source(source), f32(threads));
        EXPECT_TRUE(assembled.is_resident());
        EXPECT_EQ(run(assembled, params_), expected) << threads << " threads, assembled";
    }
}

TEST_F(StreamingTest, FastestStreamsWhenTheCacheDoesNotFitAndResidentRefuses) {
    const std::size_t budget = budget_for_windows(1);
    const auto fastest = PreparedModel::prepare(compiled_, dataset_, with_threads(1, budget));
    EXPECT_EQ(fastest.memory_report().requested, MemoryPolicy::kFastest);
    EXPECT_EQ(fastest.memory_report().policy, MemoryPolicy::kStreaming);
    EXPECT_EQ(fastest.memory_report().window_events, kReductionChunk);
    EXPECT_LE(fastest.memory_report().peak_bytes, budget);
    EXPECT_NE(fastest.memory_report().decision.find("the cache needs"), std::string::npos)
        << fastest.memory_report().decision;
    try {
        (void)fastest.cache();
        FAIL() << "a streaming model handed out a cache";
    } catch (const DataError& e) {
        EXPECT_NE(std::string(e.what()).find("holds no resident cache"), std::string::npos);
    }
    try {
        (void)PreparedModel::prepare(compiled_, EventData(dataset_, MemoryPolicy::kResident),
                                     with_threads(1, budget));
        FAIL() << "a resident cache beyond the budget was accepted";
    } catch (const DataError& e) {
        EXPECT_NE(std::string(e.what()).find("memory budget"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("bytes per event"), std::string::npos) << e.what();
    }
}

// Issue 21: a file of 2^20-row row groups, as write_parquet and `laddu-cpp generate` write it,
// was decoded a whole row group at a time (here 48 MiB) beside a plan that counted a window's
// rows only. A stream now decodes page by page, and the plan counts its read buffers (a page and
// the dictionary per column) and the workers' scratch: the planned peak is everything the plan
// causes and stays within the budget, one byte less than the minimum is a DataError naming it,
// and the results are the resident ones bit for bit.
TEST_F(StreamingTest, AMillionRowGroupIsStreamedWithinTheBudgetItsPlanCounts) {
    const std::size_t events = (std::size_t{1} << 20) + 4099;
    const data::Dataset dataset =
        laddu::testing::toy_dataset(laddu::testing::toy_events(events, 29));
    const std::string path = temp_file("million.parquet");
    data::write_parquet(dataset, path);  // the default options: row groups of 2^20 rows
    auto parquet = std::make_shared<data::ParquetSource>(std::vector<std::string>{path});
    ASSERT_EQ(parquet->fragment_sizes(), (std::vector<std::size_t>{std::size_t{1} << 20, 4099}));
    const EventData data = EventData::from_source(parquet, MemoryPolicy::kStreaming);
    const std::size_t mib = std::size_t{1} << 20;
    const auto streaming = PreparedModel::prepare(compiled_, data, with_threads(2, 8 * mib));
    const MemoryReport& m = streaming.memory_report();
    EXPECT_EQ(m.policy, MemoryPolicy::kStreaming);
    const std::size_t row_group = (std::size_t{1} << 20) * m.source_bytes_per_event;
    EXPECT_GT(m.read_buffer_bytes, 0U);
    EXPECT_LT(m.read_buffer_bytes, row_group / 8) << "the read buffers follow the pages";
    EXPECT_GT(m.scratch_bytes, 0U);
    const std::size_t fixed = m.cache_bytes - m.cache_bytes_per_event * m.events;
    const std::size_t per_event = 2 * m.source_bytes_per_event + m.cache_bytes_per_event;
    EXPECT_EQ(m.peak_bytes,
              fixed + m.read_buffer_bytes + m.scratch_bytes + m.window_events * per_event);
    EXPECT_LE(m.peak_bytes, 8 * mib);
    EXPECT_GE(m.window_events, 2 * kReductionChunk);
    EXPECT_NE(m.decision.find("of source read buffers"), std::string::npos) << m.decision;

    const auto resident = PreparedModel::prepare(compiled_, dataset, with_threads(2));
    EXPECT_EQ(streaming.reduce(params_, ReductionTransform::kLogPositiveReal),
              resident.reduce(params_, ReductionTransform::kLogPositiveReal));
    EXPECT_EQ(streaming.reduce_with_gradient(params_, ReductionTransform::kLogPositiveReal),
              resident.reduce_with_gradient(params_, ReductionTransform::kLogPositiveReal));

    // The smallest budget holds one window of one chunk; a byte less is refused, with the need.
    const std::size_t minimum =
        fixed + m.read_buffer_bytes + m.scratch_bytes + kReductionChunk * per_event;
    EXPECT_EQ(PreparedModel::prepare(compiled_, data, with_threads(2, minimum))
                  .memory_report()
                  .window_events,
              kReductionChunk);
    try {
        (void)PreparedModel::prepare(compiled_, data, with_threads(2, minimum - 1));
        FAIL() << "a budget below the minimum was accepted";
    } catch (const DataError& e) {
        const std::string message = e.what();
        EXPECT_NE(
            message.find(fmt::format("needs at least {:.1f} MiB",
                                     static_cast<double>(minimum) / static_cast<double>(mib))),
            std::string::npos)
            << message;
        EXPECT_NE(message.find("of source read buffers"), std::string::npos) << message;
        EXPECT_NE(message.find("raise the budget (Execution::memory)"), std::string::npos)
            << message;
    }
    std::filesystem::remove(path);
}

TEST_F(StreamingTest, AStreamedNonPositiveValueNamesItsGlobalEvent) {
    const auto compiled = compile::compile_model(
        expr::Model(expr::scalar("x") * expr::parameter("s", {.initial = 1.0})));
    const std::span<const double> x = dataset_.column("x");
    std::size_t first_bad = 12 * kReductionChunk;  // the first bad event after window 1
    while (x[first_bad] > 0.0) {
        ++first_bad;
    }
    // Positive before it: shift the data so only events from chunk 12 on can be negative.
    std::vector<double> shifted(x.begin(), x.end());
    for (std::size_t i = 0; i < first_bad; ++i) {
        shifted[i] = std::abs(shifted[i]) + 0.5;
    }
    const std::vector<data::ScalarInput> scalars{{"x", shifted}};
    const auto data = data::Dataset::from_scalars(scalars, dataset_.weights());
    const std::vector<double> params{1.0};
    for (const MemoryPolicy policy : {MemoryPolicy::kResident, MemoryPolicy::kStreaming}) {
        const auto prepared = PreparedModel::prepare(compiled, EventData(data, policy),
                                                     with_threads(2, budget_for_windows(8, 2)));
        try {
            (void)prepared.reduce(params, ReductionTransform::kLogPositiveReal);
            FAIL() << "a negative value went under the log";
        } catch (const EvaluationError& e) {
            EXPECT_NE(std::string(e.what()).find("at event " + std::to_string(first_bad)),
                      std::string::npos)
                << e.what();
        }
    }
}

// Runs `fn(rank, collective)` on P threads, one simulated process each.
template <typename Fn>
void on_ranks(int size, testing::Partition partition, Fn fn) {
    testing::Hub hub(size);
    std::vector<std::thread> threads;
    for (int rank = 0; rank < size; ++rank) {
        threads.emplace_back([&, rank] {
            auto collective = std::make_shared<testing::TestCollective>(hub, rank, partition);
            fn(rank, std::shared_ptr<const Collective>(collective));
        });
    }
    for (std::thread& t : threads) {
        t.join();
    }
}

TEST_F(StreamingTest, CollectiveReductionsEqualOneProcessBitForBit) {
    const auto single = PreparedModel::prepare(compiled_, dataset_, with_threads(1));
    const double real = single.reduce(params_, ReductionTransform::kReal);
    const Evaluation gradient =
        single.reduce_with_gradient(params_, ReductionTransform::kLogPositiveReal);
    const double weights = single.sum_weights();
    const std::vector<Complex> values = single.evaluate(params_);
    const std::string path = temp_file("collective.parquet");
    data::ParquetWriteOptions options;
    options.row_group_size = 7001;
    data::write_parquet(dataset_, path, options);
    auto parquet = std::make_shared<data::ParquetSource>(std::vector<std::string>{path});
    // Room for one window on every rank (a rank's read buffers are at most the whole file's).
    const std::size_t budget =
        budget_for_windows(1, EventData::from_source(parquet), with_threads(2));
    for (const int size : {1, 2, 3}) {
        for (const auto partition :
             {testing::Partition::kContiguous, testing::Partition::kRoundRobin}) {
            for (const bool stream : {false, true}) {
                on_ranks(size, partition, [&](int rank, std::shared_ptr<const Collective> c) {
                    Execution execution = with_threads(rank == 0 ? 2 : 1, stream ? budget : 0);
                    execution.collective = std::move(c);
                    const EventData data =
                        stream ? EventData::from_source(parquet, MemoryPolicy::kStreaming)
                               : EventData(dataset_);
                    const auto model = PreparedModel::prepare(compiled_, data, execution);
                    const std::string where =
                        fmt::format("rank {} of {}, partition {}, {}", rank, size,
                                    static_cast<int>(partition), stream ? "streaming" : "resident");
                    EXPECT_EQ(model.events(), kEvents) << where;
                    EXPECT_EQ(model.sum_weights(), weights) << where;
                    EXPECT_EQ(model.reduce(params_, ReductionTransform::kReal), real) << where;
                    EXPECT_EQ(
                        model.reduce_with_gradient(params_, ReductionTransform::kLogPositiveReal),
                        gradient)
                        << where;
                    // Local evaluations are the owned chunks' events.
                    const std::vector<Complex> local = model.evaluate(params_);
                    ASSERT_EQ(local.size(), model.local_events()) << where;
                    for (std::size_t i = 0; i < local.size(); i += 997) {
                        const std::size_t chunk = model.owned_chunks()[i / kReductionChunk];
                        EXPECT_EQ(local[i], values[chunk * kReductionChunk + i % kReductionChunk])
                            << where << " local event " << i;
                    }
                });
            }
        }
    }
    std::filesystem::remove(path);
}

TEST_F(StreamingTest, ACollectiveErrorIsRaisedOnEveryRank) {
    const auto compiled = compile::compile_model(
        expr::Model(expr::scalar("x") * expr::parameter("s", {.initial = 1.0})));
    const std::vector<double> params{1.0};
    for (const int size : {1, 3}) {
        std::vector<std::string> messages(static_cast<std::size_t>(size));
        on_ranks(size, testing::Partition::kContiguous,
                 [&](int rank, std::shared_ptr<const Collective> c) {
                     Execution execution = with_threads(1);
                     execution.collective = std::move(c);
                     const auto model = PreparedModel::prepare(compiled, dataset_, execution);
                     try {
                         (void)model.reduce(params, ReductionTransform::kLogPositiveReal);
                     } catch (const EvaluationError& e) {
                         messages[static_cast<std::size_t>(rank)] = e.what();
                     }
                 });
        for (const std::string& message : messages) {
            EXPECT_NE(message.find(fmt::format("rank 0 of {}: ", size)), std::string::npos)
                << message;
            EXPECT_NE(message.find("LogPositiveReal"), std::string::npos) << message;
        }
    }
    // A prepare error on one rank (here: missing columns everywhere) throws on all of them.
    const std::vector<data::ScalarInput> scalars{{"y", dataset_.column("x")}};
    const auto other = data::Dataset::from_scalars(scalars);
    std::vector<int> thrown(2, 0);
    on_ranks(2, testing::Partition::kRoundRobin,
             [&](int rank, std::shared_ptr<const Collective> c) {
                 Execution execution = with_threads(1);
                 execution.collective = std::move(c);
                 try {
                     (void)PreparedModel::prepare(compiled, other, execution);
                 } catch (const DataError& e) {
                     thrown[static_cast<std::size_t>(rank)] =
                         std::string(e.what()).find("rank 0 of 2: the model reads event columns") !=
                                 std::string::npos
                             ? 1
                             : 2;
                 }
             });
    EXPECT_EQ(thrown, (std::vector<int>{1, 1}));
}

}  // namespace
}  // namespace laddu::runtime
