#include <algorithm>
#include <set>

#include <laddu/expr/tags.hpp>
#include <laddu/expr/traversal.hpp>

namespace laddu::expr {

Expr project(const Expr& root, const std::vector<std::string>& keep) {
    return rewrite_bottom_up(root, [&](const Expr& node) {
        if (node.tags().empty()) {
            return node;
        }
        const bool kept =
            std::any_of(node.tags().begin(), node.tags().end(), [&](const std::string& t) {
                return std::find(keep.begin(), keep.end(), t) != keep.end();
            });
        return kept ? node : zero_of(node.value_kind());
    });
}

std::vector<std::string> collect_tags(const Expr& root) {
    std::set<std::string> tags;
    for (const Expr& node : topological_order(root)) {
        tags.insert(node.tags().begin(), node.tags().end());
    }
    return {tags.begin(), tags.end()};
}

Expr strip_tags(const Expr& root) {
    return rewrite_bottom_up(root, [](const Expr& node) { return node.without_tags(); });
}

}  // namespace laddu::expr
