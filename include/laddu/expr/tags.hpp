// laddu/expr/tags.hpp: projections onto tagged coherent amplitudes.
//
// expr.tagged("A1") marks a subexpression as the amplitude A1 (the tag is node metadata and
// takes part in hash-consing, so a tagged node is distinct from its untagged twin). project()
// replaces every tagged node none of whose tags is kept by a zero of the same kind; untagged
// nodes stay. Interference between kept amplitudes survives: projecting |A1 + A2|^2 onto {A1}
// gives |A1 + 0|^2 = |A1|^2. Nested tags are examined everywhere (bottom-up), so a kept
// amplitude that contains a dropped one loses that part.
#pragma once

#include <string>
#include <vector>

#include <laddu/expr/expr.hpp>

namespace laddu::expr {

/// `root` with every tagged subexpression whose tags are all outside `keep` set to zero.
[[nodiscard]] Expr project(const Expr& root, const std::vector<std::string>& keep);

/// The distinct tags used in `root`, sorted.
[[nodiscard]] std::vector<std::string> collect_tags(const Expr& root);

/// `root` with all tags removed (the compiler does this before optimising).
[[nodiscard]] Expr strip_tags(const Expr& root);

}  // namespace laddu::expr
