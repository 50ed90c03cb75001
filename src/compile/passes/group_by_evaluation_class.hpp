// Pass: group_by_evaluation_class. Flattening (algebraic_simplification) merges
// beta * (g * B / (m^2 - s)) into one product beta * g * B * (1 / ...), which would cache each
// event factor separately and multiply them at every evaluation. This pass regroups the
// operands of every n-ary sum or product that mixes parameter-dependent and event-only
// operands: the event-only operands (with the constants) become one inner sum or product, a
// single cache column. Runs after the simplification loop, which would flatten it again.
#pragma once

#include <laddu/expr/expr.hpp>

namespace laddu::compile {

/// The pass described above.
[[nodiscard]] expr::Expr group_by_evaluation_class(const expr::Expr& root);

}  // namespace laddu::compile
