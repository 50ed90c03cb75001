// The ensemble slice sampler: a correlated Gaussian's mean and covariance within Monte Carlo
// error for each move and mixtures, mode jumps of the global move and its Gaussian mixture, a
// bounded density, determinism by seed, every option changing the run, and the errors.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/base/random.hpp>
#include <laddu/fit/ensemble_slice_sampler.hpp>

#include "ensemble_test_support.hpp"
#include "gaussian_mixture.hpp"

namespace laddu::fit {
namespace {

using testing::cloud;
using testing::expect_gaussian_moments;
using testing::gaussian;

constexpr EssMove kDifferential{};
constexpr EssMove kGaussian{.kind = EssMove::Kind::kGaussian};
constexpr EssMove kGlobal{.kind = EssMove::Kind::kGlobal};

TEST(EnsembleSliceSampler, DifferentialMovesSampleACorrelatedGaussian) {
    const McmcChain chain = sample_ess(gaussian, cloud(16, 1), {.seed = 7}, {.max_steps = 3000});
    EXPECT_EQ(chain.walkers, 16U);
    EXPECT_EQ(chain.steps, 3001U);
    EXPECT_EQ(chain.dimension, 2U);
    EXPECT_TRUE(chain.success);
    EXPECT_EQ(chain.message, "Maximum number of steps reached");
    // Every slice update moves its walker; each costs at least three evaluations (two bracket
    // ends and one draw).
    for (const double a : chain.acceptance) {
        EXPECT_EQ(a, 1.0);
    }
    EXPECT_GE(chain.evaluations, 16U * (1U + 3U * 3000U));
    expect_gaussian_moments(chain, 500);
}

TEST(EnsembleSliceSampler, GaussianMovesAndMixturesSampleItToo) {
    const EssOptions gauss{.moves = {{kGaussian, 1.0}}, .adaptive_steps = 50, .seed = 8};
    expect_gaussian_moments(sample_ess(gaussian, cloud(16, 2), gauss, {.max_steps = 3000}), 500);
    const EssOptions mixed{.moves = {{kDifferential, 0.7}, {kGaussian, 0.3}}, .seed = 9};
    expect_gaussian_moments(sample_ess(gaussian, cloud(16, 3), mixed, {.max_steps = 3000}), 500);
}

TEST(EnsembleSliceSampler, GlobalMovesSampleItToo) {
    const EssOptions global{.moves = {{kGlobal, 1.0}}, .seed = 10};
    expect_gaussian_moments(sample_ess(gaussian, cloud(16, 4), global, {.max_steps = 3000}), 500);
    const EssOptions mixed{.moves = {{kDifferential, 0.4}, {kGaussian, 0.3}, {kGlobal, 0.3}},
                           .seed = 11};
    expect_gaussian_moments(sample_ess(gaussian, cloud(16, 5), mixed, {.max_steps = 3000}), 500);
}

TEST(EnsembleSliceSampler, GlobalMovesJumpBetweenModes) {
    // Two unit Gaussians at x = ±4 of equal weight; 12 of 16 walkers start in the left one.
    const auto modes = [](std::span<const double> x) {
        const double a = -0.5 * ((x[0] + 4.0) * (x[0] + 4.0) + x[1] * x[1]);
        const double b = -0.5 * ((x[0] - 4.0) * (x[0] - 4.0) + x[1] * x[1]);
        return std::max(a, b) + std::log1p(std::exp(-std::abs(a - b)));
    };
    std::vector<std::vector<double>> walkers;
    for (int k = 0; k < 16; ++k) {
        walkers.push_back({(k < 12 ? -4.0 : 4.0) + 0.05 * k, 0.1 * (k % 4)});
    }
    const EssOptions options{.moves = {{kDifferential, 0.5}, {kGlobal, 0.5}}, .seed = 12};
    const McmcChain chain = sample_ess(modes, walkers, options, {.max_steps = 4000});
    double right = 0.0;
    std::size_t crossings = 0;
    for (std::size_t w = 0; w < chain.walkers; ++w) {
        for (std::size_t s = 500; s < chain.steps; ++s) {
            right += chain.at(w, s, 0) > 0.0 ? 1.0 / (16.0 * 3501.0) : 0.0;
            crossings += (chain.at(w, s, 0) > 0.0) != (chain.at(w, s - 1, 0) > 0.0) ? 1U : 0U;
        }
    }
    EXPECT_NEAR(right, 0.5, 0.1);
    EXPECT_GT(crossings, 100U);
}

TEST(EnsembleSliceSampler, TheMixtureFindsSeparatedComponents) {
    std::vector<std::vector<double>> points;
    SplitMix64 random(5);
    for (int k = 0; k < 80; ++k) {
        const double center = k < 40 ? -4.0 : 4.0;
        points.push_back({center + 0.15 * random.normal(), center + 0.15 * random.normal()});
    }
    SplitMix64 fit_random(7);
    const auto mixture = detail::fit_gaussian_mixture(points, 2, fit_random);
    ASSERT_TRUE(mixture.has_value());
    ASSERT_EQ(mixture->labels.size(), 80U);
    EXPECT_NE(mixture->labels.front(), mixture->labels.back());
    for (std::size_t k = 0; k < 80; ++k) {
        EXPECT_EQ(mixture->labels[k], mixture->labels[k < 40 ? 0 : 79]);
        const double center = mixture->means[mixture->labels[k]][0];
        // The posterior mean is shrunk towards the data's mean (0): 4 · 40 / 41.
        EXPECT_NEAR(center, (k < 40 ? -4.0 : 4.0) * 40.0 / 41.0, 0.05);
    }
    // A component's covariance is its points' (σ = 0.15) broadened by the prior (the data's
    // covariance, mean and ν = 42), ≈ (16 + 0.9 + 15.6) / 42: σ ≈ 0.88, not the data's 4.
    EXPECT_NEAR(mixture->cholesky[mixture->labels[0]][0], 0.88, 0.02);
    // Fewer points than components: no mixture (the move falls back to a gaussian direction).
    SplitMix64 again(7);
    EXPECT_FALSE(detail::fit_gaussian_mixture(points, 81, again).has_value());
    // ψ(1) = −γ, ψ(1/2) = −γ − 2 ln 2, ψ(10) = H_9 − γ.
    EXPECT_NEAR(detail::digamma(1.0), -std::numbers::egamma, 1e-12);
    EXPECT_NEAR(detail::digamma(0.5), -std::numbers::egamma - 2.0 * std::numbers::ln2, 1e-12);
    EXPECT_NEAR(detail::digamma(10.0), 7129.0 / 2520.0 - std::numbers::egamma, 1e-12);
}

TEST(EnsembleSliceSampler, BoundsAreRespected) {
    // A half-normal on x ≥ 0: mean √(2/π), variance 1 − 2/π.
    const auto half = [](std::span<const double> x) {
        return x[0] < 0.0 ? -std::numeric_limits<double>::infinity() : -0.5 * x[0] * x[0];
    };
    std::vector<std::vector<double>> walkers;
    for (int k = 0; k < 16; ++k) {
        walkers.push_back({0.1 + 0.01 * k});
    }
    const McmcChain chain = sample_ess(half, walkers, {.seed = 4}, {.max_steps = 4000});
    double mean = 0.0;
    double square = 0.0;
    const double samples = 16.0 * 3501.0;
    for (std::size_t w = 0; w < chain.walkers; ++w) {
        for (std::size_t s = 500; s < chain.steps; ++s) {
            ASSERT_GE(chain.at(w, s, 0), 0.0);
            mean += chain.at(w, s, 0) / samples;
            square += chain.at(w, s, 0) * chain.at(w, s, 0) / samples;
        }
    }
    EXPECT_NEAR(mean, std::sqrt(2.0 / std::numbers::pi), 0.03);
    EXPECT_NEAR(square - mean * mean, 1.0 - 2.0 / std::numbers::pi, 0.04);
}

TEST(EnsembleSliceSampler, TheSeedDecidesTheChain) {
    const McmcChain a = sample_ess(gaussian, cloud(8, 1), {.seed = 5}, {.max_steps = 50});
    const McmcChain b = sample_ess(gaussian, cloud(8, 1), {.seed = 5}, {.max_steps = 50});
    const McmcChain c = sample_ess(gaussian, cloud(8, 1), {.seed = 6}, {.max_steps = 50});
    EXPECT_EQ(a.values, b.values);
    EXPECT_EQ(a.evaluations, b.evaluations);
    EXPECT_NE(a.values, c.values);
}

TEST(EnsembleSliceSampler, EveryOptionChangesTheRun) {
    const auto run = [](const EssOptions& options) {
        return sample_ess(gaussian, cloud(8, 1), options, {.max_steps = 30});
    };
    const McmcChain base = run({.seed = 5});
    EXPECT_NE(base.values, run({.moves = {{kGaussian, 1.0}}, .seed = 5}).values);
    EXPECT_NE(base.values,
              run({.moves = {{kDifferential, 0.5}, {kGaussian, 0.5}}, .seed = 5}).values);
    // The weights decide which move a step takes.
    EXPECT_NE(run({.moves = {{kDifferential, 0.9}, {kGaussian, 0.1}}, .seed = 5}).values,
              run({.moves = {{kDifferential, 0.1}, {kGaussian, 0.9}}, .seed = 5}).values);
    // The global move's scale, rescale_covariance and components.
    const McmcChain global = run({.moves = {{kGlobal, 1.0}}, .seed = 5});
    EXPECT_NE(base.values, global.values);
    for (const EssMove move : {EssMove{.kind = EssMove::Kind::kGlobal, .scale = 0.3},
                               EssMove{.kind = EssMove::Kind::kGlobal, .rescale_covariance = 0.5},
                               EssMove{.kind = EssMove::Kind::kGlobal, .components = 2}}) {
        EXPECT_NE(global.values, run({.moves = {{move, 1.0}}, .seed = 5}).values);
    }
    EXPECT_NE(base.values, run({.bracket_width = 0.3, .seed = 5}).values);
    EXPECT_NE(base.values, run({.direction_scale = 3.0, .seed = 5}).values);
    EXPECT_NE(base.values, run({.adaptive_steps = 10, .seed = 5}).values);
    // A cap of one expansion per walker truncates the wide brackets a tiny width needs.
    EXPECT_NE(run({.bracket_width = 1e-3, .seed = 5}).values,
              run({.bracket_width = 1e-3, .max_shrink_steps = 1, .seed = 5}).values);
    // adaptive_steps = 0 still adapts after the first step, as ganesh does: μ = 1e-3 grows.
    const McmcChain small = run({.bracket_width = 1e-3, .seed = 5});
    const McmcChain adapted = run({.bracket_width = 1e-3, .adaptive_steps = 20, .seed = 5});
    EXPECT_NE(small.values, adapted.values);
    EXPECT_LT(adapted.evaluations, small.evaluations);  // a tuned μ needs fewer expansions
    const McmcChain rolling =
        run({.storage = {.kind = ChainStorage::Kind::kRolling, .window = 5}, .seed = 5});
    ASSERT_EQ(rolling.steps, 5U);
    EXPECT_EQ(rolling.at(2, 4, 1), base.at(2, 30, 1));
    const McmcChain sampled =
        run({.storage = {.kind = ChainStorage::Kind::kSampled, .keep_every = 10, .max_samples = 2},
             .seed = 5});
    ASSERT_EQ(sampled.steps, 2U);  // steps 0, 10, 20, 30 kept, the last two
    EXPECT_EQ(sampled.at(1, 0, 0), base.at(1, 20, 0));
}

TEST(EnsembleSliceSampler, TerminatorsAndObserversRun) {
    std::size_t seen = 0;
    const McmcChain stopped = sample_ess(gaussian, cloud(4, 1), {.seed = 7},
                                         {.terminators = {[](const SamplerStatus& s) {
                                              return s.step == 3;
                                          }},
                                          .observers = {[&](const SamplerStatus& s) {
                                              EXPECT_EQ(s.message, "Differential Move");
                                              return ++seen > 0;
                                          }}});
    EXPECT_EQ(stopped.steps_taken, 3U);
    EXPECT_EQ(seen, 3U);
    AutocorrelationCheck check{.n_check = 100, .n_taus_threshold = 20, .dtau_threshold = 0.1};
    const McmcChain chain = sample_ess(gaussian, cloud(16, 1), {.seed = 7},
                                       {.max_steps = 50000, .autocorrelation = &check});
    EXPECT_TRUE(chain.success);
    EXPECT_LT(chain.steps_taken, 50000U);
    EXPECT_FALSE(check.taus.empty());
}

// Fails unless f() throws a ModelError whose message contains `text`.
template <typename F>
void expect_model_error(F&& f, const std::string& text) {
    try {
        f();
        ADD_FAILURE() << "no ModelError; expected one saying " << text;
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
}

TEST(EnsembleSliceSampler, BadInputIsAnErrorAndStuckWalkersStay) {
    const auto run = [](const EssOptions& options, std::size_t walkers = 4) {
        return [options, walkers] {
            (void)sample_ess(gaussian, cloud(walkers, 1), options, {.max_steps = 5});
        };
    };
    expect_model_error(run({}, 2), "at least 3 walkers");
    expect_model_error(run({.bracket_width = 0.0}), "bracket width must be finite and positive");
    expect_model_error(run({.max_shrink_steps = 0}), "at least 1");
    expect_model_error(run({.direction_scale = -1.0}), "direction scale must be finite");
    expect_model_error(run({.moves = {{kGaussian, 0.0}}}), "include a positive entry");
    expect_model_error(run({.moves = {{kGaussian, std::nan("")}}}), "finite and non-negative");
    expect_model_error(run({.storage = {.kind = ChainStorage::Kind::kRolling}}), "positive window");
    expect_model_error(run({.moves = {{{.kind = EssMove::Kind::kGlobal, .components = 1}, 1.0}}}),
                       "at least 2 components");
    expect_model_error(run({.moves = {{{.kind = EssMove::Kind::kGlobal, .scale = 0.0}, 1.0}}}),
                       "positive finite scale");
    expect_model_error([] { (void)sample_ess(gaussian, cloud(4, 1), {}, {}); }, "terminator");
    const auto outside = [](std::span<const double>) {
        return -std::numeric_limits<double>::infinity();
    };
    expect_model_error([&] { (void)sample_ess(outside, cloud(4, 1), {}, {.max_steps = 5}); },
                       "start every walker inside");
    // Coinciding walkers have no direction to move along: they stay, without evaluations.
    const McmcChain stuck = sample_ess(gaussian, std::vector<std::vector<double>>(4, {1.0, -2.0}),
                                       {}, {.max_steps = 5});
    EXPECT_EQ(stuck.evaluations, 4U);
    EXPECT_EQ(stuck.acceptance, std::vector<double>(4, 0.0));
    const auto nan = [](std::span<const double>) {
        return std::nan("");
    };
    EXPECT_THROW((void)sample_ess(nan, cloud(4, 1), {}, {.max_steps = 5}), EvaluationError);
}

}  // namespace
}  // namespace laddu::fit
