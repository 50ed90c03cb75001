// NLLs over streamed data and accepted MC, and over several simulated processes, give the same
// bits as the resident single-process NLL, for any thread count and either normalisation; the
// data and the accepted MC share one memory budget.
#include <algorithm>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/likelihood/nll.hpp>
#include <laddu/runtime/memory_pool.hpp>
#include <laddu/runtime/prepared_model.hpp>

#include "../runtime/test_collective.hpp"
#include "toy_model.hpp"

namespace laddu::likelihood {
namespace {

using data::EventData;
using data::MemoryPolicy;
using laddu::testing::toy_dataset;
using laddu::testing::toy_events;
using laddu::testing::with_normalization;
using laddu::testing::with_threads;

constexpr std::size_t kBudget = std::size_t{2} << 20;  // windows of a few chunks

class NllStreamingTest : public ::testing::Test {
protected:
    data::Dataset data_ = toy_dataset(toy_events(20011, 31));
    data::Dataset mc_ = toy_dataset(toy_events(30011, 32));
    // Tagged per wave: the fit fractions below need the tags; the sum still decomposes.
    expr::Model model_ = laddu::testing::toy_model({.tag_waves = true});
    std::vector<double> params_ = laddu::testing::toy_parameters();
};

TEST_F(NllStreamingTest, ValueAndGradientAreBitIdenticalResidentOrStreamingForAnyThreadCount) {
    std::vector<data::EventBatch> batches;
    for (std::size_t begin = 0; begin < mc_.size(); begin += 7777) {
        batches.push_back(
            mc_.batch().slice(begin, std::min<std::size_t>(7777, mc_.size() - begin)));
    }
    const auto mc_source =
        std::make_shared<data::MemorySource>(mc_.batch().schema_ptr(), std::move(batches));
    for (const auto strategy :
         {runtime::NormalizationMode::kAuto, runtime::NormalizationMode::kGeneral}) {
        const NLL reference(model_, data_, mc_, with_normalization(with_threads(1), strategy),
                            "nll");
        const double value = reference.value(params_);
        const runtime::Evaluation expected = reference.value_and_gradient(params_);
        EXPECT_EQ(expected.value, value);
        for (const std::size_t threads : {1U, 2U, 4U}) {
            const NLL resident(model_, data_, mc_,
                               with_normalization(with_threads(threads), strategy), "nll");
            EXPECT_EQ(resident.value(params_), value) << threads;
            EXPECT_EQ(resident.value_and_gradient(params_).gradient, expected.gradient) << threads;
            const NLL streaming(model_, EventData(data_, MemoryPolicy::kStreaming),
                                EventData::from_source(mc_source, MemoryPolicy::kStreaming),
                                with_normalization(with_threads(threads, kBudget), strategy),
                                "nll");
            EXPECT_EQ(streaming.uses_fast_normalization(),
                      strategy == runtime::NormalizationMode::kAuto);
            EXPECT_EQ(streaming.data_sum_weights(), reference.data_sum_weights());
            EXPECT_EQ(streaming.value(params_), value) << threads;
            const runtime::Evaluation got = streaming.value_and_gradient(params_);
            EXPECT_EQ(got.value, expected.value) << threads;
            EXPECT_EQ(got.gradient, expected.gradient) << threads;
        }
    }
}

TEST_F(NllStreamingTest, StreamedAcceptedMcGivesTheSameProjectionsAndFitFractions) {
    const NLL resident(model_, data_, mc_, with_threads(2));
    const NLL streaming(model_, data_, EventData(mc_, MemoryPolicy::kStreaming),
                        with_threads(2, kBudget));
    EXPECT_EQ(streaming.projection_weights(params_), resident.projection_weights(params_));
    EXPECT_EQ(streaming.projection_weights(params_, {"w1"}),
              resident.projection_weights(params_, {"w1"}));
    const runtime::Evaluation a = streaming.fit_fraction(params_, {"w0", "w2"});
    const runtime::Evaluation b = resident.fit_fraction(params_, {"w0", "w2"});
    EXPECT_EQ(a.value, b.value);
    EXPECT_EQ(a.gradient, b.gradient);
}

TEST_F(NllStreamingTest, SeveralProcessesGiveTheSingleProcessBits) {
    for (const auto strategy :
         {runtime::NormalizationMode::kAuto, runtime::NormalizationMode::kGeneral}) {
        const ExtendedNLL reference(model_, data_, mc_,
                                    with_normalization(with_threads(1), strategy), "enll");
        const runtime::Evaluation expected = reference.value_and_gradient(params_);
        for (const int size : {1, 2, 3}) {
            for (const bool stream : {false, true}) {
                runtime::testing::Hub hub(size);
                std::vector<runtime::Evaluation> got(static_cast<std::size_t>(size));
                std::vector<std::thread> ranks;
                for (int rank = 0; rank < size; ++rank) {
                    ranks.emplace_back([&, rank] {
                        runtime::Execution execution = with_threads(1, stream ? kBudget : 0);
                        execution.collective = std::make_shared<runtime::testing::TestCollective>(
                            hub, rank, runtime::testing::Partition::kRoundRobin);
                        const MemoryPolicy policy =
                            stream ? MemoryPolicy::kStreaming : MemoryPolicy::kFastest;
                        const ExtendedNLL nll(model_, EventData(data_, policy),
                                              EventData(mc_, policy),
                                              with_normalization(execution, strategy), "enll");
                        got[static_cast<std::size_t>(rank)] = nll.value_and_gradient(params_);
                    });
                }
                for (std::thread& t : ranks) {
                    t.join();
                }
                for (const runtime::Evaluation& e : got) {
                    EXPECT_EQ(e.value, expected.value) << size << (stream ? " streaming" : "");
                    EXPECT_EQ(e.gradient, expected.gradient) << size;
                }
            }
        }
    }
}

TEST_F(NllStreamingTest, DataAndAcceptedMcShareOneBudgetWithTheUnlimitedBits) {
    const compile::CompiledModel compiled = compile::compile_model(model_);
    const auto alone = [&](const data::Dataset& events, std::size_t budget) {
        return runtime::PreparedModel::prepare(compiled, events, with_threads(2, budget))
            .memory_report();
    };
    // Each fits the budget alone (its cache read a chunk at a time), but not both caches.
    const std::size_t budget = alone(mc_, 0).held_bytes + alone(data_, 0).held_bytes / 2;
    ASSERT_EQ(alone(data_, budget).policy, MemoryPolicy::kResident);
    ASSERT_EQ(alone(mc_, budget).policy, MemoryPolicy::kResident);

    const NLL unlimited(model_, data_, mc_,
                        with_normalization(with_threads(2), runtime::NormalizationMode::kGeneral),
                        "nll");
    const runtime::Evaluation expected = unlimited.value_and_gradient(params_);
    runtime::Execution execution = with_threads(2, budget);
    execution.memory_pool = std::make_shared<runtime::MemoryPool>(execution.memory);
    const NLL shared(model_, data_, mc_,
                     with_normalization(execution, runtime::NormalizationMode::kGeneral), "nll");
    const std::vector<runtime::MemoryReport> reports = execution.memory_pool->reports();
    ASSERT_EQ(reports.size(), 2U);
    EXPECT_EQ(reports[0].label, "the data");
    EXPECT_EQ(reports[0].policy, MemoryPolicy::kResident);
    EXPECT_EQ(reports[1].label, "the accepted Monte Carlo");
    EXPECT_EQ(reports[1].policy, MemoryPolicy::kStreaming);
    EXPECT_LE(reports[0].held_bytes + reports[1].peak_bytes, budget);
    EXPECT_EQ(execution.memory_pool->leased(), reports[0].held_bytes + reports[1].held_bytes);

    const runtime::Evaluation got = shared.value_and_gradient(params_);
    EXPECT_EQ(got.value, expected.value);
    EXPECT_EQ(got.gradient, expected.gradient);
    EXPECT_EQ(shared.value(params_), unlimited.value(params_));
    for (const runtime::LeaseDecision& d : execution.memory_pool->decisions()) {
        EXPECT_LE(d.leased, budget) << d.label;
    }
    // Without a pool of its own, an NLL still shares one budget between its data and MC.
    const NLL own(model_, data_, mc_,
                  with_normalization(with_threads(2, budget), runtime::NormalizationMode::kGeneral),
                  "nll");
    EXPECT_EQ(own.value_and_gradient(params_).gradient, expected.gradient);
}

TEST_F(NllStreamingTest, TheNormalisationMatrixLeasesItsReadWindowsWhileItRuns) {
    const auto mc_source = std::make_shared<data::MemorySource>(
        mc_.batch().schema_ptr(), std::vector<data::EventBatch>{mc_.batch()});
    runtime::Execution execution = with_threads(2, kBudget);
    execution.memory_pool = std::make_shared<runtime::MemoryPool>(execution.memory);
    const NLL nll(model_, data_, EventData::from_source(mc_source, MemoryPolicy::kFastest),
                  execution);
    ASSERT_TRUE(nll.uses_fast_normalization());
    const std::vector<runtime::LeaseDecision> log = execution.memory_pool->decisions();
    const auto windows = std::find_if(log.begin(), log.end(), [](const auto& d) {
        return d.label == "the accepted Monte Carlo (normalisation read windows)";
    });
    ASSERT_NE(windows, log.end());
    EXPECT_EQ(windows->kind, runtime::LeaseDecision::Kind::kGranted);
    EXPECT_GT(windows->bytes, 0U);
    EXPECT_LE(windows->leased, kBudget);
    // Released when the matrix is built: only the data's cache and the statistics themselves
    // are held now.
    ASSERT_EQ(execution.memory_pool->leases().size(), 2U);
    EXPECT_EQ(execution.memory_pool->leases()[0].label, "the data (resident cache)");
    EXPECT_EQ(execution.memory_pool->leases()[1].label,
              "the accepted Monte Carlo (normalisation statistics)");
    EXPECT_EQ(nll.value_and_gradient(params_).gradient,
              NLL(model_, data_, mc_, with_threads(2)).value_and_gradient(params_).gradient);
}

}  // namespace
}  // namespace laddu::likelihood
