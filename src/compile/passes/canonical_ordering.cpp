#include "canonical_ordering.hpp"

#include <algorithm>

#include <laddu/expr/traversal.hpp>

#include "rewrite_support.hpp"

namespace laddu::compile {

expr::Expr canonical_ordering(const expr::Expr& root) {
    return expr::rewrite_bottom_up(root, [](const expr::Expr& node) {
        if (node.kind() != expr::NodeKind::kNaryAdd && node.kind() != expr::NodeKind::kNaryMul) {
            return node;
        }
        // In order already (every node, once the loop nears its fixed point): a stable sort
        // would rebuild the same node (tags are gone since baking).
        if (std::is_sorted(node.children().begin(), node.children().end(),
                           detail::canonical_before)) {
            return node;
        }
        std::vector<expr::Expr> operands(node.children().begin(), node.children().end());
        std::stable_sort(operands.begin(), operands.end(), detail::canonical_before);
        // Rebuilt (not with_children): operand kinds may change position.
        return node.kind() == expr::NodeKind::kNaryAdd ? expr::nary_add(std::move(operands))
                                                       : expr::nary_mul(std::move(operands));
    });
}

}  // namespace laddu::compile
