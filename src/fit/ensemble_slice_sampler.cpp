// The ensemble slice sampler (see ensemble_slice_sampler.hpp; Karamanis & Beutler 2021,
// arXiv:2002.06212, as ganesh's ESS implements it).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/base/random.hpp>
#include <laddu/fit/ensemble_slice_sampler.hpp>

#include "ensemble_support.hpp"
#include "gaussian_mixture.hpp"

namespace laddu::fit {

namespace {

using detail::checked;
using Random = SplitMix64;
using Walkers = std::vector<std::vector<double>>;

// The status message of each EssMove::Kind, as ganesh names them.
constexpr const char* kMoveNames[] = {"Differential Move", "Gaussian Move", "Global Move"};

void check_options(const EssOptions& options) {
    if (!(std::isfinite(options.bracket_width) && options.bracket_width > 0.0)) {
        throw ModelError(fmt::format("the ESS bracket width must be finite and positive, got {}",
                                     options.bracket_width));
    }
    if (options.max_shrink_steps == 0) {
        throw ModelError("the ESS max_shrink_steps must be at least 1 (default 1000)");
    }
    if (!(std::isfinite(options.direction_scale) && options.direction_scale > 0.0)) {
        throw ModelError(fmt::format("the ESS direction scale must be finite and positive, got {}",
                                     options.direction_scale));
    }
    bool positive = false;
    for (const auto& [move, weight] : options.moves) {
        if (!(std::isfinite(weight) && weight >= 0.0)) {
            throw ModelError(
                fmt::format("ESS move weights must be finite and non-negative, got {}", weight));
        }
        positive = positive || weight > 0.0;
        if (move.kind == EssMove::Kind::kGlobal) {
            if (!(std::isfinite(move.scale) && move.scale > 0.0 &&
                  std::isfinite(move.rescale_covariance) && move.rescale_covariance > 0.0 &&
                  move.components >= 2)) {
                throw ModelError("the ESS global move needs positive finite scale and "
                                 "rescale_covariance and at least 2 components");
            }
        }
    }
    if (!options.moves.empty() && !positive) {
        throw ModelError("ESS move weights must include a positive entry");
    }
    detail::check_storage(options.storage);
}

// Draws mean + factor · L z into `out` (z standard normal, L lower d×d row-major).
void add_normal(const std::vector<double>& mean, const std::vector<double>& l, double factor,
                double sign, Random& random, std::vector<double>& z, std::vector<double>& out) {
    const std::size_t d = out.size();
    for (double& v : z) {
        v = random.normal();
    }
    for (std::size_t i = 0; i < d; ++i) {
        double sum = 0.0;
        for (std::size_t k = 0; k <= i; ++k) {
            sum += l[i * d + k] * z[k];
        }
        out[i] += sign * (mean[i] + factor * sum);
    }
}

// The direction η for walker k (see the header's banner).
class Directions {
public:
    explicit Directions(std::size_t dimension)
        : eta(dimension), mean_(dimension), zero_(dimension, 0.0), z_(dimension) {}

    /// The mixture of the global move this step (nothing: its fit failed or another move).
    std::optional<detail::GaussianMixture> mixture;
    std::vector<double> eta;

    void draw(const EssMove& move, const Walkers& snapshot, std::size_t k, double mu,
              Random& random) {
        if (move.kind == EssMove::Kind::kDifferential) {
            differential(snapshot, k, mu, random);
        } else if (move.kind == EssMove::Kind::kGaussian) {
            gaussian(snapshot, k, 2.0 * mu, random);
        } else if (!mixture) {
            // ganesh's fallback when the mixture cannot be fitted (fewer walkers than
            // components, a singular covariance): the gaussian move scaled by `scale`.
            gaussian(snapshot, k, 2.0 * move.scale, random);
        } else {
            global(move, random);
        }
    }

private:
    void differential(const Walkers& snapshot, std::size_t k, double mu, Random& random) {
        // Two distinct positions among the n − 1 others, mapped past k.
        const std::size_t n = snapshot.size();
        const std::size_t first = random.below(n - 1);
        std::size_t second = random.below(n - 1);
        while (second == first) {
            second = random.below(n - 1);
        }
        const std::size_t a = first < k ? first : first + 1;
        const std::size_t b = second < k ? second : second + 1;
        for (std::size_t d = 0; d < eta.size(); ++d) {
            eta[d] = mu * (snapshot[a][d] - snapshot[b][d]);
        }
    }

    void gaussian(const Walkers& snapshot, std::size_t k, double factor, Random& random) {
        std::fill(eta.begin(), eta.end(), 0.0);
        detail::add_walk_direction(snapshot, k, random, mean_, eta);
        for (double& e : eta) {
            e *= factor;
        }
    }

    // Karamanis & Beutler's global move (zeus's GlobalMove): the labels of two random walkers
    // pick two components; the same one gives a local direction 2·scale·N(0, Σ_c), two give
    // the jump 2·(N(m_a, r Σ_a) − N(m_b, r Σ_b)) between them (r = rescale_covariance).
    void global(const EssMove& move, Random& random) {
        const detail::GaussianMixture& m = *mixture;
        const std::size_t a = m.labels[random.below(m.labels.size())];
        const std::size_t b = m.labels[random.below(m.labels.size())];
        std::fill(eta.begin(), eta.end(), 0.0);
        if (a == b) {
            add_normal(zero_, m.cholesky[a], 2.0 * move.scale, 1.0, random, z_, eta);
            return;
        }
        const double root = std::sqrt(move.rescale_covariance);
        add_normal(m.means[a], m.cholesky[a], root, 1.0, random, z_, eta);
        add_normal(m.means[b], m.cholesky[b], root, -1.0, random, z_, eta);
        for (double& e : eta) {
            e *= 2.0;
        }
    }

