#include "dead_node_removal.hpp"

#include <laddu/expr/traversal.hpp>

#include "rewrite_support.hpp"

namespace laddu::compile {

expr::Expr dead_node_removal(const expr::Expr& root) {
    return expr::rewrite_bottom_up(root, [](const expr::Expr& node) {
        const bool nary =
            node.kind() == expr::NodeKind::kNaryAdd || node.kind() == expr::NodeKind::kNaryMul;
        if (nary && node.children().size() == 1) {
            return detail::coerce_to(node.children()[0], node.value_kind());
        }
        return node;
    });
}

}  // namespace laddu::compile
