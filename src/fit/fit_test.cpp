#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/fit/fit.hpp>
#include <laddu/fit/hessian.hpp>
#include <laddu/fit/minimizer.hpp>
#include <laddu/likelihood/likelihood.hpp>

namespace laddu::fit {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// f(x) = ½ (x − μ)ᵀ A (x − μ) + 3, A symmetric positive definite: minimum μ, Hessian A.
struct Quadratic {
    std::vector<double> a{4.0, 1.0, 0.5, 1.0, 3.0, -0.4, 0.5, -0.4, 2.0};
    std::vector<double> mu{1.0, -2.0, 0.5};

    runtime::Evaluation operator()(std::span<const double> x) const {
        runtime::Evaluation e{3.0, std::vector<double>(3, 0.0)};
        for (std::size_t i = 0; i < 3; ++i) {
            for (std::size_t j = 0; j < 3; ++j) {
                e.value += 0.5 * (x[i] - mu[i]) * a[i * 3 + j] * (x[j] - mu[j]);
                e.gradient[i] += a[i * 3 + j] * (x[j] - mu[j]);
            }
        }
        return e;
    }
};

Objective quadratic_objective(std::vector<expr::Bounds> bounds = {}) {
    Objective objective;
    objective.dimension = 3;
    objective.value_and_gradient = Quadratic{};
    objective.bounds = std::move(bounds);
    return objective;
}

// 100 (y − x²)² + (1 − x)²: minimum (1, 1), Hessian [[802, −400], [−400, 200]] there.
Objective rosenbrock() {
    Objective objective;
    objective.dimension = 2;
    objective.value_and_gradient = [](std::span<const double> p) {
        const double x = p[0];
        const double y = p[1];
        return runtime::Evaluation{100.0 * (y - x * x) * (y - x * x) + (1 - x) * (1 - x),
                                   {-400.0 * x * (y - x * x) - 2.0 * (1 - x), 200.0 * (y - x * x)}};
    };
    return objective;
}

// The analytic inverse of the quadratic's A by cofactors.
std::vector<double> inverse3(const std::vector<double>& m) {
    const double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
                       m[2] * (m[3] * m[7] - m[4] * m[6]);
    return {(m[4] * m[8] - m[5] * m[7]) / det, (m[2] * m[7] - m[1] * m[8]) / det,
            (m[1] * m[5] - m[2] * m[4]) / det, (m[5] * m[6] - m[3] * m[8]) / det,
            (m[0] * m[8] - m[2] * m[6]) / det, (m[2] * m[3] - m[0] * m[5]) / det,
            (m[3] * m[7] - m[4] * m[6]) / det, (m[1] * m[6] - m[0] * m[7]) / det,
            (m[0] * m[4] - m[1] * m[3]) / det};
}

TEST(Minimizer, LbfgsbFindsTheMinimumOfAQuadratic) {
    const std::vector<double> start{5.0, 5.0, -5.0};
    const MinimizerResult r = minimize(quadratic_objective(), start);
    EXPECT_TRUE(r.converged) << termination_name(r.termination);
    const Quadratic q;
    for (std::size_t k = 0; k < 3; ++k) {
        EXPECT_NEAR(r.x[k], q.mu[k], 1e-6) << k;
    }
    EXPECT_NEAR(r.value, 3.0, 1e-12);
    EXPECT_GT(r.gradient_evaluations, 0U);
}

TEST(Minimizer, LbfgsbSolvesRosenbrock) {
    MinimizerOptions options;
    options.value_tolerance = 0.0;  // stop on the gradient only
    const MinimizerResult r = minimize(rosenbrock(), std::vector<double>{-1.2, 1.0}, options);
    ASSERT_TRUE(r.converged) << termination_name(r.termination);
    EXPECT_EQ(r.termination, Termination::kGradient);
    EXPECT_NEAR(r.x[0], 1.0, 1e-6);
    EXPECT_NEAR(r.x[1], 1.0, 1e-6);
}

TEST(Minimizer, BoundsAreRespectedAndActiveAtTheConstrainedMinimum) {
    // μ_0 = 1 lies above the bound 0.25: the constrained minimum has x_0 = 0.25.
    const std::vector<expr::Bounds> bounds{{-kInf, 0.25}, {-10.0, 10.0}, {-kInf, kInf}};
    const MinimizerResult r =
        minimize(quadratic_objective(bounds), std::vector<double>{0.0, 0.0, 0.0});
    ASSERT_TRUE(r.converged) << termination_name(r.termination);
    EXPECT_DOUBLE_EQ(r.x[0], 0.25);
    // The remaining coordinates minimise over (x1, x2) with x0 fixed: A_sub z = −A_{·0}(x0 − μ0).
    const Quadratic q;
    const double d0 = 0.25 - q.mu[0];
    const double r1 = -q.a[3] * d0;
    const double r2 = -q.a[6] * d0;
    const double det = q.a[4] * q.a[8] - q.a[5] * q.a[7];
    EXPECT_NEAR(r.x[1], q.mu[1] + (q.a[8] * r1 - q.a[5] * r2) / det, 1e-6);
    EXPECT_NEAR(r.x[2], q.mu[2] + (q.a[4] * r2 - q.a[7] * r1) / det, 1e-6);
}

TEST(Minimizer, NelderMeadFindsTheMinimumWithoutGradients) {
    MinimizerOptions options;
    options.method = Method::kNelderMead;
    const MinimizerResult r =
        minimize(quadratic_objective(), std::vector<double>{2.0, 0.0, 0.0}, options);
    ASSERT_TRUE(r.converged) << termination_name(r.termination);
    EXPECT_EQ(r.termination, Termination::kSimplexSize);
    const Quadratic q;
    for (std::size_t k = 0; k < 3; ++k) {
        EXPECT_NEAR(r.x[k], q.mu[k], 1e-6) << k;
    }
}

TEST(Minimizer, VariableMetricSolvesRosenbrockAndTheBoundedQuadratic) {
    MinimizerOptions options;
    options.method = Method::kVariableMetric;
    options.value_tolerance = 0.0;
    options.edm_tolerance = 1e-16;  // an EDM of ε gives |Δx| ~ √(2ε/λ): make it negligible
    const MinimizerResult r = minimize(rosenbrock(), std::vector<double>{-1.2, 1.0}, options);
    ASSERT_TRUE(r.converged) << termination_name(r.termination);
    EXPECT_NEAR(r.x[0], 1.0, 1e-5);
    EXPECT_NEAR(r.x[1], 1.0, 1e-5);
    ASSERT_EQ(r.inverse_hessian.size(), 4U);
    EXPECT_NEAR(r.inverse_hessian[1], r.inverse_hessian[2], 1e-12);  // symmetric
    EXPECT_GT(r.inverse_hessian[0], 0.0);

    const MinimizerResult q =
        minimize(quadratic_objective(), std::vector<double>{5.0, 5.0, -5.0}, options);
    ASSERT_TRUE(q.converged) << termination_name(q.termination);
    const Quadratic quadratic;
    for (std::size_t k = 0; k < 3; ++k) {
        EXPECT_NEAR(q.x[k], quadratic.mu[k], 1e-6) << k;
    }
    const std::vector<expr::Bounds> bounds{{-kInf, 0.25}, {-10.0, 10.0}, {-kInf, kInf}};
    const MinimizerResult b =
        minimize(quadratic_objective(bounds), std::vector<double>{0.0, 0.0, 0.0}, options);
    ASSERT_TRUE(b.converged) << termination_name(b.termination);
    EXPECT_DOUBLE_EQ(b.x[0], 0.25);
    const MinimizerResult reference =
        minimize(quadratic_objective(bounds), std::vector<double>{0.0, 0.0, 0.0});
    EXPECT_NEAR(b.x[1], reference.x[1], 1e-6);
    EXPECT_NEAR(b.x[2], reference.x[2], 1e-6);
    EXPECT_STREQ(termination_name(Termination::kDistanceToMinimum),
                 "estimated distance to minimum below tolerance");
}

TEST(Minimizer, RunningOutOfIterationsIsAResultNotAnError) {
    MinimizerOptions options;
    options.max_iterations = 3;
    const MinimizerResult r = minimize(rosenbrock(), std::vector<double>{-1.2, 1.0}, options);
    EXPECT_FALSE(r.converged);
    EXPECT_EQ(r.termination, Termination::kMaxIterations);
    EXPECT_EQ(r.iterations, 3U);
}

TEST(Minimizer, TheProgressCallbackSeesEveryIterationAndCanStop) {
    std::vector<double> values;
    MinimizerOptions options;
    options.progress = [&](const Progress& p) {
        values.push_back(p.value);
        EXPECT_EQ(p.iteration, values.size());
        return values.size() < 5;
    };
    const MinimizerResult r = minimize(rosenbrock(), std::vector<double>{-1.2, 1.0}, options);
    EXPECT_FALSE(r.converged);
    EXPECT_EQ(r.termination, Termination::kStopped);
    ASSERT_EQ(values.size(), 5U);
    for (std::size_t i = 1; i < values.size(); ++i) {
        EXPECT_LE(values[i], values[i - 1]);  // monotone descent
    }
}

TEST(Minimizer, MalformedObjectivesAreFitErrors) {
    Objective empty;
    empty.dimension = 1;
    EXPECT_THROW((void)minimize(empty, std::vector<double>{0.0}), FitError);
    EXPECT_THROW((void)minimize(quadratic_objective(), std::vector<double>{0.0}), FitError);
    EXPECT_THROW((void)minimize(quadratic_objective({{0.0, 1.0}}), std::vector<double>(3, 0.0)),
                 FitError);
    EXPECT_THROW((void)minimize(quadratic_objective(), std::vector<double>{0.0, NAN, 0.0}),
                 FitError);
}

TEST(Hessian, FiniteDifferencesOfTheGradientRecoverTheCovariance) {
    const FitResult r =
        fit(quadratic_objective(), {"x", "y", "z"}, std::vector<double>{0.0, 0.0, 0.0});
    ASSERT_TRUE(r.converged) << r.message;
    const std::vector<double> expected = inverse3(Quadratic{}.a);
    for (std::size_t i = 0; i < 3; ++i) {
        for (std::size_t j = 0; j < 3; ++j) {
            EXPECT_NEAR(r.covariance_at(i, j), expected[i * 3 + j], 1e-7) << i << "," << j;
        }
        EXPECT_NEAR(r.uncertainties[i], std::sqrt(expected[i * 3 + i]), 1e-7);
        EXPECT_NEAR(r.correlation[i * 3 + i], 1.0, 1e-12);
    }
    EXPECT_NEAR(r.correlation[1], expected[1] / std::sqrt(expected[0] * expected[4]), 1e-7);
    EXPECT_GT(r.wall_seconds, 0.0);
}

TEST(Hessian, RosenbrockCovarianceIsTheInverseOfItsAnalyticHessian) {
    const Objective objective = rosenbrock();
    const std::vector<double> h =
        finite_difference_hessian(objective, std::vector<double>{1.0, 1.0});
    EXPECT_NEAR(h[0], 802.0, 1e-6);
    EXPECT_NEAR(h[1], -400.0, 1e-6);
    EXPECT_NEAR(h[3], 200.0, 1e-6);
    const Covariance c = covariance_from_hessian(h, 2);
    ASSERT_TRUE(c.valid) << c.message;
    const double det = 802.0 * 200.0 - 400.0 * 400.0;
    // det = 400 is small against the entries, so relative errors of ~1e-9 in h grow ~1e3-fold.
    EXPECT_NEAR(c.covariance[0], 200.0 / det, 1e-6 * 200.0 / det);
    EXPECT_NEAR(c.covariance[1], 400.0 / det, 1e-6 * 400.0 / det);
    EXPECT_NEAR(c.covariance[3], 802.0 / det, 1e-6 * 802.0 / det);
}

TEST(Hessian, ASingularHessianGivesNanUncertaintiesAndAMessage) {
    // f = (x + y)²: every point on x = −y is a minimum.
    Objective objective;
    objective.dimension = 2;
    objective.value_and_gradient = [](std::span<const double> p) {
        const double s = p[0] + p[1];
        return runtime::Evaluation{s * s, {2.0 * s, 2.0 * s}};
    };
    const FitResult r = fit(objective, {"x", "y"}, std::vector<double>{1.0, 2.0});
    EXPECT_TRUE(r.converged);
    EXPECT_TRUE(std::isnan(r.uncertainties[0]));
    EXPECT_TRUE(std::isnan(r.covariance_at(0, 1)));
    EXPECT_NE(r.message.find("singular"), std::string::npos) << r.message;
    const Covariance indefinite =
        covariance_from_hessian(std::vector<double>{-1.0, 0.0, 0.0, 2.0}, 2);
    EXPECT_FALSE(indefinite.valid);
    EXPECT_TRUE(std::isnan(indefinite.uncertainties[0]));
    EXPECT_NEAR(indefinite.uncertainties[1], std::sqrt(0.5), 1e-15);
    EXPECT_NE(indefinite.message.find("not positive definite"), std::string::npos);
}

TEST(FitResult, ToStringIsATableOfNamesValuesAndUncertainties) {
    const FitResult r =
        fit(quadratic_objective(), {"alpha", "beta", "gamma"}, std::vector<double>{0.0, 0.0, 0.0});
    const std::string text = r.to_string();
    EXPECT_NE(text.find("fit converged"), std::string::npos) << text;
    EXPECT_NE(text.find("alpha"), std::string::npos);
    EXPECT_NE(text.find("uncertainty"), std::string::npos);
    EXPECT_NE(text.find("-2"), std::string::npos) << text;  // beta's value
    EXPECT_THROW((void)fit(quadratic_objective(), {"a"}, std::vector<double>(3, 0.0)), FitError);
}

// A Likelihood of one test term, to exercise fit(Likelihood) and fit_restarts().
class DoubleWell final : public likelihood::Term {
public:
    // (x² − 1)² + 0.1 x + (y − 2)²: the global minimum near x = −1, a local one near x = +1.
    const std::string& name() const noexcept override { return name_; }

