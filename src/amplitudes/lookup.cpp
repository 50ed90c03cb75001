#include <cmath>
#include <complex>
#include <cstddef>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include <laddu/amplitudes/lookup.hpp>
#include <laddu/base/error.hpp>

namespace laddu::amplitudes {

using expr::Expr;

namespace {

void check_axis(const LookupAxis& axis, std::size_t index) {
    const std::string where = "lookup_table: axis " + std::to_string(index);
    if (!axis.variable.value_kind().is_real_scalar()) {
        throw ModelError(where + ": the variable must be a Real scalar expression");
    }
    const auto& c = axis.coordinates;
    if (c.size() < 2) {
        throw ModelError(where + " has " + std::to_string(c.size()) +
                         " coordinates; give at least two");
    }
    for (std::size_t k = 0; k < c.size(); ++k) {
        if (!std::isfinite(c[k])) {
            throw ModelError(where + ": coordinate " + std::to_string(k) +
                             " is not finite; use finite edges");
        }
        if (k > 0 && !(c[k - 1] < c[k])) {
            throw ModelError(where + ": coordinates must be strictly increasing (coordinate " +
                             std::to_string(k) + " = " + std::to_string(c[k]) + " follows " +
                             std::to_string(c[k - 1]) + "); sort them");
        }
    }
}

// 1[x >= e] and 1[x <= e] (the second closes the last cell of a linear table).
Expr at_or_above(const Expr& x, double e) {
    return heaviside(x - e);
}

Expr at_or_below(const Expr& x, double e) {
    return heaviside(e - x);
}

std::vector<Expr> nearest_weights(const Expr& x, const std::vector<double>& edges,
                                  LookupBoundary boundary) {
    const std::size_t bins = edges.size() - 1;
    std::vector<Expr> above;  // above[k] = 1[x >= e_k]
    above.reserve(edges.size());
    for (const double e : edges) {
        above.push_back(at_or_above(x, e));
    }
    std::vector<Expr> w;
    w.reserve(bins);
    for (std::size_t k = 0; k < bins; ++k) {
        // Clamping extends the first bin down and the last bin up: drop their outer step.
        const bool open_below = boundary == LookupBoundary::kClamp && k == 0;
        const bool open_above = boundary == LookupBoundary::kClamp && k + 1 == bins;
        const Expr lower = open_below ? Expr{1.0} : above[k];
        w.push_back(open_above ? lower : lower - above[k + 1]);
    }
    return w;
}

std::vector<Expr> linear_weights(const Expr& x, const std::vector<double>& points,
                                 LookupBoundary boundary) {
    const std::size_t n = points.size();
    const std::size_t cells = n - 1;
    std::vector<std::vector<Expr>> terms(n);  // w_j is the sum of terms[j]
    for (std::size_t k = 0; k < cells; ++k) {
        const Expr upper =
            k + 1 == cells ? at_or_below(x, points[k + 1]) : 1.0 - at_or_above(x, points[k + 1]);
        const Expr inside = at_or_above(x, points[k]) * upper;
        const Expr t = (x - points[k]) / (points[k + 1] - points[k]);
        terms[k].push_back(inside * (1.0 - t));
        terms[k + 1].push_back(inside * t);
    }
    if (boundary == LookupBoundary::kClamp) {
        terms[0].push_back(1.0 - at_or_above(x, points[0]));
        terms[n - 1].push_back(1.0 - at_or_below(x, points[n - 1]));
    }
    std::vector<Expr> w;
    w.reserve(n);
    for (std::vector<Expr>& t : terms) {
        w.push_back(expr::nary_add(std::move(t)));
    }
    return w;
}

// Σ_i w^a_i · (the table of the remaining axes at flat offset (offset + i) · N_{a+1}), so the
// per-event weights of each axis are cached once and the values enter one multiply-add each.
Expr contract(const std::vector<std::vector<Expr>>& weights, const std::vector<Expr>& values,
              std::size_t axis, std::size_t offset, bool real) {
    const std::vector<Expr>& w = weights[axis];
    std::vector<Expr> terms;
    for (std::size_t i = 0; i < w.size(); ++i) {
        const std::size_t index = offset + i;
        const Expr inner =
            axis + 1 == weights.size()
                ? values[index]
                : contract(weights, values, axis + 1, index * weights[axis + 1].size(), real);
        // A constant zero value (a hole in a fixed table) contributes nothing.
        if (expr::is_constant(inner) && expr::constant_value(inner) == std::complex<double>{}) {
            continue;
        }
        terms.push_back(w[i] * inner);
    }
    if (terms.empty()) {
        return real ? Expr{0.0} : Expr{std::complex<double>{}};
    }
    return expr::nary_add(std::move(terms));
}

}  // namespace

Expr heaviside(const Expr& x) {
    if (!x.value_kind().is_real_scalar()) {
        throw ModelError("heaviside: x must be a Real scalar expression");
    }
    return 1.0 - expr::arg(x) / std::numbers::pi;
}

Expr lookup_table(const std::vector<LookupAxis>& axes, const std::vector<Expr>& values,
                  const LookupOptions& options) {
    if (axes.empty()) {
        throw ModelError("lookup_table: give at least one axis");
    }
    const bool linear = options.interpolation == LookupInterpolation::kLinear;
    std::size_t expected = 1;
    for (std::size_t a = 0; a < axes.size(); ++a) {
        check_axis(axes[a], a);
        expected *= axes[a].coordinates.size() - (linear ? 0 : 1);
    }
    if (values.size() != expected) {
        throw ModelError("lookup_table: " + std::to_string(values.size()) +
                         " values for a table of " + std::to_string(expected) + " entries; give " +
                         (linear ? "one value per grid point" : "one value per bin") +
                         " in row-major order");
    }
    bool real = true;
    for (const Expr& v : values) {
        if (!v.value_kind().is_scalar()) {
            throw ModelError("lookup_table: every value must be a scalar expression");
        }
        real = real && !v.value_kind().is_complex;
    }
    std::vector<std::vector<Expr>> weights;
    weights.reserve(axes.size());
    for (const LookupAxis& axis : axes) {
        weights.push_back(linear
                              ? linear_weights(axis.variable, axis.coordinates, options.boundary)
                              : nearest_weights(axis.variable, axis.coordinates, options.boundary));
    }
    return contract(weights, values, 0, 0, real);
}

Expr piecewise(const Expr& x, double low, double high, const std::vector<Expr>& values) {
    if (values.empty()) {
        throw ModelError("piecewise: give at least one value (one per bin)");
    }
    if (!std::isfinite(low) || !std::isfinite(high) || !(low < high)) {
        throw ModelError("piecewise: the range [" + std::to_string(low) + ", " +
                         std::to_string(high) + ") must be finite with low < high");
    }
    const std::size_t bins = values.size();
    std::vector<double> edges(bins + 1);
    for (std::size_t k = 0; k <= bins; ++k) {
        // low + k·width except at the end, so the last edge is exactly `high`.
        edges[k] = k == bins
                       ? high
                       : low + (high - low) * static_cast<double>(k) / static_cast<double>(bins);
    }
    return lookup_table({LookupAxis{x, std::move(edges)}}, values);
}

}  // namespace laddu::amplitudes
