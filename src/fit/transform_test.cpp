// Parameter transforms (fit/transform.hpp) and the fits that use them: round trips, gradients
// through the transform against finite differences, minima beyond a bound, periodic phases,
// the external covariance, and the progress callback's counters.
#include <cmath>
#include <limits>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/fit/fit.hpp>
#include <laddu/fit/minimizer.hpp>
#include <laddu/fit/transform.hpp>
#include <laddu/likelihood/likelihood.hpp>
#include <laddu/likelihood/nll.hpp>

namespace laddu::fit {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPi = std::numbers::pi;

// f(x) = ½ (x − μ)ᵀ A (x − μ), A positive definite: minimum μ, Hessian A.
struct Quadratic {
    std::vector<double> a{4.0, 1.0, 0.5, 1.0, 3.0, -0.4, 0.5, -0.4, 2.0};
    std::vector<double> mu{1.0, -2.0, 0.5};

    runtime::Evaluation operator()(std::span<const double> x) const {
        runtime::Evaluation e{0.0, std::vector<double>(3, 0.0)};
        for (std::size_t i = 0; i < 3; ++i) {
            for (std::size_t j = 0; j < 3; ++j) {
                e.value += 0.5 * (x[i] - mu[i]) * a[i * 3 + j] * (x[j] - mu[j]);
                e.gradient[i] += a[i * 3 + j] * (x[j] - mu[j]);
            }
        }
        return e;
    }
};

Objective quadratic(std::vector<expr::Bounds> bounds) {
    Objective objective;
    objective.dimension = 3;
    objective.value_and_gradient = Quadratic{};
    objective.bounds = std::move(bounds);
    return objective;
}

// The analytic inverse of a 2 × 2 block [[p, q], [q, r]].
std::vector<double> inverse2(double p, double q, double r) {
    const double det = p * r - q * q;
    return {r / det, -q / det, -q / det, p / det};
}

TEST(Transform, ExternalValuesStayInsideTheirBoundsAndRoundTrip) {
    const std::vector<expr::Bounds> bounds{
        {-1.0, 3.0}, {2.0, kInf}, {-kInf, -4.0}, {-kInf, kInf}, {0.0, 2.0 * kPi}};
    const std::vector<bool> periodic{false, false, false, false, true};
    const ParameterTransform t(bounds, periodic, 5);
    EXPECT_EQ(t.kind(0), TransformKind::kTwoSided);
    EXPECT_EQ(t.kind(1), TransformKind::kLower);
    EXPECT_EQ(t.kind(2), TransformKind::kUpper);
    EXPECT_EQ(t.kind(3), TransformKind::kIdentity);
    EXPECT_EQ(t.kind(4), TransformKind::kPeriodic);
    EXPECT_TRUE(t.changes_scale());
    for (const double u : {-40.0, -3.0, -0.7, 0.0, 0.4, 1.5707, 2.0, 100.0}) {
        const std::vector<double> x = t.to_external(std::vector<double>(5, u));
        EXPECT_GE(x[0], -1.0);
        EXPECT_LE(x[0], 3.0);
        EXPECT_GE(x[1], 2.0);
        EXPECT_LE(x[2], -4.0);
        EXPECT_EQ(x[3], u);
        EXPECT_GE(x[4], 0.0);
        EXPECT_LT(x[4], 2.0 * kPi);
        // u → x → u' → x' gives the same external point (u' is the canonical branch).
        const std::vector<double> again = t.to_external(t.to_internal(x));
        for (std::size_t k = 0; k < 5; ++k) {
            EXPECT_NEAR(again[k], x[k], 1e-12 * std::max(1.0, std::abs(x[k]))) << k << " " << u;
        }
    }
    // The documented formulas at one point each.
    const std::vector<double> x = t.to_external(std::vector<double>{0.3, 0.3, 0.3, 0.3, 7.0});
    EXPECT_DOUBLE_EQ(x[0], -1.0 + 2.0 * (std::sin(0.3) + 1.0));
    EXPECT_DOUBLE_EQ(x[1], 2.0 - 1.0 + std::sqrt(1.09));
    EXPECT_DOUBLE_EQ(x[2], -4.0 + 1.0 - std::sqrt(1.09));
    EXPECT_NEAR(x[4], 7.0 - 2.0 * kPi, 1e-15);
    // Values outside the bounds are clamped on the way in.
    const std::vector<double> u = t.to_internal(std::vector<double>{9.0, -9.0, 9.0, 1.0, -1.0});
    EXPECT_DOUBLE_EQ(u[0], 0.5 * kPi);
    EXPECT_DOUBLE_EQ(u[1], 0.0);
    EXPECT_DOUBLE_EQ(u[2], 0.0);
    EXPECT_NEAR(u[4], 2.0 * kPi - 1.0, 1e-15);
}

TEST(Transform, WrapPeriodicMapsIntoTheHalfOpenPeriod) {
    EXPECT_DOUBLE_EQ(wrap_periodic(0.5, -kPi, kPi), 0.5);
    EXPECT_NEAR(wrap_periodic(0.5 + 6.0 * kPi, -kPi, kPi), 0.5, 1e-13);
    EXPECT_NEAR(wrap_periodic(0.5 - 6.0 * kPi, -kPi, kPi), 0.5, 1e-13);
    EXPECT_DOUBLE_EQ(wrap_periodic(kPi, -kPi, kPi), -kPi);
    EXPECT_DOUBLE_EQ(wrap_periodic(-kPi, -kPi, kPi), -kPi);
    EXPECT_DOUBLE_EQ(wrap_periodic(370.0, 0.0, 360.0), 10.0);
}

TEST(Transform, InternalGradientMatchesFiniteDifferences) {
    const std::vector<expr::Bounds> bounds{{-1.0, 3.0}, {-3.0, kInf}, {-kInf, 0.75}};
    const Objective external = quadratic(bounds);
    for (const bool periodic_last : {false, true}) {
        Objective outer = external;
        if (periodic_last) {
            outer.bounds[2] = {-kPi, kPi};
            outer.periodic = {false, false, true};
        }
        const ParameterTransform t = ParameterTransform::for_method(outer, Method::kVariableMetric);
        const Objective inner = t.internal_objective(outer);
        EXPECT_TRUE(inner.bounds.empty());
        for (const std::vector<double>& u :
             {std::vector<double>{0.3, -0.8, 1.7}, std::vector<double>{-2.0, 2.5, -0.4},
              std::vector<double>{1.2, 0.05, 3.9}}) {
            const runtime::Evaluation e = inner.value_and_gradient(u);
            EXPECT_DOUBLE_EQ(e.value, outer.value_and_gradient(t.to_external(u)).value);
            for (std::size_t k = 0; k < 3; ++k) {
                const double h = 1e-6;
                std::vector<double> up = u;
                std::vector<double> down = u;
                up[k] += h;
                down[k] -= h;
                const double fd =
                    (inner.value_and_gradient(up).value - inner.value_and_gradient(down).value) /
                    (2.0 * h);
                EXPECT_NEAR(e.gradient[k], fd, 1e-6 * std::max(1.0, std::abs(fd))) << k;
            }
        }
    }
}

// μ_0 = 1 is above the bound 0 of [−1, 0] and μ_1 = −2 below the bound −1 of [−1, ∞): the
// minimum over the box has x_0 = 0 and x_1 = −1, and x_2 minimises with both held there.
TEST(Transform, AMinimumBeyondTheBoundsEndsOnTheBoundsAndConverges) {
    const std::vector<expr::Bounds> bounds{{-1.0, 0.0}, {-1.0, kInf}, {-kInf, kInf}};
    const Quadratic q;
    const double x2 = q.mu[2] - (q.a[6] * (0.0 - q.mu[0]) + q.a[7] * (-1.0 - q.mu[1])) / q.a[8];
    for (const Method method : {Method::kVariableMetric, Method::kNelderMead, Method::kLbfgsb}) {
        FitOptions options;
        options.minimizer.method = method;
        options.minimizer.value_tolerance = 0.0;  // gradient methods: stop on the gradient
        options.minimizer.gradient_tolerance = 1e-10;
        options.minimizer.edm_tolerance = 1e-20;  // an EDM of ε leaves |Δx| ~ √ε
        std::vector<double> visited_min{kInf, kInf};
        options.minimizer.progress = [&](const Progress& p) {
            visited_min[0] = std::min(visited_min[0], 0.0 - p.x[0]);  // distance below the top
            visited_min[1] = std::min(visited_min[1], p.x[1] + 1.0);  // distance above the floor
            return true;
        };
        const FitResult r = fit(quadratic(bounds), {"x0", "x1", "x2"},
                                std::vector<double>{-0.5, 3.0, 0.0}, options);
        ASSERT_TRUE(r.converged) << r.to_string();
        EXPECT_NEAR(r.values[0], 0.0, 1e-9) << r.to_string();
        EXPECT_NEAR(r.values[1], -1.0, 1e-9) << r.to_string();
        EXPECT_NEAR(r.values[2], x2, method == Method::kNelderMead ? 1e-6 : 1e-7);
        EXPECT_GE(visited_min[0], 0.0);  // never evaluated outside the box
        EXPECT_GE(visited_min[1], 0.0);
        EXPECT_EQ(r.at_bound, (std::vector<bool>{true, true, false}));
        EXPECT_NE(r.message.find("at a bound: x0, x1"), std::string::npos) << r.message;
        // Held parameters: uncertainty 0, no correlation; x2 conditional on them: 1/√A_22.
        EXPECT_EQ(r.uncertainties[0], 0.0);
        EXPECT_EQ(r.uncertainties[1], 0.0);
        EXPECT_EQ(r.covariance_at(0, 2), 0.0);
        EXPECT_EQ(r.correlation[0 * 3 + 2], 0.0);
        EXPECT_NEAR(r.uncertainties[2], 1.0 / std::sqrt(q.a[8]), 1e-5) << r.to_string();
    }
}

// With bounds that do not bind, the transformed fits' covariance is the untransformed inverse
// Hessian (J C_u J = A⁻¹ at an interior minimum).
TEST(Transform, CovarianceOfAnInteriorFitAgreesWithTheUntransformedOne) {
    const std::vector<expr::Bounds> bounds{{-3.0, 4.0}, {-5.0, kInf}, {-kInf, 2.0}};
    const FitResult free = fit(quadratic({}), {"a", "b", "c"}, std::vector<double>{0.0, 0.0, 0.0});
    ASSERT_TRUE(free.converged);
    for (const Method method : {Method::kVariableMetric, Method::kNelderMead}) {
        FitOptions options;
        options.minimizer.method = method;
        const FitResult r =
            fit(quadratic(bounds), {"a", "b", "c"}, std::vector<double>{0.0, 0.0, 0.0}, options);
        ASSERT_TRUE(r.converged) << r.to_string();
        EXPECT_EQ(r.at_bound, (std::vector<bool>{false, false, false}));
        for (std::size_t i = 0; i < 9; ++i) {
            EXPECT_NEAR(r.covariance[i], free.covariance[i], 1e-5 * std::abs(free.covariance[0]))
                << i << "\n"
                << r.to_string();
        }
    }
    // And both agree with the analytic A⁻¹ on the (b, c) block when a is held at a bound.
    const std::vector<expr::Bounds> hold{{-kInf, 0.0}, {-kInf, kInf}, {-kInf, kInf}};
    const Quadratic q;
    const std::vector<double> block = inverse2(q.a[4], q.a[5], q.a[8]);
    for (const Method method : {Method::kVariableMetric, Method::kLbfgsb}) {
        FitOptions options;
        options.minimizer.method = method;
        const FitResult r =
            fit(quadratic(hold), {"a", "b", "c"}, std::vector<double>{-1.0, 0.0, 0.0}, options);
        ASSERT_TRUE(r.converged) << r.to_string();
        EXPECT_NEAR(r.covariance_at(1, 1), block[0], 1e-5);
        EXPECT_NEAR(r.covariance_at(1, 2), block[1], 1e-5);
        EXPECT_NEAR(r.covariance_at(2, 2), block[3], 1e-5);
    }
}

// f(φ) = 1 − cos(φ − 2.5) + (φ-independent terms), periodic in φ with period [−π, π).
Objective phase_objective(expr::Bounds period) {
    Objective objective;
    objective.dimension = 2;
    objective.value_and_gradient = [](std::span<const double> p) {
        return runtime::Evaluation{1.0 - std::cos(p[0] - 2.5) + (p[1] - 1.0) * (p[1] - 1.0),
                                   {std::sin(p[0] - 2.5), 2.0 * (p[1] - 1.0)}};
    };
    objective.bounds = {period, {-kInf, kInf}};
    objective.periodic = {true, false};
    return objective;
}

TEST(Transform, APeriodicPhaseStartedFarAwayIsReturnedInItsPeriod) {
    for (const Method method : {Method::kLbfgsb, Method::kVariableMetric, Method::kNelderMead}) {
        for (const double start : {-2.9, 3.1, 40.0, -25.0}) {
            FitOptions options;
            options.minimizer.method = method;
            std::size_t outside = 0;
            options.minimizer.progress = [&](const Progress& p) {
                outside += (p.x[0] < -kPi || p.x[0] >= kPi) ? 1U : 0U;
                return true;
            };
            const FitResult r = fit(phase_objective({-kPi, kPi}), {"phi", "y"},
                                    std::vector<double>{start, 0.0}, options);
            ASSERT_TRUE(r.converged) << r.to_string();
            EXPECT_GE(r.values[0], -kPi);
            EXPECT_LT(r.values[0], kPi);
            EXPECT_NEAR(r.values[0], 2.5, 1e-5) << start << "\n" << r.to_string();
            EXPECT_EQ(outside, 0U);
            EXPECT_FALSE(r.at_bound[0]);
            EXPECT_NEAR(r.uncertainties[0], 1.0, 1e-4);  // f'' = cos(0) = 1
        }
    }
    // No bounds: the period is [−π, π). A minimum at 2.5 + π lies at 2.5 − π there.
    Objective unbounded = phase_objective({-kInf, kInf});
    unbounded.value_and_gradient = [](std::span<const double> p) {
        return runtime::Evaluation{1.0 + std::cos(p[0] - 2.5), {-std::sin(p[0] - 2.5)}};
    };
    unbounded.dimension = 1;
    unbounded.bounds = {};
    unbounded.periodic = {true};
    const FitResult r = fit(unbounded, {"phi"}, std::vector<double>{1.0});
    ASSERT_TRUE(r.converged) << r.to_string();
    EXPECT_NEAR(r.values[0], 2.5 - kPi, 1e-5);
}

// A periodic model parameter through Likelihood: objective_of passes the flag on.
TEST(Transform, APeriodicModelParameterIsWrappedByTheFit) {
    std::vector<double> x;
    for (std::size_t i = 0; x.size() < 4000; ++i) {
        const double xi = kPi * (2.0 * data::counter_uniform(11, i) - 1.0);
        if (data::counter_uniform(12, i) * 3.3 < 1.64 + 1.6 * std::cos(xi - 2.8)) {
            x.push_back(xi);
        }
    }
    std::vector<double> mc;
    for (std::size_t i = 0; i < 20000; ++i) {
        mc.push_back(kPi * (2.0 * data::counter_uniform(13, i) - 1.0));
    }
    const auto events = [](const std::vector<double>& v) {
        const std::vector<data::ScalarInput> scalars{{"x", v}};
        return data::Dataset::from_scalars(scalars, std::vector<double>(v.size(), 1.0));
    };
    const expr::Expr phi = expr::parameter(
        "phi", {.initial = 0.0, .bounds = expr::Bounds{-kPi, kPi}, .periodic = true});
    const expr::Model model(expr::norm_sqr(expr::constant(std::complex<double>(1.0, 0.0)) +
                                           expr::constant(std::complex<double>(0.8, 0.0)) *
                                               expr::cis(expr::scalar("x") - phi)));
    likelihood::Likelihood total;
    total.add(std::make_shared<likelihood::NLL>(model, events(x), events(mc)));
    EXPECT_EQ(objective_of(total).periodic, std::vector<bool>{true});
    for (const Method method : {Method::kLbfgsb, Method::kVariableMetric}) {
        FitOptions options;
        options.minimizer.method = method;
        const FitResult r = fit(total, std::vector<double>{-2.0}, options);
        ASSERT_TRUE(r.converged) << r.to_string();
        EXPECT_GE(r.values[0], -kPi);
        EXPECT_LT(r.values[0], kPi);
        EXPECT_LT(std::abs(r.values[0] - 2.8), 3.0 * r.uncertainties[0]) << r.to_string();
    }
}

TEST(Transform, ProgressReportsEvaluationsBestValueAndElapsedTime) {
    for (const Method method : {Method::kLbfgsb, Method::kVariableMetric, Method::kNelderMead}) {
        MinimizerOptions options;
        options.method = method;
        std::vector<Progress> seen;
        options.progress = [&](const Progress& p) {
            seen.push_back(p);
            return true;
        };
        const MinimizerResult r = minimize(quadratic({{-3.0, 4.0}, {-5.0, kInf}, {-kInf, kInf}}),
                                           std::vector<double>{3.0, 3.0, 3.0}, options);
        ASSERT_GT(seen.size(), 2U);
        double lowest = kInf;
        for (std::size_t i = 0; i < seen.size(); ++i) {
            lowest = std::min(lowest, seen[i].value);
            EXPECT_EQ(seen[i].best, lowest);
            EXPECT_GE(seen[i].elapsed_seconds, 0.0);
            EXPECT_GT(seen[i].evaluations, 0U);
            if (i > 0) {
                EXPECT_GE(seen[i].evaluations, seen[i - 1].evaluations);
                EXPECT_GE(seen[i].elapsed_seconds, seen[i - 1].elapsed_seconds);
            }
        }
        EXPECT_LE(seen.back().evaluations, r.value_evaluations);
    }
}

TEST(Transform, MalformedPeriodicDefinitionsAreFitErrors) {
    Objective objective = quadratic({{0.0, kInf}, {-kInf, kInf}, {-kInf, kInf}});
    objective.periodic = {true, false, false};
    try {
        (void)minimize(objective, std::vector<double>{1.0, 0.0, 0.0});
        FAIL() << "expected FitError";
    } catch (const FitError& e) {
        EXPECT_NE(std::string(e.what()).find("half-open"), std::string::npos) << e.what();
    }
    objective.periodic = {true};
    EXPECT_THROW((void)minimize(objective, std::vector<double>{1.0, 0.0, 0.0}), FitError);
}

}  // namespace
}  // namespace laddu::fit
