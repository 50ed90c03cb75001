#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <numbers>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <laddu/base/error.hpp>
#include <laddu/base/random.hpp>
#include <laddu/fit/ensemble_sampler.hpp>

namespace laddu::fit {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

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
    const ChainStorage& s = options.storage;
    if ((s.kind == ChainStorage::Kind::kRolling && s.window == 0) ||
        (s.kind == ChainStorage::Kind::kSampled &&
         (s.keep_every == 0 || (s.max_samples && *s.max_samples == 0)))) {
        throw ModelError("chain storage needs a positive window, keep_every and max_samples");
    }
}

// The kept samples per walker, dropping the oldest beyond the storage limit.
class Chains {
public:
    Chains(std::size_t walkers, std::size_t dimension, ChainStorage storage)
        : dimension_(dimension), storage_(storage), samples_(walkers) {}

    void record(std::size_t step, const std::vector<std::vector<double>>& walkers) {
        if (storage_.kind == ChainStorage::Kind::kSampled && step != 0 &&
            step % storage_.keep_every != 0) {
            return;
        }
        std::optional<std::size_t> limit;
        if (storage_.kind == ChainStorage::Kind::kRolling) {
            limit = storage_.window;
        } else if (storage_.kind == ChainStorage::Kind::kSampled) {
            limit = storage_.max_samples;
        }
        for (std::size_t k = 0; k < walkers.size(); ++k) {
            samples_[k].push_back(walkers[k]);
            if (limit && samples_[k].size() > *limit) {
                samples_[k].erase(samples_[k].begin());
            }
        }
    }

    void fill(McmcChain& chain) const {
        chain.walkers = samples_.size();
        chain.steps = samples_.front().size();
        chain.dimension = dimension_;
        chain.values.clear();
        chain.values.reserve(chain.walkers * chain.steps * dimension_);
        for (const auto& walker : samples_) {
            for (const auto& point : walker) {
                chain.values.insert(chain.values.end(), point.begin(), point.end());
            }
        }
    }

private:
    std::size_t dimension_;
    ChainStorage storage_;
    std::vector<std::vector<std::vector<double>>> samples_;
};

AiesMove choose_move(const AiesOptions& options, Random& random) {
    if (options.moves.empty()) {
        return {AiesMove::Kind::kStretch, options.stretch_scale};
    }
    double total = 0.0;
    for (const auto& part : options.moves) {
        total += part.second;
    }
    double draw = random.uniform() * total;
    for (const auto& [move, weight] : options.moves) {
        if (draw < weight) {
            return move;
        }
        draw -= weight;
    }
    return options.moves.back().first;
}

double checked(double value, std::span<const double> x) {
    if (std::isnan(value)) {
        throw EvaluationError(fmt::format("the log density is NaN at [{}]", fmt::join(x, ", ")));
    }
    return value;
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

}  // namespace

