#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <limits>
#include <numbers>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/fit/minimizer.hpp>
#include <laddu/fit/transform.hpp>

#include "minimizer_support.hpp"

namespace laddu::fit {
namespace detail {
namespace {

struct Pair {
    std::vector<double> s, y;
    double rho = 0.0;
};

// d = −H g on the free variables (two-loop recursion), 0 on the active ones.
std::vector<double> lbfgs_direction(const std::vector<double>& g, const std::vector<bool>& active,
                                    const std::deque<Pair>& pairs) {
    std::vector<double> q(g.size());
    for (std::size_t k = 0; k < g.size(); ++k) {
        q[k] = active[k] ? 0.0 : g[k];
    }
    std::vector<double> alpha(pairs.size());
    for (std::size_t i = pairs.size(); i-- > 0;) {
        alpha[i] = pairs[i].rho * dot(pairs[i].s, q);
        for (std::size_t k = 0; k < q.size(); ++k) {
            q[k] -= alpha[i] * pairs[i].y[k];
        }
    }
    if (!pairs.empty()) {
        const Pair& last = pairs.back();
        const double gamma = dot(last.s, last.y) / dot(last.y, last.y);
        for (double& v : q) {
            v *= gamma;
        }
    }
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        const double beta = pairs[i].rho * dot(pairs[i].y, q);
        for (std::size_t k = 0; k < q.size(); ++k) {
            q[k] += (alpha[i] - beta) * pairs[i].s[k];
        }
    }
    for (std::size_t k = 0; k < q.size(); ++k) {
        q[k] = active[k] ? 0.0 : -q[k];
    }
    return q;
}

// Appends the curvature pair of the step x -> next, unless s·y <= 0 (keeps H positive definite).
void remember(std::deque<Pair>& pairs, const std::vector<double>& x,
              const std::vector<double>& gradient, const Step& next, std::size_t memory) {
    Pair pair{std::vector<double>(x.size()), std::vector<double>(x.size()), 0.0};
    for (std::size_t k = 0; k < x.size(); ++k) {
        pair.s[k] = next.x[k] - x[k];
        pair.y[k] = next.at.gradient[k] - gradient[k];
    }
    const double sy = dot(pair.s, pair.y);
    if (sy > 1e-12 * dot(pair.y, pair.y) && sy > 0.0) {
        pair.rho = 1.0 / sy;
        pairs.push_back(std::move(pair));
        if (pairs.size() > memory) {
            pairs.pop_front();
        }
    }
}

}  // namespace

MinimizerResult lbfgsb(const Objective& objective, std::vector<double> x,
                       const MinimizerOptions& options) {
    MinimizerResult result;
    const Counted f(objective, result);
    const Box box = box_of(objective);
    box.project(x);
    runtime::Evaluation current = f.with_gradient(x);
    std::deque<Pair> pairs;
    while (true) {
        const std::vector<bool> active = active_set(x, current.gradient, box);
        const double projected_norm = projected_gradient_norm(current.gradient, active);
        if (std::sqrt(dot(current.gradient, current.gradient)) < options.gradient_norm_tolerance &&
            stop(result, Termination::kGradient)) {
            break;  // ganesh's LBFGSBGTerminator: the full gradient's 2-norm
        }
        if (stop_before_step(options, result, projected_norm)) {
            break;
        }
        std::vector<double> d = lbfgs_direction(current.gradient, active, pairs);
        if (!(dot(d, current.gradient) < 0.0)) {
            pairs.clear();
            d = lbfgs_direction(current.gradient, active, pairs);
        }
        // The first step of a fresh memory moves by at most 1 in the infinity norm.
        const double step =
            std::min(pairs.empty() ? std::min(1.0, 1.0 / projected_norm) : 1.0, options.max_step);
        std::optional<Step> next = options.line_search.kind == LineSearchKind::kBacktracking
                                       ? projected_line_search(f, box, x, current, d, step)
                                       : wolfe_line_search(f, box, x, current, d, step, options);
        if (!next) {
            if (pairs.empty()) {
                stop(result, Termination::kLineSearchFailed);
                break;
            }
            pairs.clear();  // retry from steepest descent
            continue;
        }
        ++result.iterations;
        remember(pairs, x, current.gradient, *next, options.memory);
        const double before = current.value;
        x = std::move(next->x);
        current = std::move(next->at);
        if (stop_after_step(options, result, before, current.value, x)) {
            break;
        }
    }
    result.x = std::move(x);
    result.value = current.value;
    return result;
}

}  // namespace detail

