#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/fit/profile.hpp>

namespace laddu::fit {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The objective of the n − 1 parameters other than k, with θ_k held at `v`.
Objective conditional_objective(const Objective& full, std::size_t k, double v) {
    Objective inner;
    inner.dimension = full.dimension - 1;
    const auto expand = [k, v](std::span<const double> y) {
        std::vector<double> x(y.size() + 1);
        std::copy(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(k), x.begin());
        x[k] = v;
        std::copy(y.begin() + static_cast<std::ptrdiff_t>(k), y.end(),
                  x.begin() + static_cast<std::ptrdiff_t>(k) + 1);
        return x;
    };
    inner.value_and_gradient = [&full, k, expand](std::span<const double> y) {
        runtime::Evaluation e = full.value_and_gradient(expand(y));
        e.gradient.erase(e.gradient.begin() + static_cast<std::ptrdiff_t>(k));
        return e;
    };
    if (full.value) {
        inner.value = [&full, expand](std::span<const double> y) {
            return full.value(expand(y));
        };
    }
    if (!full.bounds.empty()) {
        inner.bounds = full.bounds;
        inner.bounds.erase(inner.bounds.begin() + static_cast<std::ptrdiff_t>(k));
    }
    if (!full.periodic.empty()) {
        inner.periodic = full.periodic;
        inner.periodic.erase(inner.periodic.begin() + static_cast<std::ptrdiff_t>(k));
    }
    return inner;
}

// One trial of a side: the offset d from θ̂_k (signed) and the rise of the profile there.
struct Trial {
    double offset = 0.0;
    double delta = 0.0;
    std::vector<double> x;
};

class SideSearch {
public:
    SideSearch(const Objective& objective, const FitResult& best, std::size_t k, double sign,
               const ProfileOptions& options)
        : objective_(objective), best_(best), k_(k), sign_(sign), options_(options) {
        options_.minimizer.gradient_tolerance =
            std::min(options_.minimizer.gradient_tolerance, 1e-8);
        const std::size_t n = best.values.size();
        const double variance = best.covariance.size() == n * n
                                    ? best.covariance[k * n + k]
                                    : std::numeric_limits<double>::quiet_NaN();
        sigma_ =
            variance > 0.0 ? std::sqrt(variance) : 0.1 * std::max(1.0, std::abs(best.values[k]));
        regression_.assign(n, 0.0);
        for (std::size_t j = 0; j < n && variance > 0.0; ++j) {
            const double c = best.covariance[j * n + k] / variance;
            regression_[j] = std::isfinite(c) ? c : 0.0;
        }
        if (!objective.bounds.empty()) {
            limit_ = sign > 0.0 ? objective.bounds[k].upper : objective.bounds[k].lower;
        } else {
            limit_ = sign * kInf;
        }
    }

    ProfileSide run() {
        ProfileSide side;
        const double up = options_.up;
        const double reach = std::abs(limit_ - best_.values[k_]);  // distance to θ_k's bound
        double d = std::min(sigma_, reach);
        // Bracket: below_ has Δ < up (starts at the minimum, Δ = 0), above_ Δ > up.
        Trial below{0.0, 0.0, best_.values};
        std::optional<Trial> above;
        for (side.trials = 0; side.trials < options_.max_trials;) {
            const Trial t = evaluate(d, below, side);
            ++side.trials;
            side.error = d;
            side.delta = t.delta;
            if (t.delta < -options_.tolerance * up) {
                side.new_minimum = true;
                side.deeper_point = t.x;
                side.message = fmt::format(
                    "the profile at {} = {:.9g} is {:.3g} below the fitted minimum: the fit "
                    "was not at the global minimum; refit from deeper_point",
                    best_.names.empty() ? fmt::format("parameter {}", k_) : best_.names[k_],
                    t.x[k_], -t.delta);
                return side;
            }
            if (std::abs(t.delta - up) <= options_.tolerance * up) {
                side.valid = true;
                return side;
            }
            if (t.delta < up) {
                below = t;
                if (d >= reach) {
                    side.reached_bound = true;
                    side.message = fmt::format("the bound {} is reached with a rise of {:.4g} "
                                               "< {}: the interval extends to it",
                                               limit_, t.delta, up);
                    return side;
                }
            } else {
                above = t;
            }
            d = next_offset(below, above, up);
            d = std::min(d, reach);
        }
        side.message = fmt::format("no crossing within {} profile minimisations (last rise "
                                   "{:.4g} at offset {:.4g}, wanted {})",
                                   options_.max_trials, side.delta, side.error, up);
        return side;
    }

private:
    // The profile at offset d, warm-started from `near` shifted along the regression line.
    Trial evaluate(double d, const Trial& near, ProfileSide& side) const {
        const double v = best_.values[k_] + sign_ * d;
        std::vector<double> start = near.x;
        const double shift = v - near.x[k_];
        for (std::size_t j = 0; j < start.size(); ++j) {
            start[j] += regression_[j] * shift;
            if (!objective_.bounds.empty()) {
                start[j] =
                    std::clamp(start[j], objective_.bounds[j].lower, objective_.bounds[j].upper);
            }
        }
        const ProfilePoint p = profile_point(objective_, k_, v, start, options_.minimizer);
        side.evaluations += p.evaluations;
        return Trial{d, p.value - best_.value, p.x};
    }

