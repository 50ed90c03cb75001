// laddu/fit/ensemble_sampler.hpp: the affine-invariant ensemble sampler (ganesh's AIES, which
// laddu's Likelihood.sample runs) and integrated autocorrelation times.
//
// An ensemble of K walkers moves together (J. Goodman, J. Weare, "Ensemble samplers with affine
// invariance", Comm. App. Math. Comp. Sci. 5 (2010) 65). Each step picks one move for the whole
// ensemble by weight and proposes for every walker k in turn from the ensemble as it was at the
// start of the step:
//   stretch  Y = X_j + z (X_k − X_j), j ≠ k uniform, z with density ∝ 1/√z on [1/a, a] (scale a),
//            accepted with probability min(1, z^(d−1) p(Y) / p(X_k));
//   walk     Y = X_k + Σ_{j≠k} g_j (X_j − X̄), g_j standard normal, X̄ the mean of the other
//            walkers, accepted with probability min(1, p(Y) / p(X_k)).
// A proposal whose log density is −∞ (outside the parameter bounds) is never accepted. Random
// numbers come from one generator seeded by `seed` and drawn in walker order, so a run is a
// function of the seed and the inputs alone, and a step's proposals can be evaluated in
// parallel (AiesOptions::threads) without changing it.
//
// The integrated autocorrelation time τ of each parameter follows Sokal's adaptive window
// (A. Sokal, "Monte Carlo methods in statistical mechanics", 1996; as emcee computes it): the
// autocorrelation function is averaged over the walkers, τ(M) = 1 + 2 Σ_{t=1}^{M} ρ(t), and M is
// the smallest window with M ≥ c τ(M) (c = 7 by default).
//
// Example: a standard normal in two dimensions, 16 walkers, 2000 steps:
//   auto chain = fit::sample_aies([](std::span<const double> x) { return -0.5 * (x[0] * x[0] +
//                                 x[1] * x[1]); }, walkers, {.seed = 3}, {.max_steps = 2000});
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <laddu/expr/parameter.hpp>

namespace laddu::fit {

/// One kind of ensemble move (ganesh's AIESMove).
struct AiesMove {
    enum class Kind : unsigned char { kStretch, kWalk };
    Kind kind = Kind::kStretch;
    double scale = 2.0;  ///< the stretch move's a (> 1)
};

/// Which samples each walker's chain keeps (ganesh's ChainStorageMode).
struct ChainStorage {
    enum class Kind : unsigned char {
        kFull,     ///< every sample
        kRolling,  ///< the last `window` samples
        kSampled,  ///< the initial point and every `keep_every`-th step, at most `max_samples`
    };
    Kind kind = Kind::kFull;
    std::size_t window = 0;
    std::size_t keep_every = 1;
    std::optional<std::size_t> max_samples{};  ///< kSampled: keep the most recent ones
};

/// Sampler settings (ganesh's AIESConfig and the run's seed).
struct AiesOptions {
    /// Moves and their weights (finite, ≥ 0, one positive); empty: the stretch move with
    /// stretch_scale.
    std::vector<std::pair<AiesMove, double>> moves{};
    double stretch_scale = 2.0;
    ChainStorage storage{};
    std::uint64_t seed = 0;
    /// How many walkers' proposals are evaluated at once (threads started per step; 1: in walker
    /// order on the calling thread). `log_density` must then allow concurrent calls. Any count
    /// gives the same chain: proposals and acceptance draws never depend on a density.
    std::size_t threads = 1;
};

/// ganesh's AutocorrelationTerminator: every n_check steps τ is computed from the samples after
/// the first `discard` fraction of the steps; the run converges when n_taus_threshold · τ̄ is
/// below the step count and τ̄ moved by less than dtau_threshold (relative) since the last check.
struct AutocorrelationCheck {
    std::size_t n_check = 50;
    std::size_t n_taus_threshold = 50;
    double dtau_threshold = 0.01;
    double discard = 0.5;
    bool terminate = true;  ///< stop when converged (false: only record τ̄)
    double sokal_window = 7.0;
    std::vector<double> taus{};  ///< τ̄ (mean over parameters) at each check, filled by the run
    /// Called with a few lines on τ and convergence at each check (ganesh's verbose); empty:
    /// silent.
    std::function<void(const std::string&)> report{};
};

/// What terminators and observers see after each step.
struct SamplerStatus {
    std::size_t step = 0;
    bool success = false;
    std::string message;
};

/// A terminator (returns true to stop) or an observer (its result is ignored).
using SamplerCallback = std::function<bool(const SamplerStatus&)>;

/// When to stop: after max_steps steps, on an autocorrelation check, or when a terminator says
/// so; at least one of them must be given (else a ModelError: the run would not end).
struct SamplerStop {
    std::optional<std::size_t> max_steps{};
    AutocorrelationCheck* autocorrelation = nullptr;
    std::vector<SamplerCallback> terminators{};
    std::vector<SamplerCallback> observers{};
};

/// The retained chains (ganesh's MCMCSummary).
struct McmcChain {
    std::size_t walkers = 0;
    std::size_t steps = 0;  ///< samples kept per walker (the initial point included)
    std::size_t dimension = 0;
    std::vector<double> values;  ///< [walker][sample][parameter]
    std::uint64_t evaluations = 0;
    std::vector<double> acceptance;  ///< per walker: accepted proposals / steps
    std::size_t steps_taken = 0;
    bool success = false;
    std::string message;

    /// The value of `parameter` in `walker`'s `sample`.
    [[nodiscard]] double at(std::size_t walker, std::size_t sample, std::size_t parameter) const {
        return values[(walker * steps + sample) * dimension + parameter];
    }
};

/// Samples `log_density` (−∞ allowed, NaN an EvaluationError) from `walkers` (at least two, all
/// of one dimension ≥ 1, each of finite log density; ModelError otherwise).
[[nodiscard]] McmcChain
sample_aies(const std::function<double(std::span<const double>)>& log_density,
            const std::vector<std::vector<double>>& walkers, const AiesOptions& options,
            const SamplerStop& stop);

/// τ of each parameter from the samples of `chain` from `first_sample` on (see the banner);
/// ModelError for fewer than two samples.
[[nodiscard]] std::vector<double> integrated_autocorrelation_times(const McmcChain& chain,
                                                                   std::size_t first_sample,
                                                                   double sokal_window = 7.0);

/// `n_walkers` starting points in a uniform cloud around `center`: coordinate i within
/// ± scale · max(|center_i|, 1), redrawn (up to 128 times) to lie inside `bounds` (ModelError
/// naming `names[i]` if it cannot). laddu's Likelihood.walker_positions.
[[nodiscard]] std::vector<std::vector<double>>
walker_positions(std::span<const double> center, std::span<const expr::Bounds> bounds,
                 std::span<const std::string> names, std::size_t n_walkers, double scale,
                 std::uint64_t seed);

}  // namespace laddu::fit
