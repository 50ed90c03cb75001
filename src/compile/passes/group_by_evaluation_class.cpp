#include "group_by_evaluation_class.hpp"

#include <unordered_map>

#include <laddu/compile/facts.hpp>
#include <laddu/expr/traversal.hpp>

namespace laddu::compile {
namespace {

// Dependencies of rewritten nodes, memoised. Unseen nodes are computed children first, so
// of_node() only reads memoised children (no recursion on deep graphs).
class Dependencies {
public:
    NodeFacts of(const expr::Expr& e) {
        if (auto it = memo_.find(e.id()); it != memo_.end()) {
            return it->second.second;
        }
        const auto seen = [this](const expr::Expr& x) {
            return memo_.contains(x.id());
        };
        for (const expr::Expr& node : expr::topological_order(e, seen)) {
            // The Expr in the map keeps the address unique.
            memo_.emplace(node.id(), std::make_pair(node, of_node(node)));
        }
        return memo_.at(e.id()).second;
    }

private:
    NodeFacts of_node(const expr::Expr& e) const {
        NodeFacts f;
        f.depends_on_parameters = e.kind() == expr::NodeKind::kParameter;
        f.depends_on_event = e.kind() == expr::NodeKind::kEventScalar ||
                             e.kind() == expr::NodeKind::kEventP4Component;
        for (const expr::Expr& child : e.children()) {
            const NodeFacts& c = memo_.at(child.id()).second;
            f.depends_on_event = f.depends_on_event || c.depends_on_event;
            f.depends_on_parameters = f.depends_on_parameters || c.depends_on_parameters;
        }
        return f;
    }

    std::unordered_map<const void*, std::pair<expr::Expr, NodeFacts>> memo_;
};

}  // namespace

expr::Expr group_by_evaluation_class(const expr::Expr& root) {
    Dependencies dependencies;
    return expr::rewrite_bottom_up(root, [&](const expr::Expr& node) {
        const bool add = node.kind() == expr::NodeKind::kNaryAdd;
        if (!add && node.kind() != expr::NodeKind::kNaryMul) {
            return node;
        }
        std::vector<expr::Expr> varying;
        std::vector<expr::Expr> fixed;
        bool any_event = false;
        for (const expr::Expr& child : node.children()) {
            const NodeFacts f = dependencies.of(child);
            if (f.depends_on_parameters) {
                varying.push_back(child);
            } else {
                any_event = any_event || f.depends_on_event;
                fixed.push_back(child);
            }
        }
        if (varying.empty() || !any_event || fixed.size() < 2) {
            return node;
        }
        varying.push_back(add ? expr::nary_add(std::move(fixed))
                              : expr::nary_mul(std::move(fixed)));
        return add ? expr::nary_add(std::move(varying)) : expr::nary_mul(std::move(varying));
    });
}

}  // namespace laddu::compile
