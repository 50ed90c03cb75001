#include "helpers.hpp"

#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace {

using laddu::jit::detail::ComplexPair;
using Complex = std::complex<double>;

ComplexPair pair(Complex z) noexcept {
    return {z.real(), z.imag()};
}

// The IR's complex arithmetic (docs/ir.md; the interpreter's and the generated code's formulas).
struct Cx {
    double re;
    double im;
};

Cx multiply(Cx a, Cx b) noexcept {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

Cx divide(Cx a, Cx b) noexcept {
    const double den = b.re * b.re + b.im * b.im;
    return {(a.re * b.re + a.im * b.im) / den, (a.im * b.re - a.re * b.im) / den};
}

Cx reciprocal(Cx b) noexcept {
    const double den = b.re * b.re + b.im * b.im;
    return {b.re / den, -b.im / den};
}

}  // namespace

extern "C" {

ComplexPair laddu_jit_csqrt(double re, double im) noexcept {
    return pair(std::sqrt(Complex(re, im)));
}

ComplexPair laddu_jit_cexp(double re, double im) noexcept {
    return pair(std::exp(Complex(re, im)));
}

ComplexPair laddu_jit_clog(double re, double im) noexcept {
    return pair(std::log(Complex(re, im)));
}

ComplexPair laddu_jit_csin(double re, double im) noexcept {
    return pair(std::sin(Complex(re, im)));
}

ComplexPair laddu_jit_ccos(double re, double im) noexcept {
    return pair(std::cos(Complex(re, im)));
}

ComplexPair laddu_jit_ctan(double re, double im) noexcept {
    return pair(std::tan(Complex(re, im)));
}

ComplexPair laddu_jit_casin(double re, double im) noexcept {
    return pair(std::asin(Complex(re, im)));
}

ComplexPair laddu_jit_cacos(double re, double im) noexcept {
    return pair(std::acos(Complex(re, im)));
}

ComplexPair laddu_jit_catan(double re, double im) noexcept {
    return pair(std::atan(Complex(re, im)));
}

ComplexPair laddu_jit_csinh(double re, double im) noexcept {
    return pair(std::sinh(Complex(re, im)));
}

ComplexPair laddu_jit_ccosh(double re, double im) noexcept {
    return pair(std::cosh(Complex(re, im)));
}

ComplexPair laddu_jit_ctanh(double re, double im) noexcept {
    return pair(std::tanh(Complex(re, im)));
}

ComplexPair laddu_jit_cpow(double a_re, double a_im, double b_re, double b_im) noexcept {
    return pair(std::exp(Complex(b_re, b_im) * std::log(Complex(a_re, a_im))));
}

// The interpreter's algorithm step for step (src/interp/execute_linalg.cpp), so both backends
// round identically: LU with partial pivoting on |re| + |im| (first row on ties), multipliers
// a · (1/pivot), column-by-column updates, then forward and back substitution per right-hand
// side. A zero pivot column is skipped; a zero U_ii makes every element NaN.
void laddu_jit_solve(std::uint32_t n, std::uint32_t m, double* a, double* b, double* x) noexcept {
    const std::size_t size = n;
    const std::size_t rhs = m;
    auto re = [&](std::size_t i, std::size_t j) -> double& {
        return a[2 * (i * size + j)];
    };
    auto im = [&](std::size_t i, std::size_t j) -> double& {
        return a[2 * (i * size + j) + 1];
    };
    std::array<std::size_t, 64> small_swaps{};
    std::vector<std::size_t> large_swaps;
    std::size_t* swaps = small_swaps.data();
    if (size > small_swaps.size()) {
        large_swaps.resize(size);
        swaps = large_swaps.data();
    }
    for (std::size_t k = 0; k < size; ++k) {
        std::size_t pivot = k;
        double best = std::fabs(re(k, k)) + std::fabs(im(k, k));
        for (std::size_t i = k + 1; i < size; ++i) {
            const double v = std::fabs(re(i, k)) + std::fabs(im(i, k));
            if (v > best) {
                best = v;
                pivot = i;
            }
        }
        swaps[k] = pivot;
        if (best == 0.0) {
            continue;
        }
        if (pivot != k) {
            for (std::size_t j = 0; j < size; ++j) {
                std::swap(re(k, j), re(pivot, j));
                std::swap(im(k, j), im(pivot, j));
            }
        }
        const Cx inv = reciprocal({re(k, k), im(k, k)});
        for (std::size_t i = k + 1; i < size; ++i) {
            const Cx l = multiply({re(i, k), im(i, k)}, inv);
            re(i, k) = l.re;
            im(i, k) = l.im;
        }
        for (std::size_t j = k + 1; j < size; ++j) {
            const Cx u{re(k, j), im(k, j)};
            for (std::size_t i = k + 1; i < size; ++i) {
                const Cx p = multiply({re(i, k), im(i, k)}, u);
                re(i, j) -= p.re;
                im(i, j) -= p.im;
            }
        }
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t c = 0; c < rhs; ++c) {
        double* v = b + 2 * c * size;
        for (std::size_t k = 0; k < size; ++k) {
            if (swaps[k] != k) {
                std::swap(v[2 * k], v[2 * swaps[k]]);
                std::swap(v[2 * k + 1], v[2 * swaps[k] + 1]);
            }
        }
        for (std::size_t j = 0; j < size; ++j) {
            for (std::size_t i = j + 1; i < size; ++i) {
                const Cx p = multiply({re(i, j), im(i, j)}, {v[2 * j], v[2 * j + 1]});
                v[2 * i] -= p.re;
                v[2 * i + 1] -= p.im;
            }
        }
        for (std::size_t j = size; j-- > 0;) {
            if (re(j, j) == 0.0 && im(j, j) == 0.0) {
                for (std::size_t e = 0; e < 2 * size * rhs; ++e) {
                    x[e] = nan;
                }
                return;
            }
            const Cx d = divide({v[2 * j], v[2 * j + 1]}, {re(j, j), im(j, j)});
            v[2 * j] = d.re;
            v[2 * j + 1] = d.im;
            for (std::size_t i = 0; i < j; ++i) {
                const Cx p = multiply({re(i, j), im(i, j)}, d);
                v[2 * i] -= p.re;
                v[2 * i + 1] -= p.im;
            }
        }
    }
    for (std::size_t e = 0; e < 2 * size * rhs; ++e) {
        x[e] = b[e];
    }
}

}  // extern "C"

