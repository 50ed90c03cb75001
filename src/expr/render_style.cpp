// Colours, selectors and palettes; node numbers, labels and number text for every renderer.
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/expr/render.hpp>
#include <laddu/expr/traversal.hpp>

#include "render_internal.hpp"

namespace laddu::expr {

namespace {

// laddu's operation names in labels ("Unary(NormSqr)"), in enum order; the operations laddu
// lacks are named in the same style, as the JSON writer names them.
constexpr std::array<const char*, 20> kUnaryLabels = {
    "Neg", "Real", "Imag", "Conj", "NormSqr", "Sqrt", "Exp",  "Log", "Sin", "Cos",
    "Tan", "Asin", "Acos", "Atan", "Sinh",    "Cosh", "Tanh", "Abs", "Arg", "PowI"};
constexpr std::array<const char*, 6> kBinaryLabels = {"Add", "Sub", "Mul", "Div", "Pow", "Atan2"};

static_assert(static_cast<std::size_t>(UnaryOp::kPowI) + 1 == kUnaryLabels.size());
static_assert(static_cast<std::size_t>(BinaryOp::kAtan2) + 1 == kBinaryLabels.size());

std::string lowered_and_trimmed(std::string_view text) {
    const auto space = [](char c) {
        return std::isspace(static_cast<unsigned char>(c)) != 0;
    };
    while (!text.empty() && space(text.front())) {
        text.remove_prefix(1);
    }
    while (!text.empty() && space(text.back())) {
        text.remove_suffix(1);
    }
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](char c) {
        return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    });
    return out;
}

// The shortest digits that read back to `value`, written without an exponent: Rust's Display
// of f64 ("1e300" is a 1 and 300 zeros). std::to_chars's fixed form would print the binary
// value's exact digits instead, so the scientific form's digits are placed by hand.
std::string shortest_fixed(double value) {
    std::array<char, 32> buffer{};
    const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                                      std::chars_format::scientific);
    const std::string_view text(buffer.data(), result.ptr);
    const std::size_t e = text.find('e');
    std::string_view mantissa = text.substr(0, e);
    int exponent = 0;
    std::from_chars(text.data() + e + 1 + (text[e + 1] == '+' ? 1 : 0), text.data() + text.size(),
                    exponent);
    std::string out;
    if (mantissa.front() == '-') {
        out += '-';
        mantissa.remove_prefix(1);
    }
    std::string digits;
    for (const char c : mantissa) {
        if (c != '.') {
            digits += c;
        }
    }
    // The decimal point goes after `point` digits.
    const long point = exponent + 1L;
    const auto count = static_cast<long>(digits.size());
    if (point <= 0) {
        out += "0.";
        out.append(static_cast<std::size_t>(-point), '0');
        out += digits;
    } else if (point >= count) {
        out += digits;
        out.append(static_cast<std::size_t>(point - count), '0');
    } else {
        out += digits.substr(0, static_cast<std::size_t>(point));
        out += '.';
        out += digits.substr(static_cast<std::size_t>(point));
    }
    return out;
}

}  // namespace

DisplayColor DisplayColor::checked(long long red, long long green, long long blue) {
    const auto channel = [](long long value, const char* name) {
        if (value < 0 || value > 255) {
            throw ModelError(fmt::format(
                "a DisplayColor channel is an integer from 0 to 255, but {} is {}", name, value));
        }
        return static_cast<std::uint8_t>(value);
    };
    return {channel(red, "red"), channel(green, "green"), channel(blue, "blue")};
}

std::string DisplayColor::hex() const {
    return fmt::format("#{:02x}{:02x}{:02x}", red, green, blue);
}

NodeSelector NodeSelector::any() {
    return {By::kAny, NodeKind::kRealConst, {}};
}

NodeSelector NodeSelector::kind(NodeKind kind) {
    return {By::kKind, kind, {}};
}

NodeSelector NodeSelector::name(std::string name) {
    return {By::kName, NodeKind::kRealConst, std::move(name)};
}

NodeSelector NodeSelector::tag(std::string tag) {
    return {By::kTag, NodeKind::kRealConst, std::move(tag)};
}

