// Pass: bake_fixed_parameters. Replaces every fixed Parameter by a RealConst of its value and
// drops tags (projections happen before compiling; tags would keep CSE from merging a tagged
// node with its untagged twin). Runs first, so every Parameter left afterwards is free.
#pragma once

#include <laddu/expr/expr.hpp>

namespace laddu::compile {

/// The pass described above.
[[nodiscard]] expr::Expr bake_fixed_parameters(const expr::Expr& root);

}  // namespace laddu::compile
