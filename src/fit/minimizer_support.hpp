// minimizer_support.hpp (private): what the minimisers share: evaluation counting, the box,
// small vector helpers and the convergence tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include <laddu/base/error.hpp>
#include <laddu/fit/minimizer.hpp>

namespace laddu::fit::detail {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// Counts evaluations and turns an EvaluationError away from the start into +∞.
class Counted {
public:
    Counted(const Objective& objective, MinimizerResult& result)
        : objective_(objective), result_(result) {}

    runtime::Evaluation with_gradient(std::span<const double> x) const {
        ++result_.value_evaluations;
        ++result_.gradient_evaluations;
        return objective_.value_and_gradient(x);
    }

    double value(std::span<const double> x) const {
        if (!objective_.value) {
            return with_gradient(x).value;
        }
        ++result_.value_evaluations;
        return objective_.value(x);
    }

    // As with_gradient(), but a failed evaluation is +∞ with an empty gradient.
    runtime::Evaluation try_with_gradient(std::span<const double> x) const {
        try {
            runtime::Evaluation e = with_gradient(x);
            if (!std::isfinite(e.value)) {
                e.value = kInf;
            }
            return e;
        } catch (const EvaluationError&) {
            return {kInf, {}};
        }
    }

    double try_value(std::span<const double> x) const {
        try {
            const double v = value(x);
            return std::isfinite(v) ? v : kInf;
        } catch (const EvaluationError&) {
            return kInf;
        }
    }

private:
    const Objective& objective_;
    MinimizerResult& result_;
};

struct Box {
    std::vector<double> lower;
    std::vector<double> upper;

