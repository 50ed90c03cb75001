#include "cse.hpp"

#include <laddu/expr/node_map.hpp>
#include <laddu/expr/traversal.hpp>

#include "rewrite_support.hpp"

namespace laddu::compile {

using expr::Expr;

expr::Expr cse(const expr::Expr& root) {
    // Keyed by the address of commutative_key(node); the pair keeps the key alive so the address
    // stays unique while the map exists.
    expr::NodeMap<std::pair<Expr, Expr>> representative;
    return expr::rewrite_bottom_up(root, [&](const Expr& node) {
        Expr key = detail::commutative_key(node);
        const void* id = key.id();
        return representative.try_emplace(id, std::move(key), node).first->second;
    });
}

}  // namespace laddu::compile
