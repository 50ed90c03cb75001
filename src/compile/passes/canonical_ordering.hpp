// Pass: canonical_ordering. Sorts the operands of n-ary sums and products into one
// deterministic order: constants first, then by structural hash (deterministic across runs, as
// it is built from payloads, not addresses), ties kept in their original order. Equal sums
// written in different orders then intern to the same node, and the IR's operand order (which
// fixes the rounding) no longer depends on how the user wrote the model.
#pragma once

#include <laddu/expr/expr.hpp>

namespace laddu::compile {

/// The pass described above.
[[nodiscard]] expr::Expr canonical_ordering(const expr::Expr& root);

}  // namespace laddu::compile
