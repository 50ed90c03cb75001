// Pieces the renderers share (private to src/expr): node numbering, labels, child roles,
// laddu's number text and the size guard.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <laddu/expr/expr.hpp>
#include <laddu/expr/render.hpp>

namespace laddu::expr::render_detail {

/// The distinct nodes of a graph in post-order (the `#k` numbers) with their resolved styles.
class NodeTable {
public:
    NodeTable(const Expr& root, const RenderOptions& options);

    /// The `#k` of a node of the graph.
    [[nodiscard]] std::size_t index(const Expr& node) const { return index_.at(node.id()); }

    /// The style of a node of the graph.
    [[nodiscard]] const NodeStyle& style(const Expr& node) const { return styles_[index(node)]; }

    /// The number of distinct nodes.
    [[nodiscard]] std::size_t size() const { return styles_.size(); }

private:
    std::unordered_map<const void*, std::size_t> index_;
    std::vector<NodeStyle> styles_;
};

/// laddu's text of a real number: the shortest decimal within a few ulps of `value` with at
/// most 12 decimals, else the shortest round-trip digits; never an exponent ("0.00000025").
[[nodiscard]] std::string real_text(double value);

/// laddu's text of an imaginary part times i: "i", "-i", "2.5i".
[[nodiscard]] std::string imaginary_text(double value);

/// laddu's text of a complex constant: "1 - 2i", "i", "3" (zero parts left out).
[[nodiscard]] std::string complex_text(double re, double im);

/// The node's line in trees, DOT and SVG: "#3 Binary(Mul)", "#0 EventScalar(x) tags=[S]".
[[nodiscard]] std::string node_label(const Expr& node, std::size_t index);

/// The role of child `k` of `node`: "lhs", "input", "term[2]", "element[0,1]", ...
[[nodiscard]] std::string child_label(const Expr& node, std::size_t k);

/// The 24-bit ANSI escapes that colour text with the style's foreground and fill, and the reset
/// after it; both empty when the style sets neither.
[[nodiscard]] std::pair<std::string, std::string> ansi_codes(const NodeStyle& style);

/// `text` between the style's ANSI escapes.
[[nodiscard]] std::string ansi(const NodeStyle& style, std::string_view text);

/// How many nodes the tree under `root` has when shared nodes are repeated at every use
/// (saturating at SIZE_MAX).
[[nodiscard]] std::size_t expanded_uses(const Expr& root);

/// `count` times `each`, saturating.
[[nodiscard]] inline std::size_t saturating_product(std::size_t count, std::size_t each) {
    return each != 0 && count > static_cast<std::size_t>(-1) / each ? static_cast<std::size_t>(-1)
                                                                    : count * each;
}

/// Throws ModelError when a rendering has grown past kMaxRenderBytes; `what` names it
/// ("the equation") and `remedy` says what to do instead.
void check_size(std::size_t bytes, std::string_view what, std::string_view remedy);

/// The remedy for renderings that can draw shared nodes once.
inline constexpr std::string_view kExpandRemedy =
    "pass expand_repeated=False to draw each shared node once";

}  // namespace laddu::expr::render_detail
