#include <algorithm>
#include <span>

#include <laddu/expr/node_map.hpp>
#include <laddu/expr/traversal.hpp>

namespace laddu::expr {

namespace {

// The post-order walk behind both topological_order overloads. It holds pointers into the
// (immutable) graph that `root` keeps alive, so each node's Expr is copied once, into the
// result, rather than into and out of the stack.
template <typename Skip>
std::vector<Expr> post_order(const Expr& root, const Skip& skip, std::size_t expected) {
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

    NodeMap<char> seen(expected);
    order.reserve(expected);
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
    // Sized for the last walk on this thread: a compile walks graphs of about one size pass
    // after pass, and a table grown from a small one rehashed every node three or four times
    // (the K-matrix model's ~1500 nodes: a third of the walk's instructions).
    static thread_local std::size_t expected = 128;
    std::vector<Expr> order = post_order(root, [](const Expr&) { return false; }, expected);
    expected = std::max<std::size_t>(order.size(), 128);
    return order;
}

std::vector<Expr> topological_order(const Expr& root,
                                    const std::function<bool(const Expr&)>& skip) {
    // Memoised analyses call this once per node they are asked about, and mostly reach that
    // node alone or a few: a node whose children are all known needs no visited set and no
    // stack, and the rest start small (a table sized for the whole graph would be cleared for
    // a node or two; the K-matrix model's compile makes ~1500 of these walks).
    const std::span<const Expr> children = root.children();
    if (!skip(root) && std::all_of(children.begin(), children.end(), skip)) {
        return {root};
    }
    return post_order(root, skip, 8);
}

std::size_t node_count(const Expr& root) {
    return topological_order(root).size();
}

Expr rewrite_bottom_up(const Expr& root, const RewriteFn& rule) {
    const std::vector<Expr> order = topological_order(root);
    NodeMap<Expr> rewritten(order.size());
    for (const Expr& node : order) {
        // Most nodes keep every child (a pass rewrites few of them): those go to the rule as
        // they are, without building their child list again (with_children would return the
        // same node for it).
        const std::span<const Expr> children = node.children();
        const auto kept = [&](const Expr& child) {
            return rewritten.at(child.id()) == child;
        };
        if (std::all_of(children.begin(), children.end(), kept)) {
            rewritten.try_emplace(node.id(), rule(node));
            continue;
        }
        std::vector<Expr> rebuilt;
        rebuilt.reserve(children.size());
        for (const Expr& child : children) {
            rebuilt.push_back(rewritten.at(child.id()));
        }
        rewritten.try_emplace(node.id(), rule(node.with_children(std::move(rebuilt))));
    }
    return rewritten.at(root.id());
}

}  // namespace laddu::expr
