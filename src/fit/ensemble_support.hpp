// ensemble_support.hpp (private): what the ensemble samplers (AIES, ESS) share: walker and stop
// validation, the first log densities, chain storage and the end-of-step bookkeeping
// (observers, the autocorrelation check, MaxSteps and terminators).
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <laddu/base/random.hpp>
#include <laddu/fit/ensemble_sampler.hpp>

namespace laddu::fit::detail {

inline constexpr double kNegInf = -std::numeric_limits<double>::infinity();

using LogDensity = std::function<double(std::span<const double>)>;

/// ModelError unless the storage has a positive window, keep_every and max_samples.
void check_storage(const ChainStorage& storage);

/// ModelError unless there are at least `minimum` walkers of one dimension ≥ 1 (the messages
/// name `family`, e.g. "AIES").
void check_walkers(const std::vector<std::vector<double>>& walkers, std::string_view family,
                   std::size_t minimum);

/// ModelError unless `stop` can end the run and its autocorrelation check is well formed.
void check_stop(const SamplerStop& stop);

/// `value`, or an EvaluationError naming `x` if it is NaN.
double checked(double value, std::span<const double> x);

/// checked(log_density(points[k])) for every k (counted in result.evaluations), computed by up
/// to `threads` threads at once (1: in order on the calling thread). The values do not depend
/// on `threads`; when evaluations throw, the exception of the lowest k is rethrown.
std::vector<double> evaluate_all(const LogDensity& log_density,
                                 const std::vector<std::vector<double>>& points,
                                 std::size_t threads, McmcChain& result);

/// Adds Σ_{j≠k} g_j (X_j − X̄) to `out`: X̄ the mean of the walkers other than k, the g_j
/// standard normal draws in j order (Goodman & Weare's walk move; the ensemble slice sampler's
/// Gaussian direction). `mean` is scratch holding the dimension's values.
void add_walk_direction(const std::vector<std::vector<double>>& walkers, std::size_t k,
                        SplitMix64& random, std::vector<double>& mean, std::span<double> out);

/// The log density of every walker (evaluate_all); ModelError for one that is not finite (a
/// walker outside the bounds).
std::vector<double> initial_log_densities(const LogDensity& log_density,
                                          const std::vector<std::vector<double>>& walkers,
                                          std::size_t threads, McmcChain& result);

/// One of `moves` drawn with probability ∝ its weight (one uniform draw; the weights are
/// validated, non-empty, with a positive entry).
template <class Move>
const Move& choose_weighted(const std::vector<std::pair<Move, double>>& moves, SplitMix64& random) {
    double total = 0.0;
    for (const auto& part : moves) {
        total += part.second;
    }
    double draw = random.uniform() * total;
    for (const auto& [move, weight] : moves) {
        if (draw < weight) {
            return move;
        }
        draw -= weight;
    }
    return moves.back().first;
}

/// The kept samples per walker, dropping the oldest beyond the storage limit.
class Chains {
public:
    Chains(std::size_t walkers, std::size_t dimension, ChainStorage storage)
        : dimension_(dimension), storage_(storage), samples_(walkers) {}

    /// Keeps the walkers' positions after `step` (0: the start) if the storage asks for them.
    void record(std::size_t step, const std::vector<std::vector<double>>& walkers);

    /// Writes the kept samples into chain.walkers/steps/dimension/values.
    void fill(McmcChain& chain) const;

private:
    std::size_t dimension_;
    ChainStorage storage_;
    std::vector<std::vector<std::vector<double>>> samples_;
};

/// After `step` (whose move `move_name` names): records the walkers, tells the observers, runs
/// the autocorrelation check, MaxSteps and the terminators. Returns true when the run ends;
/// `status` then holds its success and message.
bool finish_step(std::size_t step, const char* move_name,
                 const std::vector<std::vector<double>>& walkers, Chains& chains,
                 const SamplerStop& stop, SamplerStatus& status, McmcChain& result);

/// Fills `result` with the kept chains and the final status.
void finish_run(const Chains& chains, const SamplerStatus& status, McmcChain& result);

}  // namespace laddu::fit::detail
