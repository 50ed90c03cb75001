#include "group_by_evaluation_class.hpp"

#include <laddu/compile/facts.hpp>
#include <laddu/expr/traversal.hpp>

namespace laddu::compile {

expr::Expr group_by_evaluation_class(const expr::Expr& root) {
    // Facts of the rewritten nodes too: grouping adds nodes as the walk goes.
    GraphFacts facts;
    return expr::rewrite_bottom_up(root, [&](const expr::Expr& node) {
        const bool add = node.kind() == expr::NodeKind::kNaryAdd;
        if (!add && node.kind() != expr::NodeKind::kNaryMul) {
            return node;
        }
        // Most nodes stay as they are: classify first, gather only when grouping applies.
        std::size_t varying_count = 0;
        bool any_event = false;
        for (const expr::Expr& child : node.children()) {
            const NodeFacts f = facts.add(child);
            varying_count += f.depends_on_parameters ? 1U : 0U;
            any_event = any_event || (!f.depends_on_parameters && f.depends_on_event);
        }
        const std::size_t fixed_count = node.children().size() - varying_count;
        if (varying_count == 0 || !any_event || fixed_count < 2) {
            return node;
        }
        std::vector<expr::Expr> varying;
        std::vector<expr::Expr> fixed;
        for (const expr::Expr& child : node.children()) {
            (facts.add(child).depends_on_parameters ? varying : fixed).push_back(child);
        }
        varying.push_back(add ? expr::nary_add(std::move(fixed))
                              : expr::nary_mul(std::move(fixed)));
        return add ? expr::nary_add(std::move(varying)) : expr::nary_mul(std::move(varying));
    });
}

}  // namespace laddu::compile
