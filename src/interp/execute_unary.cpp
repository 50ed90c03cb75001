#include <cmath>

#include "execute.hpp"

namespace laddu::interp::detail {

namespace {

using ir::OpCode;

// out.re[i] = f(a.re[i]); `f` is inlined, so simple bodies vectorise.
template <typename T, typename F>
void map_real(const T* __restrict a, T* __restrict out, std::size_t n, F f) noexcept {
    for (std::size_t i = 0; i < n; ++i) {
        out[i] = f(a[i]);
    }
}

// (out.re, out.im)[i] = f(std::complex(a.re[i], a.im[i])): one library call per lane.
template <typename T, typename F>
void map_complex(Lanes<T> a, OutLanes<T> out, std::size_t n, F f) noexcept {
    for (std::size_t i = 0; i < n; ++i) {
        const std::complex<T> z = f(std::complex<T>(a.re[i], a.im[i]));
        out.re[i] = z.real();
        out.im[i] = z.imag();
    }
}

template <typename T>
void real_function(OpCode op, const T* a, T* out, std::size_t n) noexcept {
    switch (op) {
    case OpCode::kNeg:
        map_real(a, out, n, [](T x) { return -x; });
        break;
    case OpCode::kConj:
    case OpCode::kReal:
        map_real(a, out, n, [](T x) { return x; });
        break;
    case OpCode::kImag:
        map_real(a, out, n, [](T /*x*/) { return T(0); });
        break;
    case OpCode::kAbs:
        map_real(a, out, n, [](T x) { return std::fabs(x); });
        break;
    case OpCode::kArg:
        map_real(a, out, n, [](T x) { return std::atan2(T(0), x); });
        break;
    case OpCode::kNormSqr:
        map_real(a, out, n, [](T x) { return x * x; });
        break;
    case OpCode::kSqrt:
        map_real(a, out, n, [](T x) { return std::sqrt(x); });
        break;
    case OpCode::kExp:
        map_real(a, out, n, [](T x) { return std::exp(x); });
        break;
    case OpCode::kLog:
        map_real(a, out, n, [](T x) { return std::log(x); });
        break;
    case OpCode::kSin:
        map_real(a, out, n, [](T x) { return std::sin(x); });
        break;
    case OpCode::kCos:
        map_real(a, out, n, [](T x) { return std::cos(x); });
        break;
    case OpCode::kTan:
        map_real(a, out, n, [](T x) { return std::tan(x); });
        break;
    case OpCode::kAsin:
        map_real(a, out, n, [](T x) { return std::asin(x); });
        break;
    case OpCode::kAcos:
        map_real(a, out, n, [](T x) { return std::acos(x); });
        break;
    case OpCode::kAtan:
        map_real(a, out, n, [](T x) { return std::atan(x); });
        break;
    case OpCode::kSinh:
        map_real(a, out, n, [](T x) { return std::sinh(x); });
        break;
    case OpCode::kCosh:
        map_real(a, out, n, [](T x) { return std::cosh(x); });
        break;
    case OpCode::kTanh:
        map_real(a, out, n, [](T x) { return std::tanh(x); });
        break;
    default:
        break;
    }
}

template <typename T>
void complex_to_real(OpCode op, Lanes<T> a, T* __restrict out, std::size_t n) noexcept {
    const T* __restrict re = a.re;
    const T* __restrict im = a.im;
    switch (op) {
    case OpCode::kReal:
        for (std::size_t i = 0; i < n; ++i) {
            out[i] = re[i];
        }
        break;
    case OpCode::kImag:
        for (std::size_t i = 0; i < n; ++i) {
            out[i] = im[i];
        }
        break;
    case OpCode::kAbs:
        for (std::size_t i = 0; i < n; ++i) {
            out[i] = std::hypot(re[i], im[i]);
        }
        break;
    case OpCode::kArg:
        for (std::size_t i = 0; i < n; ++i) {
            out[i] = std::atan2(im[i], re[i]);
        }
        break;
    case OpCode::kNormSqr:
        for (std::size_t i = 0; i < n; ++i) {
            out[i] = re[i] * re[i] + im[i] * im[i];
        }
        break;
    default:
        break;
    }
}

template <typename T>
void complex_function(OpCode op, Lanes<T> a, OutLanes<T> out, std::size_t n) noexcept {
    using C = std::complex<T>;
    switch (op) {
    case OpCode::kNeg:
        map_real(a.re, out.re, n, [](T x) { return -x; });
        map_real(a.im, out.im, n, [](T x) { return -x; });
        break;
    case OpCode::kConj:
        map_real(a.re, out.re, n, [](T x) { return x; });
        map_real(a.im, out.im, n, [](T x) { return -x; });
        break;
    case OpCode::kSqrt:
        map_complex(a, out, n, [](C z) { return std::sqrt(z); });
        break;
    case OpCode::kExp:
        map_complex(a, out, n, [](C z) { return std::exp(z); });
        break;
    case OpCode::kLog:
        map_complex(a, out, n, [](C z) { return std::log(z); });
        break;
    case OpCode::kSin:
        map_complex(a, out, n, [](C z) { return std::sin(z); });
        break;
    case OpCode::kCos:
        map_complex(a, out, n, [](C z) { return std::cos(z); });
        break;
    case OpCode::kTan:
        map_complex(a, out, n, [](C z) { return std::tan(z); });
        break;
    case OpCode::kAsin:
        map_complex(a, out, n, [](C z) { return std::asin(z); });
        break;
    case OpCode::kAcos:
        map_complex(a, out, n, [](C z) { return std::acos(z); });
        break;
    case OpCode::kAtan:
        map_complex(a, out, n, [](C z) { return std::atan(z); });
        break;
    case OpCode::kSinh:
        map_complex(a, out, n, [](C z) { return std::sinh(z); });
        break;
    case OpCode::kCosh:
        map_complex(a, out, n, [](C z) { return std::cosh(z); });
        break;
    case OpCode::kTanh:
        map_complex(a, out, n, [](C z) { return std::tanh(z); });
        break;
    default:
        complex_to_real(op, a, out.re, n);
        break;
    }
}

template <typename T>
void powi(std::int32_t exponent, Lanes<T> a, OutLanes<T> out, std::size_t n) noexcept {
    const std::uint32_t m = powi_magnitude(exponent);
    if (!a.is_complex()) {
        for (std::size_t i = 0; i < n; ++i) {
            const T r = powi_magnitude_value(a.re[i], m, T(1), [](T x, T y) { return x * y; });
            out.re[i] = exponent < 0 ? T(1) / r : r;
        }
        return;
    }
    for (std::size_t i = 0; i < n; ++i) {
        const Cx<T> r = powi_magnitude_value(Cx<T>{a.re[i], a.im[i]}, m, Cx<T>{T(1), T(0)},
                                             [](Cx<T> x, Cx<T> y) { return cx_mul(x, y); });
        const Cx<T> v = exponent < 0 ? cx_recip(r) : r;
        out.re[i] = v.re;
        out.im[i] = v.im;
    }
}

}  // namespace

template <typename T>
void execute_unary(OpCode op, std::uint32_t attr, Lanes<T> a, OutLanes<T> out,
                   std::size_t n) noexcept {
    if (op == OpCode::kPowI) {
        powi(static_cast<std::int32_t>(attr), a, out, n);
    } else if (a.is_complex()) {
        complex_function(op, a, out, n);
    } else {
        real_function(op, a.re, out.re, n);
    }
}

template <typename T>
void copy_lanes(Lanes<T> a, OutLanes<T> out, std::size_t n) noexcept {
    map_real(a.re, out.re, n, [](T x) { return x; });
    if (a.im != nullptr && out.im != nullptr) {
        map_real(a.im, out.im, n, [](T x) { return x; });
    }
}

template void execute_unary<double>(OpCode, std::uint32_t, Lanes<double>, OutLanes<double>,
                                    std::size_t) noexcept;
template void execute_unary<float>(OpCode, std::uint32_t, Lanes<float>, OutLanes<float>,
                                   std::size_t) noexcept;
template void copy_lanes<double>(Lanes<double>, OutLanes<double>, std::size_t) noexcept;
template void copy_lanes<float>(Lanes<float>, OutLanes<float>, std::size_t) noexcept;

}  // namespace laddu::interp::detail