    std::vector<double> mean_;
    std::vector<double> zero_;
    std::vector<double> z_;
};

// One walker's slice update along η; counts the step's expansions and contractions. Returns
// whether the walker moved.
class SliceUpdate {
public:
    SliceUpdate(const std::function<double(std::span<const double>)>& log_density,
                const EssOptions& options, McmcChain& result, std::size_t dimension)
        : log_density_(log_density), options_(options), result_(result), point_(dimension) {}

    bool update(std::vector<double>& x, double& log_p, const std::vector<double>& eta,
                Random& random) {
        if (std::all_of(eta.begin(), eta.end(), [](double e) { return e == 0.0; })) {
            // Coinciding walkers give no direction: every bracket end would stay in the slice
            // until the expansion cap (ganesh spends those evaluations).
            return false;
        }
        double u = random.uniform();
        while (u <= 0.0) {
            u = random.uniform();
        }
        const double level = log_p + std::log(u);
        const double w = options_.bracket_width;
        double left = -random.uniform() * w;
        double right = left + w;
        std::size_t expansions = 0;
        while (expansions < options_.max_shrink_steps && at(x, eta, left) > level) {
            left -= w;
            ++expansions;
        }
        while (expansions < options_.max_shrink_steps && at(x, eta, right) > level) {
            right += w;
            ++expansions;
        }
        expansions_ += expansions;
        for (std::size_t contractions = 0;; ++contractions) {
            const double t = left + (right - left) * random.uniform();
            const double value = at(x, eta, t);
            if (value > level) {
                x = point_;
                log_p = value;
                return true;
            }
            if (contractions >= options_.max_shrink_steps) {
                return false;  // unreachable in exact arithmetic: t = 0 is in the slice
            }
            (t < 0.0 ? left : right) = t;
            ++contractions_;
        }
    }

    /// Expansions and contractions since the last reset.
    [[nodiscard]] std::size_t expansions() const { return expansions_; }

    [[nodiscard]] std::size_t contractions() const { return contractions_; }

    void reset() { expansions_ = contractions_ = 0; }

private:
    double at(const std::vector<double>& x, const std::vector<double>& eta, double t) {
        for (std::size_t d = 0; d < point_.size(); ++d) {
            point_[d] = x[d] + t * eta[d];
        }
        ++result_.evaluations;
        return checked(log_density_(point_), point_);
    }

    const std::function<double(std::span<const double>)>& log_density_;
    const EssOptions& options_;
    McmcChain& result_;
    std::vector<double> point_;
    std::size_t expansions_ = 0;
    std::size_t contractions_ = 0;
};

}  // namespace

McmcChain sample_ess(const std::function<double(std::span<const double>)>& log_density,
                     const std::vector<std::vector<double>>& initial, const EssOptions& options,
                     const SamplerStop& stop) {
    check_options(options);
    // Three walkers at least: the differential move needs two others than the one it moves.
    detail::check_walkers(initial, "ESS", 3);
    detail::check_stop(stop);
    const std::size_t n = initial.size();
    const std::size_t dimension = initial.front().size();
    Walkers walkers = initial;
    McmcChain result;
    std::vector<double> log_p = detail::initial_log_densities(log_density, walkers, 1, result);
    detail::Chains chains(n, dimension, options.storage);
    chains.record(0, walkers);
    std::vector<std::size_t> moved(n, 0);
    Random random(options.seed);
    SliceUpdate slice(log_density, options, result, dimension);
    Directions directions(dimension);
    double mu = options.direction_scale;
    SamplerStatus status{0, false, "initialized"};
    for (std::size_t step = 1;; ++step) {
        const EssMove move =
            options.moves.empty() ? EssMove{} : detail::choose_weighted(options.moves, random);
        const Walkers snapshot = walkers;
        // As ganesh: one mixture per step, fitted to the whole ensemble at its start.
        directions.mixture.reset();
        if (move.kind == EssMove::Kind::kGlobal) {
            directions.mixture = detail::fit_gaussian_mixture(snapshot, move.components, random);
        }
        slice.reset();
        for (std::size_t k = 0; k < n; ++k) {
            directions.draw(move, snapshot, k, mu, random);
            if (slice.update(walkers[k], log_p[k], directions.eta, random)) {
                ++moved[k];
            }
        }
        // ganesh adapts while its 0-based step index is ≤ adaptive_steps. At least one
        // expansion is counted, as zeus does (Karamanis & Beutler's code): without it a step
        // that never expanded would set μ to 0 and freeze the ensemble.
        if (step <= options.adaptive_steps + 1) {
            const auto expansions =
                static_cast<double>(std::max<std::size_t>(slice.expansions(), 1));
            mu *= 2.0 * expansions / (expansions + static_cast<double>(slice.contractions()));
        }
        if (detail::finish_step(step, kMoveNames[static_cast<std::size_t>(move.kind)], walkers,
                                chains, stop, status, result)) {
            break;
        }
    }
    detail::finish_run(chains, status, result);
    for (const std::size_t m : moved) {
        result.acceptance.push_back(static_cast<double>(m) /
                                    static_cast<double>(result.steps_taken));
    }
    return result;
}

}  // namespace laddu::fit
