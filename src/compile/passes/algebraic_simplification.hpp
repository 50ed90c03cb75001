// Pass: algebraic_simplification. Local rewrites that keep values equal (up to rounding):
//   * a + b, a - b, a * b become n-ary sums and products (a - b as a + (-b)), nested ones are
//     flattened, constant operands are merged into one, x + 0 and x * 1 drop the neutral
//     constant, neg factors move into the constant (-(x) * y = -1 * x * y);
//   * x * 0 becomes 0 only when every other factor is finite-safe: built from finite constants,
//     parameters and event columns (assumed finite) by +, -, *, neg, conj, real, imag,
//     norm_sqr, abs, arg, sin, cos, atan, atan2, complex and element access. A factor that can
//     be inf or NaN (a division, sqrt, log, exp, pow, solve) keeps the product, so 0 * inf
//     stays NaN as IEEE says;
//   * --x = x, conj(conj x) = x, conj/real of a Real x = x, imag of a Real x = 0,
//     real/imag(complex(a, b)) = a/b, conj(complex(a, b)) = complex(a, -b);
//   * norm_sqr of a product is the product of norm_sqrs; norm_sqr(-x) = norm_sqr(conj x) =
//     norm_sqr(x).
#pragma once

#include <cstddef>

#include <laddu/expr/expr.hpp>

namespace laddu::compile {

/// The pass described above. Flattening is linear: a sum or product used only by sums (or
/// products) is never built as a node; its operands are kept and moved into its one user, so a
/// sum built with += over n terms places each operand once instead of 1 + 2 + ... + n times.
[[nodiscard]] expr::Expr algebraic_simplification(const expr::Expr& root);

/// What algebraic_simplification did, for tests of its cost.
struct SimplificationCounts {
    std::size_t operands_placed = 0;  ///< operands pushed or copied one by one while flattening
};

/// algebraic_simplification(root), adding its work to `counts`.
[[nodiscard]] expr::Expr algebraic_simplification_counted(const expr::Expr& root,
                                                          SimplificationCounts& counts);

}  // namespace laddu::compile
