// to_dot: the graph as Graphviz DOT in laddu's layout of the text (node lines in pre-order,
// each edge after its child's subtree), so the two libraries' outputs can be compared line for
// line.
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include <laddu/expr/render.hpp>

#include "render_internal.hpp"

namespace laddu::expr {

namespace {

using render_detail::NodeTable;

std::string escape_dot(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
        case '\\':
            out += "\\\\";
            break;
        case '"':
            out += "\\\"";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        default:
            out += c;
        }
    }
    return out;
}

std::string attributes(const Expr& node, const NodeTable& table) {
    std::string out =
        fmt::format("label=\"{}\"", escape_dot(render_detail::node_label(node, table.index(node))));
    const NodeStyle& style = table.style(node);
    if (style.foreground) {
        out += fmt::format(", fontcolor=\"{}\"", style.foreground->hex());
    }
    if (style.border) {
        out += fmt::format(", color=\"{}\"", style.border->hex());
    }
    if (style.fill) {
        out += fmt::format(", fillcolor=\"{}\", style=filled", style.fill->hex());
    }
    return out;
}

enum class Step : std::uint8_t { kVisit, kChildren, kEdge };

// A step of the walk: visit `node`, or continue with its child k, or write the edge to it.
struct Frame {
    Step step = Step::kVisit;
    const Expr* node = nullptr;
    std::size_t k = 0;       ///< kChildren, kEdge: which child
    std::size_t parent = 0;  ///< expanded walk: the DOT numbers of the edge's two ends
    std::size_t child = 0;
};

// One DOT node per use, numbered n0, n1, ... in pre-order; each edge follows its child's
// subtree.
void write_expanded(const Expr& root, const NodeTable& table, std::string& out) {
    std::size_t uses = 0;
    std::vector<Frame> stack{{.step = Step::kVisit, .node = &root}};
    while (!stack.empty()) {
        const Frame f = stack.back();
        stack.pop_back();
        switch (f.step) {
        case Step::kVisit:
            out += fmt::format("  n{} [{}];\n", uses, attributes(*f.node, table));
            render_detail::check_size(out.size(), "the DOT graph", render_detail::kExpandRemedy);
            stack.push_back({.step = Step::kChildren, .node = f.node, .k = 0, .parent = uses++});
            break;
        case Step::kChildren:
            if (f.k < f.node->children().size()) {
                // The child is visited next, so it gets the next number.
                stack.push_back(
                    {.step = Step::kChildren, .node = f.node, .k = f.k + 1, .parent = f.parent});
                stack.push_back({.step = Step::kEdge,
                                 .node = f.node,
                                 .k = f.k,
                                 .parent = f.parent,
                                 .child = uses});
                stack.push_back({.step = Step::kVisit, .node = &f.node->children()[f.k]});
            }
            break;
        case Step::kEdge:
            out += fmt::format("  n{} -> n{} [label=\"{}\"];\n", f.parent, f.child,
                               escape_dot(render_detail::child_label(*f.node, f.k)));
            break;
        }
    }
}

// One DOT node per distinct node, named n<#k>; an edge per use.
void write_shared(const Expr& root, const NodeTable& table, std::string& out) {
    std::unordered_set<const void*> seen;
    std::vector<Frame> stack{{.step = Step::kVisit, .node = &root}};
    while (!stack.empty()) {
        const Frame f = stack.back();
        stack.pop_back();
        const Expr& node = *f.node;
        if (f.step == Step::kEdge) {
            out += fmt::format("  n{} -> n{} [label=\"{}\"];\n", table.index(node),
                               table.index(node.children()[f.k]),
                               escape_dot(render_detail::child_label(node, f.k)));
            continue;
        }
        if (!seen.insert(node.id()).second) {
            continue;
        }
        out += fmt::format("  n{} [{}];\n", table.index(node), attributes(node, table));
        for (std::size_t k = node.children().size(); k-- > 0;) {
            stack.push_back({.step = Step::kEdge, .node = &node, .k = k});
            stack.push_back({.step = Step::kVisit, .node = &node.children()[k]});
        }
    }
}

}  // namespace

std::string to_dot(const Expr& root, const RenderOptions& options) {
    const NodeTable table(root, options);
    std::string out = "digraph ExprGraph {\n";
    if (options.expand_repeated) {
        // Each use writes at least a line of ~24 bytes: refuse a blow-up before writing it.
        render_detail::check_size(
            render_detail::saturating_product(render_detail::expanded_uses(root), 24),
            "the DOT graph", render_detail::kExpandRemedy);
        write_expanded(root, table, out);
    } else {
        write_shared(root, table, out);
    }
    return out + "}\n";
}

}  // namespace laddu::expr
