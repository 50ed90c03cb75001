#include <cmath>
#include <type_traits>

#include <laddu/base/target_clones.hpp>

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

// How a dot term enters the accumulator: the first term is the kMul product; later ones are
// fused into the parts that exist (kIntoReal: re only, im starts with this term).
enum class Accumulate : unsigned char { kFirst, kIntoReal, kIntoComplex };

// docs/ir.md's kDot: term 0 by the kMul formula of its kinds; each later real product p·q enters
// its part as fma(±p, q, part), re's ar·br before −ai·bi and im's ar·bi before ai·br; a part
// the accumulator does not have yet starts from the plain product of its first factor pair.
// std::fma is correctly rounded, so every clone below (and the JIT's llvm.fma, OpenCL's fma)
// gives the same bits; only the default clone pays for a library call.
template <typename T, bool AC, bool BC, Accumulate kMode>
[[gnu::always_inline]] inline void dot_step(Lanes<T> a, Lanes<T> b, OutLanes<T> out,
                                            std::size_t n) noexcept {
    T* __restrict re = out.re;
    T* __restrict im = out.im;
    const T* __restrict ar = a.re;
    const T* __restrict ai = a.im;
    const T* __restrict br = b.re;
    const T* __restrict bi = b.im;
    for (std::size_t i = 0; i < n; ++i) {
        if constexpr (kMode == Accumulate::kFirst) {
            if constexpr (AC && BC) {
                const Cx<T> t = cx_mul(Cx<T>{ar[i], ai[i]}, Cx<T>{br[i], bi[i]});
                re[i] = t.re;
                im[i] = t.im;
            } else if constexpr (AC) {
                re[i] = ar[i] * br[i];
                im[i] = ai[i] * br[i];
            } else if constexpr (BC) {
                re[i] = ar[i] * br[i];
                im[i] = ar[i] * bi[i];
            } else {
                re[i] = ar[i] * br[i];
            }
        } else {
            re[i] = std::fma(ar[i], br[i], re[i]);
            if constexpr (AC && BC) {
                re[i] = std::fma(-ai[i], bi[i], re[i]);
                const T first = kMode == Accumulate::kIntoComplex ? std::fma(ar[i], bi[i], im[i])
                                                                  : ar[i] * bi[i];
                im[i] = std::fma(ai[i], br[i], first);
            } else if constexpr (AC) {
                im[i] = kMode == Accumulate::kIntoComplex ? std::fma(ai[i], br[i], im[i])
                                                          : ai[i] * br[i];
            } else if constexpr (BC) {
                im[i] = kMode == Accumulate::kIntoComplex ? std::fma(ar[i], bi[i], im[i])
                                                          : ar[i] * bi[i];
            }
        }
    }
}

template <typename T, Accumulate kMode>
[[gnu::always_inline]] inline void dot_dispatch(Lanes<T> a, Lanes<T> b, OutLanes<T> out,
                                                std::size_t n) noexcept {
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
[[gnu::always_inline]] inline void dot_body(std::uint32_t pairs, std::span<const Lanes<T>> in,
                                            OutLanes<T> out, std::size_t n) noexcept {
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

// LADDU_TARGET_CLONES, so that std::fma is an instruction where the CPU has one.

LADDU_TARGET_CLONES void dot_f64(std::uint32_t pairs, std::span<const Lanes<double>> in,
                                 OutLanes<double> out, std::size_t n) noexcept {
    dot_body<double>(pairs, in, out, n);
}

LADDU_TARGET_CLONES void dot_f32(std::uint32_t pairs, std::span<const Lanes<float>> in,
                                 OutLanes<float> out, std::size_t n) noexcept {
    dot_body<float>(pairs, in, out, n);
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
        if constexpr (std::is_same_v<T, double>) {
            dot_f64(attr, in, out, n);
        } else {
            dot_f32(attr, in, out, n);
        }
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
