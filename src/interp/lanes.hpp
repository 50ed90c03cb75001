// Lane views and the scalar complex formulas every kernel shares.
//
// The complex arithmetic here is the bit-exact contract of docs/ir.md ("Arithmetic"): naive
// multiplication and division, no Smith scaling and no Annex G recovery, so that the
// vectorised loops, the per-lane helpers, the JIT and the reference tests agree exactly.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>

namespace laddu::interp::detail {

/// The lanes of one operand: re[lane] and, for a Complex value, im[lane] (nullptr for Real).
template <typename T>
struct Lanes {
    const T* re = nullptr;
    const T* im = nullptr;

    [[nodiscard]] bool is_complex() const noexcept { return im != nullptr; }
};

/// The lanes an instruction writes: re[lane] and, for a Complex result, im[lane].
template <typename T>
struct OutLanes {
    T* re = nullptr;
    T* im = nullptr;
};

/// A complex scalar with the IR's arithmetic (used where a loop cannot stay split).
template <typename T>
struct Cx {
    T re;
    T im;
};

template <typename T>
[[nodiscard]] inline Cx<T> cx_add(Cx<T> a, Cx<T> b) noexcept {
    return {a.re + b.re, a.im + b.im};
}

template <typename T>
[[nodiscard]] inline Cx<T> cx_sub(Cx<T> a, Cx<T> b) noexcept {
    return {a.re - b.re, a.im - b.im};
}

template <typename T>
[[nodiscard]] inline Cx<T> cx_mul(Cx<T> a, Cx<T> b) noexcept {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

template <typename T>
[[nodiscard]] inline Cx<T> cx_div(Cx<T> a, Cx<T> b) noexcept {
    const T den = b.re * b.re + b.im * b.im;
    return {(a.re * b.re + a.im * b.im) / den, (a.im * b.re - a.re * b.im) / den};
}

/// 1 / b, the Real / Complex formula with a = 1.
template <typename T>
[[nodiscard]] inline Cx<T> cx_recip(Cx<T> b) noexcept {
    const T den = b.re * b.re + b.im * b.im;
    return {b.re / den, -b.im / den};
}

template <typename T>
[[nodiscard]] inline std::complex<T> to_std(Cx<T> z) noexcept {
    return {z.re, z.im};
}

template <typename T>
[[nodiscard]] inline Cx<T> from_std(std::complex<T> z) noexcept {
    return {z.real(), z.imag()};
}

/// The magnitude of kPowI's exponent, safe for INT32_MIN.
[[nodiscard]] inline std::uint32_t powi_magnitude(std::int32_t n) noexcept {
    return n < 0 ? 0U - static_cast<std::uint32_t>(n) : static_cast<std::uint32_t>(n);
}

/// x^|n| by repeated squaring, the first factor taken as is (no 1 *): compiler-rt's
/// __powidf2 order. Returns 1 for n == 0; the caller takes the reciprocal for n < 0.
template <typename Value, typename Mul>
[[nodiscard]] inline Value powi_magnitude_value(Value base, std::uint32_t m, Value one,
                                                Mul mul) noexcept {
    if (m == 0) {
        return one;
    }
    bool have = false;
    Value acc = one;
    while (true) {
        if ((m & 1U) != 0) {
            acc = have ? mul(acc, base) : base;
            have = true;
        }
        m >>= 1U;
        if (m == 0) {
            break;
        }
        base = mul(base, base);
    }
    return acc;
}

}  // namespace laddu::interp::detail
