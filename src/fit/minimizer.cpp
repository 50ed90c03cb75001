#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <limits>
#include <numbers>
#include <numeric>
#include <optional>
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
        if (stop_before_step(options, result, projected_norm)) {
            break;
        }
        std::vector<double> d = lbfgs_direction(current.gradient, active, pairs);
        if (!(dot(d, current.gradient) < 0.0)) {
            pairs.clear();
            d = lbfgs_direction(current.gradient, active, pairs);
        }
        // The first step of a fresh memory moves by at most 1 in the infinity norm.
        const double step = pairs.empty() ? std::min(1.0, 1.0 / projected_norm) : 1.0;
        std::optional<Step> next = projected_line_search(f, box, x, current, d, step);
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

namespace {

// The simplex of nelder_mead(): n + 1 vertices in the box and their values.
class Simplex {
public:
    Simplex(const Counted& f, const Box& box, const std::vector<double>& x, double size)
        : f_(f), box_(box), n_(x.size()) {
        vertices_.push_back(x);
        values_.push_back(f.value(x));
        for (std::size_t k = 0; k < n_; ++k) {
            std::vector<double> v = x;
            const double h = size * std::max(1.0, std::abs(x[k]));
            v[k] = (v[k] + h <= box.upper[k]) ? v[k] + h : v[k] - h;
            box.project(v);
            values_.push_back(f.try_value(v));
            vertices_.push_back(std::move(v));
        }
        order_.resize(n_ + 1);
    }

    // Sorts the vertices by value (order_[0] the best).
    void sort() {
        std::iota(order_.begin(), order_.end(), std::size_t{0});
        std::stable_sort(order_.begin(), order_.end(),
                         [&](std::size_t a, std::size_t b) { return values_[a] < values_[b]; });
    }

    // The spread of the vertices in x (∞-norm) is below x_tol and in value below f_tol.
    [[nodiscard]] bool small(double x_tol, double f_tol) const {
        const std::vector<double>& best = vertices_[order_.front()];
        double spread = 0.0;
        for (const auto& v : vertices_) {
            for (std::size_t k = 0; k < n_; ++k) {
                spread = std::max(spread, std::abs(v[k] - best[k]));
            }
        }
        return spread <= x_tol &&
               small_change(values_[order_.front()], values_[order_.back()], f_tol);
    }

    // One reflection / expansion / contraction / shrink step (on a sorted simplex).
    void step() {
        const std::size_t best = order_.front();
        const std::size_t worst = order_.back();
        std::vector<double> centroid(n_, 0.0);
        for (std::size_t i = 0; i < n_; ++i) {
            for (std::size_t k = 0; k < n_; ++k) {
                centroid[k] += vertices_[order_[i]][k] / static_cast<double>(n_);
            }
        }
        std::vector<double> reflected = towards(centroid, vertices_[worst], -1.0);
        const double fr = f_.try_value(reflected);
        if (fr < values_[best]) {
            std::vector<double> expanded = towards(centroid, vertices_[worst], -2.0);
            const double fe = f_.try_value(expanded);
            fe < fr ? replace(worst, std::move(expanded), fe)
                    : replace(worst, std::move(reflected), fr);
        } else if (fr < values_[order_[n_ - 1]]) {
            replace(worst, std::move(reflected), fr);
        } else {
            const bool outside = fr < values_[worst];
            std::vector<double> contracted =
                towards(centroid, vertices_[worst], outside ? -0.5 : 0.5);
            const double fc = f_.try_value(contracted);
            fc < std::min(fr, values_[worst]) ? replace(worst, std::move(contracted), fc)
                                              : shrink();
        }
    }

    // The index of the lowest vertex (the simplex need not be sorted).
    [[nodiscard]] std::size_t lowest() const {
        return static_cast<std::size_t>(std::min_element(values_.begin(), values_.end()) -
                                        values_.begin());
    }

    [[nodiscard]] const std::vector<double>& vertex(std::size_t i) const { return vertices_[i]; }

    [[nodiscard]] double value(std::size_t i) const { return values_[i]; }

private:
    std::vector<double> towards(const std::vector<double>& centroid,
                                const std::vector<double>& worst, double t) const {
        std::vector<double> p(n_);
        for (std::size_t k = 0; k < n_; ++k) {
            p[k] = centroid[k] + t * (worst[k] - centroid[k]);
        }
        box_.project(p);
        return p;
    }

    void replace(std::size_t i, std::vector<double> v, double value) {
        vertices_[i] = std::move(v);
        values_[i] = value;
    }

    void shrink() {
        const std::vector<double>& best = vertices_[order_.front()];
        for (std::size_t i = 1; i <= n_; ++i) {
            std::vector<double>& v = vertices_[order_[i]];
            for (std::size_t k = 0; k < n_; ++k) {
                v[k] = best[k] + 0.5 * (v[k] - best[k]);
            }
            values_[order_[i]] = f_.try_value(v);
        }
    }

    const Counted& f_;
    const Box& box_;
    std::size_t n_;
    std::vector<std::vector<double>> vertices_;
    std::vector<double> values_;
    std::vector<std::size_t> order_;
};

}  // namespace

MinimizerResult nelder_mead(const Objective& objective, std::vector<double> x,
                            const MinimizerOptions& options) {
    MinimizerResult result;
    const Counted f(objective, result);
    const Box box = box_of(objective);
    box.project(x);
    Simplex simplex(f, box, x, options.initial_simplex);
    while (true) {
        simplex.sort();
        if (simplex.small(options.simplex_tolerance, options.value_tolerance) &&
            stop(result, Termination::kSimplexSize)) {
            break;
        }
        if (result.iterations >= options.max_iterations &&
            stop(result, Termination::kMaxIterations)) {
            break;
        }
        ++result.iterations;
        simplex.step();
        const std::size_t best = simplex.lowest();
        if (!report(options, result, simplex.value(best), simplex.vertex(best)) &&
            stop(result, Termination::kStopped)) {
            break;
        }
    }
    const std::size_t best = simplex.lowest();
    result.x = simplex.vertex(best);
    result.value = simplex.value(best);
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
    case Termination::kDistanceToMinimum:
        return "estimated distance to minimum below tolerance";
    case Termination::kMaxIterations:
        return "maximum number of iterations reached";
    case Termination::kLineSearchFailed:
        return "line search found no descent step";
    case Termination::kStopped:
        return "stopped by the progress callback";
    }
    return "unknown";
}

namespace {

MinimizerResult dispatch(const Objective& objective, std::vector<double> x,
                         const MinimizerOptions& options) {
    switch (options.method) {
    case Method::kLbfgsb:
        return detail::lbfgsb(objective, std::move(x), options);
    case Method::kNelderMead:
        return detail::nelder_mead(objective, std::move(x), options);
    case Method::kVariableMetric:
        return detail::variable_metric(objective, std::move(x), options);
    }
    throw FitError("unknown minimisation method");
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
