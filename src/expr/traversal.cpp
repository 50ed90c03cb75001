#include <laddu/expr/node_map.hpp>
#include <laddu/expr/traversal.hpp>

namespace laddu::expr {

namespace {

// The post-order walk behind both topological_order overloads. It holds pointers into the
// (immutable) graph that `root` keeps alive, so each node's Expr is copied once, into the
// result, rather than into and out of the stack.
template <typename Skip>
std::vector<Expr> post_order(const Expr& root, const Skip& skip) {
    // Iterative post-order: graphs from physics code can be deep (long sums built with +=).
    std::vector<Expr> order;
    if (skip(root)) {
        return order;
    }

    struct Frame {
        const Expr* node;
        std::span<const Expr> children;
        std::size_t next;
    };

    NodeMap<char> seen(256);
    std::vector<Frame> stack;
    stack.push_back({&root, root.children(), 0});
    seen.try_emplace(root.id(), 1);
    while (!stack.empty()) {
        Frame& top = stack.back();
        if (top.next < top.children.size()) {
            const Expr& child = top.children[top.next++];
            if (seen.try_emplace(child.id(), 1).second && !skip(child)) {
                stack.push_back({&child, child.children(), 0});
            }
        } else {
            order.push_back(*top.node);
            stack.pop_back();
        }
    }
    return order;
}

}  // namespace

std::vector<Expr> topological_order(const Expr& root) {
    return post_order(root, [](const Expr&) { return false; });
}

std::vector<Expr> topological_order(const Expr& root,
                                    const std::function<bool(const Expr&)>& skip) {
    return post_order(root, skip);
}

std::size_t node_count(const Expr& root) {
    return topological_order(root).size();
}

Expr rewrite_bottom_up(const Expr& root, const RewriteFn& rule) {
    const std::vector<Expr> order = topological_order(root);
    NodeMap<Expr> rewritten(order.size());
    for (const Expr& node : order) {
        std::vector<Expr> children;
        children.reserve(node.children().size());
        for (const Expr& child : node.children()) {
            children.push_back(rewritten.at(child.id()));
        }
        rewritten.try_emplace(node.id(), rule(node.with_children(std::move(children))));
    }
    return rewritten.at(root.id());
}

}  // namespace laddu::expr