    const std::vector<expr::Parameter>& parameters() const noexcept override { return params_; }

    double value(std::span<const double> p) const override {
        return (p[0] * p[0] - 1) * (p[0] * p[0] - 1) + 0.1 * p[0] + (p[1] - 2) * (p[1] - 2);
    }

    runtime::Evaluation value_and_gradient(std::span<const double> p) const override {
        return {value(p), {4.0 * p[0] * (p[0] * p[0] - 1) + 0.1, 2.0 * (p[1] - 2)}};
    }

private:
    std::string name_ = "double_well";
    std::vector<expr::Parameter> params_{
        expr::Parameter::make("x", {.initial = 1.0, .bounds = expr::Bounds{-3.0, 3.0}}),
        expr::Parameter::make("y", {.initial = 0.0})};
};

TEST(Fit, RestartsFindTheGlobalMinimumAndAreDeterministic) {
    likelihood::Likelihood total;
    total.add(std::make_shared<DoubleWell>());
    const std::vector<double> start = total.default_parameters();
    const FitResult single = fit(total, start);
    ASSERT_TRUE(single.converged);
    EXPECT_GT(single.values[0], 0.0);  // from x = 1 it stays in the local well
    const RestartResult many = fit_restarts(total, start, {.starts = 8, .seed = 3});
    ASSERT_EQ(many.fits.size(), 8U);
    EXPECT_LT(many.best_fit().values[0], 0.0);
    EXPECT_NEAR(many.best_fit().values[1], 2.0, 1e-6);
    EXPECT_NEAR(many.best_fit().uncertainties[1], std::sqrt(0.5), 1e-6);
    const RestartResult again = fit_restarts(total, start, {.starts = 8, .seed = 3});
    for (std::size_t s = 0; s < 8; ++s) {
        EXPECT_EQ(again.fits[s].start, many.fits[s].start);
        EXPECT_EQ(again.fits[s].values, many.fits[s].values);
    }
    EXPECT_THROW((void)fit_restarts(total, start, {.starts = 0}), FitError);
}

}  // namespace
}  // namespace laddu::fit
