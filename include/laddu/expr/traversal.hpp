// laddu/expr/traversal.hpp: walking and rewriting expression DAGs.
//
// Every walk visits each distinct node once (the DAG is never expanded into a tree), children
// before parents, children in order: this post-order is the deterministic node order used for
// parameter collection, printing and graph dumps.
#pragma once

#include <functional>
#include <vector>

#include <laddu/expr/expr.hpp>

namespace laddu::expr {

/// The distinct nodes reachable from `root`, children before parents (post-order DFS).
[[nodiscard]] std::vector<Expr> topological_order(const Expr& root);

/// The post-order of `root` without the nodes for which `skip` is true (nor anything reached
/// only through them). Memoised analyses use it to visit just the nodes they have not seen,
/// children first, so computing a node only reads its children's results and never recurses:
/// every walk here is iterative, because graphs can be 10^5 levels deep.
[[nodiscard]] std::vector<Expr> topological_order(const Expr& root,
                                                  const std::function<bool(const Expr&)>& skip);

/// Number of distinct nodes reachable from `root`.
[[nodiscard]] std::size_t node_count(const Expr& root);

/// A rewrite rule: receives a node whose children have already been rewritten and returns its
/// replacement (or the node itself).
using RewriteFn = std::function<Expr(const Expr& node)>;

/// Rewrites bottom-up: each distinct node is rebuilt with rewritten children, then passed to
/// `rule`. Shared nodes are rewritten once.
[[nodiscard]] Expr rewrite_bottom_up(const Expr& root, const RewriteFn& rule);

}  // namespace laddu::expr
