// Trust region (Method::kTrustRegion): Nocedal & Wright 2006, Algorithm 4.1, on the quadratic
// model m(p) = f + g·p + ½ pᵀ B p with B the Hessian from central differences of the exact
// gradient (as ganesh's default Gradient::hessian; 2n gradient evaluations per accepted point).
// The step is the Cauchy point (N&W eq. (4.11)) or Powell's dogleg (N&W §4.1, with ganesh's
// fallbacks: the Cauchy point when B is singular, the scaled steepest-descent minimiser when
// gᵀBg <= ε). ρ = actual / predicted reduction: ρ < ¼ shrinks the radius to ¼ ‖p‖, ρ > ¾ on
// the boundary doubles it up to max_radius, ρ > η accepts the step (ganesh 0.28's rules).
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

struct Model {
    std::size_t n = 0;
    double value = 0.0;
    std::vector<double> g;
    std::vector<double> h;  // row-major n × n

    [[nodiscard]] std::vector<double> times(const std::vector<double>& v) const {
        std::vector<double> out(n, 0.0);
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = 0; j < n; ++j) {
                out[i] += h[i * n + j] * v[j];
            }
        }
        return out;
    }

    // −(g·p + ½ pᵀBp), the reduction the model predicts.
    [[nodiscard]] double predicted(const std::vector<double>& p) const {
        return -(dot(g, p) + 0.5 * dot(p, times(p)));
    }
};

double norm(const std::vector<double>& v) {
    return std::sqrt(dot(v, v));
}

std::vector<double> scaled(const std::vector<double>& v, double s) {
    std::vector<double> out(v.size());
    for (std::size_t k = 0; k < v.size(); ++k) {
        out[k] = s * v[k];
    }
    return out;
}

// Solves B x = b by Gaussian elimination with partial pivoting; nullopt when B is singular.
std::optional<std::vector<double>> solve(std::vector<double> a, std::vector<double> b,
                                         std::size_t n) {
    for (std::size_t col = 0; col < n; ++col) {
        std::size_t pivot = col;
        for (std::size_t row = col + 1; row < n; ++row) {
            pivot = std::abs(a[row * n + col]) > std::abs(a[pivot * n + col]) ? row : pivot;
        }
        if (!(std::abs(a[pivot * n + col]) > 0.0)) {
            return std::nullopt;
        }
        for (std::size_t k = 0; k < n; ++k) {
            std::swap(a[col * n + k], a[pivot * n + k]);
        }
        std::swap(b[col], b[pivot]);
        for (std::size_t row = col + 1; row < n; ++row) {
            const double factor = a[row * n + col] / a[col * n + col];
            for (std::size_t k = col; k < n; ++k) {
                a[row * n + k] -= factor * a[col * n + k];
            }
            b[row] -= factor * b[col];
        }
    }
    std::vector<double> x(n);
    for (std::size_t row = n; row-- > 0;) {
        double sum = b[row];
        for (std::size_t k = row + 1; k < n; ++k) {
            sum -= a[row * n + k] * x[k];
        }
        x[row] = sum / a[row * n + row];
    }
    for (const double v : x) {
        if (!std::isfinite(v)) {
            return std::nullopt;
        }
    }
    return x;
}

std::vector<double> cauchy_point(const Model& m, double radius) {
    const double g_norm = norm(m.g);
    if (g_norm <= kEpsilon) {
        return std::vector<double>(m.n, 0.0);
    }
    const double gbg = dot(m.g, m.times(m.g));
    const double tau = gbg <= 0.0 ? 1.0 : std::min(1.0, g_norm * g_norm * g_norm / (radius * gbg));
    return scaled(m.g, -tau * radius / g_norm);
}

std::vector<double> dogleg(const Model& m, double radius) {
    const double gbg = dot(m.g, m.times(m.g));
    const std::vector<double> pu =
        gbg <= kEpsilon ? cauchy_point(m, radius) : scaled(m.g, -dot(m.g, m.g) / gbg);
    const double pu_norm = norm(pu);
    if (pu_norm >= radius) {
        return scaled(pu, radius / pu_norm);
    }
    const std::optional<std::vector<double>> pb = solve(m.h, scaled(m.g, -1.0), m.n);
    if (!pb) {
        return cauchy_point(m, radius);
    }
    if (norm(*pb) <= radius) {
        return *pb;
    }
    // The point where pu + τ (pb − pu) crosses the boundary.
    std::vector<double> diff(m.n);
    for (std::size_t k = 0; k < m.n; ++k) {
        diff[k] = (*pb)[k] - pu[k];
    }
    const double a = dot(diff, diff);
    const double b = 2.0 * dot(pu, diff);
    const double c = dot(pu, pu) - radius * radius;
    const double tau = (-b + std::sqrt(std::max(0.0, b * b - 4.0 * a * c))) / (2.0 * a);
    std::vector<double> p = pu;
    for (std::size_t k = 0; k < m.n; ++k) {
        p[k] += tau * diff[k];
    }
    return p;
}

