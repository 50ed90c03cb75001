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
#include <laddu/fit/transform.hpp>

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

namespace {

// Parameters within 1e-8 · max(1, |bound|) of a finite bound (periodic ones never are).
std::vector<bool> at_bounds(const Objective& objective, std::span<const double> x) {
    std::vector<bool> at(x.size(), false);
    for (std::size_t k = 0; k < objective.bounds.size() && k < x.size(); ++k) {
        const expr::Bounds& b = objective.bounds[k];
        const bool periodic = k < objective.periodic.size() && objective.periodic[k];
        const auto near = [&](double bound) {
            return std::isfinite(bound) &&
                   std::abs(x[k] - bound) <= 1e-8 * std::max(1.0, std::abs(bound));
        };
        at[k] = !periodic && (near(b.lower) || near(b.upper));
    }
    return at;
}

// The covariance at the minimum x. The Hessian is taken in the minimiser's internal parameters
// (transform.hpp) and mapped back with the Jacobian; a parameter on a bound is held there (its
// rows of the Hessian replaced by the identity's, its covariance entries 0), which is what the
// transform gives for the variable metric and Nelder-Mead and what L-BFGS-B is given to match.
Covariance uncertainties_at(const Objective& objective, Method method, std::span<const double> x,
                            const std::vector<bool>& at_bound) {
    const std::size_t n = x.size();
    const ParameterTransform transform = ParameterTransform::for_method(objective, method);
    const Objective inner = transform.internal_objective(objective);
    const std::vector<double> u = transform.to_internal(x);
    std::vector<double> hessian = finite_difference_hessian(inner, u);
    for (std::size_t k = 0; k < n; ++k) {
        if (at_bound[k]) {
            for (std::size_t j = 0; j < n; ++j) {
                hessian[k * n + j] = k == j ? 1.0 : 0.0;
                hessian[j * n + k] = k == j ? 1.0 : 0.0;
            }
        }
    }
    Covariance covariance = covariance_from_hessian(hessian, n);
    if (n == 0 || std::isnan(covariance.covariance[0])) {
        return covariance;  // singular: everything NaN already
    }
    std::vector<double> c = transform.covariance_to_external(covariance.covariance, u);
    for (std::size_t k = 0; k < n; ++k) {
        for (std::size_t j = 0; j < n && at_bound[k]; ++j) {
            c[k * n + j] = 0.0;
            c[j * n + k] = 0.0;
        }
    }
    for (std::size_t k = 0; k < n; ++k) {
        const double variance = c[k * n + k];
        covariance.uncertainties[k] = at_bound[k]      ? 0.0
                                      : variance > 0.0 ? std::sqrt(variance)
                                                       : std::numeric_limits<double>::quiet_NaN();
    }
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            const double si = covariance.uncertainties[i];
            const double sj = covariance.uncertainties[j];
            covariance.correlation[i * n + j] =
                (at_bound[i] || at_bound[j]) ? (i == j ? 1.0 : 0.0) : c[i * n + j] / (si * sj);
        }
    }
    covariance.covariance = std::move(c);
    return covariance;
}

}  // namespace

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
    result.message =
        minimum.message.empty() ? termination_name(minimum.termination) : minimum.message;
    result.iterations = minimum.iterations;
    result.value_evaluations = minimum.value_evaluations;
    result.gradient_evaluations = minimum.gradient_evaluations;
    const std::size_t n = objective.dimension;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    result.uncertainties.assign(n, nan);
    result.covariance.assign(n * n, nan);
    result.correlation.assign(n * n, nan);
    result.at_bound = at_bounds(objective, result.values);
    std::string bound_names;
    for (std::size_t k = 0; k < n; ++k) {
        bound_names +=
            result.at_bound[k] ? (bound_names.empty() ? "" : ", ") + result.names[k] : "";
    }
    if (!bound_names.empty()) {
        result.message +=
            "; at a bound: " + bound_names + " (uncertainty 0; the others are conditional on it)";
    }
    if (options.uncertainties) {
        try {
            Covariance covariance = uncertainties_at(objective, options.minimizer.method,
                                                     result.values, result.at_bound);
            result.value_evaluations += 2 * n;
            result.gradient_evaluations += 2 * n;
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
    for (const expr::Parameter& parameter : likelihood.parameters()) {
        objective.periodic.push_back(parameter.periodic);
    }
    return objective;
}

FitResult fit(const likelihood::Likelihood& likelihood, std::span<const double> start,
              const FitOptions& options) {
    Objective objective = objective_of(likelihood);
    if (!options.bounds.empty()) {
        if (options.bounds.size() != objective.dimension) {
            throw FitError(fmt::format("FitOptions::bounds has {} intervals for {} parameters",
                                       options.bounds.size(), objective.dimension));
        }
        objective.bounds = options.bounds;
    }
    return fit(objective, likelihood.parameter_names(), start, options);
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
            failed.at_bound.assign(x.size(), false);
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
