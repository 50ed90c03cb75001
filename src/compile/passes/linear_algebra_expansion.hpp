// Pass: linear_algebra_expansion. Turns linear algebra on literal vectors and matrices into
// literals of scalar expressions: component/matrix element of a literal, matvec, matmul and dot
// with a literal operand, element-wise add/sub/neg/conj and scaling of literals. Solves stay
// (their matrix becomes a literal, which folding and the SolveRow specialisation need), and
// later passes see plain scalar arithmetic they can simplify and share.
#pragma once

#include <laddu/expr/expr.hpp>

namespace laddu::compile {

/// The pass described above.
[[nodiscard]] expr::Expr linear_algebra_expansion(const expr::Expr& root);

}  // namespace laddu::compile
