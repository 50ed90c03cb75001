// Pass: dead_node_removal. Hash-consed nodes are freed as soon as nothing refers to them, so an
// Expr never holds dead nodes; what can be dead after rewriting is structure that computes
// nothing: n-ary sums and products of one operand (unwrapped) and complex(x, 0) fed to real()
// (already removed by simplification). The pass unwraps the single-operand forms.
#pragma once

#include <laddu/expr/expr.hpp>

namespace laddu::compile {

/// The pass described above.
[[nodiscard]] expr::Expr dead_node_removal(const expr::Expr& root);

}  // namespace laddu::compile