const char* termination_name(Termination termination) noexcept {
    switch (termination) {
    case Termination::kGradient:
        return "projected gradient below tolerance";
    case Termination::kValueChange:
        return "value change below tolerance";
    case Termination::kSimplexSize:
        return "simplex size below tolerance";
    case Termination::kSimplexValues:
        return "simplex values within tolerance";
    case Termination::kDistanceToMinimum:
        return "estimated distance to minimum below tolerance";
    case Termination::kMaxIterations:
        return "maximum number of iterations reached";
    case Termination::kLineSearchFailed:
        return "line search found no descent step";
    case Termination::kStopped:
        return "stopped by the progress callback";
    case Termination::kPopulationSpread:
        return "population values agree within tolerance";
    case Termination::kEvolutionStrategy:
        return "a CMA-ES stopping rule was met";
    case Termination::kTemperature:
        return "temperature below the minimum";
    }
    return "unknown";
}

namespace {

// FitError unless the options are in the ranges ganesh accepts.
void check_options(const MinimizerOptions& options, std::size_t n) {
    const auto require = [](bool ok, const char* what) {
        if (!ok) {
            throw FitError(std::string("invalid minimizer option: ") + what);
        }
    };
    require(options.memory >= 1, "memory must be at least 1");
    require(std::isfinite(options.max_step) && options.max_step > 0.0,
            "max_step must be finite and positive");
    const LineSearchOptions& ls = options.line_search;
    require(ls.c1 > 0.0 && ls.c1 < ls.c2 && ls.c2 < 1.0, "line search needs 0 < c1 < c2 < 1");
    require(ls.delta > 0.0 && ls.delta < ls.sigma && ls.sigma < 1.0,
            "line search needs 0 < delta < sigma < 1");
    require(ls.epsilon > 0.0 && ls.theta > 0.0 && ls.theta < 1.0 && ls.gamma > 0.0 &&
                ls.gamma < 1.0,
            "line search needs epsilon > 0 and theta, gamma in (0, 1)");
    const NelderMeadOptions& nm = options.nelder_mead;
    require(nm.reflection > 0.0 && nm.expansion > 1.0 && nm.expansion > nm.reflection,
            "Nelder-Mead needs reflection > 0 and expansion > max(1, reflection)");
    require(nm.contraction > 0.0 && nm.contraction < 1.0 && nm.shrink > 0.0 && nm.shrink < 1.0,
            "Nelder-Mead needs contraction and shrink in (0, 1)");
    require(std::isfinite(nm.initial_step) && nm.initial_step >= 0.0 &&
                std::isfinite(nm.initial_zero_step) && nm.initial_zero_step > 0.0,
            "Nelder-Mead needs initial_step >= 0 and initial_zero_step > 0, both finite");
    require(nm.vertices.empty() || nm.vertices.size() == n + 1,
            "Nelder-Mead's initial simplex needs dimension + 1 vertices");
    for (const std::vector<double>& v : nm.vertices) {
        require(v.size() == n && std::all_of(v.begin(), v.end(),
                                             [](double value) { return std::isfinite(value); }),
                "each vertex of Nelder-Mead's initial simplex needs dimension finite values");
    }
    for (const SimplexTerminator& rule : nm.terminators) {
        require(rule.tolerance > 0.0, "a Nelder-Mead terminator needs a positive tolerance");
    }
}

// FitError unless the options of the population methods, conjugate gradient and trust region
// are in the ranges ganesh accepts.
void check_global_options(const MinimizerOptions& options, std::size_t n) {
    const auto require = [](bool ok, const char* what) {
        if (!ok) {
            throw FitError(std::string("invalid minimizer option: ") + what);
        }
    };
    const auto positive = [](double v) {
        return std::isfinite(v) && v > 0.0;
    };
    const CmaesOptions& es = options.cmaes;
    require(es.population_size == 0 || es.population_size >= 2,
            "CMA-ES needs a population size of at least 2 (or 0 for the default)");
    require(positive(es.initial_sigma), "CMA-ES needs a finite initial_sigma > 0");
    const ParticleSwarmOptions& ps = options.particle_swarm;
    require(ps.particles == 0 || ps.particles >= 2,
            "particle swarm needs at least 2 particles (or 0 for the default)");
    require(std::isfinite(ps.inertia) && ps.inertia >= 0.0 && std::isfinite(ps.cognitive) &&
                ps.cognitive >= 0.0 && std::isfinite(ps.social) && ps.social >= 0.0,
            "particle swarm needs finite inertia, cognitive and social weights >= 0");
    require(positive(ps.initial_scale) && std::isfinite(ps.velocity_scale) &&
                ps.velocity_scale >= 0.0,
            "particle swarm needs initial_scale > 0 and velocity_scale >= 0, both finite");
    require(ps.position_bounds.empty() || ps.position_bounds.size() == n,
            "particle swarm needs one position bound per dimension (or none)");
    for (const expr::Bounds& b : ps.position_bounds) {
        require(std::isfinite(b.lower) && std::isfinite(b.upper) && b.lower < b.upper,
                "particle swarm position bounds must be finite and ordered (lower < upper)");
    }
    const DifferentialEvolutionOptions& de = options.differential_evolution;
    require(de.population_size == 0 || de.population_size >= 4,
            "differential evolution needs a population size of at least 4 (or 0 for the "
            "default)");
    require(positive(de.differential_weight) && positive(de.initial_scale),
            "differential evolution needs a finite differential_weight and initial_scale > 0");
    require(de.crossover_probability >= 0.0 && de.crossover_probability <= 1.0,
            "differential evolution needs crossover_probability in [0, 1]");
    const SimulatedAnnealingOptions& sa = options.simulated_annealing;
    require(positive(sa.initial_temperature) && positive(sa.proposal_scale),
            "simulated annealing needs a finite initial_temperature and proposal_scale > 0");
    require(sa.cooling_rate > 0.0 && sa.cooling_rate < 1.0,
            "simulated annealing needs cooling_rate in (0, 1)");
    const TrustRegionOptions& tr = options.trust_region;
    require(positive(tr.initial_radius) && positive(tr.max_radius),
            "trust region needs finite initial_radius and max_radius > 0");
    require(tr.eta >= 0.0 && tr.eta < 1.0, "trust region needs eta in [0, 1)");
}

MinimizerResult dispatch(const Objective& objective, std::vector<double> x,
                         const MinimizerOptions& options) {
    if (x.empty() && options.method != Method::kNelderMead &&
        options.method != Method::kVariableMetric) {
        // Nothing to vary: L-BFGS-B evaluates once and stops on the (empty) gradient; the
        // population sizes and random indices of the other methods need a dimension.
        return detail::lbfgsb(objective, std::move(x), options);
    }
    switch (options.method) {
    case Method::kCmaes:
        return detail::cmaes(objective, std::move(x), options);
    case Method::kParticleSwarm:
        return detail::particle_swarm(objective, std::move(x), options);
    case Method::kDifferentialEvolution:
        return detail::differential_evolution(objective, std::move(x), options);
    case Method::kSimulatedAnnealing:
        return detail::simulated_annealing(objective, std::move(x), options);
    case Method::kConjugateGradient:
        return detail::conjugate_gradient(objective, std::move(x), options);
    case Method::kTrustRegion:
        return detail::trust_region(objective, std::move(x), options);
    case Method::kLbfgsb:
        return detail::lbfgsb(objective, std::move(x), options);
    case Method::kNelderMead:
        return detail::nelder_mead(objective, std::move(x), options);
    case Method::kVariableMetric:
        return detail::variable_metric(objective, std::move(x), options);
    }
    throw FitError("unknown minimisation method");
}

// The swarm's position bounds, given in the parameters, in the internal ones: each coordinate's
// transform is monotone, so an interval maps to an interval (an upper-bound transform reverses
// it); a periodic interval stays as given (wrapping its ends could reverse it).
void internal_position_bounds(const ParameterTransform& transform,
                              std::vector<expr::Bounds>& swarm_box) {
    if (swarm_box.empty()) {
        return;
    }
    std::vector<double> lower(swarm_box.size());
    std::vector<double> upper(swarm_box.size());
    for (std::size_t k = 0; k < swarm_box.size(); ++k) {
        lower[k] = swarm_box[k].lower;
        upper[k] = swarm_box[k].upper;
    }
    lower = transform.to_internal(lower);
    upper = transform.to_internal(upper);
    for (std::size_t k = 0; k < swarm_box.size(); ++k) {
        const TransformKind kind = transform.kind(k);
        if (kind != TransformKind::kIdentity && kind != TransformKind::kPeriodic) {
            swarm_box[k] = expr::Bounds{std::min(lower[k], upper[k]), std::max(lower[k], upper[k])};
        }
    }
}

}  // namespace

