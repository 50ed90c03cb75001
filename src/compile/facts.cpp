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

NodeFacts GraphFacts::of(const expr::Expr& node) const {
    const auto* facts = facts_.find(node.id());
    LADDU_ASSERT(facts != nullptr) << "no facts for a " << expr::to_string(node.kind()) << " node";
    return facts->second;
}

NodeFacts GraphFacts::add(const expr::Expr& root) {
    if (const auto* known = facts_.find(root.id())) {
        return known->second;
    }
    const auto known = [this](const expr::Expr& x) {
        return facts_.contains(x.id());
    };
    for (const expr::Expr& node : expr::topological_order(root, known)) {
        NodeFacts f;
        f.depends_on_parameters = node.kind() == expr::NodeKind::kParameter;
        f.depends_on_event = node.kind() == expr::NodeKind::kEventScalar ||
                             node.kind() == expr::NodeKind::kEventP4Component;
        for (const expr::Expr& child : node.children()) {
            const NodeFacts c = facts_.at(child.id()).second;
            f.depends_on_event = f.depends_on_event || c.depends_on_event;
            f.depends_on_parameters = f.depends_on_parameters || c.depends_on_parameters;
        }
        facts_.try_emplace(node.id(), node, f);
    }
    return facts_.at(root.id()).second;
}

GraphFacts analyse(const expr::Expr& root) {
    GraphFacts facts;
    facts.add(root);
    return facts;
}

}  // namespace laddu::compile