    void project(std::vector<double>& x) const {
        for (std::size_t k = 0; k < x.size(); ++k) {
            x[k] = std::clamp(x[k], lower[k], upper[k]);
        }
    }
};

inline Box box_of(const Objective& objective) {
    Box box{std::vector<double>(objective.dimension, -kInf),
            std::vector<double>(objective.dimension, kInf)};
    for (std::size_t k = 0; k < objective.bounds.size(); ++k) {
        box.lower[k] = objective.bounds[k].lower;
        box.upper[k] = objective.bounds[k].upper;
    }
    return box;
}

inline double dot(std::span<const double> a, std::span<const double> b) {
    double sum = 0.0;
    for (std::size_t k = 0; k < a.size(); ++k) {
        sum += a[k] * b[k];
    }
    return sum;
}

inline bool small_change(double before, double after, double tolerance) {
    return std::abs(before - after) <=
           tolerance * std::max({1.0, std::abs(before), std::abs(after)});
}

// Calls the progress callback (if any) with the state of `result`; minimize() adds the best
// value and the elapsed time.
inline bool report(const MinimizerOptions& options, const MinimizerResult& result, double value,
                   std::span<const double> x) {
    return !options.progress || options.progress(Progress{.iteration = result.iterations,
                                                          .value = value,
                                                          .x = x,
                                                          .evaluations = result.value_evaluations});
}

// The variables held on a bound by a gradient pointing out of the box.
inline std::vector<bool> active_set(const std::vector<double>& x, const std::vector<double>& g,
                                    const Box& box) {
    std::vector<bool> active(x.size());
    for (std::size_t k = 0; k < x.size(); ++k) {
        active[k] = (x[k] <= box.lower[k] && g[k] > 0.0) || (x[k] >= box.upper[k] && g[k] < 0.0);
    }
    return active;
}

/// The infinity norm of `g` over the variables not in `active`.
inline double projected_gradient_norm(const std::vector<double>& g,
                                      const std::vector<bool>& active) {
    double norm = 0.0;
    for (std::size_t k = 0; k < g.size(); ++k) {
        norm = active[k] ? norm : std::max(norm, std::abs(g[k]));
    }
    return norm;
}

/// True for the terminations that mean convergence.
inline bool is_convergence(Termination termination) {
    return termination == Termination::kGradient || termination == Termination::kValueChange ||
           termination == Termination::kSimplexSize || termination == Termination::kSimplexValues ||
           termination == Termination::kDistanceToMinimum ||
           termination == Termination::kPopulationSpread ||
           termination == Termination::kEvolutionStrategy ||
           termination == Termination::kTemperature;
}

/// Records `termination` in `result` and returns true (for `if (stop(...)) break;`).
inline bool stop(MinimizerResult& result, Termination termination) {
    result.termination = termination;
    result.converged = is_convergence(termination);
    return true;
}

/// The tests before a step: the projected gradient, then the iteration budget.
inline bool stop_before_step(const MinimizerOptions& options, MinimizerResult& result,
                             double projected_norm) {
    if (projected_norm <= options.gradient_tolerance) {
        return stop(result, Termination::kGradient);
    }
    if (result.iterations >= options.max_iterations) {
        return stop(result, Termination::kMaxIterations);
    }
    return false;
}

/// The tests after an accepted step from value `before` to `after` at x: the progress
/// callback, then the value change.
inline bool stop_after_step(const MinimizerOptions& options, MinimizerResult& result, double before,
                            double after, std::span<const double> x) {
    if (!report(options, result, after, x)) {
        return stop(result, Termination::kStopped);
    }
    if (small_change(before, after, options.value_tolerance) ||
        std::abs(before - after) < options.value_change_tolerance) {
        return stop(result, Termination::kValueChange);
    }
    return false;
}

/// A point accepted by the line search and the objective there.
struct Step {
    std::vector<double> x;
    runtime::Evaluation at;
};

/// Backtracks from `step` along the projected path P(x + αd), halving α up to 60 times, until
/// the Armijo condition f(x_α) <= f(x) + 1e-4 ∇f(x)·(x_α − x) holds; nullopt if it never does.
inline std::optional<Step> projected_line_search(const Counted& f, const Box& box,
                                                 const std::vector<double>& x,
                                                 const runtime::Evaluation& current,
                                                 const std::vector<double>& d, double step) {
    const std::size_t n = x.size();
    std::vector<double> trial(n);
    std::vector<double> moved(n);
    for (int attempt = 0; attempt < 60; ++attempt, step *= 0.5) {
        for (std::size_t k = 0; k < n; ++k) {
            trial[k] = x[k] + step * d[k];
        }
        box.project(trial);
        for (std::size_t k = 0; k < n; ++k) {
            moved[k] = trial[k] - x[k];
        }
        runtime::Evaluation next = f.try_with_gradient(trial);
        if (next.value <= current.value + 1e-4 * dot(current.gradient, moved)) {
            return Step{trial, std::move(next)};
        }
    }
    return std::nullopt;
}

/// The strong-Wolfe searches of options.line_search (line_search.cpp) along d from x, with the
/// first trial at `step`, on the feasible part of d, α <= options.max_step; nullopt on failure.
std::optional<Step> wolfe_line_search(const Counted& f, const Box& box,
                                      const std::vector<double>& x,
                                      const runtime::Evaluation& current, std::vector<double> d,
                                      double step, const MinimizerOptions& options);

/// The projected L-BFGS minimiser (minimizer.cpp).
MinimizerResult lbfgsb(const Objective& objective, std::vector<double> x,
                       const MinimizerOptions& options);

/// The Nelder-Mead simplex minimiser (minimizer.cpp).
MinimizerResult nelder_mead(const Objective& objective, std::vector<double> x,
                            const MinimizerOptions& options);

/// The dense variable-metric (BFGS, MIGRAD-style) minimiser (variable_metric.cpp).
MinimizerResult variable_metric(const Objective& objective, std::vector<double> x,
                                const MinimizerOptions& options);

/// CMA-ES (cmaes.cpp).
MinimizerResult cmaes(const Objective& objective, std::vector<double> x,
                      const MinimizerOptions& options);

/// Particle swarm (particle_swarm.cpp).
MinimizerResult particle_swarm(const Objective& objective, std::vector<double> x,
                               const MinimizerOptions& options);

/// Differential evolution (differential_evolution.cpp).
MinimizerResult differential_evolution(const Objective& objective, std::vector<double> x,
                                       const MinimizerOptions& options);

/// Simulated annealing (simulated_annealing.cpp).
MinimizerResult simulated_annealing(const Objective& objective, std::vector<double> x,
                                    const MinimizerOptions& options);

/// Nonlinear conjugate gradient (conjugate_gradient.cpp).
MinimizerResult conjugate_gradient(const Objective& objective, std::vector<double> x,
                                   const MinimizerOptions& options);

/// Trust region with a finite-difference Hessian (trust_region.cpp).
MinimizerResult trust_region(const Objective& objective, std::vector<double> x,
                             const MinimizerOptions& options);

/// True when the values span at most tolerance · max(1, |best|) (tolerance <= 0: never).
inline bool values_agree(std::span<const double> values, double tolerance) {
    if (!(tolerance > 0.0) || values.empty()) {
        return false;
    }
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    return std::isfinite(*high) && *high - *low <= tolerance * std::max(1.0, std::abs(*low));
}

}  // namespace laddu::fit::detail
