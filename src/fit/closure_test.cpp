// A closure test: generate events from a known intensity by accept-reject on flat events, fit
// the NLL from perturbed starts, and recover every parameter within 3 sigma.
#include <cmath>
#include <complex>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/fit/bootstrap.hpp>
#include <laddu/fit/fit.hpp>
#include <laddu/fit/fit_fraction.hpp>
#include <laddu/likelihood/likelihood.hpp>
#include <laddu/likelihood/nll.hpp>
#include <laddu/likelihood/penalty.hpp>

namespace laddu::fit {
namespace {

using Complex = std::complex<double>;

// I(x) = |1 + (a + i b) x e^{ix} + c x²|², x in [−1, 1].
double intensity(double x, double a, double b, double c) {
    return std::norm(1.0 + Complex(a, b) * x * std::polar(1.0, x) + c * x * x);
}

expr::Model closure_model() {
    const expr::Expr x = expr::scalar("x");
    const expr::Expr a = expr::parameter("a", {.initial = 0.0});
    const expr::Expr b = expr::parameter("b", {.initial = 0.0});
    const expr::Expr c = expr::parameter("c", {.initial = 0.0, .bounds = expr::Bounds{-5.0, 5.0}});
    const expr::Expr amplitude = expr::constant(Complex(1.0, 0.0)) +
                                 expr::complex(a, b) * (x * expr::cis(x)) +
                                 expr::complex(c, expr::constant(0.0)) * (x * x);
    return expr::Model(expr::norm_sqr(amplitude));
}

data::Dataset scalar_dataset(const std::vector<double>& x) {
    const std::vector<data::P4Input> no_p4s;
    const std::vector<data::ScalarInput> scalars{{"x", x}};
    const std::vector<double> weights(x.size(), 1.0);
    return data::Dataset::from_arrays(no_p4s, scalars, weights);
}

TEST(Closure, AFitRecoversTheGeneratingParametersWithinThreeSigma) {
    const double truth[] = {0.5, -0.3, 0.8};
    std::mt19937_64 rng(20261202);
    std::uniform_real_distribution<double> flat(-1.0, 1.0);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    double ceiling = 0.0;
    for (int i = 0; i <= 2000; ++i) {
        ceiling = std::max(ceiling, intensity(-1.0 + 0.001 * i, truth[0], truth[1], truth[2]));
    }
    ceiling *= 1.05;
    std::vector<double> data;
    std::vector<double> mc;
    for (int i = 0; i < 40000; ++i) {
        const double x = flat(rng);
        if (unit(rng) * ceiling < intensity(x, truth[0], truth[1], truth[2])) {
            data.push_back(x);
        }
        mc.push_back(flat(rng));
    }
    ASSERT_GT(data.size(), 5000U);

    const auto nll = std::make_shared<likelihood::NLL>(closure_model(), scalar_dataset(data),
                                                       scalar_dataset(mc));
    EXPECT_TRUE(nll->uses_fast_normalization());  // a coherent sum: the matrix path
    likelihood::Likelihood total;
    total.add(nll);
    ASSERT_EQ(total.parameter_names(), (std::vector<std::string>{"a", "b", "c"}));
    for (const Method method : {Method::kLbfgsb, Method::kVariableMetric, Method::kNelderMead}) {
        for (const std::vector<double>& start :
             {std::vector<double>{0.0, 0.0, 0.0}, std::vector<double>{0.9, 0.2, 0.3}}) {
            FitOptions options;
            options.minimizer.method = method;
            const FitResult result = fit(total, start, options);
            ASSERT_TRUE(result.converged) << result.to_string();
            for (std::size_t k = 0; k < 3; ++k) {
                ASSERT_TRUE(std::isfinite(result.uncertainties[k])) << result.to_string();
                EXPECT_GT(result.uncertainties[k], 0.0);
                EXPECT_LT(std::abs(result.values[k] - truth[k]), 3.0 * result.uncertainties[k])
                    << result.to_string();
            }
        }
    }
}

// |Σ_k c_k A_k|² with every coefficient free: I scales with |c|², so at the minimum of the
// extended NLL the fitted yield Σ_acc w_j I_j equals the data yield (θ·∇ = 2(Σ_acc − N_w) = 0).
TEST(Closure, AnExtendedFitMatchesTheDataYield) {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> flat(-1.0, 1.0);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const auto truth = [](double x) {
        return intensity(x, 0.5, -0.3, 0.8);
    };
    std::vector<double> data;
    std::vector<double> mc;
    for (int i = 0; i < 30000; ++i) {
        const double x = flat(rng);
        if (unit(rng) * 6.0 < truth(x)) {
            data.push_back(x);
        }
        mc.push_back(flat(rng));
    }
    const expr::Expr x = expr::scalar("x");
    const auto coefficient = [](const std::string& n, double initial) {
        return expr::complex(expr::parameter(n + "_re", {.initial = initial}),
                             expr::parameter(n + "_im", {.initial = 0.0}));
    };
    const expr::Model model(expr::norm_sqr(coefficient("s", 0.1) +
                                           coefficient("p", 0.1) * (x * expr::cis(x)) +
                                           coefficient("d", 0.1) * (x * x)));
    const auto extended =
        std::make_shared<likelihood::ExtendedNLL>(model, scalar_dataset(data), scalar_dataset(mc));
    likelihood::Likelihood total;
    total.add(extended);
    FitOptions options;
    options.minimizer.value_tolerance = 0.0;
    options.minimizer.gradient_tolerance = 1e-8;
    options.uncertainties = false;
    // The overall phase is a flat direction of the likelihood; it does not change the yield.
    const FitResult result = fit(total, total.default_parameters(), options);
    ASSERT_TRUE(result.converged) << result.to_string();
    const double yield = extended->normalization_integral(result.values);
    EXPECT_NEAR(yield, static_cast<double>(data.size()), 1e-9 * static_cast<double>(data.size()));
}

// Fit fractions: the value against a direct integral, the uncertainty against propagating the
// covariance through a finite-difference gradient of the fraction.
TEST(Closure, FitFractionsCarryPropagatedUncertainties) {
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> flat(-1.0, 1.0);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> data;
    std::vector<double> mc;
    for (int i = 0; i < 20000; ++i) {
        const double x = flat(rng);
        if (unit(rng) * 6.0 < intensity(x, 0.5, -0.3, 0.8)) {
            data.push_back(x);
        }
        mc.push_back(flat(rng));
    }
    const expr::Expr x = expr::scalar("x");
    const expr::Expr a = expr::parameter("a", {.initial = 0.1});
    const expr::Expr b = expr::parameter("b", {.initial = 0.1});
    const expr::Expr c = expr::parameter("c", {.initial = 0.1});
    const expr::Model model(
        expr::norm_sqr(expr::constant(Complex(1.0, 0.0)).tagged("S") +
                       (expr::complex(a, b) * (x * expr::cis(x))).tagged("P") +
                       (expr::complex(c, expr::constant(0.0)) * (x * x)).tagged("D")));
    const auto nll =
        std::make_shared<likelihood::NLL>(model, scalar_dataset(data), scalar_dataset(mc));
    likelihood::Likelihood total;
    total.add(nll);
    total.add(std::make_shared<likelihood::RidgePenalty>(std::vector<std::string>{"c"}, 0.01));
    const FitResult result = fit(total, total.default_parameters());
    ASSERT_TRUE(result.converged) << result.to_string();
    const FitFraction p_wave = fit_fraction(result, *nll, {"P"});
    long double part = 0.0L;
    long double all = 0.0L;
    for (const double xj : mc) {
        const double av = result.values[0];
        const double bv = result.values[1];
        const double cv = result.values[2];
        part += static_cast<long double>(std::norm(Complex(av, bv) * xj * std::polar(1.0, xj)));
        all += static_cast<long double>(intensity(xj, av, bv, cv));
    }
    EXPECT_NEAR(p_wave.value, static_cast<double>(part / all), 1e-12);
    std::vector<double> g;
    for (std::size_t k = 0; k < 3; ++k) {
        std::vector<double> up = result.values;
        std::vector<double> down = result.values;
        up[k] += 1e-6;
        down[k] -= 1e-6;
        g.push_back((nll->fit_fraction(up, {"P"}).value - nll->fit_fraction(down, {"P"}).value) /
                    2e-6);
    }
    double variance = 0.0;
    for (std::size_t i = 0; i < 3; ++i) {
        for (std::size_t j = 0; j < 3; ++j) {
            variance += g[i] * result.covariance_at(i, j) * g[j];
        }
    }
    EXPECT_GT(p_wave.uncertainty, 0.0);
    EXPECT_NEAR(p_wave.uncertainty, std::sqrt(variance), 1e-6 * std::sqrt(variance));

    likelihood::Likelihood other;
    other.add(std::make_shared<likelihood::RidgePenalty>(std::vector<std::string>{"z"}, 1.0));
    const FitResult unrelated = fit(other, std::vector<double>{1.0});
    EXPECT_THROW((void)fit_fraction(unrelated, *nll, {"P"}), FitError);
}

// Bootstrap replicas: deterministic in the seed, and their spread agrees with the Hessian
// uncertainty (within the ~16% statistical precision of a 40-replica standard deviation).
TEST(Closure, BootstrapSpreadAgreesWithTheHessianUncertainty) {
    std::mt19937_64 rng(9);
    std::uniform_real_distribution<double> flat(-1.0, 1.0);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> data;
    std::vector<double> mc;
    for (int i = 0; i < 12000; ++i) {
        const double x = flat(rng);
        if (unit(rng) * 6.0 < intensity(x, 0.5, -0.3, 0.8)) {
            data.push_back(x);
        }
        mc.push_back(flat(rng));
    }
    const data::Dataset data_set = scalar_dataset(data);
    const data::Dataset mc_set = scalar_dataset(mc);
    likelihood::Likelihood total;
    total.add(std::make_shared<likelihood::NLL>(closure_model(), data_set, mc_set));
    const FitResult nominal = fit(total, total.default_parameters());
    ASSERT_TRUE(nominal.converged);

    FitOptions quick;
    quick.uncertainties = false;
    const BootstrapResult replicas = bootstrap_fits(
        closure_model(), data_set, mc_set, nominal.values, {.samples = 40, .seed = 100}, quick);
    ASSERT_EQ(replicas.fits.size(), 40U);
    EXPECT_EQ(replicas.seeds[3], 103U);
    const std::vector<double> spread = replicas.standard_deviation();
    const std::vector<double> mean = replicas.mean();
    for (std::size_t k = 0; k < 3; ++k) {
        EXPECT_GT(spread[k], 0.6 * nominal.uncertainties[k]) << k;
        EXPECT_LT(spread[k], 1.5 * nominal.uncertainties[k]) << k;
        EXPECT_LT(std::abs(mean[k] - nominal.values[k]), 0.6 * nominal.uncertainties[k]) << k;
    }
    const BootstrapResult again = bootstrap_fits(closure_model(), data_set, mc_set, nominal.values,
                                                 {.samples = 2, .seed = 100}, quick);
    EXPECT_EQ(again.fits[1].values, replicas.fits[1].values);
    EXPECT_THROW(
        (void)bootstrap_fits(closure_model(), data_set, mc_set, nominal.values, {.samples = 0}),
        FitError);
}

}  // namespace
}  // namespace laddu::fit
