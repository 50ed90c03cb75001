// laddu/fit/profile.hpp: profile-likelihood (MINOS-style) intervals.
//
// The Hessian's σ_k describes the likelihood only where it is a parabola. Near a threshold, a
// ridge or a second solution it is not, and intervals from the Hessian under-cover. The profile
// interval of parameter k is where the profile
//     p_k(v) = min over the other parameters of f(θ with θ_k = v)
// rises by `up` above the minimum f(θ̂): up = ½ for a negative log-likelihood and 1σ (MINOS's
// ERRORDEF), 2 for 2σ, and so on. Each side is found separately, so intervals are asymmetric
// where the likelihood is.
//
// The search on each side: the first trial is θ̂_k ± σ_k, with the other parameters started at
// their linear regression on θ_k from the covariance (as MINOS starts them). Further trials
// solve √(p_k(v) − f̂) = √up, by secant steps once the crossing is bracketed and by the
// parabolic extrapolation d · √(up / Δ) before, each minimisation warm-started from the
// nearest previous one. A bound of θ_k reached before the crossing ends that side with
// `reached_bound`. A profile value below f̂ means the fit was not at the global minimum:
// the side stops with `new_minimum` and the deeper point, so the caller can refit from it.
//
// Example:
//   const fit::FitResult best = fit::fit(total, start);
//   const fit::ProfileIntervals minos = fit::profile_intervals(total, best);
//   for (std::size_t k = 0; k < best.names.size(); ++k)
//       fmt::print("{} = {} -{} +{}\n", best.names[k], best.values[k],
//                  minos.intervals[k].lower_error, minos.intervals[k].upper_error);
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include <laddu/fit/fit.hpp>
#include <laddu/fit/minimizer.hpp>
#include <laddu/likelihood/likelihood.hpp>

namespace laddu::fit {

/// Options of profile_interval().
struct ProfileOptions {
    double up = 0.5;              ///< the rise of the objective that defines the interval
    double tolerance = 1e-3;      ///< |Δ − up| <= tolerance · up ends a side
    std::size_t max_trials = 24;  ///< profile minimisations per side before giving up
    /// How each profile point is minimised (the gradient tolerance is tightened to 1e-8 when
    /// looser, since Δ must be accurate to a fraction of `tolerance · up`).
    MinimizerOptions minimizer;
};

/// One side of an interval.
struct ProfileSide {
    double error = 0.0;          ///< the distance from θ̂_k to the crossing (>= 0)
    double delta = 0.0;          ///< p_k − f̂ at the last trial (≈ up when valid)
    bool valid = false;          ///< the crossing was found within tolerance
    bool reached_bound = false;  ///< θ_k's bound came first; error is the distance to it
    bool new_minimum = false;    ///< a trial went below f̂ by more than the tolerance
    std::size_t trials = 0;
    std::size_t evaluations = 0;
    /// Where the profile was deepest when new_minimum (all parameters), else empty.
    std::vector<double> deeper_point;
    std::string message;  ///< why not valid ("" when valid)
};

/// The interval of one parameter.
struct ProfileInterval {
    std::string name;
    double value = 0.0;        ///< θ̂_k
    double lower_error = 0.0;  ///< = lower.error, the interval is [θ̂ − lower, θ̂ + upper]
    double upper_error = 0.0;
    ProfileSide lower;
    ProfileSide upper;

    [[nodiscard]] bool valid() const noexcept { return lower.valid && upper.valid; }
};

/// Intervals of several parameters.
struct ProfileIntervals {
    std::vector<ProfileInterval> intervals;  ///< in the order asked for
    std::size_t evaluations = 0;
    double wall_seconds = 0.0;
};

/// The profile p_k(v): the minimum of `objective` over every parameter but k, with θ_k = v,
/// started from `others_start` (all n parameters; its k-th entry is ignored). Returns the
/// minimum and the full minimising point.
struct ProfilePoint {
    double value = 0.0;
    std::vector<double> x;  ///< all n parameters, x[k] = v
    bool converged = false;
    std::size_t evaluations = 0;
};

[[nodiscard]] ProfilePoint profile_point(const Objective& objective, std::size_t k, double v,
                                         std::span<const double> others_start,
                                         const MinimizerOptions& minimizer = {});

/// The interval of parameter k of `objective` around the minimum `best` (a FitResult of the
/// same objective: values, value, covariance). FitError for k out of range or a `best` of the
/// wrong size. A parameter held on a bound in `best` gets two invalid sides saying so.
[[nodiscard]] ProfileInterval profile_interval(const Objective& objective, const FitResult& best,
                                               std::size_t k, const ProfileOptions& options = {});

/// The intervals of `parameters` (all when empty) of a likelihood around its fit `best`.
[[nodiscard]] ProfileIntervals profile_intervals(const likelihood::Likelihood& likelihood,
                                                 const FitResult& best,
                                                 std::span<const std::size_t> parameters = {},
                                                 const ProfileOptions& options = {});

}  // namespace laddu::fit
