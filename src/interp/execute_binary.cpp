#include <cmath>

#include "execute.hpp"

namespace laddu::interp::detail {

namespace {

using ir::OpCode;

// The four arithmetic operators for each operand-kind pattern, written split so each loop is
// a handful of vector instructions. Formulas: docs/ir.md "Arithmetic".
template <typename T>
void arith_rr(OpCode op, const T* __restrict a, const T* __restrict b, T* __restrict out,
              std::size_t n) noexcept {
    switch (op) {
    case OpCode::kAdd:
        for (std::size_t i = 0; i < n; ++i) {
            out[i] = a[i] + b[i];
        }
        break;
    case OpCode::kSub:
        for (std::size_t i = 0; i < n; ++i) {
            out[i] = a[i] - b[i];
        }
        break;
    case OpCode::kMul:
        for (std::size_t i = 0; i < n; ++i) {
            out[i] = a[i] * b[i];
        }
        break;
    case OpCode::kDiv:
        for (std::size_t i = 0; i < n; ++i) {
            out[i] = a[i] / b[i];
        }
        break;
    case OpCode::kPow:
        for (std::size_t i = 0; i < n; ++i) {
            out[i] = std::pow(a[i], b[i]);
        }
        break;
    case OpCode::kAtan2:
        for (std::size_t i = 0; i < n; ++i) {
            out[i] = std::atan2(a[i], b[i]);
        }
        break;
    default:
        break;
    }
}

// Real a, Complex b.
template <typename T>
void arith_rc(OpCode op, const T* __restrict a, const T* __restrict br, const T* __restrict bi,
              T* __restrict re, T* __restrict im, std::size_t n) noexcept {
    switch (op) {
    case OpCode::kAdd:
        for (std::size_t i = 0; i < n; ++i) {
            re[i] = a[i] + br[i];
            im[i] = bi[i];
        }
        break;
    case OpCode::kSub:
        for (std::size_t i = 0; i < n; ++i) {
            re[i] = a[i] - br[i];
            im[i] = -bi[i];
        }
        break;
    case OpCode::kMul:
        for (std::size_t i = 0; i < n; ++i) {
            re[i] = a[i] * br[i];
            im[i] = a[i] * bi[i];
        }
        break;
    case OpCode::kDiv:
        for (std::size_t i = 0; i < n; ++i) {
            const T den = br[i] * br[i] + bi[i] * bi[i];
            re[i] = (a[i] * br[i]) / den;
            im[i] = -(a[i] * bi[i]) / den;
        }
        break;
    default:
        break;
    }
}

// Complex a, Real b.
template <typename T>
void arith_cr(OpCode op, const T* __restrict ar, const T* __restrict ai, const T* __restrict b,
              T* __restrict re, T* __restrict im, std::size_t n) noexcept {
    switch (op) {
    case OpCode::kAdd:
        for (std::size_t i = 0; i < n; ++i) {
            re[i] = ar[i] + b[i];
            im[i] = ai[i];
        }
        break;
    case OpCode::kSub:
        for (std::size_t i = 0; i < n; ++i) {
            re[i] = ar[i] - b[i];
            im[i] = ai[i];
        }
        break;
    case OpCode::kMul:
        for (std::size_t i = 0; i < n; ++i) {
            re[i] = ar[i] * b[i];
            im[i] = ai[i] * b[i];
        }
        break;
    case OpCode::kDiv:
        for (std::size_t i = 0; i < n; ++i) {
            re[i] = ar[i] / b[i];
            im[i] = ai[i] / b[i];
        }
        break;
    default:
        break;
    }
}

template <typename T>
void arith_cc(OpCode op, const T* __restrict ar, const T* __restrict ai, const T* __restrict br,
              const T* __restrict bi, T* __restrict re, T* __restrict im, std::size_t n) noexcept {
    switch (op) {
    case OpCode::kAdd:
        for (std::size_t i = 0; i < n; ++i) {
            re[i] = ar[i] + br[i];
            im[i] = ai[i] + bi[i];
        }
        break;
    case OpCode::kSub:
        for (std::size_t i = 0; i < n; ++i) {
            re[i] = ar[i] - br[i];
            im[i] = ai[i] - bi[i];
        }
        break;
    case OpCode::kMul:
        for (std::size_t i = 0; i < n; ++i) {
            re[i] = ar[i] * br[i] - ai[i] * bi[i];
            im[i] = ar[i] * bi[i] + ai[i] * br[i];
        }
        break;
    case OpCode::kDiv:
        for (std::size_t i = 0; i < n; ++i) {
            const T den = br[i] * br[i] + bi[i] * bi[i];
            re[i] = (ar[i] * br[i] + ai[i] * bi[i]) / den;
            im[i] = (ai[i] * br[i] - ar[i] * bi[i]) / den;
        }
        break;
    default:
        break;
    }
}

// pow with at least one Complex operand: exp(b · log a), b · log a with the kMul formula of
// the operand kinds (a Real exponent scales both parts).
template <typename T>
void complex_pow(Lanes<T> a, Lanes<T> b, OutLanes<T> out, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i) {
        const T a_im = a.is_complex() ? a.im[i] : T(0);
        const std::complex<T> log_a = std::log(std::complex<T>(a.re[i], a_im));
        const Cx<T> l = from_std(log_a);
        const Cx<T> product = b.is_complex() ? cx_mul(Cx<T>{b.re[i], b.im[i]}, l)
                                             : Cx<T>{b.re[i] * l.re, b.re[i] * l.im};
        const std::complex<T> z = std::exp(to_std(product));
        out.re[i] = z.real();
        out.im[i] = z.imag();
    }
}

}  // namespace

template <typename T>
void execute_binary(OpCode op, Lanes<T> a, Lanes<T> b, OutLanes<T> out, std::size_t n) noexcept {
    if (op == OpCode::kComplex) {
        copy_lanes(Lanes<T>{a.re, nullptr}, OutLanes<T>{out.re, nullptr}, n);
        copy_lanes(Lanes<T>{b.re, nullptr}, OutLanes<T>{out.im, nullptr}, n);
        return;
    }
    const bool ac = a.is_complex();
    const bool bc = b.is_complex();
    if (op == OpCode::kPow && (ac || bc)) {
        complex_pow(a, b, out, n);
    } else if (!ac && !bc) {
        arith_rr(op, a.re, b.re, out.re, n);
    } else if (!ac) {
        arith_rc(op, a.re, b.re, b.im, out.re, out.im, n);
    } else if (!bc) {
        arith_cr(op, a.re, a.im, b.re, out.re, out.im, n);
    } else {
        arith_cc(op, a.re, a.im, b.re, b.im, out.re, out.im, n);
    }
}

template void execute_binary<double>(OpCode, Lanes<double>, Lanes<double>, OutLanes<double>,
                                     std::size_t) noexcept;
template void execute_binary<float>(OpCode, Lanes<float>, Lanes<float>, OutLanes<float>,
                                    std::size_t) noexcept;

}  // namespace laddu::interp::detail
