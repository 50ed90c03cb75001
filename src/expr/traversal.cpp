#include <unordered_map>
#include <unordered_set>

#include <laddu/expr/traversal.hpp>

namespace laddu::expr {

std::vector<Expr> topological_order(const Expr& root) {
    return topological_order(root, [](const Expr&) { return false; });
}

std::vector<Expr> topological_order(const Expr& root,
                                    const std::function<bool(const Expr&)>& skip) {
    // Iterative post-order: graphs from physics code can be deep (long sums built with +=).
    std::vector<Expr> order;
    if (skip(root)) {
        return order;
    }
    std::unordered_set<const void*> seen;
    std::vector<std::pair<Expr, std::size_t>> stack;
    stack.emplace_back(root, 0);
    seen.insert(root.id());
    while (!stack.empty()) {
        auto& [node, next_child] = stack.back();
        if (next_child < node.children().size()) {
            const Expr child = node.children()[next_child++];
            if (seen.insert(child.id()).second && !skip(child)) {
                stack.emplace_back(child, 0);
            }
        } else {
            order.push_back(node);
            stack.pop_back();
        }
    }
    return order;
}

std::size_t node_count(const Expr& root) {
    return topological_order(root).size();
}

Expr rewrite_bottom_up(const Expr& root, const RewriteFn& rule) {
    std::unordered_map<const void*, Expr> rewritten;
    for (const Expr& node : topological_order(root)) {
        std::vector<Expr> children;
        children.reserve(node.children().size());
        for (const Expr& child : node.children()) {
            children.push_back(rewritten.at(child.id()));
        }
        rewritten.emplace(node.id(), rule(node.with_children(std::move(children))));
    }
    return rewritten.at(root.id());
}

}  // namespace laddu::expr
