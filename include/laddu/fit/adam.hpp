// laddu/fit/adam.hpp: Adam on a stochastic objective (ganesh's Adam, which laddu's
// Likelihood.fit_stochastic runs over mini-batches of the data).
//
// Adam (D. P. Kingma, J. Ba, "Adam: a method for stochastic optimization", ICLR 2015) on the
// parameters x, each step projected onto the bounds (periodic parameters wrapped):
//   m ← β₁ m + (1 − β₁) g,  v ← β₂ v + (1 − β₂) g²,  α_t = α √(1 − β₂ᵗ) / (1 − β₁ᵗ),
//   x ← clamp(x − α_t m / (√v + ε)),   t = 1, 2, ...
// (ganesh maps bounded parameters through a transform instead; a step of its internal parameter
// moves x by the transform's slope, which ends near a bound at a different place on a batch's
// noise; projection keeps Adam's step size α in the parameters themselves.)
// Each step evaluates the objective once, at the new point, for the next step's gradient and
// for the stopping rule (ganesh's AdamEMATerminator): the exponential moving average
// E ← β_c E + (1 − β_c) f (E starts at 0) changing by less than eps_loss for `patience` steps
// in a row ends the run as converged. `max_steps` bounds the steps; a progress callback may stop
// the run. One call of `objective` draws one batch, so value and gradient come from the same
// events (ganesh evaluates the value at the new point and the gradient at the next step on two
// batches; one batch per step halves the work and changes only which events are drawn).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <laddu/fit/fit.hpp>
#include <laddu/fit/minimizer.hpp>
#include <laddu/likelihood/likelihood.hpp>

namespace laddu::fit {

/// Adam's settings with ganesh's defaults, and its stopping rule.
struct AdamOptions {
    double alpha = 0.001;
    double beta_1 = 0.9;
    double beta_2 = 0.999;
    double epsilon = 1e-8;
    /// The EMA stopping rule (ganesh's AdamEMATerminator); use_ema = false: only max_steps and
    /// the progress callback stop the run.
    bool use_ema = true;
    double ema_beta = 0.9;
    double ema_eps_loss = std::sqrt(std::numeric_limits<double>::epsilon());
    std::size_t ema_patience = 1;
    std::size_t max_steps = 10000;
    ProgressCallback progress{};  ///< called after every step with the step and the new point
};

/// Minimises the stochastic `objective` (its value_and_gradient draws a new batch per call)
/// from `start` with Adam. The result's values are the last point, its value the last batch's,
/// and its uncertainties NaN (a stochastic fit has no Hessian; refit with fit() at the result
/// for them). ModelError for settings out of range (α, ε > 0; β₁, β₂, β_c in [0, 1)).
[[nodiscard]] FitResult adam(const Objective& objective, std::vector<std::string> names,
                             std::span<const double> start, const AdamOptions& options = {});

/// laddu's Likelihood.fit_stochastic: adam() on likelihood.stochastic_value_and_gradient, the
/// k-th evaluation (k = 0, 1, ...) with batch seed `seed + k`, so a run is a function of the
/// seed. ModelError unless 0 < fraction ≤ 1.
[[nodiscard]] FitResult fit_stochastic(const likelihood::Likelihood& likelihood,
                                       std::span<const double> start, double fraction,
                                       std::uint64_t seed, const AdamOptions& options = {});

}  // namespace laddu::fit
