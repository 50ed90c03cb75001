#include "bake_fixed_parameters.hpp"

#include <laddu/expr/traversal.hpp>

namespace laddu::compile {

expr::Expr bake_fixed_parameters(const expr::Expr& root) {
    return expr::rewrite_bottom_up(root, [](const expr::Expr& node) {
        if (node.kind() == expr::NodeKind::kParameter && node.node().parameter->is_fixed()) {
            return expr::constant(*node.node().parameter->fixed);
        }
        return node.without_tags();
    });
}

}  // namespace laddu::compile