// The model at x: value and gradient from `at`, the Hessian from central differences of the
// gradient with h_k = ∛ε · max(1, |x_k|) (hessian.hpp's rule), symmetrised.
Model model_at(const Counted& f, const std::vector<double>& x, runtime::Evaluation at) {
    const std::size_t n = x.size();
    Model m{n, at.value, std::move(at.gradient), std::vector<double>(n * n, 0.0)};
    std::vector<double> shifted = x;
    for (std::size_t k = 0; k < n; ++k) {
        const double h = std::cbrt(kEpsilon) * std::max(1.0, std::abs(x[k]));
        shifted[k] = x[k] + h;
        const runtime::Evaluation up = f.try_with_gradient(shifted);
        shifted[k] = x[k] - h;
        const runtime::Evaluation down = f.try_with_gradient(shifted);
        shifted[k] = x[k];
        if (up.gradient.size() != n || down.gradient.size() != n) {
            m.h[k * n + k] = 1.0;  // a failed evaluation: no curvature information there
            continue;
        }
        for (std::size_t j = 0; j < n; ++j) {
            m.h[k * n + j] = (up.gradient[j] - down.gradient[j]) / (2.0 * h);
        }
    }
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = i + 1; j < n; ++j) {
            const double mean = 0.5 * (m.h[i * n + j] + m.h[j * n + i]);
            m.h[i * n + j] = mean;
            m.h[j * n + i] = mean;
        }
    }
    return m;
}

}  // namespace

MinimizerResult trust_region(const Objective& objective, std::vector<double> x,
                             const MinimizerOptions& options) {
    const TrustRegionOptions& o = options.trust_region;
    MinimizerResult result;
    const Counted f(objective, result);
    const Box box = box_of(objective);
    box.project(x);
    Model m = model_at(f, x, f.with_gradient(x));
    double radius = o.initial_radius;
    const double max_radius = std::max(o.max_radius, o.initial_radius);
    while (true) {
        if (norm(m.g) < o.gradient_norm_tolerance && stop(result, Termination::kGradient)) {
            break;  // ganesh's TrustRegionGTerminator
        }
        if (stop_before_step(options, result,
                             projected_gradient_norm(m.g, std::vector<bool>(x.size(), false)))) {
            break;
        }
        if (radius <= 1e-15 * std::max(1.0, norm(x))) {
            // The radius shrank to rounding without an accepted step: the model is no use.
            stop(result, Termination::kLineSearchFailed);
            break;
        }
        ++result.iterations;
        const std::vector<double> p = o.subproblem == TrustRegionSubproblem::kDogleg
                                          ? dogleg(m, radius)
                                          : cauchy_point(m, radius);
        const double predicted = m.predicted(p);
        if (predicted <= kEpsilon) {
            radius *= 0.25;
            continue;
        }
        std::vector<double> trial = x;
        for (std::size_t k = 0; k < x.size(); ++k) {
            trial[k] += p[k];
        }
        const runtime::Evaluation at = f.try_with_gradient(trial);
        const double rho = (m.value - at.value) / predicted;
        const double p_norm = norm(p);
        const bool on_boundary = std::abs(p_norm - radius) <= 1e-12 * (1.0 + radius);
        // A rejected step also shrinks the radius: with η >= ¼ ganesh keeps the radius for
        // ¼ <= ρ <= η and proposes the same step forever (Nocedal & Wright ask η < ¼).
        const bool accept = rho > o.eta && std::isfinite(at.value);
        if (rho < 0.25 || !accept) {
            radius = 0.25 * p_norm;
        } else if (rho > 0.75 && on_boundary) {
            radius = std::min(2.0 * radius, max_radius);
        }
        if (accept) {
            const double before = m.value;
            x = std::move(trial);
            m = model_at(f, x, at);
            if (stop_after_step(options, result, before, m.value, x)) {
                break;
            }
        }
    }
    result.x = std::move(x);
    result.value = m.value;
    return result;
}

}  // namespace laddu::fit::detail
