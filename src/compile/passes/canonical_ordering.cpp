#include "canonical_ordering.hpp"

#include <algorithm>

#include <laddu/expr/traversal.hpp>

namespace laddu::compile {

expr::Expr canonical_ordering(const expr::Expr& root) {
    return expr::rewrite_bottom_up(root, [](const expr::Expr& node) {
        if (node.kind() != expr::NodeKind::kNaryAdd && node.kind() != expr::NodeKind::kNaryMul) {
            return node;
        }
        std::vector<expr::Expr> operands(node.children().begin(), node.children().end());
        std::stable_sort(operands.begin(), operands.end(),
                         [](const expr::Expr& a, const expr::Expr& b) {
                             const bool a_const = expr::is_constant(a);
                             const bool b_const = expr::is_constant(b);
                             if (a_const != b_const) {
                                 return a_const;
                             }
                             return a.structural_hash() < b.structural_hash();
                         });
        // Rebuilt (not with_children): operand kinds may change position.
        return node.kind() == expr::NodeKind::kNaryAdd ? expr::nary_add(std::move(operands))
                                                       : expr::nary_mul(std::move(operands));
    });
}

}  // namespace laddu::compile