namespace laddu::jit::detail {

namespace {

template <typename Fn>
std::uintptr_t address_of(Fn* fn) noexcept {
    return reinterpret_cast<std::uintptr_t>(fn);
}

}  // namespace

std::span<const HelperSymbol> helper_symbols() noexcept {
    static const std::array<HelperSymbol, 14> symbols = {{
        {"laddu_jit_csqrt", address_of(&laddu_jit_csqrt)},
        {"laddu_jit_cexp", address_of(&laddu_jit_cexp)},
        {"laddu_jit_clog", address_of(&laddu_jit_clog)},
        {"laddu_jit_csin", address_of(&laddu_jit_csin)},
        {"laddu_jit_ccos", address_of(&laddu_jit_ccos)},
        {"laddu_jit_ctan", address_of(&laddu_jit_ctan)},
        {"laddu_jit_casin", address_of(&laddu_jit_casin)},
        {"laddu_jit_cacos", address_of(&laddu_jit_cacos)},
        {"laddu_jit_catan", address_of(&laddu_jit_catan)},
        {"laddu_jit_csinh", address_of(&laddu_jit_csinh)},
        {"laddu_jit_ccosh", address_of(&laddu_jit_ccosh)},
        {"laddu_jit_ctanh", address_of(&laddu_jit_ctanh)},
        {"laddu_jit_cpow", address_of(&laddu_jit_cpow)},
        {"laddu_jit_solve", address_of(&laddu_jit_solve)},
    }};
    return symbols;
}

}  // namespace laddu::jit::detail
