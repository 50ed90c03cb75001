#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/base/expected.hpp>
#include <laddu/fit/hessian.hpp>

namespace laddu::fit {

std::vector<double> finite_difference_hessian(const Objective& objective,
                                              std::span<const double> x) {
    const std::size_t n = x.size();
    if (n != objective.dimension || !objective.value_and_gradient) {
        throw FitError(fmt::format("finite_difference_hessian needs a point of {} values and a "
                                   "gradient; got {} values",
                                   objective.dimension, n));
    }
    const double step = std::cbrt(std::numeric_limits<double>::epsilon());
    std::vector<double> hessian(n * n);
    std::vector<double> point(x.begin(), x.end());
    for (std::size_t k = 0; k < n; ++k) {
        const double h = step * std::max(1.0, std::abs(x[k]));
        point[k] = x[k] + h;
        const std::vector<double> up = objective.value_and_gradient(point).gradient;
        point[k] = x[k] - h;
        const std::vector<double> down = objective.value_and_gradient(point).gradient;
        point[k] = x[k];
        const double width = (x[k] + h) - (x[k] - h);  // the step actually taken
        for (std::size_t j = 0; j < n; ++j) {
            hessian[k * n + j] = (up[j] - down[j]) / width;
        }
    }
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = i + 1; j < n; ++j) {
            const double mean = 0.5 * (hessian[i * n + j] + hessian[j * n + i]);
            hessian[i * n + j] = mean;
            hessian[j * n + i] = mean;
        }
    }
    return hessian;
}

namespace {

// Swaps rows `a` and `b` of the n-column row-major matrices m and inverse.
void swap_rows(std::vector<double>& m, std::vector<double>& inverse, std::size_t n, std::size_t a,
               std::size_t b) {
    for (std::size_t j = 0; j < n; ++j) {
        std::swap(m[a * n + j], m[b * n + j]);
        std::swap(inverse[a * n + j], inverse[b * n + j]);
    }
}

// The inverse of the n × n row-major `m` by Gauss-Jordan elimination with partial pivoting, or
// why not (a non-finite entry, a pivot below 1e-13 of the largest entry).
Expected<std::vector<double>> invert(std::vector<double> m, std::size_t n) {
    double largest = 0.0;
    for (const double v : m) {
        if (!std::isfinite(v)) {
            return failure(ErrorKind::kFit, "the Hessian has non-finite entries");
        }
        largest = std::max(largest, std::abs(v));
    }
    std::vector<double> inverse(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        inverse[i * n + i] = 1.0;
    }
    for (std::size_t col = 0; col < n; ++col) {
        std::size_t pivot = col;
        for (std::size_t row = col + 1; row < n; ++row) {
            pivot = std::abs(m[row * n + col]) > std::abs(m[pivot * n + col]) ? row : pivot;
        }
        if (!(std::abs(m[pivot * n + col]) > 1e-13 * largest)) {
            return failure(ErrorKind::kFit,
                           fmt::format("the Hessian is singular (no pivot in column {}): a "
                                       "parameter is unconstrained or degenerate with others",
                                       col));
        }
        swap_rows(m, inverse, n, pivot, col);
        const double scale = 1.0 / m[col * n + col];
        for (std::size_t j = 0; j < n; ++j) {
            m[col * n + j] *= scale;
            inverse[col * n + j] *= scale;
        }
        for (std::size_t row = 0; row < n; ++row) {
            const double factor = row == col ? 0.0 : m[row * n + col];
            for (std::size_t j = 0; j < n && factor != 0.0; ++j) {
                m[row * n + j] -= factor * m[col * n + j];
                inverse[row * n + j] -= factor * inverse[col * n + j];
            }
        }
    }
    return inverse;
}

}  // namespace

Covariance covariance_from_hessian(std::span<const double> hessian, std::size_t n) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    Covariance result;
    result.covariance.assign(n * n, nan);
    result.correlation.assign(n * n, nan);
    result.uncertainties.assign(n, nan);
    if (hessian.size() != n * n) {
        result.message =
            fmt::format("the Hessian has {} entries, not {} × {}", hessian.size(), n, n);
        return result;
    }
    Expected<std::vector<double>> inverse =
        invert(std::vector<double>(hessian.begin(), hessian.end()), n);
    if (!inverse) {
        result.message = inverse.error().message + "; uncertainties are NaN";
        return result;
    }
    result.covariance = std::move(inverse).value();
    bool positive = true;
    for (std::size_t i = 0; i < n; ++i) {
        const double variance = result.covariance[i * n + i];
        positive = positive && variance > 0.0;
        result.uncertainties[i] = variance > 0.0 ? std::sqrt(variance) : nan;
    }
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            result.correlation[i * n + j] =
                result.covariance[i * n + j] / (result.uncertainties[i] * result.uncertainties[j]);
        }
    }
    result.valid = positive;
    if (!positive) {
        result.message = "the Hessian is not positive definite (not at a minimum?); "
                         "uncertainties with a non-positive variance are NaN";
    }
    return result;
}

}  // namespace laddu::fit
