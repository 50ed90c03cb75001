// laddu/fit/fit.hpp: fitting a Likelihood: minimise, then uncertainties from the Hessian.
//
// Example:
//   fit::FitResult result = fit::fit(total, total.default_parameters());
//   std::cout << result.to_string();
//   fit::RestartResult many = fit::fit_restarts(total, start, {.starts = 8, .seed = 1});
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <laddu/fit/minimizer.hpp>
#include <laddu/likelihood/likelihood.hpp>

namespace laddu::fit {

/// Options of fit().
struct FitOptions {
    MinimizerOptions minimizer;
    bool uncertainties = true;  ///< compute the Hessian and covariance at the minimum
    /// Likelihood fits: one interval per parameter replacing the parameters' bounds in this
    /// fit (ganesh's LBFGSBConfig bounds), or empty for the parameters' own.
    std::vector<expr::Bounds> bounds;
};

/// The outcome of a fit. A fit that did not converge is a result with converged = false.
struct FitResult {
    std::vector<std::string> names;
    std::vector<double> start;
    std::vector<double> values;
    std::vector<double> uncertainties;  ///< NaN when the Hessian is singular or not computed
    std::vector<double> covariance;     ///< n × n row-major
    std::vector<double> correlation;    ///< n × n row-major
    /// Per parameter: the value is on one of its finite bounds (within 1e-8 · max(1, |bound|)).
    /// Such a parameter has uncertainty 0 and no covariance (MINUIT's convention for the
    /// transformed minimisers, applied to every method), the others' covariance is the one
    /// with it held there, and the fit still counts as converged; message names them.
    std::vector<bool> at_bound;
    double value = 0.0;  ///< the objective at `values`
    bool converged = false;
    Termination termination = Termination::kMaxIterations;
    std::string message;  ///< the termination reason, and why uncertainties are NaN if they are
    std::size_t iterations = 0;
    std::size_t value_evaluations = 0;     ///< including the Hessian's
    std::size_t gradient_evaluations = 0;  ///< including the Hessian's
    double wall_seconds = 0.0;

    /// covariance[i · n + j].
    [[nodiscard]] double covariance_at(std::size_t i, std::size_t j) const {
        return covariance[i * names.size() + j];
    }

    /// A readable summary: status line, value, and a table of name, value, uncertainty.
    [[nodiscard]] std::string to_string() const;
};

/// Minimises `objective` from `start` and, if asked, computes the covariance. `names` labels
/// the parameters (one per dimension; FitError otherwise).
[[nodiscard]] FitResult fit(const Objective& objective, std::vector<std::string> names,
                            std::span<const double> start, const FitOptions& options = {});

/// The Objective of a Likelihood (its value, gradient and parameter bounds). It refers to
/// `likelihood`, which must outlive it.
[[nodiscard]] Objective objective_of(const likelihood::Likelihood& likelihood);

/// Fits `likelihood` from `start` (one value per parameter_names()).
[[nodiscard]] FitResult fit(const likelihood::Likelihood& likelihood, std::span<const double> start,
                            const FitOptions& options = {});

/// How fit_restarts() draws its starting points.
struct RestartOptions {
    std::size_t starts = 4;  ///< fits in total; the first starts at the given point
    std::uint64_t seed = 0;
    /// Unbounded parameters start at x_k + spread · max(1, |x_k|) · N(0, 1); parameters with
    /// finite bounds uniformly within them.
    double spread = 1.0;
};

/// Every fit of fit_restarts() and the index of the best converged one (lowest value; the
/// lowest value overall when none converged).
struct RestartResult {
    std::vector<FitResult> fits;
    std::size_t best = 0;

    /// fits[best].
    [[nodiscard]] const FitResult& best_fit() const { return fits[best]; }
};

/// Fits from restarts.starts seeded starting points (deterministic in restarts.seed; start
/// k > 0 uses a generator seeded with seed + k · 0x9E3779B97F4A7C15, as laddu does). A start
/// at which the likelihood cannot be evaluated gives a non-converged fit with the error as
/// its message.
[[nodiscard]] RestartResult fit_restarts(const likelihood::Likelihood& likelihood,
                                         std::span<const double> start,
                                         const RestartOptions& restarts,
                                         const FitOptions& options = {});

}  // namespace laddu::fit
