// Pass: constant_folding. Evaluates every scalar node whose operands are all constants, with
// the IR's semantics (so folding never changes a result beyond rounding). A solve with a
// constant matrix is done now: with a constant right-hand side it becomes a constant vector,
// otherwise matvec(M^-1, b) with the numerical inverse. A constant singular matrix is a
// CompileError naming the node.
#pragma once

#include <laddu/expr/expr.hpp>

namespace laddu::compile {

/// The pass described above.
[[nodiscard]] expr::Expr constant_folding(const expr::Expr& root);

}  // namespace laddu::compile
