// laddu/fit/ensemble_slice_sampler.hpp: the ensemble slice sampler (ganesh's ESS, which laddu's
// Likelihood.sample runs when given an ESSInit).
//
// Ensemble slice sampling (M. Karamanis, F. Beutler, "Ensemble slice sampling: Parallel,
// black-box and gradient-free inference for correlated & multimodal distributions", Stat.
// Comput. 31 (2021) 61, arXiv:2002.06212) moves each walker by a one-dimensional slice sample
// (R. M. Neal, "Slice sampling", Ann. Statist. 31 (2003) 705) along a direction built from the
// other walkers. Each step picks one move for the whole ensemble by weight and updates every
// walker k in turn from the ensemble as it was at the start of the step (as ganesh does):
//   differential  η = μ (X_a − X_b), a ≠ b drawn uniformly from the walkers other than k;
//   gaussian      η = 2μ Σ_{j≠k} g_j (X_j − X̄), g_j standard normal, X̄ the others' mean;
//   global        a variational Dirichlet-process Gaussian mixture (components, scale,
//                 rescale_covariance r) is fitted to the ensemble at the start of the step; the
//                 labels of two walkers drawn at random pick components a and b; a = b gives
//                 η = 2·scale·N(0, Σ_a) (a local move), a ≠ b the mode jump
//                 η = 2 (N(m_a, r Σ_a) − N(m_b, r Σ_b)). If the mixture cannot be fitted (fewer
//                 walkers than components) the step uses the gaussian direction with 2·scale.
// Along X_k + t η the slice is {t : log p > log p(X_k) + log u}, u uniform on (0, 1]; the
// bracket [−w U, w (1 − U)] (w the bracket width, U uniform) is stepped out by w on each side
// until both ends leave the slice, then t is drawn uniformly in it and the bracket shrunk
// towards 0 until the draw is inside. Expansions and contractions are capped at
// max_shrink_steps per walker and step (a walker whose shrinking reaches the cap stays put).
// During the first adaptive_steps + 1 steps (ganesh counts steps from 0) μ is multiplied by
// 2 N_expand / (N_expand + N_contract) of the step (N_expand at least 1, as zeus counts it),
// which drives the two counts to balance (Karamanis & Beutler's tuning). A point of log density −∞
// (outside the bounds) is never in a slice. Random numbers come from one SplitMix64 seeded by
// `seed`, drawn in walker order.
//
// Example: a standard normal in two dimensions, 16 walkers, 2000 steps:
//   auto chain = fit::sample_ess([](std::span<const double> x) { return -0.5 * (x[0] * x[0] +
//                                x[1] * x[1]); }, walkers, {.seed = 3}, {.max_steps = 2000});
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include <laddu/fit/ensemble_sampler.hpp>

namespace laddu::fit {

/// One kind of slice direction (ganesh's ESSMove).
struct EssMove {
    enum class Kind : unsigned char { kDifferential, kGaussian, kGlobal };
    Kind kind = Kind::kDifferential;
    double scale = 1.0;                 ///< kGlobal: the within-component proposal scale (> 0)
    double rescale_covariance = 0.001;  ///< kGlobal: covariance factor of between-component jumps
    std::size_t components = 5;         ///< kGlobal: mixture components (≥ 2)
};

/// Sampler settings (ganesh's ESSConfig and the run's seed).
struct EssOptions {
    /// Moves and their weights (finite, ≥ 0, one positive); empty: the differential move.
    std::vector<std::pair<EssMove, double>> moves{};
    double bracket_width = 1.0;           ///< w, the initial slice bracket (finite, > 0)
    std::size_t max_shrink_steps = 1000;  ///< cap on expansions and on contractions (≥ 1)
    std::size_t adaptive_steps = 0;       ///< steps (after the first) during which μ adapts
    double direction_scale = 1.0;         ///< the initial μ (finite, > 0)
    ChainStorage storage{};
    std::uint64_t seed = 0;
};

/// Samples `log_density` (−∞ allowed, NaN an EvaluationError) from `walkers` (at least three,
/// all of one dimension ≥ 1, each of finite log density; ModelError otherwise). The result's
/// acceptance is, per walker, the fraction of steps that moved it.
[[nodiscard]] McmcChain
sample_ess(const std::function<double(std::span<const double>)>& log_density,
           const std::vector<std::vector<double>>& walkers, const EssOptions& options,
           const SamplerStop& stop);

}  // namespace laddu::fit
