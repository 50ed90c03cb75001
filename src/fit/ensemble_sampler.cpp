#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <numbers>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/base/random.hpp>
#include <laddu/fit/ensemble_sampler.hpp>

#include "ensemble_support.hpp"

namespace laddu::fit {

namespace {

using detail::kNegInf;

using Random = SplitMix64;

void check_options(const AiesOptions& options) {
    if (!(std::isfinite(options.stretch_scale) && options.stretch_scale > 1.0)) {
        throw ModelError(fmt::format("the stretch scale must be finite and above 1, got {}",
                                     options.stretch_scale));
    }
    bool positive = false;
    for (const auto& [move, weight] : options.moves) {
        if (!(std::isfinite(weight) && weight >= 0.0)) {
            throw ModelError(fmt::format("AIES move weights must be finite and non-negative, "
                                         "got {}",
                                         weight));
        }
        positive = positive || weight > 0.0;
        if (move.kind == AiesMove::Kind::kStretch &&
            !(std::isfinite(move.scale) && move.scale > 1.0)) {
            throw ModelError(fmt::format("a stretch move's scale must be finite and above 1, "
                                         "got {}",
                                         move.scale));
        }
    }
    if (!options.moves.empty() && !positive) {
        throw ModelError("AIES move weights must include a positive entry");
    }
    detail::check_storage(options.storage);
}

AiesMove choose_move(const AiesOptions& options, Random& random) {
    if (options.moves.empty()) {
        return {AiesMove::Kind::kStretch, options.stretch_scale};
    }
    return detail::choose_weighted(options.moves, random);
}

// In-place radix-2 FFT of a power-of-two length (inverse with the sign flipped, unscaled).
void fft(std::vector<std::complex<double>>& a, bool inverse) {
    const std::size_t n = a.size();
    for (std::size_t i = 1, j = 0; i < n; ++i) {
        std::size_t bit = n >> 1U;
        for (; (j & bit) != 0; bit >>= 1U) {
            j ^= bit;
        }
        j ^= bit;
        if (i < j) {
            std::swap(a[i], a[j]);
        }
    }
    for (std::size_t length = 2; length <= n; length <<= 1U) {
        const double angle =
            (inverse ? 2.0 : -2.0) * std::numbers::pi / static_cast<double>(length);
        const std::complex<double> w(std::cos(angle), std::sin(angle));
        for (std::size_t i = 0; i < n; i += length) {
            std::complex<double> wk(1.0, 0.0);
            for (std::size_t k = 0; k < length / 2; ++k) {
                const std::complex<double> u = a[i + k];
                const std::complex<double> v = a[i + k + length / 2] * wk;
                a[i + k] = u + v;
                a[i + k + length / 2] = u - v;
                wk *= w;
            }
        }
    }
}

// The stretch move's proposal for walker k (into `proposal`); returns its log Jacobian
// (d - 1) log z.
double stretch_proposal(const std::vector<std::vector<double>>& walkers, std::size_t k,
                        double scale, Random& random, std::vector<double>& proposal) {
    const std::size_t n = walkers.size();
    std::size_t partner = random.below(n);
    while (partner == k) {
        partner = random.below(n);
    }
    const double root = 1.0 + (scale - 1.0) * random.uniform();
    const double z = root * root / scale;
    for (std::size_t d = 0; d < proposal.size(); ++d) {
        proposal[d] = walkers[partner][d] + z * (walkers[k][d] - walkers[partner][d]);
    }
    return static_cast<double>(proposal.size() - 1) * std::log(z);
}

// The walk move's proposal for walker k: X_k + Σ_{j≠k} g_j (X_j − X̄) (`mean` is scratch);
// returns its log Jacobian, 0.
double walk_proposal(const std::vector<std::vector<double>>& walkers, std::size_t k, Random& random,
                     std::vector<double>& mean, std::vector<double>& proposal) {
    proposal = walkers[k];
    detail::add_walk_direction(walkers, k, random, mean, proposal);
    return 0.0;
}

// A uniform draw in (0, 1): the acceptance test takes its log.
double positive_uniform(Random& random) {
    double u = random.uniform();
    while (u <= 0.0) {
        u = random.uniform();
    }
    return u;
}

}  // namespace

McmcChain sample_aies(const std::function<double(std::span<const double>)>& log_density,
                      const std::vector<std::vector<double>>& initial, const AiesOptions& options,
                      const SamplerStop& stop) {
    check_options(options);
    detail::check_walkers(initial, "AIES", 2);
    detail::check_stop(stop);
    const std::size_t n = initial.size();
    const std::size_t dimension = initial.front().size();
    std::vector<std::vector<double>> walkers = initial;
    McmcChain result;
    std::vector<double> log_p =
        detail::initial_log_densities(log_density, walkers, options.threads, result);
    detail::Chains chains(n, dimension, options.storage);
    chains.record(0, walkers);
    std::vector<std::size_t> accepted(n, 0);
    Random random(options.seed);
    std::vector<std::vector<double>> proposals(n, std::vector<double>(dimension));
    std::vector<double> log_jacobian(n);
    std::vector<double> uniform(n);
    std::vector<double> mean(dimension);
    SamplerStatus status{0, false, "initialized"};
    for (std::size_t step = 1;; ++step) {
        const AiesMove move = choose_move(options, random);
        // Every proposal of a step comes from the ensemble as it was at the start of the step,
        // and no random number depends on a density: all are drawn first, in walker order, and
        // the proposals are then evaluated together (in parallel with options.threads).
        for (std::size_t k = 0; k < n; ++k) {
            log_jacobian[k] = move.kind == AiesMove::Kind::kStretch
                                  ? stretch_proposal(walkers, k, move.scale, random, proposals[k])
                                  : walk_proposal(walkers, k, random, mean, proposals[k]);
            uniform[k] = positive_uniform(random);
        }
        const std::vector<double> proposed =
            detail::evaluate_all(log_density, proposals, options.threads, result);
        for (std::size_t k = 0; k < n; ++k) {
            if (proposed[k] > kNegInf &&
                std::log(uniform[k]) < log_jacobian[k] + proposed[k] - log_p[k]) {
                walkers[k] = proposals[k];
                log_p[k] = proposed[k];
                ++accepted[k];
            }
        }
        if (detail::finish_step(
                step, move.kind == AiesMove::Kind::kStretch ? "Stretch Move" : "Walk Move", walkers,
                chains, stop, status, result)) {
            break;
        }
    }
    detail::finish_run(chains, status, result);
    for (const std::size_t a : accepted) {
        result.acceptance.push_back(static_cast<double>(a) /
                                    static_cast<double>(result.steps_taken));
    }
    return result;
}

std::vector<double> integrated_autocorrelation_times(const McmcChain& chain,
                                                     std::size_t first_sample,
                                                     double sokal_window) {
    if (first_sample + 2 > chain.steps) {
        throw ModelError(fmt::format("autocorrelation times need at least 2 samples per walker, "
                                     "got {}",
                                     chain.steps > first_sample ? chain.steps - first_sample : 0));
    }
    const std::size_t length = chain.steps - first_sample;
    std::size_t size = 1;
    while (size < 2 * length) {
        size <<= 1U;
    }
    std::vector<double> taus;
    for (std::size_t d = 0; d < chain.dimension; ++d) {
        // ρ(t) averaged over walkers (each walker's ACF normalised to ρ(0) = 1).
        std::vector<double> rho(length, 0.0);
        std::size_t used = 0;
        for (std::size_t w = 0; w < chain.walkers; ++w) {
            double mean = 0.0;
            for (std::size_t s = 0; s < length; ++s) {
                mean += chain.at(w, first_sample + s, d) / static_cast<double>(length);
            }
            std::vector<std::complex<double>> a(size);
            for (std::size_t s = 0; s < length; ++s) {
                a[s] = chain.at(w, first_sample + s, d) - mean;
            }
            fft(a, false);
            for (auto& v : a) {
                v *= std::conj(v);
            }
            fft(a, true);
            if (a[0].real() <= 0.0) {
                continue;  // a walker that never moved has no correlation to measure
            }
            for (std::size_t t = 0; t < length; ++t) {
                rho[t] += a[t].real() / a[0].real();
            }
            ++used;
        }
        if (used == 0) {
            taus.push_back(std::numeric_limits<double>::infinity());
            continue;
        }
        double tau = 1.0;
        double value = 1.0;
        for (std::size_t m = 1; m < length; ++m) {
            tau += 2.0 * rho[m] / static_cast<double>(used);
            value = tau;
            if (static_cast<double>(m) >= sokal_window * tau) {
                break;
            }
        }
        taus.push_back(value);
    }
    return taus;
}

std::vector<std::vector<double>> walker_positions(std::span<const double> center,
                                                  std::span<const expr::Bounds> bounds,
                                                  std::span<const std::string> names,
                                                  std::size_t n_walkers, double scale,
                                                  std::uint64_t seed) {
    if (n_walkers < 2) {
        throw ModelError(fmt::format("n_walkers must be at least 2, got {}", n_walkers));
    }
    if (!(std::isfinite(scale) && scale > 0.0)) {
        throw ModelError(fmt::format("scale must be finite and positive, got {}", scale));
    }
    if (bounds.size() != center.size() || names.size() != center.size()) {
        throw InternalError("walker_positions: center, bounds and names differ in length");
    }
    Random random(seed);
    std::vector<std::vector<double>> rows(n_walkers,
                                          std::vector<double>(center.begin(), center.end()));
    for (auto& row : rows) {
        for (std::size_t i = 0; i < center.size(); ++i) {
            const double width = scale * std::max(std::abs(center[i]), 1.0);
            bool inside = false;
            for (int attempt = 0; attempt < 128 && !inside; ++attempt) {
                const double candidate = center[i] + width * (2.0 * random.uniform() - 1.0);
                if (candidate >= bounds[i].lower && candidate <= bounds[i].upper) {
                    row[i] = candidate;
                    inside = true;
                }
            }
            if (!inside) {
                throw ModelError(fmt::format("could not generate a bounded walker coordinate for "
                                             "`{}`; reduce scale or move the center away from "
                                             "the boundary",
                                             names[i]));
            }
        }
    }
    return rows;
}

}  // namespace laddu::fit
