// Scalar semantics shared by constant folding and the compile-time solver: exactly the
// per-instruction meaning docs/ir.md gives (real libm for Real-kinded values, std::complex
// principal branches for Complex ones).
#pragma once

#include <complex>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <laddu/expr/expr.hpp>

namespace laddu::compile::detail {

using Complex = std::complex<double>;

/// op(x); `is_real` says the operand is Real-kinded (only its real part is used).
[[nodiscard]] Complex apply_unary(expr::UnaryOp op, Complex x, bool is_real, std::int32_t exponent);

/// op(a, b); the flags say which operands are Real-kinded.
[[nodiscard]] Complex apply_binary(expr::BinaryOp op, Complex a, bool a_real, Complex b,
                                   bool b_real);

/// Solves A x = b (A n x n row-major) by LU with partial pivoting on |re| + |im|; nullopt when a
/// pivot is exactly zero (singular).
[[nodiscard]] std::optional<std::vector<Complex>>
solve_dense(std::size_t n, std::span<const Complex> a, std::span<const Complex> b);

/// The inverse of A (row-major), or nullopt when A is singular.
[[nodiscard]] std::optional<std::vector<Complex>> invert_dense(std::size_t n,
                                                               std::span<const Complex> a);

}  // namespace laddu::compile::detail
