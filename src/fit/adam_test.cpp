// Adam (adam.hpp): the minimum of a quadratic with and without noise in the gradient, bounds
// kept through the transform, the EMA stop, the options' effect and the errors.
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/base/random.hpp>
#include <laddu/fit/adam.hpp>

namespace laddu::fit {
namespace {

// f = (x − 1)² + 4 (y + 2)², with optional noise of size `noise` on value and gradient.
Objective quadratic(double noise, std::uint64_t* counter) {
    Objective o;
    o.dimension = 2;
    o.value_and_gradient = [noise, counter](std::span<const double> x) {
        double e0 = 0.0;
        double e1 = 0.0;
        if (noise > 0.0) {
            SplitMix64 random((*counter)++);
            e0 = noise * random.normal();
            e1 = noise * random.normal();
        }
        return runtime::Evaluation{(x[0] - 1.0) * (x[0] - 1.0) + 4.0 * (x[1] + 2.0) * (x[1] + 2.0),
                                   {2.0 * (x[0] - 1.0) + e0, 8.0 * (x[1] + 2.0) + e1}};
    };
    return o;
}

TEST(Adam, ReachesTheMinimumOfAQuadratic) {
    std::uint64_t counter = 0;
    const std::vector<double> start{4.0, 1.0};
    const FitResult r = adam(quadratic(0.0, &counter), {"x", "y"}, start,
                             {.alpha = 0.05, .use_ema = false, .max_steps = 4000});
    EXPECT_NEAR(r.values[0], 1.0, 1e-4);
    EXPECT_NEAR(r.values[1], -2.0, 1e-4);
    EXPECT_EQ(r.iterations, 4000U);
    EXPECT_EQ(r.gradient_evaluations, 4001U);
    EXPECT_FALSE(r.converged);
    EXPECT_TRUE(std::isnan(r.uncertainties[0]));
}

TEST(Adam, NoisyGradientsStillConvergeAndTheEmaStops) {
    std::uint64_t counter = 0;
    const std::vector<double> start{4.0, 1.0};
    const FitResult r =
        adam(quadratic(0.5, &counter), {"x", "y"}, start,
             {.alpha = 0.02, .ema_eps_loss = 1e-6, .ema_patience = 5, .max_steps = 20000});
    EXPECT_NEAR(r.values[0], 1.0, 0.05);
    EXPECT_NEAR(r.values[1], -2.0, 0.05);
    EXPECT_TRUE(r.converged);
    EXPECT_LT(r.iterations, 20000U);
    EXPECT_EQ(r.termination, Termination::kValueChange);
}

TEST(Adam, BoundsHoldAndOptionsMatter) {
    std::uint64_t counter = 0;
    Objective o = quadratic(0.0, &counter);
    o.bounds = {{2.0, 5.0}, {-std::numeric_limits<double>::infinity(), 0.0}};
    const std::vector<double> start{4.0, -1.0};
    const FitResult r =
        adam(o, {"x", "y"}, start, {.alpha = 0.05, .use_ema = false, .max_steps = 3000});
    EXPECT_GE(r.values[0], 2.0);
    EXPECT_NEAR(r.values[0], 2.0, 1e-3);  // the minimum in x is below the bound
    EXPECT_NEAR(r.values[1], -2.0, 1e-3);
    const auto after = [&](const AdamOptions& options) {
        return adam(o, {"x", "y"}, start, options).values;
    };
    const AdamOptions base{.use_ema = false, .max_steps = 20};
    const std::vector<double> reference = after(base);
    for (AdamOptions changed : {AdamOptions{.alpha = 0.01, .use_ema = false, .max_steps = 20},
                                AdamOptions{.beta_1 = 0.5, .use_ema = false, .max_steps = 20},
                                AdamOptions{.beta_2 = 0.9, .use_ema = false, .max_steps = 20},
                                AdamOptions{.epsilon = 1.0, .use_ema = false, .max_steps = 20},
                                AdamOptions{.use_ema = false, .max_steps = 10}}) {
        EXPECT_NE(after(changed), reference);
    }
    // A looser EMA rule stops earlier.
    const auto steps = [&](double eps_loss, std::size_t patience) {
        return adam(o, {"x", "y"}, start,
                    {.alpha = 0.05,
                     .ema_eps_loss = eps_loss,
                     .ema_patience = patience,
                     .max_steps = 5000})
            .iterations;
    };
    EXPECT_LT(steps(1e-3, 1), steps(1e-9, 1));
    EXPECT_LT(steps(1e-6, 1), steps(1e-6, 20));
}

TEST(Adam, BadSettingsAreErrors) {
    std::uint64_t counter = 0;
    const std::vector<double> start{0.0, 0.0};
    EXPECT_THROW((void)adam(quadratic(0.0, &counter), {"x", "y"}, start, {.alpha = 0.0}),
                 ModelError);
    EXPECT_THROW((void)adam(quadratic(0.0, &counter), {"x", "y"}, start, {.beta_1 = 1.0}),
                 ModelError);
    EXPECT_THROW((void)adam(quadratic(0.0, &counter), {"x"}, start), FitError);
    std::size_t calls = 0;
    const FitResult stopped = adam(quadratic(0.0, &counter), {"x", "y"}, start,
                                   {.max_steps = 100, .progress = [&](const Progress&) {
                                        return ++calls < 3;
                                    }});
    EXPECT_EQ(stopped.iterations, 3U);
    EXPECT_EQ(stopped.termination, Termination::kStopped);
}

}  // namespace
}  // namespace laddu::fit
