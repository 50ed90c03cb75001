// The affine-invariant ensemble sampler: a correlated Gaussian's mean and covariance within
// Monte Carlo error for both moves, bounds, determinism by seed and thread count, chain storage,
// the autocorrelation time of an AR(1) process and the errors.
#include <chrono>
#include <cmath>
#include <mutex>
#include <numbers>
#include <random>
#include <set>
#include <span>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/fit/ensemble_sampler.hpp>

#include "ensemble_test_support.hpp"

namespace laddu::fit {
namespace {

using testing::cloud;
using testing::expect_gaussian_moments;
using testing::gaussian;

TEST(EnsembleSampler, StretchMovesSampleACorrelatedGaussian) {
    const McmcChain chain = sample_aies(gaussian, cloud(32, 1), {.seed = 7}, {.max_steps = 4000});
    EXPECT_EQ(chain.walkers, 32U);
    EXPECT_EQ(chain.steps, 4001U);
    EXPECT_EQ(chain.dimension, 2U);
    EXPECT_EQ(chain.evaluations, 32U * 4001U);
    EXPECT_TRUE(chain.success);
    EXPECT_EQ(chain.message, "Maximum number of steps reached");
    for (const double a : chain.acceptance) {
        EXPECT_GT(a, 0.3);
        EXPECT_LT(a, 0.9);
    }
    expect_gaussian_moments(chain, 1000);
}

TEST(EnsembleSampler, WalkMovesAndMixturesSampleItToo) {
    const AiesOptions walk{.moves = {{{AiesMove::Kind::kWalk}, 1.0}}, .seed = 8};
    expect_gaussian_moments(sample_aies(gaussian, cloud(32, 2), walk, {.max_steps = 4000}), 1000);
    const AiesOptions mixed{
        .moves = {{{AiesMove::Kind::kStretch, 1.5}, 0.7}, {{AiesMove::Kind::kWalk}, 0.3}},
        .seed = 9};
    expect_gaussian_moments(sample_aies(gaussian, cloud(32, 3), mixed, {.max_steps = 4000}), 1000);
}

TEST(EnsembleSampler, TheSeedDecidesTheChain) {
    const McmcChain a = sample_aies(gaussian, cloud(8, 1), {.seed = 5}, {.max_steps = 50});
    const McmcChain b = sample_aies(gaussian, cloud(8, 1), {.seed = 5}, {.max_steps = 50});
    const McmcChain c = sample_aies(gaussian, cloud(8, 1), {.seed = 6}, {.max_steps = 50});
    EXPECT_EQ(a.values, b.values);
    EXPECT_NE(a.values, c.values);
    // The stretch scale changes the proposals.
    const McmcChain d =
        sample_aies(gaussian, cloud(8, 1), {.stretch_scale = 3.0, .seed = 5}, {.max_steps = 50});
    EXPECT_NE(a.values, d.values);
}

TEST(EnsembleSampler, ThreadsEvaluateWalkersAtOnceAndGiveTheSameChain) {
    const McmcChain serial = sample_aies(gaussian, cloud(16, 1), {.seed = 4}, {.max_steps = 300});
    std::mutex mutex;
    std::set<std::thread::id> seen;
    const auto recording = [&](std::span<const double> x) {
        {
            const std::lock_guard lock(mutex);
            seen.insert(std::this_thread::get_id());
        }
        // Long enough that the other threads start before the calling one has claimed every
        // walker, even on a loaded machine.
        std::this_thread::sleep_for(std::chrono::microseconds(20));
        return gaussian(x);
    };
    const McmcChain parallel =
        sample_aies(recording, cloud(16, 1), {.seed = 4, .threads = 4}, {.max_steps = 300});
    EXPECT_EQ(parallel.values, serial.values);
    EXPECT_EQ(parallel.acceptance, serial.acceptance);
    EXPECT_EQ(parallel.evaluations, serial.evaluations);
    EXPECT_GT(seen.size(), 1U);
    // A failing evaluation on another thread still reaches the caller as itself.
    const auto nan_far_out = [](std::span<const double> x) {
        return std::abs(x[0]) > 0.5 ? std::nan("") : gaussian(x);
    };
    EXPECT_THROW(
        (void)sample_aies(nan_far_out, cloud(16, 1), {.seed = 4, .threads = 3}, {.max_steps = 300}),
        EvaluationError);
}

TEST(EnsembleSampler, BoundsAreRespected) {
    // A half-normal on x ≥ 0: mean √(2/π).
    const auto half = [](std::span<const double> x) {
        return x[0] < 0.0 ? -std::numeric_limits<double>::infinity() : -0.5 * x[0] * x[0];
    };
    std::vector<std::vector<double>> walkers;
    for (int k = 0; k < 32; ++k) {
        walkers.push_back({0.1 + 0.01 * k});
    }
    const McmcChain chain = sample_aies(half, walkers, {.seed = 4}, {.max_steps = 4000});
    double mean = 0.0;
    for (std::size_t w = 0; w < chain.walkers; ++w) {
        for (std::size_t s = 1000; s < chain.steps; ++s) {
            ASSERT_GE(chain.at(w, s, 0), 0.0);
            mean += chain.at(w, s, 0) / (32.0 * 3001.0);
        }
    }
    EXPECT_NEAR(mean, std::sqrt(2.0 / std::numbers::pi), 0.03);
}

TEST(EnsembleSampler, ChainStorageKeepsWhatItSays) {
    const McmcChain full = sample_aies(gaussian, cloud(4, 1), {.seed = 5}, {.max_steps = 20});
    const McmcChain rolling =
        sample_aies(gaussian, cloud(4, 1),
                    {.storage = {.kind = ChainStorage::Kind::kRolling, .window = 5}, .seed = 5},
                    {.max_steps = 20});
    ASSERT_EQ(rolling.steps, 5U);
    EXPECT_EQ(rolling.at(2, 4, 1), full.at(2, 20, 1));
    EXPECT_EQ(rolling.at(2, 0, 0), full.at(2, 16, 0));
    const McmcChain sampled = sample_aies(
        gaussian, cloud(4, 1),
        {.storage = {.kind = ChainStorage::Kind::kSampled, .keep_every = 4, .max_samples = 3},
         .seed = 5},
        {.max_steps = 20});
    ASSERT_EQ(sampled.steps, 3U);  // steps 0, 4, ..., 20 kept, the last three: 12, 16, 20
    EXPECT_EQ(sampled.at(1, 0, 0), full.at(1, 12, 0));
    EXPECT_EQ(sampled.at(1, 2, 1), full.at(1, 20, 1));
}

TEST(EnsembleSampler, AutocorrelationTimeOfAnAr1Process) {
    // x_t = φ x_{t−1} + ε_t has τ = (1 + φ)/(1 − φ).
    const double phi = 0.8;
    McmcChain chain;
    chain.walkers = 16;
    chain.steps = 20000;
    chain.dimension = 1;
    std::mt19937_64 rng(3);
    std::normal_distribution<double> noise;
    for (std::size_t w = 0; w < chain.walkers; ++w) {
        double x = 0.0;
        for (std::size_t s = 0; s < chain.steps; ++s) {
            x = phi * x + noise(rng);
            chain.values.push_back(x);
        }
    }
    // The estimate scatters by about 0.3 at this length (16 walkers × 20,000 steps).
    EXPECT_NEAR(integrated_autocorrelation_times(chain, 0)[0], (1 + phi) / (1 - phi), 1.0);
}

TEST(EnsembleSampler, AnAutocorrelationCheckEndsAConvergedRun) {
    AutocorrelationCheck check{.n_check = 100, .n_taus_threshold = 20, .dtau_threshold = 0.1};
    const McmcChain chain = sample_aies(gaussian, cloud(32, 1), {.seed = 7},
                                        {.max_steps = 50000, .autocorrelation = &check});
    EXPECT_TRUE(chain.success);
    EXPECT_LT(chain.steps_taken, 50000U);
    EXPECT_NE(chain.message.find("converged"), std::string::npos) << chain.message;
    EXPECT_FALSE(check.taus.empty());
    // A terminator callback stops it at once; observers see every step.
    std::size_t seen = 0;
    const McmcChain stopped = sample_aies(gaussian, cloud(4, 1), {.seed = 7},
                                          {.terminators = {[](const SamplerStatus& s) {
                                               return s.step == 3;
                                           }},
                                           .observers = {[&](const SamplerStatus&) {
                                               return ++seen > 0;
                                           }}});
    EXPECT_EQ(stopped.steps_taken, 3U);
    EXPECT_EQ(seen, 3U);
}

TEST(EnsembleSampler, BadInputIsAnError) {
    EXPECT_THROW((void)sample_aies(gaussian, cloud(1, 1), {}, {.max_steps = 5}), ModelError);
    EXPECT_THROW((void)sample_aies(gaussian, cloud(4, 1), {}, {}), ModelError);
    EXPECT_THROW((void)sample_aies(gaussian, cloud(4, 1), {.stretch_scale = 1.0}, {.max_steps = 5}),
                 ModelError);
    EXPECT_THROW((void)sample_aies(gaussian, cloud(4, 1),
                                   {.moves = {{{AiesMove::Kind::kWalk}, 0.0}}}, {.max_steps = 5}),
                 ModelError);
    const auto nan = [](std::span<const double>) {
        return std::nan("");
    };
    EXPECT_THROW((void)sample_aies(nan, cloud(4, 1), {}, {.max_steps = 5}), EvaluationError);
    const auto outside = [](std::span<const double>) {
        return -std::numeric_limits<double>::infinity();
    };
    EXPECT_THROW((void)sample_aies(outside, cloud(4, 1), {}, {.max_steps = 5}), ModelError);
    const std::vector<double> center{0.0};
    const std::vector<expr::Bounds> bounds{{0.0, 1e-9}};
    const std::vector<std::string> names{"a"};
    EXPECT_THROW((void)walker_positions(center, bounds, names, 4, 1.0, 0), ModelError);
    const auto rows =
        walker_positions(center, std::vector<expr::Bounds>{{-1.0, 1.0}}, names, 4, 1e-3, 0);
    ASSERT_EQ(rows.size(), 4U);
    for (const auto& row : rows) {
        EXPECT_LE(std::abs(row[0]), 1e-3);
    }
}

}  // namespace
}  // namespace laddu::fit
