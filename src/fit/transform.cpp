#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <utility>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/fit/transform.hpp>

namespace laddu::fit {

double wrap_periodic(double x, double lower, double upper) noexcept {
    const double period = upper - lower;
    double wrapped = lower + std::fmod(x - lower, period);
    if (wrapped < lower) {
        wrapped += period;
    }
    // fmod of a value just below a multiple of the period can round up to the upper end.
    return wrapped >= upper ? lower : wrapped;
}

ParameterTransform::ParameterTransform(std::span<const expr::Bounds> bounds,
                                       const std::vector<bool>& periodic, std::size_t dimension,
                                       TransformScope scope) {
    if ((!bounds.empty() && bounds.size() != dimension) ||
        (!periodic.empty() && periodic.size() != dimension)) {
        throw FitError(fmt::format("a parameter transform needs one bound and one periodic flag "
                                   "per parameter (or none): got {} bounds and {} flags for {} "
                                   "parameters",
                                   bounds.size(), periodic.size(), dimension));
    }
    kinds_.assign(dimension, TransformKind::kIdentity);
    lower_.assign(dimension, -std::numeric_limits<double>::infinity());
    upper_.assign(dimension, std::numeric_limits<double>::infinity());
    native_.assign(dimension, expr::Bounds{-std::numeric_limits<double>::infinity(),
                                           std::numeric_limits<double>::infinity()});
    for (std::size_t k = 0; k < dimension; ++k) {
        const double a = bounds.empty() ? lower_[k] : bounds[k].lower;
        const double b = bounds.empty() ? upper_[k] : bounds[k].upper;
        const bool has_a = std::isfinite(a);
        const bool has_b = std::isfinite(b);
        lower_[k] = a;
        upper_[k] = b;
        if (!periodic.empty() && periodic[k]) {
            if (has_a != has_b) {
                throw FitError(fmt::format("periodic parameter {} has the half-open bounds [{}, "
                                           "{}]; give both ends (its period) or none ([-pi, pi))",
                                           k, a, b));
            }
            kinds_[k] = TransformKind::kPeriodic;
            if (!has_a) {
                lower_[k] = -std::numbers::pi;
                upper_[k] = std::numbers::pi;
            }
            continue;
        }
        if (scope == TransformScope::kPeriodicOnly) {
            native_[k] = expr::Bounds{a, b};
            continue;
        }
        if (has_a && has_b) {
            kinds_[k] = TransformKind::kTwoSided;
        } else if (has_a) {
            kinds_[k] = TransformKind::kLower;
        } else if (has_b) {
            kinds_[k] = TransformKind::kUpper;
        }
    }
}

ParameterTransform ParameterTransform::for_method(const Objective& objective, Method method) {
    return ParameterTransform(objective.bounds, objective.periodic, objective.dimension,
                              method == Method::kLbfgsb ? TransformScope::kPeriodicOnly
                                                        : TransformScope::kAll);
}

bool ParameterTransform::is_identity() const noexcept {
    return std::all_of(kinds_.begin(), kinds_.end(),
                       [](TransformKind k) { return k == TransformKind::kIdentity; });
}

bool ParameterTransform::changes_scale() const noexcept {
    return std::any_of(kinds_.begin(), kinds_.end(), [](TransformKind k) {
        return k == TransformKind::kTwoSided || k == TransformKind::kLower ||
               k == TransformKind::kUpper;
    });
}

std::vector<double> ParameterTransform::to_external(std::span<const double> internal) const {
    std::vector<double> x(internal.size());
    for (std::size_t k = 0; k < x.size(); ++k) {
        const double u = internal[k];
        const double a = lower_[k];
        const double b = upper_[k];
        switch (kinds_[k]) {
        case TransformKind::kIdentity:
            x[k] = u;
            break;
        case TransformKind::kTwoSided:
            // Clamped: rounding must never put x outside [a, b].
            x[k] = std::clamp(a + 0.5 * (b - a) * (std::sin(u) + 1.0), a, b);
            break;
        case TransformKind::kLower:
            x[k] = std::max(a, a - 1.0 + std::sqrt(u * u + 1.0));
            break;
        case TransformKind::kUpper:
            x[k] = std::min(b, b + 1.0 - std::sqrt(u * u + 1.0));
            break;
        case TransformKind::kPeriodic:
            x[k] = wrap_periodic(u, a, b);
            break;
        }
    }
    return x;
}

std::vector<double> ParameterTransform::to_internal(std::span<const double> external) const {
    std::vector<double> u(external.size());
    for (std::size_t k = 0; k < u.size(); ++k) {
        const double a = lower_[k];
        const double b = upper_[k];
        const double x = kinds_[k] == TransformKind::kPeriodic ? wrap_periodic(external[k], a, b)
                                                               : std::clamp(external[k], a, b);
        switch (kinds_[k]) {
        case TransformKind::kIdentity:
        case TransformKind::kPeriodic:
            u[k] = x;
            break;
        case TransformKind::kTwoSided:
            u[k] = std::asin(std::clamp(2.0 * (x - a) / (b - a) - 1.0, -1.0, 1.0));
            break;
        case TransformKind::kLower: {
            const double t = x - a + 1.0;
            u[k] = std::sqrt(std::max(0.0, t * t - 1.0));
            break;
        }
        case TransformKind::kUpper: {
            const double t = b - x + 1.0;
            u[k] = std::sqrt(std::max(0.0, t * t - 1.0));
            break;
        }
        }
    }
    return u;
}

std::vector<double> ParameterTransform::jacobian(std::span<const double> internal) const {
    std::vector<double> j(internal.size(), 1.0);
    for (std::size_t k = 0; k < j.size(); ++k) {
        const double u = internal[k];
        switch (kinds_[k]) {
        case TransformKind::kIdentity:
        case TransformKind::kPeriodic:
            break;
        case TransformKind::kTwoSided:
            j[k] = 0.5 * (upper_[k] - lower_[k]) * std::cos(u);
            break;
        case TransformKind::kLower:
            j[k] = u / std::sqrt(u * u + 1.0);
            break;
        case TransformKind::kUpper:
            j[k] = -u / std::sqrt(u * u + 1.0);
            break;
        }
    }
    return j;
}

std::vector<double>
ParameterTransform::covariance_to_external(std::span<const double> covariance,
                                           std::span<const double> internal) const {
    const std::size_t n = internal.size();
    const std::vector<double> j = jacobian(internal);
    std::vector<double> out(covariance.begin(), covariance.end());
    for (std::size_t r = 0; r < n && out.size() == n * n; ++r) {
        for (std::size_t c = 0; c < n; ++c) {
            out[r * n + c] *= j[r] * j[c];
        }
    }
    return out;
}

Objective ParameterTransform::internal_objective(const Objective& external) const {
    Objective inner;
    inner.dimension = external.dimension;
    const ParameterTransform* self = this;
    inner.value_and_gradient = [self, &external](std::span<const double> u) {
        runtime::Evaluation e = external.value_and_gradient(self->to_external(u));
        const std::vector<double> j = self->jacobian(u);
        for (std::size_t k = 0; k < e.gradient.size() && k < j.size(); ++k) {
            e.gradient[k] *= j[k];
        }
        return e;
    };
    if (external.value) {
        inner.value = [self, &external](std::span<const double> u) {
            return external.value(self->to_external(u));
        };
    }
    if (std::any_of(native_.begin(), native_.end(), [](const expr::Bounds& b) {
            return std::isfinite(b.lower) || std::isfinite(b.upper);
        })) {
        inner.bounds = native_;
    }
    return inner;
}

}  // namespace laddu::fit
