// laddu/compile/facts.hpp: how often each node of an optimised graph must be recomputed.
#pragma once

#include <cstdint>
#include <utility>

#include <laddu/expr/expr.hpp>
#include <laddu/expr/node_map.hpp>

namespace laddu::compile {

/// How often a node must be recomputed: once per compile (a constant), once per event (it
/// depends on event data only, so it can be cached before a fit), or at every evaluation (it
/// depends on free parameters).
enum class EvaluationClass : std::uint8_t { kPerCompile, kPerEvent, kPerEvaluation };

/// "PerCompile", "PerEvent", "PerEvaluation".
[[nodiscard]] const char* to_string(EvaluationClass cls);

/// What a node depends on.
struct NodeFacts {
    bool depends_on_event = false;
    bool depends_on_parameters = false;

    /// PerEvaluation if it depends on parameters, else PerEvent if on events, else PerCompile.
    [[nodiscard]] EvaluationClass evaluation_class() const {
        return depends_on_parameters ? EvaluationClass::kPerEvaluation
               : depends_on_event    ? EvaluationClass::kPerEvent
                                     : EvaluationClass::kPerCompile;
    }
};

/// Facts for every node reachable from the roots added so far. Fixed parameters must already be
/// baked into constants (every Parameter node counts as free). The table keeps its nodes alive,
/// so a node's address stays its own while a pass that rewrites the graph adds new nodes.
class GraphFacts {
public:
    /// The facts of `node` (asserts that it was analysed).
    [[nodiscard]] NodeFacts of(const expr::Expr& node) const;

    /// The evaluation class of `node`.
    [[nodiscard]] EvaluationClass evaluation_class(const expr::Expr& node) const {
        return of(node).evaluation_class();
    }

    /// Number of analysed nodes.
    [[nodiscard]] std::size_t size() const { return facts_.size(); }

    /// Analyses the nodes reachable from `root` that have no facts yet (children first, so each
    /// reads only its children's) and returns the facts of `root`.
    NodeFacts add(const expr::Expr& root);

private:
    expr::NodeMap<std::pair<expr::Expr, NodeFacts>> facts_;
};

/// Marks each node reachable from `root` with its dependencies and evaluation class.
[[nodiscard]] GraphFacts analyse(const expr::Expr& root);

}  // namespace laddu::compile
