// laddu/expr/render.hpp: expressions as equations, LaTeX, trees, Graphviz and SVG.
//
// The five renderings laddu 0.21.4 offers (Expr.equation/latex/tree/dot/svg), with its text:
//
//   const Expr e = (x + 1.0) * (x + 2.0);
//   to_equation(e)  // "(x + 1) * (x + 2)"
//   to_latex(e)     // "\left(x + 1\right) \cdot \left(x + 2\right)"
//   to_tree(e)      // "ExprGraph(root=#5)\n#5 Binary(Mul)\n┣ lhs: #2 Binary(Add)\n..."
//   to_dot(e)       // "digraph ExprGraph {\n  n0 [label=\"#5 Binary(Mul)\"];\n..."
//   to_svg(e)       // a standalone SVG document of the DOT graph, laid out in layers
//
// Nodes are numbered `#k` in the post-order the JSON writer uses (children first, each distinct
// node once), so labels match laddu's for graphs both libraries build node for node. Equations
// and LaTeX write a shared subexpression at every use, as laddu does; tree, dot and svg do so
// when `expand_repeated` is true (the default) and otherwise draw each node once. Output that
// would exceed kMaxRenderBytes is refused with a ModelError naming the remedy, since a graph
// with heavy sharing expands exponentially.
//
// Colours come from style rules: a rule's selector picks nodes (by kind, parameter or column
// name, or tag) and its style overlays foreground, fill and border colours; later rules win.
// `colors = kLight/kDark` prepends laddu's palettes. The equation and tree colour text with
// 24-bit ANSI escapes, LaTeX with \color[RGB]{r,g,b} (foreground only, needs xcolor), DOT and SVG
// with fontcolor/color/fillcolor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <laddu/expr/expr.hpp>

namespace laddu::expr {

/// The largest rendering produced (256 MiB); beyond it a render throws ModelError.
inline constexpr std::size_t kMaxRenderBytes = std::size_t{1} << 28;

/// An RGB colour.
struct DisplayColor {
    std::uint8_t red = 0;
    std::uint8_t green = 0;
    std::uint8_t blue = 0;

    /// The colour with channels given as integers; ModelError unless each is in 0..255.
    [[nodiscard]] static DisplayColor checked(long long red, long long green, long long blue);

    /// "#rrggbb" (lower-case hex), as DOT and SVG write colours.
    [[nodiscard]] std::string hex() const;

    friend bool operator==(const DisplayColor&, const DisplayColor&) = default;
};

/// Optional colours for a node; an unset colour leaves what earlier rules chose.
struct NodeStyle {
    std::optional<DisplayColor> foreground = std::nullopt;  ///< text
    std::optional<DisplayColor> fill = std::nullopt;        ///< terminal background, box fill
    std::optional<DisplayColor> border = std::nullopt;      ///< box outline (DOT, SVG)

    friend bool operator==(const NodeStyle&, const NodeStyle&) = default;
};

/// Which nodes a style rule applies to.
class NodeSelector {
public:
    /// Every node.
    [[nodiscard]] static NodeSelector any();

    /// Nodes of one kind (NodeKind::kParameter is laddu's ScalarParam).
    [[nodiscard]] static NodeSelector kind(NodeKind kind);

    /// Parameters named `name`, and event scalars and four-momenta read from column `name`.
    [[nodiscard]] static NodeSelector name(std::string name);

    /// Nodes carrying tag `tag`.
    [[nodiscard]] static NodeSelector tag(std::string tag);

    /// Whether `node` is selected.
    [[nodiscard]] bool matches(const Expr& node) const;

    friend bool operator==(const NodeSelector&, const NodeSelector&) = default;

private:
    enum class By : std::uint8_t { kAny, kKind, kName, kTag };

    NodeSelector(By by, NodeKind kind, std::string text)
        : by_(by), kind_(kind), text_(std::move(text)) {}

    By by_;
    NodeKind kind_;
    std::string text_;
};

/// A selector and the style overlaid on the nodes it selects.
struct NodeStyleRule {
    NodeSelector selector;
    NodeStyle style;

    friend bool operator==(const NodeStyleRule&, const NodeStyleRule&) = default;
};

/// A built-in palette: none, or laddu's colours for light or dark backgrounds (constants grey,
/// parameters and event data blue, operations purple, linear algebra red).
enum class ColorPreset : std::uint8_t { kNone, kLight, kDark };

/// "light", "dark" or "none" (any case, surrounding spaces ignored); ModelError otherwise.
[[nodiscard]] ColorPreset parse_color_preset(std::string_view text);

/// The rules a palette adds before the caller's (empty for kNone).
[[nodiscard]] std::vector<NodeStyleRule> preset_rules(ColorPreset preset);

/// What every rendering takes.
struct RenderOptions {
    ColorPreset colors = ColorPreset::kNone;  ///< palette applied before style_rules
    bool expand_repeated = true;              ///< tree/dot/svg: repeat shared subtrees at every use
    std::vector<NodeStyleRule> style_rules = {};  ///< applied in order after the palette
};

/// The style of `node` under `options`: the palette's rules, then style_rules, each matching
/// rule overlaying the colours it sets.
[[nodiscard]] NodeStyle resolve_style(const Expr& node, const RenderOptions& options);

/// The renderings.
enum class RenderFormat : std::uint8_t { kEquation, kLatex, kTree, kDot, kSvg };

/// "equation", "latex", "tree", "dot" or "svg" (any case); ModelError otherwise.
[[nodiscard]] RenderFormat parse_render_format(std::string_view text);

/// Compact infix text, e.g. "|p * x - 2 * q|^2" (laddu's Expr.equation).
[[nodiscard]] std::string to_equation(const Expr& root, const RenderOptions& options = {});

/// A LaTeX math-mode fragment without $ delimiters: \frac, \sqrt, \cdot, \left(...\right);
/// vectors and matrices as bmatrix (amsmath). Parameters with a latex label print it.
[[nodiscard]] std::string to_latex(const Expr& root, const RenderOptions& options = {});

/// An indented tree, one node per line ("┣ lhs: #2 Binary(Add)"), under "ExprGraph(root=#k)".
/// With expand_repeated false a node's later uses are "#k <reference to #k>".
[[nodiscard]] std::string to_tree(const Expr& root, const RenderOptions& options = {});

/// Graphviz DOT source ("digraph ExprGraph {...}"), one DOT node per use of a node, or per
/// node with expand_repeated false; edges are labelled with the child's role ("lhs", "term[0]").
[[nodiscard]] std::string to_dot(const Expr& root, const RenderOptions& options = {});

/// A standalone SVG document of the DOT graph: boxes in layers (a child below its parents),
/// labelled edges with arrowheads, the styles' colours; on a dark background with kDark.
[[nodiscard]] std::string to_svg(const Expr& root, const RenderOptions& options = {});

/// to_svg written to `path` whole or not at all (AtomicFile); DataError naming the path when it
/// cannot be written.
void write_svg(const Expr& root, const std::string& path, const RenderOptions& options = {});

/// The rendering of `root` in `format`.
[[nodiscard]] std::string render(const Expr& root, RenderFormat format,
                                 const RenderOptions& options = {});

}  // namespace laddu::expr
