// Pass: cse (common-subexpression elimination). Hash-consing already makes structurally equal
// nodes one object; this pass also merges nodes that are equal up to the order of commutative
// operands (a + b and b + a, x * y and y * x, n-ary forms as multisets), keeping the first one
// met in post-order as the representative. It matters when canonical_ordering is disabled or
// when hash ties left two orders of one multiset.
#pragma once

#include <laddu/expr/expr.hpp>

namespace laddu::compile {

/// The pass described above.
[[nodiscard]] expr::Expr cse(const expr::Expr& root);

}  // namespace laddu::compile
