#include "cse.hpp"

#include <algorithm>
#include <unordered_map>

#include <laddu/expr/traversal.hpp>

namespace laddu::compile {
namespace {

using expr::Expr;
using expr::NodeKind;

bool is_commutative(const Expr& node) {
    if (node.kind() == NodeKind::kNaryAdd || node.kind() == NodeKind::kNaryMul) {
        return true;
    }
    return node.kind() == NodeKind::kBinary && (node.node().binary_op() == expr::BinaryOp::kAdd ||
                                                node.node().binary_op() == expr::BinaryOp::kMul);
}

// The node with its commutative operands sorted by address: equal multisets give one key.
Expr key_of(const Expr& node) {
    if (!is_commutative(node)) {
        return node;
    }
    std::vector<Expr> operands(node.children().begin(), node.children().end());
    std::sort(operands.begin(), operands.end(), [](const Expr& a, const Expr& b) {
        return std::less<const void*>{}(a.id(), b.id());
    });
    switch (node.kind()) {
    case NodeKind::kNaryAdd:
        return expr::nary_add(std::move(operands));
    case NodeKind::kNaryMul:
        return expr::nary_mul(std::move(operands));
    default:
        return expr::binary(node.node().binary_op(), operands[0], operands[1]);
    }
}

}  // namespace

expr::Expr cse(const expr::Expr& root) {
    // Keyed by the address of key_of(node); the pair keeps the key alive so the address stays
    // unique while the map exists.
    std::unordered_map<const void*, std::pair<Expr, Expr>> representative;
    return expr::rewrite_bottom_up(root, [&](const Expr& node) {
        Expr key = key_of(node);
        const void* id = key.id();
        auto it = representative.try_emplace(id, std::move(key), node).first;
        return it->second.second;
    });
}

}  // namespace laddu::compile