MinimizerResult minimize(const Objective& objective, std::span<const double> start,
                         const MinimizerOptions& options) {
    if (!objective.value_and_gradient) {
        throw FitError("the objective has no value_and_gradient function; set it before fitting");
    }
    if (start.size() != objective.dimension) {
        throw FitError(fmt::format("the start point has {} values but the objective has {} "
                                   "dimensions",
                                   start.size(), objective.dimension));
    }
    if (!objective.bounds.empty() && objective.bounds.size() != objective.dimension) {
        throw FitError(fmt::format("the objective has {} bounds for {} dimensions; give one "
                                   "per dimension or none",
                                   objective.bounds.size(), objective.dimension));
    }
    for (std::size_t k = 0; k < start.size(); ++k) {
        if (!std::isfinite(start[k])) {
            throw FitError(
                fmt::format("start value {} is {}; start from finite values", k, start[k]));
        }
    }
    check_options(options, objective.dimension);
    check_global_options(options, objective.dimension);
    MinimizerOptions outer = options;
    if (options.progress) {
        // Adds the best value so far and the elapsed time to what the minimisers report.
        outer.progress = [&options, best = detail::kInf,
                          begin = std::chrono::steady_clock::now()](const Progress& p) mutable {
            best = std::min(best, p.value);
            Progress full = p;
            full.best = best;
            full.elapsed_seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
            return options.progress(full);
        };
    }
    const ParameterTransform transform = ParameterTransform::for_method(objective, options.method);
    if (transform.is_identity()) {
        return dispatch(objective, std::vector<double>(start.begin(), start.end()), outer);
    }
    const Objective inner = transform.internal_objective(objective);
    std::vector<double> u = transform.to_internal(start);
    for (std::size_t k = 0; k < u.size(); ++k) {
        // On a bound the slope dx/du is 0 and so is the internal gradient: start just inside.
        constexpr double kInside = 1e-3;
        const double edge = 0.5 * std::numbers::pi - kInside;
        if (transform.kind(k) == TransformKind::kTwoSided) {
            u[k] = std::clamp(u[k], -edge, edge);
        } else if (transform.kind(k) == TransformKind::kLower ||
                   transform.kind(k) == TransformKind::kUpper) {
            u[k] = std::max(u[k], kInside);
        }
    }
    MinimizerOptions inner_options = outer;
    for (std::vector<double>& v : inner_options.nelder_mead.vertices) {
        v = transform.to_internal(v);  // given in the parameters, as ganesh's initial_simplex
    }
    internal_position_bounds(transform, inner_options.particle_swarm.position_bounds);
    if (outer.progress) {
        inner_options.progress = [&](const Progress& p) {
            const std::vector<double> x = transform.to_external(p.x);
            Progress external = p;
            external.x = x;
            return outer.progress(external);
        };
    }
    MinimizerResult result = dispatch(inner, std::move(u), inner_options);
    if (!result.inverse_hessian.empty()) {
        result.inverse_hessian = transform.covariance_to_external(result.inverse_hessian, result.x);
    }
    result.x = transform.to_external(result.x);
    return result;
}

}  // namespace laddu::fit
