// Nonlinear conjugate gradient (Method::kConjugateGradient): d ← −g⁺ + β d with the β formulas of
// ganesh 0.28's ConjugateGradientUpdate (Fletcher-Reeves 1964, Polak-Ribière 1969 and
// Hestenes-Stiefel 1952 truncated at 0 (Gilbert & Nocedal 1992), Dai-Yuan 1999, Hager-Zhang 2005;
// Nocedal & Wright 2006, §5.2 and W. W. Hager, H. Zhang, Pacific J. Optim. 2 (2006) 35), along a
// strong-Wolfe line search (line_search.cpp). As in ganesh: a β that is not finite or divides by
// a vanishing denominator is 0, a direction that is not a descent direction is replaced by −g,
// and a failed search restarts from −g. The first trial step of a search is Nocedal & Wright's
// step below, so the
// search is not started a thousand times too long or short on a badly scaled objective.
// (N&W eq. (3.60): α₀ = 2 (f_k − f_{k−1}) / φ'(0), the minimiser of the quadratic through the
// last decrease, times 1.01; min(1, 1/‖g‖∞) at the start and after a restart.)
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include <laddu/fit/minimizer.hpp>

#include "minimizer_support.hpp"

namespace laddu::fit::detail {
namespace {

constexpr double kEpsilon = std::numeric_limits<double>::epsilon();

double beta(ConjugateGradientUpdate update, const std::vector<double>& g,
            const std::vector<double>& next, const std::vector<double>& d) {
    const std::size_t n = g.size();
    std::vector<double> y(n);
    for (std::size_t k = 0; k < n; ++k) {
        y[k] = next[k] - g[k];
    }
    const double gg = dot(g, g);
    const double dy = dot(d, y);
    double b = 0.0;
    switch (update) {
    case ConjugateGradientUpdate::kFletcherReeves:
        b = gg <= kEpsilon ? 0.0 : dot(next, next) / gg;
        break;
    case ConjugateGradientUpdate::kPolakRibierePlus:
        b = gg <= kEpsilon ? 0.0 : std::max(0.0, dot(next, y) / gg);
        break;
    case ConjugateGradientUpdate::kHestenesStiefelPlus:
        b = std::abs(dy) <= kEpsilon ? 0.0 : std::max(0.0, dot(next, y) / dy);
        break;
    case ConjugateGradientUpdate::kDaiYuan:
        b = std::abs(dy) <= kEpsilon ? 0.0 : dot(next, next) / dy;
        break;
    case ConjugateGradientUpdate::kHagerZhang:
        if (std::abs(dy) > kEpsilon) {
            const double yy = dot(y, y);
            for (std::size_t k = 0; k < n; ++k) {
                b += (y[k] - 2.0 * d[k] * yy / dy) * next[k];
            }
            b /= dy;
        }
        break;
    }
    return std::isfinite(b) ? b : 0.0;
}

std::vector<double> negative(const std::vector<double>& g) {
    std::vector<double> d(g.size());
    for (std::size_t k = 0; k < g.size(); ++k) {
        d[k] = -g[k];
    }
    return d;
}

}  // namespace

MinimizerResult conjugate_gradient(const Objective& objective, std::vector<double> x,
                                   const MinimizerOptions& options) {
    MinimizerResult result;
    const Counted f(objective, result);
    const Box box = box_of(objective);
    box.project(x);
    // ganesh's default line search is its strong-Wolfe (Moré-Thuente) search; the Armijo-only
    // backtracking gives no curvature condition, which the β formulas rely on.
    MinimizerOptions search = options;
    if (search.line_search.kind == LineSearchKind::kBacktracking) {
        search.line_search.kind = LineSearchKind::kMoreThuente;
    }
    runtime::Evaluation current = f.with_gradient(x);
    std::vector<double> d = negative(current.gradient);
    double last_decrease = 0.0;  // f_{k−1} − f_k > 0 after a step, 0 at a (re)start
    const double tolerance = options.conjugate_gradient.gradient_norm_tolerance;
    while (true) {
        const double norm_inf =
            projected_gradient_norm(current.gradient, std::vector<bool>(x.size(), false));
        if (std::sqrt(dot(current.gradient, current.gradient)) < tolerance &&
            stop(result, Termination::kGradient)) {
            break;  // ganesh's ConjugateGradientGTerminator
        }
        if (stop_before_step(options, result, norm_inf)) {
            break;
        }
        double slope = dot(d, current.gradient);
        if (!(slope < 0.0)) {
            d = negative(current.gradient);
            slope = dot(d, current.gradient);
        }
        const double guess = -2.02 * last_decrease / slope;
        const double step = last_decrease > 0.0 && std::isfinite(guess) && guess > 0.0
                                ? guess
                                : std::min(1.0, 1.0 / norm_inf);
        // ganesh searches α in (0, 1]; a segment to 10 α₀ keeps the Moré-Thuente extrapolation
        // (α ← α + 0.8 (α_max − α)) from jumping to max_step when α₀ is short.
        search.max_step = std::min(options.max_step, std::max(1.0, 10.0 * step));
        std::optional<Step> next = wolfe_line_search(f, box, x, current, d, step, search);
        if (!next) {
            if (last_decrease == 0.0) {
                stop(result, Termination::kLineSearchFailed);
                break;
            }
            d = negative(current.gradient);  // restart from steepest descent
            last_decrease = 0.0;
            continue;
        }
        ++result.iterations;
        last_decrease = current.value - next->at.value;
        const double b =
            beta(options.conjugate_gradient.update, current.gradient, next->at.gradient, d);
        const double before = current.value;
        x = std::move(next->x);
        current = std::move(next->at);
        for (std::size_t k = 0; k < x.size(); ++k) {
            d[k] = -current.gradient[k] + b * d[k];
        }
        if (stop_after_step(options, result, before, current.value, x)) {
            break;
        }
    }
    result.x = std::move(x);
    result.value = current.value;
    return result;
}

}  // namespace laddu::fit::detail
