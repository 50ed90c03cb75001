// to_svg: the DOT graph drawn as a standalone SVG document.
//
// laddu renders its DOT text with a Graphviz-like layout library; laddu-cpp lays the graph out
// itself, in layers. Every node gets a layer below all its parents (its depth in the expanded
// tree; the longest path from the root in the shared graph) and a horizontal slot from a tidy
// tree layout of the spanning tree the first visits make: a node's slot is as wide as its box or
// its tree children's slots side by side, and it sits centred above them. Two nodes on one layer
// are never one another's tree ancestors (an ancestor's layer is smaller), so their slots, and
// boxes, do not overlap. Edges are straight (curved when one parent uses a child twice) and
// point down. Every walk is iterative, for graphs 10^5 levels deep.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <laddu/base/atomic_file.hpp>
#include <laddu/expr/render.hpp>
#include <laddu/expr/traversal.hpp>

#include "render_internal.hpp"

namespace laddu::expr {

namespace {

using render_detail::NodeTable;

constexpr double kFontSize = 12.0;
constexpr double kCharWidth = 7.3;  // a 12 px monospace advance, rounded up
constexpr double kBoxPadding = 10.0;
constexpr double kBoxHeight = 26.0;
constexpr double kColumnGap = 14.0;
constexpr double kLayerGap = 50.0;  // room for the edge labels between layers
constexpr double kMargin = 16.0;
constexpr double kDuplicateBend = 28.0;    // how far a repeated edge between two boxes bows out
constexpr std::size_t kBytesPerBox = 320;  // a node and its edge, for the size guard

// The colours a node's style does not set, and the background: the dark palette is meant for
// dark backgrounds, so its drawing gets one (GitHub's dark theme, as the palette).
struct Scheme {
    DisplayColor ink;
    DisplayColor paper;
    DisplayColor edge_ink;
};

constexpr Scheme kLightScheme{{0, 0, 0}, {255, 255, 255}, {85, 85, 85}};
constexpr Scheme kDarkScheme{{201, 209, 217}, {13, 17, 23}, {139, 148, 158}};

struct Box {
    std::string label = {};
    NodeStyle style = {};
    std::size_t layer = 0;
    std::vector<std::size_t> tree_children = {};  ///< in order; their slots sit side by side
    double width = 0.0;
    double slot = 0.0;  ///< width of the column the box and its tree children occupy
    double x = 0.0;     ///< centre
};

struct Edge {
    std::size_t from = 0;
    std::size_t to = 0;
    std::string label = {};
};

struct Layout {
    std::vector<Box> boxes = {};  ///< in pre-order of first visits: a tree child after its parent
    std::vector<Edge> edges = {};
};

// Code points, for the width of monospace text.
std::size_t text_columns(std::string_view text) {
    return static_cast<std::size_t>(std::ranges::count_if(
        text, [](char c) { return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U; }));
}

// The length of the UTF-8 sequence at text[i], or 0 when the bytes there are not one: a lead
// byte and its continuation bytes, the code point neither overlong nor a surrogate nor beyond
// U+10FFFF (nor U+FFFE, U+FFFF, which XML forbids).
std::size_t utf8_length(std::string_view text, std::size_t i) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = lead >= 0xF0U ? 4 : lead >= 0xE0U ? 3 : lead >= 0xC2U ? 2 : 0;
    if (length == 0 || lead > 0xF4U || i + length > text.size()) {
        return 0;
    }
    std::uint32_t code = lead & (0xFFU >> (length + 1));
    for (std::size_t k = 1; k < length; ++k) {
        const auto next = static_cast<unsigned char>(text[i + k]);
        if ((next & 0xC0U) != 0x80U) {
            return 0;
        }
        code = (code << 6) | (next & 0x3FU);
    }
    const bool overlong = (length == 3 && code < 0x800U) || (length == 4 && code < 0x10000U);
    const bool forbidden = (code >= 0xD800U && code <= 0xDFFFU) || code > 0x10FFFFU ||
                           code == 0xFFFEU || code == 0xFFFFU;
    return overlong || forbidden ? 0 : length;
}

// Text safe inside XML: markup characters escaped, control characters XML 1.0 forbids and
// bytes that are not UTF-8 replaced by U+FFFD (names can come from anywhere).
std::string xml_text(std::string_view text) {
    constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (static_cast<unsigned char>(c) >= 0x80U) {
            const std::size_t length = utf8_length(text, i);
            out += length == 0 ? kReplacement : text.substr(i, length);
            i += std::max<std::size_t>(length, 1);
            continue;
        }
        ++i;
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&apos;";
            break;
        case '\t':
        case '\n':
        case '\r':
            out += c;
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20U) {
                out += kReplacement;
            } else {
                out += c;
            }
        }
    }
    return out;
}

