// Complex-function and linear-solve helpers that JIT-compiled kernels call. They are plain C
// functions registered with the JIT as absolute symbols (jit.cpp), so the generated code reaches
// them without the process exporting anything.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace laddu::jit::detail {

/// A complex result returned by value; on x86-64 it comes back in two SSE registers, which is
/// what the LLVM return type {double, double} means.
struct ComplexPair {
    double re;
    double im;
};

/// One helper the kernels may call: its symbol name and its address.
struct HelperSymbol {
    std::string_view name;
    std::uintptr_t address;
};

/// Every helper (complex functions and kSolve). Kernels reach libm (sin, atan2, ...) through
/// the process's own symbol table instead.
[[nodiscard]] std::span<const HelperSymbol> helper_symbols() noexcept;

}  // namespace laddu::jit::detail

extern "C" {
// Principal-branch complex functions with std::complex semantics.
laddu::jit::detail::ComplexPair laddu_jit_csqrt(double re, double im) noexcept;
laddu::jit::detail::ComplexPair laddu_jit_cexp(double re, double im) noexcept;
laddu::jit::detail::ComplexPair laddu_jit_clog(double re, double im) noexcept;
laddu::jit::detail::ComplexPair laddu_jit_csin(double re, double im) noexcept;
laddu::jit::detail::ComplexPair laddu_jit_ccos(double re, double im) noexcept;
laddu::jit::detail::ComplexPair laddu_jit_ctan(double re, double im) noexcept;
laddu::jit::detail::ComplexPair laddu_jit_casin(double re, double im) noexcept;
laddu::jit::detail::ComplexPair laddu_jit_cacos(double re, double im) noexcept;
laddu::jit::detail::ComplexPair laddu_jit_catan(double re, double im) noexcept;
laddu::jit::detail::ComplexPair laddu_jit_csinh(double re, double im) noexcept;
laddu::jit::detail::ComplexPair laddu_jit_ccosh(double re, double im) noexcept;
laddu::jit::detail::ComplexPair laddu_jit_ctanh(double re, double im) noexcept;

/// exp(b log a) for complex a and b.
laddu::jit::detail::ComplexPair laddu_jit_cpow(double a_re, double a_im, double b_re,
                                               double b_im) noexcept;

/// Solves A X = B by LU with partial pivoting on |re| + |im| (the interpreter's algorithm). `a`
/// is n·n complex numbers row-major and `b` n·m column by column, both as interleaved (re, im)
/// doubles; `x` receives n·m interleaved complex numbers (x_0 then x_1 ...). A singular A gives
/// NaN everywhere. `a` and `b` are used as scratch space.
void laddu_jit_solve(std::uint32_t n, std::uint32_t m, double* a, double* b, double* x) noexcept;
}
