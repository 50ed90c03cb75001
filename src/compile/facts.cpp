#include <laddu/base/assert.hpp>
#include <laddu/compile/facts.hpp>
#include <laddu/expr/traversal.hpp>

namespace laddu::compile {

const char* to_string(EvaluationClass cls) {
    switch (cls) {
    case EvaluationClass::kPerCompile:
        return "PerCompile";
    case EvaluationClass::kPerEvent:
        return "PerEvent";
    case EvaluationClass::kPerEvaluation:
        break;
    }
    return "PerEvaluation";
}

const NodeFacts& GraphFacts::of(const expr::Expr& node) const {
    auto it = facts_.find(node.id());
    LADDU_ASSERT(it != facts_.end())
        << "no facts for a " << expr::to_string(node.kind()) << " node";
    return it->second;
}

GraphFacts analyse(const expr::Expr& root) {
    GraphFacts facts;
    for (const expr::Expr& node : expr::topological_order(root)) {
        NodeFacts f;
        switch (node.kind()) {
        case expr::NodeKind::kParameter:
            f.depends_on_parameters = true;
            break;
        case expr::NodeKind::kEventScalar:
        case expr::NodeKind::kEventP4Component:
            f.depends_on_event = true;
            break;
        default:
            for (const expr::Expr& child : node.children()) {
                const NodeFacts& c = facts.of(child);
                f.depends_on_event = f.depends_on_event || c.depends_on_event;
                f.depends_on_parameters = f.depends_on_parameters || c.depends_on_parameters;
            }
            break;
        }
        facts.set(node, f);
    }
    return facts;
}

}  // namespace laddu::compile
