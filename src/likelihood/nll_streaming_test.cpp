// NLLs over streamed data and accepted MC, and over several simulated processes, give the same
// bits as the resident single-process NLL, for any thread count and either normalisation.
#include <cmath>
#include <complex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/data/event_data.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/likelihood/nll.hpp>

#include "../runtime/test_collective.hpp"

namespace laddu::likelihood {
namespace {

using expr::Expr;
using Complex = std::complex<double>;
using data::EventData;
using data::MemoryPolicy;

data::Dataset make_dataset(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> e, px, py, pz, x, w;
    for (std::size_t i = 0; i < n; ++i) {
        px.push_back(u(rng));
        py.push_back(u(rng));
        pz.push_back(u(rng));
        e.push_back(std::sqrt(px.back() * px.back() + py.back() * py.back() +
                              pz.back() * pz.back() + 0.25));
        x.push_back(u(rng));
        w.push_back(0.5 + 0.5 * (u(rng) + 1.0));
    }
    const std::vector<data::P4Input> p4s{{"k", e, px, py, pz}};
    const std::vector<data::ScalarInput> scalars{{"x", x}};
    return data::Dataset::from_arrays(p4s, scalars, w);
}

// |Σ_k (a_k + i b_k) exp(i k x) (k + m²)|², tagged per wave (decomposes: fast normalisation).
expr::Model make_model() {
    const Expr x = expr::scalar("x");
    const Expr e = expr::p4_component("k", expr::P4Component::kE);
    const Expr px = expr::p4_component("k", expr::P4Component::kPx);
    const Expr py = expr::p4_component("k", expr::P4Component::kPy);
    const Expr pz = expr::p4_component("k", expr::P4Component::kPz);
    const Expr m2 = e * e - px * px - py * py - pz * pz;
    Expr sum = expr::constant(Complex(0.0, 0.0));
    for (int k = 0; k < 3; ++k) {
        const Expr a = expr::parameter("a" + std::to_string(k), {.initial = 1.0});
        const Expr b = expr::parameter("b" + std::to_string(k), {.initial = 0.0});
        sum = sum + (expr::complex(a, b) * expr::cis(static_cast<double>(k) * x) *
                     (static_cast<double>(k) + m2))
                        .tagged("w" + std::to_string(k));
    }
    return expr::Model(expr::norm_sqr(sum));
}

runtime::Execution with(std::size_t threads, std::size_t budget = 0) {
    runtime::Execution execution;
    execution.threads = threads;
    if (budget > 0) {
        execution.memory = runtime::MemoryPlan::bytes(budget);
    }
    return execution;
}

constexpr std::size_t kBudget = std::size_t{2} << 20;  // windows of a few chunks

class NllStreamingTest : public ::testing::Test {
protected:
    data::Dataset data_ = make_dataset(20011, 31);
    data::Dataset mc_ = make_dataset(30011, 32);
    expr::Model model_ = make_model();
    std::vector<double> params_{0.7, -0.2, 0.3, 0.9, -1.1, 0.4};
};

TEST_F(NllStreamingTest, ValueAndGradientAreBitIdenticalResidentOrStreamingForAnyThreadCount) {
    std::vector<data::EventBatch> batches;
    for (std::size_t begin = 0; begin < mc_.size(); begin += 7777) {
        batches.push_back(
            mc_.batch().slice(begin, std::min<std::size_t>(7777, mc_.size() - begin)));
    }
    const auto mc_source =
        std::make_shared<data::MemorySource>(mc_.batch().schema_ptr(), std::move(batches));
    for (const auto strategy : {NormalizationStrategy::kAuto, NormalizationStrategy::kMcPass}) {
        const NLL reference(model_, data_, mc_, with(1), "nll", strategy);
        const double value = reference.value(params_);
        const Evaluation expected = reference.value_and_gradient(params_);
        EXPECT_EQ(expected.value, value);
        for (const std::size_t threads : {1U, 2U, 4U}) {
            const NLL resident(model_, data_, mc_, with(threads), "nll", strategy);
            EXPECT_EQ(resident.value(params_), value) << threads;
            EXPECT_EQ(resident.value_and_gradient(params_).gradient, expected.gradient) << threads;
            const NLL streaming(model_, EventData(data_, MemoryPolicy::kStreaming),
                                EventData::from_source(mc_source, MemoryPolicy::kStreaming),
                                with(threads, kBudget), "nll", strategy);
            EXPECT_EQ(streaming.uses_fast_normalization(),
                      strategy == NormalizationStrategy::kAuto);
            EXPECT_EQ(streaming.data_sum_weights(), reference.data_sum_weights());
            EXPECT_EQ(streaming.value(params_), value) << threads;
            const Evaluation got = streaming.value_and_gradient(params_);
            EXPECT_EQ(got.value, expected.value) << threads;
            EXPECT_EQ(got.gradient, expected.gradient) << threads;
        }
    }
}

TEST_F(NllStreamingTest, StreamedAcceptedMcGivesTheSameProjectionsAndFitFractions) {
    const NLL resident(model_, data_, mc_, with(2));
    const NLL streaming(model_, data_, EventData(mc_, MemoryPolicy::kStreaming), with(2, kBudget));
    EXPECT_EQ(streaming.projection_weights(params_), resident.projection_weights(params_));
    EXPECT_EQ(streaming.projection_weights(params_, {"w1"}),
              resident.projection_weights(params_, {"w1"}));
    const Evaluation a = streaming.fit_fraction(params_, {"w0", "w2"});
    const Evaluation b = resident.fit_fraction(params_, {"w0", "w2"});
    EXPECT_EQ(a.value, b.value);
    EXPECT_EQ(a.gradient, b.gradient);
}

TEST_F(NllStreamingTest, SeveralProcessesGiveTheSingleProcessBits) {
    for (const auto strategy : {NormalizationStrategy::kAuto, NormalizationStrategy::kMcPass}) {
        const ExtendedNLL reference(model_, data_, mc_, with(1), "enll", strategy);
        const Evaluation expected = reference.value_and_gradient(params_);
        for (const int size : {1, 2, 3}) {
            for (const bool stream : {false, true}) {
                runtime::testing::Hub hub(size);
                std::vector<Evaluation> got(static_cast<std::size_t>(size));
                std::vector<std::thread> ranks;
                for (int rank = 0; rank < size; ++rank) {
                    ranks.emplace_back([&, rank] {
                        runtime::Execution execution = with(1, stream ? kBudget : 0);
                        execution.collective = std::make_shared<runtime::testing::TestCollective>(
                            hub, rank, runtime::testing::Partition::kRoundRobin);
                        const MemoryPolicy policy =
                            stream ? MemoryPolicy::kStreaming : MemoryPolicy::kFastest;
                        const ExtendedNLL nll(model_, EventData(data_, policy),
                                              EventData(mc_, policy), execution, "enll", strategy);
                        got[static_cast<std::size_t>(rank)] = nll.value_and_gradient(params_);
                    });
                }
                for (std::thread& t : ranks) {
                    t.join();
                }
                for (const Evaluation& e : got) {
                    EXPECT_EQ(e.value, expected.value) << size << (stream ? " streaming" : "");
                    EXPECT_EQ(e.gradient, expected.gradient) << size;
                }
            }
        }
    }
}

}  // namespace
}  // namespace laddu::likelihood
