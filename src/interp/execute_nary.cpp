#include "execute.hpp"

namespace laddu::interp::detail {

namespace {

using ir::OpCode;

// kAddN and kMulN are exactly the left folds of kAdd and kMul: the accumulator stays Real
// (no im lanes) until the first Complex operand, which then sets im by the Real∘Complex
// formula. So a fold never adds a spurious 0 or multiplies by a spurious 1.
template <typename T>
void add_n(std::span<const Lanes<T>> in, OutLanes<T> out, std::size_t n) noexcept {
    T* __restrict re = out.re;
    T* __restrict im = out.im;
    copy_lanes(in[0], out, n);
    bool acc_complex = in[0].is_complex();
    for (std::size_t k = 1; k < in.size(); ++k) {
        const T* __restrict br = in[k].re;
        const T* __restrict bi = in[k].im;
        for (std::size_t i = 0; i < n; ++i) {
            re[i] += br[i];
        }
        if (bi == nullptr) {
            continue;
        }
        if (acc_complex) {
            for (std::size_t i = 0; i < n; ++i) {
                im[i] += bi[i];
            }
        } else {
            for (std::size_t i = 0; i < n; ++i) {
                im[i] = bi[i];
            }
            acc_complex = true;
        }
    }
}

template <typename T>
void mul_n(std::span<const Lanes<T>> in, OutLanes<T> out, std::size_t n) noexcept {
    T* __restrict re = out.re;
    T* __restrict im = out.im;
    copy_lanes(in[0], out, n);
    bool acc_complex = in[0].is_complex();
    for (std::size_t k = 1; k < in.size(); ++k) {
        const T* __restrict br = in[k].re;
        const T* __restrict bi = in[k].im;
        if (bi == nullptr) {
            for (std::size_t i = 0; i < n; ++i) {
                re[i] *= br[i];
            }
            if (acc_complex) {
                for (std::size_t i = 0; i < n; ++i) {
                    im[i] *= br[i];
                }
            }
        } else if (acc_complex) {
            for (std::size_t i = 0; i < n; ++i) {
                const T r = re[i] * br[i] - im[i] * bi[i];
                im[i] = re[i] * bi[i] + im[i] * br[i];
                re[i] = r;
            }
        } else {
            for (std::size_t i = 0; i < n; ++i) {
                im[i] = re[i] * bi[i];
                re[i] = re[i] * br[i];
            }
            acc_complex = true;
        }
    }
}

// How a dot term enters the accumulator.
enum class Accumulate : unsigned char { kFirst, kIntoReal, kIntoComplex };

// The term a_k · b_k by the kMul formula of its operand kinds.
template <typename T, bool AC, bool BC>
inline Cx<T> dot_term(const Lanes<T>& a, const Lanes<T>& b, std::size_t i) noexcept {
    if constexpr (!AC && !BC) {
        return {a.re[i] * b.re[i], T(0)};
    } else if constexpr (!AC) {
        return {a.re[i] * b.re[i], a.re[i] * b.im[i]};
    } else if constexpr (!BC) {
        return {a.re[i] * b.re[i], a.im[i] * b.re[i]};
    } else {
        return cx_mul(Cx<T>{a.re[i], a.im[i]}, Cx<T>{b.re[i], b.im[i]});
    }
}

template <typename T, bool AC, bool BC, Accumulate kMode>
void dot_step(Lanes<T> a, Lanes<T> b, OutLanes<T> out, std::size_t n) noexcept {
    constexpr bool kTermComplex = AC || BC;
    T* __restrict re = out.re;
    T* __restrict im = out.im;
    for (std::size_t i = 0; i < n; ++i) {
        const Cx<T> t = dot_term<T, AC, BC>(a, b, i);
        if constexpr (kMode == Accumulate::kFirst) {
            re[i] = t.re;
        } else {
            re[i] += t.re;
        }
        if constexpr (kTermComplex) {
            if constexpr (kMode == Accumulate::kIntoComplex) {
                im[i] += t.im;
            } else {
                im[i] = t.im;
            }
        }
    }
}

template <typename T, Accumulate kMode>
void dot_dispatch(Lanes<T> a, Lanes<T> b, OutLanes<T> out, std::size_t n) noexcept {
    if (a.is_complex()) {
        if (b.is_complex()) {
            dot_step<T, true, true, kMode>(a, b, out, n);
        } else {
            dot_step<T, true, false, kMode>(a, b, out, n);
        }
    } else if (b.is_complex()) {
        dot_step<T, false, true, kMode>(a, b, out, n);
    } else {
        dot_step<T, false, false, kMode>(a, b, out, n);
    }
}

template <typename T>
void dot(std::uint32_t pairs, std::span<const Lanes<T>> in, OutLanes<T> out,
         std::size_t n) noexcept {
    bool acc_complex = false;
    for (std::size_t k = 0; k < pairs; ++k) {
        const Lanes<T>& a = in[k];
        const Lanes<T>& b = in[pairs + k];
        if (k == 0) {
            dot_dispatch<T, Accumulate::kFirst>(a, b, out, n);
        } else if (acc_complex) {
            dot_dispatch<T, Accumulate::kIntoComplex>(a, b, out, n);
        } else {
            dot_dispatch<T, Accumulate::kIntoReal>(a, b, out, n);
        }
        acc_complex = acc_complex || a.is_complex() || b.is_complex();
    }
}

}  // namespace

template <typename T>
void execute_nary(OpCode op, std::uint32_t attr, std::span<const Lanes<T>> in, OutLanes<T> out,
                  std::size_t n) noexcept {
    switch (op) {
    case OpCode::kAddN:
        add_n(in, out, n);
        break;
    case OpCode::kMulN:
        mul_n(in, out, n);
        break;
    case OpCode::kDot:
        dot(attr, in, out, n);
        break;
    default:
        break;
    }
}

template void execute_nary<double>(OpCode, std::uint32_t, std::span<const Lanes<double>>,
                                   OutLanes<double>, std::size_t) noexcept;
template void execute_nary<float>(OpCode, std::uint32_t, std::span<const Lanes<float>>,
                                  OutLanes<float>, std::size_t) noexcept;

}  // namespace laddu::interp::detail