// One box per use of a node: the expanded tree itself.
Layout expanded_layout(const Expr& root, const NodeTable& table) {
    Layout layout;

    struct Item {
        const Expr* node = nullptr;
        const Expr* parent_node = nullptr;  ///< null for the root
        std::size_t parent = 0;
        std::size_t k = 0;
    };

    std::vector<Item> stack{{.node = &root}};
    while (!stack.empty()) {
        const Item item = stack.back();
        stack.pop_back();
        const std::size_t id = layout.boxes.size();
        render_detail::check_size(id * kBytesPerBox, "the SVG", render_detail::kExpandRemedy);
        Box box{.label = render_detail::node_label(*item.node, table.index(*item.node)),
                .style = table.style(*item.node)};
        if (item.parent_node != nullptr) {
            Box& parent = layout.boxes[item.parent];
            box.layer = parent.layer + 1;
            parent.tree_children.push_back(id);
            layout.edges.push_back(
                {item.parent, id, render_detail::child_label(*item.parent_node, item.k)});
        }
        layout.boxes.push_back(std::move(box));
        const std::span<const Expr> children = item.node->children();
        for (std::size_t k = children.size(); k-- > 0;) {
            stack.push_back({&children[k], item.node, id, k});
        }
    }
    return layout;
}

// One box per distinct node, on the layer of its longest path from the root; the tree that
// places it horizontally is that of first visits in pre-order.
Layout shared_layout(const Expr& root, const NodeTable& table) {
    Layout layout;
    std::unordered_map<const void*, std::size_t> box_of;

    struct Item {
        const Expr* node = nullptr;
        const Expr* parent_node = nullptr;
        std::size_t parent = 0;
    };

    std::vector<Item> stack{{.node = &root}};
    while (!stack.empty()) {
        const Item item = stack.back();
        stack.pop_back();
        if (box_of.contains(item.node->id())) {
            continue;
        }
        const std::size_t id = layout.boxes.size();
        box_of.emplace(item.node->id(), id);
        layout.boxes.push_back(
            {.label = render_detail::node_label(*item.node, table.index(*item.node)),
             .style = table.style(*item.node)});
        if (item.parent_node != nullptr) {
            layout.boxes[item.parent].tree_children.push_back(id);
        }
        const std::span<const Expr> children = item.node->children();
        for (std::size_t k = children.size(); k-- > 0;) {
            stack.push_back({&children[k], item.node, id});
        }
    }
    // Parents before children: the reverse of the post-order.
    const std::vector<Expr> order = topological_order(root);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const std::size_t from = box_of.at(it->id());
        const std::span<const Expr> children = it->children();
        for (std::size_t k = 0; k < children.size(); ++k) {
            const std::size_t to = box_of.at(children[k].id());
            layout.boxes[to].layer = std::max(layout.boxes[to].layer, layout.boxes[from].layer + 1);
            layout.edges.push_back({from, to, render_detail::child_label(*it, k)});
        }
    }
    return layout;
}

// Slot widths children first (reverse pre-order), then positions parents first.
void place(Layout& layout) {
    std::vector<Box>& boxes = layout.boxes;
    for (Box& box : boxes) {
        box.width = static_cast<double>(text_columns(box.label)) * kCharWidth + 2 * kBoxPadding;
    }
    const auto children_width = [&](const Box& box) {
        double total = 0.0;
        for (const std::size_t c : box.tree_children) {
            total += boxes[c].slot;
        }
        return total + kColumnGap * static_cast<double>(box.tree_children.size() -
                                                        (box.tree_children.empty() ? 0 : 1));
    };
    for (auto it = boxes.rbegin(); it != boxes.rend(); ++it) {
        it->slot = std::max(it->width, children_width(*it));
    }
    std::vector<double> left(boxes.size(), kMargin);
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        Box& box = boxes[i];
        box.x = left[i] + box.slot / 2;
        double next = left[i] + (box.slot - children_width(box)) / 2;
        for (const std::size_t c : box.tree_children) {
            left[c] = next;
            next += boxes[c].slot + kColumnGap;
        }
    }
}

double layer_top(std::size_t layer) {
    return kMargin + static_cast<double>(layer) * (kBoxHeight + kLayerGap);
}