McmcChain sample_aies(const std::function<double(std::span<const double>)>& log_density,
                      const std::vector<std::vector<double>>& initial, const AiesOptions& options,
                      const SamplerStop& stop) {
    check_options(options);
    if (initial.size() < 2) {
        throw ModelError(fmt::format("AIES needs at least 2 walkers, got {}", initial.size()));
    }
    const std::size_t dimension = initial.front().size();
    if (dimension == 0 || std::any_of(initial.begin(), initial.end(),
                                      [&](const auto& w) { return w.size() != dimension; })) {
        throw ModelError("AIES walkers must all have the same dimension, at least 1");
    }
    if (!stop.max_steps && stop.autocorrelation == nullptr && stop.terminators.empty()) {
        throw ModelError("sampling needs a terminator (MaxSteps, an autocorrelation check or a "
                         "callable), else it would not end");
    }
    if (stop.autocorrelation != nullptr &&
        (stop.autocorrelation->n_check == 0 ||
         !(stop.autocorrelation->discard >= 0.0 && stop.autocorrelation->discard < 1.0))) {
        throw ModelError("the autocorrelation check needs n_check > 0 and 0 <= discard < 1");
    }
    const std::size_t n = initial.size();
    std::vector<std::vector<double>> walkers = initial;
    std::vector<double> log_p(n);
    McmcChain result;
    for (std::size_t k = 0; k < n; ++k) {
        log_p[k] = checked(log_density(walkers[k]), walkers[k]);
        ++result.evaluations;
        if (!std::isfinite(log_p[k])) {
            throw ModelError(fmt::format("walker {} starts where the log density is {} (outside "
                                         "the bounds?); start every walker inside",
                                         k, log_p[k]));
        }
    }
    Chains chains(n, dimension, options.storage);
    chains.record(0, walkers);
    std::vector<std::size_t> accepted(n, 0);
    Random random(options.seed);
    std::vector<double> proposal(dimension);
    std::vector<double> mean(dimension);
    SamplerStatus status{0, false, "initialized"};
    for (std::size_t step = 1;; ++step) {
        const AiesMove move = choose_move(options, random);
        const std::vector<std::vector<double>> snapshot = walkers;
        for (std::size_t k = 0; k < n; ++k) {
            double log_jacobian = 0.0;
            if (move.kind == AiesMove::Kind::kStretch) {
                std::size_t partner = random.below(n);
                while (partner == k) {
                    partner = random.below(n);
                }
                const double root = 1.0 + (move.scale - 1.0) * random.uniform();
                const double z = root * root / move.scale;
                for (std::size_t d = 0; d < dimension; ++d) {
                    proposal[d] =
                        snapshot[partner][d] + z * (snapshot[k][d] - snapshot[partner][d]);
                }
                log_jacobian = static_cast<double>(dimension - 1) * std::log(z);
            } else {
                std::fill(mean.begin(), mean.end(), 0.0);
                for (std::size_t j = 0; j < n; ++j) {
                    if (j != k) {
                        for (std::size_t d = 0; d < dimension; ++d) {
                            mean[d] += snapshot[j][d] / static_cast<double>(n - 1);
                        }
                    }
                }
                proposal = snapshot[k];
                for (std::size_t j = 0; j < n; ++j) {
                    if (j != k) {
                        const double g = random.normal();
                        for (std::size_t d = 0; d < dimension; ++d) {
                            proposal[d] += g * (snapshot[j][d] - mean[d]);
                        }
                    }
                }
            }
            const double proposed = checked(log_density(proposal), proposal);
            ++result.evaluations;
            double u = random.uniform();
            while (u <= 0.0) {
                u = random.uniform();
            }
            if (proposed > kNegInf && std::log(u) < log_jacobian + proposed - log_p[k]) {
                walkers[k] = proposal;
                log_p[k] = proposed;
                ++accepted[k];
            }
        }
        chains.record(step, walkers);
        result.steps_taken = step;
        status = {step, false,
                  move.kind == AiesMove::Kind::kStretch ? "Stretch Move" : "Walk Move"};
        for (const SamplerCallback& observer : stop.observers) {
            (void)observer(status);
        }
        bool done = false;
        AutocorrelationCheck* check = stop.autocorrelation;
        if (check != nullptr && step % check->n_check == 0) {
            McmcChain partial;
            chains.fill(partial);
            // The kept samples map to steps only for full storage; otherwise discard by count.
            const auto first =
                static_cast<std::size_t>(check->discard * static_cast<double>(partial.steps));
            if (partial.steps - first >= 2) {
                const std::vector<double> taus =
                    integrated_autocorrelation_times(partial, first, check->sokal_window);
                double tau = 0.0;
                for (const double t : taus) {
                    tau += t / static_cast<double>(taus.size());
                }
                const bool enough =
                    tau * static_cast<double>(check->n_taus_threshold) < static_cast<double>(step);
                const double change = check->taus.empty()
                                          ? std::numeric_limits<double>::quiet_NaN()
                                          : std::abs(check->taus.back() - tau) / tau;
                check->taus.push_back(tau);
                if (check->report) {
                    check->report(fmt::format(
                        "Integrated Autocorrelation Analysis:\nτ = [{}]\nMinimum steps to "
                        "converge = {}\nSteps completed = {}\nΔτ/τ = {} (converges if < {})\n"
                        "Converged: {}\n",
                        fmt::join(taus, ", "),
                        static_cast<std::size_t>(tau *
                                                 static_cast<double>(check->n_taus_threshold)),
                        step, change, check->dtau_threshold,
                        enough && change < check->dtau_threshold));
                }
                if (enough && change < check->dtau_threshold && check->terminate) {
                    status.success = true;
                    status.message =
                        fmt::format("converged: τ = {:.4g}, Δτ/τ = {:.3g}", tau, change);
                    done = true;
                }
            }
        }
        if (!done && stop.max_steps && step >= *stop.max_steps) {
            status.success = true;
            status.message = "Maximum number of steps reached";
            done = true;
        }
        for (const SamplerCallback& terminator : stop.terminators) {
            if (!done && terminator(status)) {
                status.message = "stopped by a terminator";
                done = true;
            }
        }
        if (done) {
            break;
        }
    }
    chains.fill(result);
    result.success = status.success;
    result.message = status.message;
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
