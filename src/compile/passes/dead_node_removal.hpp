// Pass: dead_node_removal. Hash-consed nodes are freed as soon as nothing refers to them, so an
// Expr never holds dead nodes; what can be dead after rewriting is structure that computes
// nothing: n-ary sums and products of one operand (unwrapped) and complex(x, 0) fed to real()
// (already removed by simplification). The pass unwraps the single-operand forms and returns
// the graph compacted to the nodes reachable from the root, which later stages iterate.
#pragma once

#include <vector>

#include <laddu/expr/expr.hpp>

namespace laddu::compile {

/// A root and its reachable nodes in topological order.
struct Graph {
    expr::Expr root;
    std::vector<expr::Expr> nodes;
};

/// The pass described above.
[[nodiscard]] Graph dead_node_removal(const expr::Expr& root);

}  // namespace laddu::compile