bool NodeSelector::matches(const Expr& node) const {
    switch (by_) {
    case By::kAny:
        return true;
    case By::kKind:
        return node.kind() == kind_;
    case By::kName:
        // laddu also matches a node's display name (Expr.named); laddu-cpp nodes have none.
        if (node.kind() == NodeKind::kParameter) {
            return node.node().parameter->name == text_;
        }
        return (node.kind() == NodeKind::kEventScalar ||
                node.kind() == NodeKind::kEventP4Component) &&
               node.node().name == text_;
    case By::kTag:
        return std::ranges::find(node.tags(), text_) != node.tags().end();
    }
    return false;
}

ColorPreset parse_color_preset(std::string_view text) {
    const std::string key = lowered_and_trimmed(text);
    if (key == "none") {
        return ColorPreset::kNone;
    }
    if (key == "light") {
        return ColorPreset::kLight;
    }
    if (key == "dark") {
        return ColorPreset::kDark;
    }
    throw ModelError(fmt::format("colors must be 'light', 'dark', 'none' or None, not '{}'", text));
}

std::vector<NodeStyleRule> preset_rules(ColorPreset preset) {
    if (preset == ColorPreset::kNone) {
        return {};
    }
    const bool light = preset == ColorPreset::kLight;
    // laddu's palettes: GitHub's light and dark greys, blues, purple and red.
    const DisplayColor constant = light ? DisplayColor{88, 96, 105} : DisplayColor{139, 148, 158};
    const DisplayColor parameter = light ? DisplayColor{0, 92, 197} : DisplayColor{88, 166, 255};
    const DisplayColor event = light ? DisplayColor{3, 102, 214} : DisplayColor{121, 192, 255};
    const DisplayColor operation = light ? DisplayColor{130, 80, 223} : DisplayColor{210, 168, 255};
    const DisplayColor linear_algebra =
        light ? DisplayColor{207, 34, 46} : DisplayColor{255, 123, 114};
    std::vector<NodeStyleRule> rules;
    const auto add = [&rules](std::initializer_list<NodeKind> kinds, DisplayColor color) {
        for (const NodeKind kind : kinds) {
            rules.push_back({NodeSelector::kind(kind), {.foreground = color, .border = color}});
        }
    };
    add({NodeKind::kRealConst, NodeKind::kComplexConst}, constant);
    add({NodeKind::kParameter}, parameter);
    add({NodeKind::kEventScalar, NodeKind::kEventP4Component}, event);
    add({NodeKind::kUnary, NodeKind::kBinary, NodeKind::kNaryAdd, NodeKind::kNaryMul,
         NodeKind::kComplex, NodeKind::kVector, NodeKind::kMatrix, NodeKind::kComponent,
         NodeKind::kMatrixElement},
        operation);
    add({NodeKind::kMatMul, NodeKind::kMatVec, NodeKind::kDot, NodeKind::kSolve}, linear_algebra);
    return rules;
}

NodeStyle resolve_style(const Expr& node, const RenderOptions& options) {
    NodeStyle style;
    const auto overlay = [&](const NodeStyleRule& rule) {
        if (!rule.selector.matches(node)) {
            return;
        }
        style.foreground = rule.style.foreground ? rule.style.foreground : style.foreground;
        style.fill = rule.style.fill ? rule.style.fill : style.fill;
        style.border = rule.style.border ? rule.style.border : style.border;
    };
    for (const NodeStyleRule& rule : preset_rules(options.colors)) {
        overlay(rule);
    }
    for (const NodeStyleRule& rule : options.style_rules) {
        overlay(rule);
    }
    return style;
}

RenderFormat parse_render_format(std::string_view text) {
    const std::string key = lowered_and_trimmed(text);
    constexpr std::array<std::pair<std::string_view, RenderFormat>, 5> kFormats = {{
        {"equation", RenderFormat::kEquation},
        {"latex", RenderFormat::kLatex},
        {"tree", RenderFormat::kTree},
        {"dot", RenderFormat::kDot},
        {"svg", RenderFormat::kSvg},
    }};
    for (const auto& [name, format] : kFormats) {
        if (key == name) {
            return format;
        }
    }
    throw ModelError(
        fmt::format("format must be 'equation', 'latex', 'tree', 'dot' or 'svg', not '{}'", text));
}

