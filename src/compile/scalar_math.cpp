#include "scalar_math.hpp"

#include <cmath>

namespace laddu::compile::detail {
namespace {

using expr::BinaryOp;
using expr::UnaryOp;

// Integer power by repeated squaring, as docs/ir.md specifies for kPowI.
template <typename T>
T powi(T base, std::int32_t exponent) {
    auto n =
        static_cast<std::uint32_t>(exponent < 0 ? -static_cast<std::int64_t>(exponent) : exponent);
    T result = T(1.0);
    while (n != 0) {
        if ((n & 1U) != 0) {
            result *= base;
        }
        n >>= 1U;
        if (n != 0) {
            base *= base;
        }
    }
    return exponent < 0 ? T(1.0) / result : result;
}

double real_unary(UnaryOp op, double x, std::int32_t exponent) {
    switch (op) {
    case UnaryOp::kNeg:
        return -x;
    case UnaryOp::kReal:
    case UnaryOp::kConj:
        return x;
    case UnaryOp::kImag:
        return 0.0;
    case UnaryOp::kNormSqr:
        return x * x;
    case UnaryOp::kSqrt:
        return std::sqrt(x);
    case UnaryOp::kExp:
        return std::exp(x);
    case UnaryOp::kLog:
        return std::log(x);
    case UnaryOp::kSin:
        return std::sin(x);
    case UnaryOp::kCos:
        return std::cos(x);
    case UnaryOp::kTan:
        return std::tan(x);
    case UnaryOp::kAsin:
        return std::asin(x);
    case UnaryOp::kAcos:
        return std::acos(x);
    case UnaryOp::kAtan:
        return std::atan(x);
    case UnaryOp::kSinh:
        return std::sinh(x);
    case UnaryOp::kCosh:
        return std::cosh(x);
    case UnaryOp::kTanh:
        return std::tanh(x);
    case UnaryOp::kAbs:
        return std::fabs(x);
    case UnaryOp::kArg:
        return std::atan2(0.0, x);
    case UnaryOp::kPowI:
        break;
    }
    return powi(x, exponent);
}

}  // namespace

Complex apply_unary(UnaryOp op, Complex x, bool is_real, std::int32_t exponent) {
    if (is_real) {
        return {real_unary(op, x.real(), exponent), 0.0};
    }
    switch (op) {
    case UnaryOp::kNeg:
        return -x;
    case UnaryOp::kReal:
        return x.real();
    case UnaryOp::kImag:
        return x.imag();
    case UnaryOp::kConj:
        return std::conj(x);
    case UnaryOp::kNormSqr:
        return x.real() * x.real() + x.imag() * x.imag();
    case UnaryOp::kSqrt:
        return std::sqrt(x);
    case UnaryOp::kExp:
        return std::exp(x);
    case UnaryOp::kLog:
        return std::log(x);
    case UnaryOp::kSin:
        return std::sin(x);
    case UnaryOp::kCos:
        return std::cos(x);
    case UnaryOp::kTan:
        return std::tan(x);
    case UnaryOp::kAsin:
        return std::asin(x);
    case UnaryOp::kAcos:
        return std::acos(x);
    case UnaryOp::kAtan:
        return std::atan(x);
    case UnaryOp::kSinh:
        return std::sinh(x);
    case UnaryOp::kCosh:
        return std::cosh(x);
    case UnaryOp::kTanh:
        return std::tanh(x);
    case UnaryOp::kAbs:
        return std::abs(x);
    case UnaryOp::kArg:
        return std::arg(x);
    case UnaryOp::kPowI:
        break;
    }
    return powi(x, exponent);
}

Complex apply_binary(BinaryOp op, Complex a, bool a_real, Complex b, bool b_real) {
    if (a_real && b_real) {
        const double x = a.real();
        const double y = b.real();
        switch (op) {
        case BinaryOp::kAdd:
            return x + y;
        case BinaryOp::kSub:
            return x - y;
        case BinaryOp::kMul:
            return x * y;
        case BinaryOp::kDiv:
            return x / y;
        case BinaryOp::kPow:
            return std::pow(x, y);
        case BinaryOp::kAtan2:
            break;
        }
        return std::atan2(x, y);
    }
    switch (op) {
    case BinaryOp::kAdd:
        return a + b;
    case BinaryOp::kSub:
        return a - b;
    case BinaryOp::kMul:
        // Real x Complex scales both parts (docs/ir.md), which std::complex's mixed form does.
        return a_real ? a.real() * b : b_real ? a * b.real() : a * b;
    case BinaryOp::kDiv:
        return b_real ? a / b.real() : a / b;
    case BinaryOp::kPow:
        return std::exp(b * std::log(a));
    case BinaryOp::kAtan2:
        break;
    }
    return std::atan2(a.real(), b.real());
}

std::optional<std::vector<Complex>> solve_dense(std::size_t n, std::span<const Complex> a,
                                                std::span<const Complex> b) {
    std::vector<Complex> lu(a.begin(), a.end());
    std::vector<Complex> x(b.begin(), b.end());
    auto weight = [](Complex z) {
        return std::fabs(z.real()) + std::fabs(z.imag());
    };
    for (std::size_t k = 0; k < n; ++k) {
        std::size_t pivot = k;
        for (std::size_t r = k + 1; r < n; ++r) {
            if (weight(lu[r * n + k]) > weight(lu[pivot * n + k])) {
                pivot = r;
            }
        }
        if (lu[pivot * n + k] == Complex(0.0, 0.0)) {
            return std::nullopt;
        }
        if (pivot != k) {
            for (std::size_t c = 0; c < n; ++c) {
                std::swap(lu[k * n + c], lu[pivot * n + c]);
            }
            std::swap(x[k], x[pivot]);
        }
        for (std::size_t r = k + 1; r < n; ++r) {
            const Complex factor = lu[r * n + k] / lu[k * n + k];
            for (std::size_t c = k; c < n; ++c) {
                lu[r * n + c] -= factor * lu[k * n + c];
            }
            x[r] -= factor * x[k];
        }
    }
    for (std::size_t k = n; k-- > 0;) {
        Complex sum = x[k];
        for (std::size_t c = k + 1; c < n; ++c) {
            sum -= lu[k * n + c] * x[c];
        }
        x[k] = sum / lu[k * n + k];
    }
    return x;
}

std::optional<std::vector<Complex>> invert_dense(std::size_t n, std::span<const Complex> a) {
    std::vector<Complex> inverse(n * n);
    for (std::size_t j = 0; j < n; ++j) {
        std::vector<Complex> unit(n, Complex(0.0, 0.0));
        unit[j] = 1.0;
        auto column = solve_dense(n, a, unit);
        if (!column) {
            return std::nullopt;
        }
        for (std::size_t i = 0; i < n; ++i) {
            inverse[i * n + j] = (*column)[i];
        }
    }
    return inverse;
}

}  // namespace laddu::compile::detail