std::string write_document(const Layout& layout, const Scheme& scheme) {
    double width = 0.0;
    std::size_t layers = 0;
    for (const Box& box : layout.boxes) {
        width = std::max(width, box.x + box.slot / 2);
        layers = std::max(layers, box.layer + 1);
    }
    width += kMargin;
    const double height = layer_top(layers) - kLayerGap + kMargin;
    std::string out = fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.1f}\" height=\"{1:.1f}\" "
        "viewBox=\"0 0 {0:.1f} {1:.1f}\" font-family=\"monospace\">\n"
        "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
        "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M 0 0 L 10 5 L 0 10 z\" "
        "fill=\"{2}\"/></marker></defs>\n"
        "<rect width=\"100%\" height=\"100%\" fill=\"{3}\"/>\n<g class=\"edges\">\n",
        width, height, scheme.edge_ink.hex(), scheme.paper.hex());
    // A parent that uses one child several times (matmul(A, A)) gets bowed edges, one per use.
    std::map<std::pair<std::size_t, std::size_t>, int> uses;
    for (const Edge& edge : layout.edges) {
        const Box& from = layout.boxes[edge.from];
        const Box& to = layout.boxes[edge.to];
        const int repeat = uses[{edge.from, edge.to}]++;
        // Bowed right, left, further right, ...: the k-th repeat by ceil(k / 2) steps.
        const int steps = (repeat + 1) / 2;
        const double bend = kDuplicateBend * static_cast<double>(repeat % 2 == 1 ? steps : -steps);
        const double x1 = from.x;
        const double y1 = layer_top(from.layer) + kBoxHeight;
        const double x2 = to.x;
        const double y2 = layer_top(to.layer);
        const double cx = (x1 + x2) / 2 + bend;
        const double cy = (y1 + y2) / 2;
        // The middle of the quadratic curve, where its label goes.
        const double mx = 0.25 * x1 + 0.5 * cx + 0.25 * x2;
        const double my = 0.25 * y1 + 0.5 * cy + 0.25 * y2;
        out += fmt::format(
            "<path d=\"M {:.1f} {:.1f} Q {:.1f} {:.1f} {:.1f} {:.1f}\" fill=\"none\" "
            "stroke=\"{}\" marker-end=\"url(#arrow)\"/>\n"
            "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" text-anchor=\"middle\" "
            "dominant-baseline=\"central\" fill=\"{}\" stroke=\"{}\" stroke-width=\"3\" "
            "paint-order=\"stroke\">{}</text>\n",
            x1, y1, cx, cy, x2, y2, scheme.edge_ink.hex(), mx, my, scheme.edge_ink.hex(),
            scheme.paper.hex(), xml_text(edge.label));
        render_detail::check_size(out.size(), "the SVG", render_detail::kExpandRemedy);
    }
    out += "</g>\n<g class=\"nodes\">\n";
    for (const Box& box : layout.boxes) {
        const std::string label = xml_text(box.label);
        const double top = layer_top(box.layer);
        out += fmt::format(
            "<g><title>{0}</title><rect x=\"{1:.1f}\" y=\"{2:.1f}\" width=\"{3:.1f}\" "
            "height=\"{4:.1f}\" rx=\"4\" fill=\"{5}\" stroke=\"{6}\"/>"
            "<text x=\"{7:.1f}\" y=\"{8:.1f}\" font-size=\"{9:.0f}\" text-anchor=\"middle\" "
            "dominant-baseline=\"central\" fill=\"{10}\">{0}</text></g>\n",
            label, box.x - box.width / 2, top, box.width, kBoxHeight,
            box.style.fill.value_or(scheme.paper).hex(),
            box.style.border.value_or(scheme.ink).hex(), box.x, top + kBoxHeight / 2, kFontSize,
            box.style.foreground.value_or(scheme.ink).hex());
        render_detail::check_size(out.size(), "the SVG", render_detail::kExpandRemedy);
    }
    return out + "</g>\n</svg>\n";
}

}  // namespace

std::string to_svg(const Expr& root, const RenderOptions& options) {
    if (options.expand_repeated) {
        render_detail::check_size(
            render_detail::saturating_product(render_detail::expanded_uses(root), kBytesPerBox),
            "the SVG", render_detail::kExpandRemedy);
    }
    const NodeTable table(root, options);
    Layout layout =
        options.expand_repeated ? expanded_layout(root, table) : shared_layout(root, table);
    place(layout);
    return write_document(layout,
                          options.colors == ColorPreset::kDark ? kDarkScheme : kLightScheme);
}

void write_svg(const Expr& root, const std::string& path, const RenderOptions& options) {
    const std::string svg = to_svg(root, options);
    AtomicFile file(path);
    file.write(svg);
    file.commit();
}

}  // namespace laddu::expr