std::string render(const Expr& root, RenderFormat format, const RenderOptions& options) {
    switch (format) {
    case RenderFormat::kEquation:
        return to_equation(root, options);
    case RenderFormat::kLatex:
        return to_latex(root, options);
    case RenderFormat::kTree:
        return to_tree(root, options);
    case RenderFormat::kDot:
        return to_dot(root, options);
    case RenderFormat::kSvg:
        break;
    }
    return to_svg(root, options);
}

namespace render_detail {

NodeTable::NodeTable(const Expr& root, const RenderOptions& options) {
    std::vector<NodeStyleRule> rules = preset_rules(options.colors);
    rules.insert(rules.end(), options.style_rules.begin(), options.style_rules.end());
    const RenderOptions resolved{.style_rules = std::move(rules)};
    for (const Expr& node : topological_order(root)) {
        index_.emplace(node.id(), styles_.size());
        styles_.push_back(resolve_style(node, resolved));
    }
}

std::string real_text(double value) {
    if (std::isnan(value)) {
        return "NaN";
    }
    if (std::isinf(value)) {
        return value > 0 ? "inf" : "-inf";
    }
    // A value a few ulps from a short decimal (0.30000000000000004) prints as that decimal.
    constexpr std::array<double, 13> kScales = {1e0, 1e1, 1e2, 1e3,  1e4,  1e5, 1e6,
                                                1e7, 1e8, 1e9, 1e10, 1e11, 1e12};
    for (std::size_t decimals = 0; decimals < kScales.size(); ++decimals) {
        const double rounded = std::round(value * kScales[decimals]) / kScales[decimals];
        const double tolerance = std::numeric_limits<double>::epsilon() *
                                 std::max({std::fabs(value), std::fabs(rounded), 1.0}) * 16.0;
        if (std::fabs(value - rounded) > tolerance) {
            continue;
        }
        if (decimals == 0) {
            return shortest_fixed(rounded);
        }
        std::string text = fmt::format("{:.{}f}", rounded, decimals);
        while (text.back() == '0') {
            text.pop_back();
        }
        if (text.back() == '.') {
            text.pop_back();
        }
        return text;
    }
    return shortest_fixed(value);
}

std::string imaginary_text(double value) {
    if (value == 1.0) {
        return "i";
    }
    if (value == -1.0) {
        return "-i";
    }
    return real_text(value) + "i";
}

std::string complex_text(double re, double im) {
    if (im == 0.0) {
        return real_text(re);
    }
    if (re == 0.0) {
        return imaginary_text(im);
    }
    if (im < 0.0) {
        return real_text(re) + " - " + imaginary_text(-im);
    }
    return real_text(re) + " + " + imaginary_text(im);
}

std::string node_label(const Expr& node, std::size_t index) {
    const detail::Node& n = node.node();
    std::string label = fmt::format("#{} ", index);
    switch (n.kind) {
    case NodeKind::kRealConst:
        label += fmt::format("RealConst({})", real_text(n.re));
        break;
    case NodeKind::kComplexConst:
        label += fmt::format("ComplexConst({})", complex_text(n.re, n.im));
        break;
    case NodeKind::kParameter:
        label += fmt::format("ScalarParam({})", n.parameter->name);
        break;
    case NodeKind::kEventScalar:
        label += fmt::format("EventScalar({})", n.name);
        break;
    case NodeKind::kEventP4Component:
        label += fmt::format("EventP4Component({}.{})", n.name, to_string(n.p4_component()));
        break;
    case NodeKind::kUnary:
        label += n.unary_op() == UnaryOp::kPowI ? fmt::format("Unary(PowI({}))", n.index)
                                                : fmt::format("Unary({})", kUnaryLabels.at(n.op));
        break;
    case NodeKind::kBinary:
        label += fmt::format("Binary({})", kBinaryLabels.at(n.op));
        break;
    case NodeKind::kNaryAdd:
        label += fmt::format("NaryAdd(len={})", n.children.size());
        break;
    case NodeKind::kNaryMul:
        label += fmt::format("NaryMul(len={})", n.children.size());
        break;
    case NodeKind::kVector:
        label += fmt::format("Vector(len={})", n.children.size());
        break;
    case NodeKind::kMatrix:
        label += fmt::format("Matrix({}x{})", n.value_kind.rows, n.value_kind.cols);
        break;
    case NodeKind::kComponent:
        label += fmt::format("Component(index={})", n.index);
        break;
    case NodeKind::kMatrixElement:
        label += fmt::format("MatrixElement(row={}, col={})", n.index, n.index2);
        break;
    case NodeKind::kComplex:
    case NodeKind::kMatMul:
    case NodeKind::kMatVec:
    case NodeKind::kDot:
    case NodeKind::kSolve:
        label += to_string(n.kind);
        break;
    }
    if (!n.tags.empty()) {
        label += fmt::format(" tags=[{}]", fmt::join(n.tags, ", "));
    }
    return label;
}

std::string child_label(const Expr& node, std::size_t k) {
    switch (node.kind()) {
    case NodeKind::kUnary:
    case NodeKind::kComponent:
    case NodeKind::kMatrixElement:
        return "input";
    case NodeKind::kBinary:
    case NodeKind::kMatMul:
    case NodeKind::kDot:
        return k == 0 ? "lhs" : "rhs";
    case NodeKind::kNaryAdd:
        return fmt::format("term[{}]", k);
    case NodeKind::kNaryMul:
        return fmt::format("factor[{}]", k);
    case NodeKind::kComplex:
        return k == 0 ? "re" : "im";
    case NodeKind::kVector:
        return fmt::format("element[{}]", k);
    case NodeKind::kMatrix: {
        const std::uint32_t cols = node.value_kind().cols;
        return fmt::format("element[{},{}]", k / cols, k % cols);
    }
    case NodeKind::kMatVec:
        return k == 0 ? "matrix" : "vector";
    case NodeKind::kSolve:
        return k == 0 ? "matrix" : "rhs";
    case NodeKind::kRealConst:
    case NodeKind::kComplexConst:
    case NodeKind::kParameter:
    case NodeKind::kEventScalar:
    case NodeKind::kEventP4Component:
        break;
    }
    throw InternalError("child_label: a leaf has no children");
}

std::pair<std::string, std::string> ansi_codes(const NodeStyle& style) {
    if (!style.foreground && !style.fill) {
        return {};
    }
    std::string open;
    if (style.foreground) {
        const DisplayColor& c = *style.foreground;
        open += fmt::format("\x1b[38;2;{};{};{}m", c.red, c.green, c.blue);
    }
    if (style.fill) {
        const DisplayColor& c = *style.fill;
        open += fmt::format("\x1b[48;2;{};{};{}m", c.red, c.green, c.blue);
    }
    return {std::move(open), "\x1b[0m"};
}

std::string ansi(const NodeStyle& style, std::string_view text) {
    auto [open, close] = ansi_codes(style);
    return open + std::string(text) + close;
}

std::size_t expanded_uses(const Expr& root) {
    // Uses of a node's subtree when every use is written out: itself and its children's, which
    // overflow quickly (x = x * x forty times), so the count saturates.
    constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
    std::unordered_map<const void*, std::size_t> uses;
    for (const Expr& node : topological_order(root)) {
        std::size_t total = 1;
        for (const Expr& child : node.children()) {
            const std::size_t more = uses.at(child.id());
            total = more > kMax - total ? kMax : total + more;
        }
        uses.emplace(node.id(), total);
    }
    return uses.at(root.id());
}

void check_size(std::size_t bytes, std::string_view what, std::string_view remedy) {
    if (bytes > kMaxRenderBytes) {
        throw ModelError(fmt::format("{} of this expression would exceed {} MiB, since shared "
                                     "subexpressions are written out at every use: {}",
                                     what, kMaxRenderBytes >> 20, remedy));
    }
}

}  // namespace render_detail

}  // namespace laddu::expr
