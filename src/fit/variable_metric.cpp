// The dense variable-metric minimiser (Method::kVariableMetric, MIGRAD-style BFGS).
#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "minimizer_support.hpp"

namespace laddu::fit::detail {
namespace {

// y = H x for the n × n row-major H.
std::vector<double> multiply(const std::vector<double>& h, const std::vector<double>& x) {
    const std::size_t n = x.size();
    std::vector<double> y(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            y[i] += h[i * n + j] * x[j];
        }
    }
    return y;
}

std::vector<double> identity(std::size_t n, double scale) {
    std::vector<double> h(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        h[i * n + i] = scale;
    }
    return h;
}

// H ← (I − ρ s yᵀ) H (I − ρ y sᵀ) + ρ s sᵀ, expanded as
// H − ρ (s (Hy)ᵀ + (Hy) sᵀ) + (ρ² yᵀHy + ρ) s sᵀ.
void bfgs_update(std::vector<double>& h, const std::vector<double>& s, const std::vector<double>& y,
                 double rho) {
    const std::size_t n = s.size();
    const std::vector<double> hy = multiply(h, y);
    const double yhy = dot(y, hy);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            h[i * n + j] +=
                -rho * (s[i] * hy[j] + hy[i] * s[j]) + (rho * rho * yhy + rho) * s[i] * s[j];
        }
    }
}

// `v` with the active components set to 0.
std::vector<double> free_part(std::vector<double> v, const std::vector<bool>& active) {
    for (std::size_t k = 0; k < v.size(); ++k) {
        v[k] = active[k] ? 0.0 : v[k];
    }
    return v;
}

// The BFGS update for the step x -> next, skipped when s·y <= 0; the first update of a fresh
// H starts from (sᵀy / yᵀy) I (Nocedal-Wright's scaling).
void update(std::vector<double>& h, bool& fresh, const std::vector<double>& x,
            const std::vector<double>& gradient, const Step& next) {
    const std::size_t n = x.size();
    std::vector<double> s(n);
    std::vector<double> y(n);
    for (std::size_t k = 0; k < n; ++k) {
        s[k] = next.x[k] - x[k];
        y[k] = next.at.gradient[k] - gradient[k];
    }
    const double sy = dot(s, y);
    if (!(sy > 1e-12 * dot(y, y) && sy > 0.0)) {
        return;
    }
    if (fresh) {
        h = identity(n, sy / dot(y, y));
        fresh = false;
    }
    bfgs_update(h, s, y, 1.0 / sy);
}

}  // namespace

MinimizerResult variable_metric(const Objective& objective, std::vector<double> x,
                                const MinimizerOptions& options) {
    MinimizerResult result;
    const Counted f(objective, result);
    const Box box = box_of(objective);
    const std::size_t n = x.size();
    box.project(x);
    runtime::Evaluation current = f.with_gradient(x);
    std::vector<double> h = identity(n, 1.0);
    bool fresh = true;  // h is the (unscaled) identity
    while (true) {
        const std::vector<bool> active = active_set(x, current.gradient, box);
        const std::vector<double> g = free_part(current.gradient, active);
        const double projected_norm = projected_gradient_norm(g, active);
        std::vector<double> d = free_part(multiply(h, g), active);
        for (double& v : d) {
            v = -v;
        }
        const double edm = -0.5 * dot(g, d);
        if (!fresh && edm >= 0.0 && edm <= options.edm_tolerance &&
            stop(result, Termination::kDistanceToMinimum)) {
            break;
        }
        if (stop_before_step(options, result, projected_norm)) {
            break;
        }
        if (!(dot(d, g) < 0.0)) {  // H lost positive definiteness on the free set: reset it
            h = identity(n, 1.0);
            fresh = true;
            d = g;
            for (double& v : d) {
                v = -v;
            }
        }
        const double step = fresh ? std::min(1.0, 1.0 / projected_norm) : 1.0;
        std::optional<Step> next = projected_line_search(f, box, x, current, d, step);
        if (!next) {
            if (fresh) {
                stop(result, Termination::kLineSearchFailed);
                break;
            }
            h = identity(n, 1.0);  // retry from steepest descent
            fresh = true;
            continue;
        }
        ++result.iterations;
        update(h, fresh, x, current.gradient, *next);
        const double before = current.value;
        x = std::move(next->x);
        current = std::move(next->at);
        if (stop_after_step(options, result, before, current.value, x)) {
            break;
        }
    }
    result.x = std::move(x);
    result.value = current.value;
    result.inverse_hessian = std::move(h);
    return result;
}

}  // namespace laddu::fit::detail
