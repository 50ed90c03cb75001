#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <utility>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/fit/fit.hpp>
#include <laddu/fit/hessian.hpp>

namespace laddu::fit {

std::string FitResult::to_string() const {
    std::string out = fmt::format(
        "fit {}: {} after {} iterations ({} value, {} gradient evaluations, {:.3f} s)\n",
        converged ? "converged" : "did NOT converge", message, iterations, value_evaluations,
        gradient_evaluations, wall_seconds);
    out += fmt::format("objective = {:.10g}\n", value);
    std::size_t width = 9;
    for (const std::string& name : names) {
        width = std::max(width, name.size());
    }
    out += fmt::format("  {:<{}}  {:>16}  {:>12}\n", "parameter", width, "value", "uncertainty");
    for (std::size_t k = 0; k < names.size(); ++k) {
        out += fmt::format("  {:<{}}  {:>16.9g}  {:>12.4g}\n", names[k], width, values[k],
                           uncertainties[k]);
    }
    return out;
}

FitResult fit(const Objective& objective, std::vector<std::string> names,
              std::span<const double> start, const FitOptions& options) {
    if (names.size() != objective.dimension) {
        throw FitError(fmt::format("fit got {} parameter names for an objective of {} "
                                   "dimensions",
                                   names.size(), objective.dimension));
    }
    const auto begin = std::chrono::steady_clock::now();
    const MinimizerResult minimum = minimize(objective, start, options.minimizer);
    FitResult result;
    result.names = std::move(names);
    result.start.assign(start.begin(), start.end());
    result.values = minimum.x;
    result.value = minimum.value;
    result.converged = minimum.converged;
    result.termination = minimum.termination;
    result.message = termination_name(minimum.termination);
    result.iterations = minimum.iterations;
    result.value_evaluations = minimum.value_evaluations;
    result.gradient_evaluations = minimum.gradient_evaluations;
    const std::size_t n = objective.dimension;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    result.uncertainties.assign(n, nan);
    result.covariance.assign(n * n, nan);
    result.correlation.assign(n * n, nan);
    if (options.uncertainties) {
        try {
            const std::vector<double> hessian = finite_difference_hessian(objective, result.values);
            result.value_evaluations += 2 * n;
            result.gradient_evaluations += 2 * n;
            Covariance covariance = covariance_from_hessian(hessian, n);
            result.uncertainties = std::move(covariance.uncertainties);
            result.covariance = std::move(covariance.covariance);
            result.correlation = std::move(covariance.correlation);
            if (!covariance.valid) {
                result.message += "; " + covariance.message;
            }
        } catch (const EvaluationError& e) {
            result.message += fmt::format("; the Hessian could not be evaluated ({}); "
                                          "uncertainties are NaN",
                                          e.what());
        }
    }
    result.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    return result;
}

Objective objective_of(const likelihood::Likelihood& likelihood) {
    Objective objective;
    objective.dimension = likelihood.size();
    objective.value_and_gradient = [&likelihood](std::span<const double> x) {
        return likelihood.value_and_gradient(x);
    };
    objective.value = [&likelihood](std::span<const double> x) {
        return likelihood.value(x);
    };
    objective.bounds = likelihood.bounds();
    return objective;
}

FitResult fit(const likelihood::Likelihood& likelihood, std::span<const double> start,
              const FitOptions& options) {
    return fit(objective_of(likelihood), likelihood.parameter_names(), start, options);
}

RestartResult fit_restarts(const likelihood::Likelihood& likelihood, std::span<const double> start,
                           const RestartOptions& restarts, const FitOptions& options) {
    if (restarts.starts == 0) {
        throw FitError("fit_restarts needs at least one start (RestartOptions::starts = 0)");
    }
    if (start.size() != likelihood.size()) {
        throw FitError(fmt::format("the start point has {} values but the likelihood has {} "
                                   "parameters",
                                   start.size(), likelihood.size()));
    }
    const std::vector<expr::Bounds> bounds = likelihood.bounds();
    const Objective objective = objective_of(likelihood);
    RestartResult result;
    for (std::size_t s = 0; s < restarts.starts; ++s) {
        std::vector<double> x(start.begin(), start.end());
        if (s > 0) {
            // laddu's seeding: start k draws from seed + k · 0x9E3779B97F4A7C15, so a start
            // does not depend on how many starts come before it.
            std::mt19937_64 rng(restarts.seed + s * 0x9E3779B97F4A7C15ULL);
            std::normal_distribution<double> normal(0.0, 1.0);
            std::uniform_real_distribution<double> uniform(0.0, 1.0);
            for (std::size_t k = 0; k < x.size(); ++k) {
                const expr::Bounds& b = bounds[k];
                if (std::isfinite(b.lower) && std::isfinite(b.upper)) {
                    x[k] = b.lower + (b.upper - b.lower) * uniform(rng);
                } else {
                    x[k] = std::clamp(x[k] + restarts.spread * std::max(1.0, std::abs(x[k])) *
                                                 normal(rng),
                                      b.lower, b.upper);
                }
            }
        }
        try {
            result.fits.push_back(fit(objective, likelihood.parameter_names(), x, options));
        } catch (const EvaluationError& e) {
            FitResult failed;
            failed.names = likelihood.parameter_names();
            failed.start = x;
            failed.values = x;
            failed.value = std::numeric_limits<double>::infinity();
            const double nan = std::numeric_limits<double>::quiet_NaN();
            failed.uncertainties.assign(x.size(), nan);
            failed.covariance.assign(x.size() * x.size(), nan);
            failed.correlation.assign(x.size() * x.size(), nan);
            failed.message =
                fmt::format("the likelihood could not be evaluated at the start: {}", e.what());
            result.fits.push_back(std::move(failed));
        }
    }
    const auto better = [&](std::size_t a, std::size_t b) {
        const FitResult& fa = result.fits[a];
        const FitResult& fb = result.fits[b];
        if (fa.converged != fb.converged) {
            return fa.converged;
        }
        return fa.value < fb.value;
    };
    for (std::size_t s = 1; s < result.fits.size(); ++s) {
        if (better(s, result.best)) {
            result.best = s;
        }
    }
    return result;
}

}  // namespace laddu::fit