    // For a parabolic profile √Δ is linear in d: interpolate it between the bracket's ends when
    // there are two, extrapolate from the farthest point below the crossing when not.
    double next_offset(const Trial& below, const std::optional<Trial>& above, double up) const {
        const double target = std::sqrt(up);
        const double r_below = std::sqrt(std::max(below.delta, 0.0));
        if (!above) {
            if (below.offset <= 0.0 || r_below <= 0.0) {
                return 2.0 * std::max(below.offset, sigma_);
            }
            // Never more than 4× at once, so a flat profile is walked, not jumped over.
            return below.offset * std::min(4.0, target / r_below);
        }
        const double r_above = std::sqrt(above->delta);
        double d = below.offset +
                   (target - r_below) * (above->offset - below.offset) / (r_above - r_below);
        const double lo = below.offset;
        const double hi = above->offset;
        if (!(d > lo + 0.01 * (hi - lo) && d < hi - 0.01 * (hi - lo))) {
            d = 0.5 * (lo + hi);  // the secant left the bracket: bisect
        }
        return d;
    }

    const Objective& objective_;
    const FitResult& best_;
    std::size_t k_;
    double sign_;
    ProfileOptions options_;
    double sigma_ = 0.0;
    double limit_ = kInf;
    std::vector<double> regression_;
};

}  // namespace

ProfilePoint profile_point(const Objective& objective, std::size_t k, double v,
                           std::span<const double> others_start,
                           const MinimizerOptions& minimizer) {
    if (k >= objective.dimension || others_start.size() != objective.dimension) {
        throw FitError(fmt::format("profile_point: parameter {} and a start of {} values for an "
                                   "objective of {} dimensions",
                                   k, others_start.size(), objective.dimension));
    }
    ProfilePoint point;
    point.x.assign(others_start.begin(), others_start.end());
    point.x[k] = v;
    if (objective.dimension == 1) {
        point.value = objective.value ? objective.value(point.x)
                                      : objective.value_and_gradient(point.x).value;
        point.converged = true;
        point.evaluations = 1;
        return point;
    }
    const Objective inner = conditional_objective(objective, k, v);
    std::vector<double> y = point.x;
    y.erase(y.begin() + static_cast<std::ptrdiff_t>(k));
    const MinimizerResult m = minimize(inner, y, minimizer);
    std::copy(m.x.begin(), m.x.begin() + static_cast<std::ptrdiff_t>(k), point.x.begin());
    std::copy(m.x.begin() + static_cast<std::ptrdiff_t>(k), m.x.end(),
              point.x.begin() + static_cast<std::ptrdiff_t>(k) + 1);
    point.value = m.value;
    point.converged = m.converged;
    point.evaluations = m.value_evaluations;
    return point;
}

ProfileInterval profile_interval(const Objective& objective, const FitResult& best, std::size_t k,
                                 const ProfileOptions& options) {
    const std::size_t n = objective.dimension;
    if (k >= n || best.values.size() != n) {
        throw FitError(fmt::format("profile_interval: parameter {} of a fit with {} values for "
                                   "an objective of {} dimensions",
                                   k, best.values.size(), n));
    }
    if (!(options.up > 0.0) || !(options.tolerance > 0.0 && options.tolerance < 1.0)) {
        throw FitError(fmt::format("profile_interval needs up > 0 and 0 < tolerance < 1 (got {} "
                                   "and {})",
                                   options.up, options.tolerance));
    }
    ProfileInterval interval;
    interval.name = k < best.names.size() ? best.names[k] : fmt::format("parameter {}", k);
    interval.value = best.values[k];
    if (k < best.at_bound.size() && best.at_bound[k]) {
        for (ProfileSide* side : {&interval.lower, &interval.upper}) {
            side->reached_bound = true;
            side->message = "the parameter is held on a bound by the fit";
        }
        return interval;
    }
    interval.lower = SideSearch(objective, best, k, -1.0, options).run();
    interval.upper = SideSearch(objective, best, k, +1.0, options).run();
    interval.lower_error = interval.lower.error;
    interval.upper_error = interval.upper.error;
    return interval;
}

ProfileIntervals profile_intervals(const likelihood::Likelihood& likelihood, const FitResult& best,
                                   std::span<const std::size_t> parameters,
                                   const ProfileOptions& options) {
    const auto begin = std::chrono::steady_clock::now();
    const Objective objective = objective_of(likelihood);
    std::vector<std::size_t> which(parameters.begin(), parameters.end());
    if (which.empty()) {
        for (std::size_t k = 0; k < objective.dimension; ++k) {
            which.push_back(k);
        }
    }
    ProfileIntervals out;
    for (const std::size_t k : which) {
        out.intervals.push_back(profile_interval(objective, best, k, options));
        out.evaluations +=
            out.intervals.back().lower.evaluations + out.intervals.back().upper.evaluations;
    }
    out.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    return out;
}

}  // namespace laddu::fit
