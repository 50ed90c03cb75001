#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/fit/fit.hpp>
#include <laddu/fit/profile.hpp>

namespace laddu::fit {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// f(x) = ½ (x − μ)ᵀ A (x − μ): the profile of x_k is ½ (x_k − μ_k)² / Σ_kk with Σ = A⁻¹, so
// the interval is μ_k ± √(2 up Σ_kk) exactly.
Objective correlated_quadratic() {
    Objective objective;
    objective.dimension = 3;
    objective.value_and_gradient = [](std::span<const double> x) {
        static const double a[9] = {4.0, 1.0, 0.5, 1.0, 3.0, -0.4, 0.5, -0.4, 2.0};
        static const double mu[3] = {1.0, -2.0, 0.5};
        runtime::Evaluation e{0.0, std::vector<double>(3, 0.0)};
        for (std::size_t i = 0; i < 3; ++i) {
            for (std::size_t j = 0; j < 3; ++j) {
                e.value += 0.5 * (x[i] - mu[i]) * a[i * 3 + j] * (x[j] - mu[j]);
                e.gradient[i] += a[i * 3 + j] * (x[j] - mu[j]);
            }
        }
        return e;
    };
    return objective;
}

// A Poisson count n with mean μ, and a nuisance y pulled to μ: f = μ − n ln μ + ½ (y − μ)².
// Minimising over y gives y = μ, so the profile of μ is μ − n ln μ, whose crossings the test
// finds by bisection independently of the search.
constexpr double kCount = 7.0;

Objective poisson_with_nuisance() {
    Objective objective;
    objective.dimension = 2;
    objective.value_and_gradient = [](std::span<const double> x) {
        const double mu = x[0];
        const double y = x[1];
        return runtime::Evaluation{mu - kCount * std::log(mu) + 0.5 * (y - mu) * (y - mu),
                                   {1.0 - kCount / mu - (y - mu), y - mu}};
    };
    objective.bounds = {{1e-6, kInf}, {-kInf, kInf}};
    return objective;
}

ProfileOptions options_with(double up, double tolerance = 1e-3) {
    ProfileOptions options;
    options.up = up;
    options.tolerance = tolerance;
    return options;
}

double bisect_poisson_crossing(double lo, double hi, double up) {
    const auto rise = [up](double mu) {
        return (mu - kCount * std::log(mu)) - (kCount - kCount * std::log(kCount)) - up;
    };
    for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (lo + hi);
        ((rise(lo) < 0.0) == (rise(mid) < 0.0) ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

TEST(ProfileTest, QuadraticIntervalsAreTheHessianOnes) {
    const Objective objective = correlated_quadratic();
    const FitResult best = fit(objective, {"a", "b", "c"}, std::vector<double>{0.0, 0.0, 0.0});
    ASSERT_TRUE(best.converged) << best.message;
    for (const double up : {0.5, 2.0}) {
        for (std::size_t k = 0; k < 3; ++k) {
            const ProfileInterval interval = profile_interval(objective, best, k, options_with(up));
            ASSERT_TRUE(interval.valid()) << interval.lower.message << interval.upper.message;
            const double expected = std::sqrt(2.0 * up) * best.uncertainties[k];
            EXPECT_NEAR(interval.lower_error, expected, 1e-3 * expected) << k;
            EXPECT_NEAR(interval.upper_error, expected, 1e-3 * expected) << k;
            EXPECT_NEAR(interval.upper.delta, up, 1e-3 * up);
            // A parabola needs one trial per side from the Hessian's σ.
            EXPECT_LE(interval.upper.trials, 2U);
        }
    }
}

TEST(ProfileTest, PoissonIntervalIsAsymmetricAndExact) {
    const Objective objective = poisson_with_nuisance();
    FitOptions options;
    options.minimizer.gradient_tolerance = 1e-10;
    const FitResult best = fit(objective, {"mu", "y"}, std::vector<double>{3.0, 1.0}, options);
    ASSERT_TRUE(best.converged) << best.message;
    ASSERT_NEAR(best.values[0], kCount, 1e-6);
    const ProfileInterval interval = profile_interval(objective, best, 0, options_with(0.5, 1e-5));
    ASSERT_TRUE(interval.valid()) << interval.lower.message << interval.upper.message;
    const double lower = kCount - bisect_poisson_crossing(1e-3, kCount, 0.5);
    const double upper = bisect_poisson_crossing(kCount, 10.0 * kCount, 0.5) - kCount;
    EXPECT_NEAR(interval.lower_error, lower, 1e-4);
    EXPECT_NEAR(interval.upper_error, upper, 1e-4);
    // The Poisson interval is wider above (about −2.46 / +2.97 for n = 7): the Hessian's √n
    // lies between the two.
    EXPECT_LT(interval.lower_error, best.uncertainties[0]);
    EXPECT_GT(interval.upper_error, best.uncertainties[0]);
}

TEST(ProfileTest, ABoundBeforeTheCrossingIsReported) {
    Objective objective;
    objective.dimension = 1;
    objective.value_and_gradient = [](std::span<const double> x) {
        return runtime::Evaluation{0.5 * x[0] * x[0], {x[0]}};
    };
    objective.bounds = {{-0.5, kInf}};
    const FitResult best = fit(objective, {"x"}, std::vector<double>{2.0});
    const ProfileInterval interval = profile_interval(objective, best, 0);
    EXPECT_TRUE(interval.lower.reached_bound);
    EXPECT_FALSE(interval.lower.valid);
    EXPECT_NEAR(interval.lower_error, 0.5, 1e-9);
    EXPECT_NE(interval.lower.message.find("bound"), std::string::npos);
    ASSERT_TRUE(interval.upper.valid) << interval.upper.message;
    EXPECT_NEAR(interval.upper_error, 1.0, 1e-3);
}

TEST(ProfileTest, ADeeperMinimumIsReportedWithItsPoint) {
    // (x² − 1)² + 0.3 x: a local minimum near x = 0.96 and the global one near x = −1.04,
    // behind a barrier about 0.7 high. A 2σ-like rise of 2 walks over it.
    Objective objective;
    objective.dimension = 1;
    objective.value_and_gradient = [](std::span<const double> x) {
        const double v = x[0];
        return runtime::Evaluation{(v * v - 1.0) * (v * v - 1.0) + 0.3 * v,
                                   {4.0 * v * (v * v - 1.0) + 0.3}};
    };
    const FitResult local = fit(objective, {"x"}, std::vector<double>{1.2});
    ASSERT_GT(local.values[0], 0.0);
    const ProfileInterval interval = profile_interval(objective, local, 0, options_with(2.0));
    EXPECT_TRUE(interval.lower.new_minimum) << interval.lower.message;
    ASSERT_EQ(interval.lower.deeper_point.size(), 1U);
    EXPECT_LT(interval.lower.deeper_point[0], 0.0);
    EXPECT_NE(interval.lower.message.find("refit"), std::string::npos);
    EXPECT_FALSE(interval.upper.new_minimum);
}

TEST(ProfileTest, ParametersHeldOnABoundAndBadArgumentsAreExplained) {
    Objective objective;
    objective.dimension = 1;
    objective.value_and_gradient = [](std::span<const double> x) {
        return runtime::Evaluation{x[0], {1.0}};
    };
    objective.bounds = {{0.0, 1.0}};
    const FitResult best = fit(objective, {"x"}, std::vector<double>{0.5});
    ASSERT_TRUE(best.at_bound[0]);
    const ProfileInterval interval = profile_interval(objective, best, 0);
    EXPECT_FALSE(interval.valid());
    EXPECT_NE(interval.lower.message.find("held on a bound"), std::string::npos);
    EXPECT_THROW((void)profile_interval(objective, best, 1), FitError);
    EXPECT_THROW((void)profile_interval(objective, best, 0, options_with(0.0)), FitError);
}

}  // namespace
}  // namespace laddu::fit
