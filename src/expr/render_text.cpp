// to_equation, to_latex and to_tree.
//
// Equations and LaTeX are written as laddu writes them: each node's text is a template of
// literal pieces and child references (with the precedence below which the child needs
// parentheses), and the writer expands templates with an explicit stack straight into the
// output, so graphs 10^5 levels deep print without recursion and no subtree's text is copied
// into its parent's. A node's template depends only on the node, its children and (for signs)
// its grandchildren, so it is built once per distinct node.
#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include <laddu/expr/render.hpp>

#include "render_internal.hpp"

namespace laddu::expr {

namespace {

using render_detail::NodeTable;

// Binding strength, loosest first: a child whose precedence is below its context's gets
// parentheses (and one equal to it too, where the context says so: the right of a minus).
enum class Prec : std::uint8_t { kLowest, kAdd, kMul, kUnary, kPow, kPostfix, kAtom };

enum class Dialect : std::uint8_t { kEquation, kLatex };

// A literal (node == nullptr) or a child written in a context of precedence `context`.
struct Piece {
    std::string text = {};
    const Expr* node = nullptr;
    Prec context = Prec::kLowest;
    bool paren_equal = false;
};

struct Template {
    std::vector<Piece> pieces = {};
    Prec prec = Prec::kAtom;
    std::string open = {};  ///< the node's colour around its text ("" when unstyled)
    std::string close = {};
};

bool is_negative_constant(const Expr& e) {
    return e.kind() == NodeKind::kRealConst && e.node().re < 0.0;
}

bool is_neg(const Expr& e) {
    return e.kind() == NodeKind::kUnary && e.node().unary_op() == UnaryOp::kNeg;
}

// The function a node is written as: complex(re, im), matmul(a, b), ...
const char* call_name(NodeKind kind) {
    switch (kind) {
    case NodeKind::kComplex:
        return "complex";
    case NodeKind::kMatMul:
        return "matmul";
    case NodeKind::kMatVec:
        return "matvec";
    case NodeKind::kDot:
        return "dot";
    default:
        return "solve";
    }
}

std::string escape_latex(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
        case '\\':
            out += "\\backslash ";
            break;
        case '{':
        case '}':
        case '_':
        case '#':
        case '$':
        case '%':
        case '&':
            out += '\\';
            out += c;
            break;
        case '^':
            out += "\\^{}";
            break;
        case '~':
            out += "\\~{}";
            break;
        default:
            out += c;
        }
    }
    return out;
}

class TextWriter {
public:
    TextWriter(const Expr& root, const RenderOptions& options, Dialect dialect)
        : root_(root), table_(root, options), dialect_(dialect) {}

    std::string write() {
        const char* what = dialect_ == Dialect::kLatex ? "the LaTeX" : "the equation";
        constexpr std::string_view kRemedy =
            "use tree() or dot() with expand_repeated=False, or str(), which write each shared "
            "node once";

        struct Item {
            const std::string* text = nullptr;  ///< a literal, or
            const Piece* child = nullptr;       ///< a child to expand
        };

        // Every use of a node writes at least one byte: refuse a blow-up before writing it.
        render_detail::check_size(render_detail::expanded_uses(root_), what, kRemedy);
        const Piece top{.node = &root_};
        std::vector<Item> stack{{nullptr, &top}};
        std::string out;
        while (!stack.empty()) {
            const Item item = stack.back();
            stack.pop_back();
            if (item.text != nullptr) {
                out += *item.text;
                render_detail::check_size(out.size(), what, kRemedy);
                continue;
            }
            const Piece& piece = *item.child;
            const Template& t = template_of(*piece.node);
            const bool parens =
                t.prec < piece.context || (piece.paren_equal && t.prec == piece.context);
            // Pushed in reverse: ( open pieces... close ).
            if (parens) {
                stack.push_back({&close_paren_, nullptr});
            }
            stack.push_back({&t.close, nullptr});
            for (auto it = t.pieces.rbegin(); it != t.pieces.rend(); ++it) {
                stack.push_back(it->node == nullptr ? Item{&it->text, nullptr}
                                                    : Item{nullptr, &*it});
            }
            stack.push_back({&t.open, nullptr});
            if (parens) {
                stack.push_back({&open_paren_, nullptr});
            }
        }
        return out;
    }

private:
    const Template& template_of(const Expr& node) {
        const auto found = templates_.find(node.id());
        if (found != templates_.end()) {
            return found->second;
        }
        Template t = build(node);
        const auto [open, close] = decoration(node);
        t.open = open;
        t.close = close;
        return templates_.emplace(node.id(), std::move(t)).first->second;
    }

    std::pair<std::string, std::string> decoration(const Expr& node) const {
        const NodeStyle& style = table_.style(node);
        if (dialect_ == Dialect::kLatex) {
            if (!style.foreground) {
                return {};
            }
            const DisplayColor& c = *style.foreground;
            return {fmt::format("{{\\color[RGB]{{{},{},{}}}", c.red, c.green, c.blue), "}"};
        }
        return render_detail::ansi_codes(style);
    }

    // --- pieces ---

    static void literal(std::vector<Piece>& out, std::string text) {
        if (!out.empty() && out.back().node == nullptr) {
            out.back().text += text;
        } else {
            out.push_back({.text = std::move(text)});
        }
    }

    static void child(std::vector<Piece>& out, const Expr& e, Prec context,
                      bool paren_equal = false) {
        out.push_back({.node = &e, .context = context, .paren_equal = paren_equal});
    }

    // `text` coloured as node `e` is (a constant written in place of its node, with its sign
    // taken out).
    std::string decorated(const Expr& e, const std::string& text) const {
        const auto [open, close] = decoration(e);
        return open + text + close;
    }

    std::string number(double value) const {
        if (dialect_ == Dialect::kEquation) {
            return render_detail::real_text(value);
        }
        if (std::isnan(value)) {
            return "\\mathrm{NaN}";
        }
        if (std::isinf(value)) {
            return value > 0 ? "\\infty" : "-\\infty";
        }
        return render_detail::real_text(value);
    }

    std::string imaginary(double value) const {
        if (dialect_ == Dialect::kEquation) {
            return render_detail::imaginary_text(value);
        }
        if (value == 1.0) {
            return "\\mathrm{i}";
        }
        if (value == -1.0) {
            return "-\\mathrm{i}";
        }
        return number(value) + "\\mathrm{i}";
    }

    // f(args) in the equation, \operatorname{f}\left(args\right) in LaTeX.
    void call(std::vector<Piece>& out, std::string_view name, std::span<const Expr> args) const {
        literal(out, dialect_ == Dialect::kLatex ? fmt::format("\\operatorname{{{}}}\\left(", name)
                                                 : fmt::format("{}(", name));
        for (std::size_t k = 0; k < args.size(); ++k) {
            if (k > 0) {
                literal(out, ", ");
            }
            child(out, args[k], Prec::kLowest);
        }
        literal(out, dialect_ == Dialect::kLatex ? "\\right)" : ")");
    }

    // A function with its own LaTeX command (\sin, \arccos) or a plain name in the equation.
    void function(std::vector<Piece>& out, std::string_view name, std::string_view latex,
                  const Expr& arg) const {
        if (dialect_ == Dialect::kEquation) {
            call(out, name, {&arg, 1});
            return;
        }
        literal(out, fmt::format("\\{}\\left(", latex));
        child(out, arg, Prec::kLowest);
        literal(out, "\\right)");
    }

    // text, open, arg, close: |x|, \sqrt{x}, \overline{x}.
    static void wrapped(std::vector<Piece>& out, std::string open, const Expr& arg,
                        std::string close) {
        literal(out, std::move(open));
        child(out, arg, Prec::kLowest);
        literal(out, std::move(close));
    }

    // The factors of a product without its sign; returns whether the sign is negative. A factor
    // -1 is dropped (unless alone) and a negated factor loses its minus, which moves out front.
    bool product_parts(std::vector<Piece>& out, std::span<const Expr> factors) const {
        bool negative = false;
        bool first = true;
        const std::string separator = dialect_ == Dialect::kLatex ? " \\cdot " : " * ";
        for (const Expr& factor : factors) {
            const auto separate = [&] {
                if (!first) {
                    literal(out, separator);
                }
                first = false;
            };
            if (is_negative_constant(factor)) {
                negative = !negative;
                if (factor.node().re != -1.0 || factors.size() == 1) {
                    separate();
                    literal(out, decorated(factor, number(-factor.node().re)));
                }
            } else if (is_neg(factor)) {
                negative = !negative;
                separate();
                child(out, factor.children()[0], Prec::kMul);
            } else {
                separate();
                child(out, factor, Prec::kMul);
            }
        }
        if (first) {
            literal(out, "1");
        }
        return negative;
    }

    Prec product(std::vector<Piece>& out, std::span<const Expr> factors) const {
        std::vector<Piece> parts;
        const bool negative = product_parts(parts, factors);
        if (negative) {
            literal(out, "-");
        }
        out.insert(out.end(), parts.begin(), parts.end());
        return negative ? Prec::kUnary : Prec::kMul;
    }

    // Terms joined by + and -, a negative term's sign becoming the operator.
    Prec sum(std::vector<Piece>& out, std::span<const Expr> terms) const {
        bool first = true;
        for (const Expr& term : terms) {
            std::vector<Piece> body;
            bool negative = false;
            if (is_negative_constant(term)) {
                negative = true;
                literal(body, decorated(term, number(-term.node().re)));
            } else if (is_neg(term)) {
                negative = true;
                child(body, term.children()[0], Prec::kAdd);
            } else if (term.kind() == NodeKind::kNaryMul) {
                negative = product_parts(body, term.children());
            } else {
                child(body, term, Prec::kAdd);
            }
            if (first) {
                literal(out, negative ? "-" : "");
            } else {
                literal(out, negative ? " - " : " + ");
            }
            first = false;
            out.insert(out.end(), body.begin(), body.end());
        }
        if (first) {
            literal(out, "0");
        }
        return Prec::kAdd;
    }

    void elements(std::vector<Piece>& out, std::span<const Expr> items,
                  std::string_view separator) const {
        for (std::size_t k = 0; k < items.size(); ++k) {
            if (k > 0) {
                literal(out, std::string(separator));
            }
            child(out, items[k], Prec::kLowest);
        }
    }

    Template build(const Expr& node) const;
    Prec build_leaf(std::vector<Piece>& out, const Expr& node) const;
    void build_aggregate(std::vector<Piece>& out, const Expr& node) const;
    void build_element(std::vector<Piece>& out, const Expr& node) const;
    Prec build_unary(std::vector<Piece>& out, const Expr& node) const;
    Prec build_binary(std::vector<Piece>& out, const Expr& node) const;

    const Expr& root_;
    NodeTable table_;
    Dialect dialect_;
    std::unordered_map<const void*, Template> templates_;
    std::string open_paren_ = dialect_ == Dialect::kLatex ? "\\left(" : "(";
    std::string close_paren_ = dialect_ == Dialect::kLatex ? "\\right)" : ")";
};

Prec TextWriter::build_unary(std::vector<Piece>& out, const Expr& node) const {
    const bool latex = dialect_ == Dialect::kLatex;
    const Expr& x = node.children()[0];
    switch (node.node().unary_op()) {
    case UnaryOp::kNeg:
        literal(out, "-");
        child(out, x, Prec::kUnary, true);
        return Prec::kUnary;
    case UnaryOp::kReal:
        call(out, latex ? "Re" : "real", {&x, 1});
        return Prec::kAtom;
    case UnaryOp::kImag:
        call(out, latex ? "Im" : "imag", {&x, 1});
        return Prec::kAtom;
    case UnaryOp::kConj:
        if (latex) {
            wrapped(out, "\\overline{", x, "}");
        } else {
            call(out, "conj", {&x, 1});
        }
        return Prec::kAtom;
    case UnaryOp::kNormSqr:
        wrapped(out, latex ? "\\left|" : "|", x, latex ? "\\right|^{2}" : "|^2");
        return Prec::kPow;
    case UnaryOp::kAbs:
        wrapped(out, latex ? "\\left|" : "|", x, latex ? "\\right|" : "|");
        return Prec::kAtom;
    case UnaryOp::kSqrt:
        if (latex) {
            wrapped(out, "\\sqrt{", x, "}");
        } else {
            call(out, "sqrt", {&x, 1});
        }
        return Prec::kAtom;
    case UnaryOp::kExp:
        function(out, "exp", "exp", x);
        return Prec::kAtom;
    case UnaryOp::kLog:
        function(out, "log", "log", x);
        return Prec::kAtom;
    case UnaryOp::kSin:
        function(out, "sin", "sin", x);
        return Prec::kAtom;
    case UnaryOp::kCos:
        function(out, "cos", "cos", x);
        return Prec::kAtom;
    case UnaryOp::kTan:
        function(out, "tan", "tan", x);
        return Prec::kAtom;
    case UnaryOp::kAsin:
        function(out, "asin", "arcsin", x);
        return Prec::kAtom;
    case UnaryOp::kAcos:
        function(out, "acos", "arccos", x);
        return Prec::kAtom;
    case UnaryOp::kAtan:
        function(out, "atan", "arctan", x);
        return Prec::kAtom;
    case UnaryOp::kSinh:
        function(out, "sinh", "sinh", x);
        return Prec::kAtom;
    case UnaryOp::kCosh:
        function(out, "cosh", "cosh", x);
        return Prec::kAtom;
    case UnaryOp::kTanh:
        function(out, "tanh", "tanh", x);
        return Prec::kAtom;
    case UnaryOp::kArg:
        function(out, "arg", "arg", x);
        return Prec::kAtom;
    case UnaryOp::kPowI:
        break;
    }
    const std::int64_t power = node.node().index;
    child(out, x, Prec::kPow, true);
    if (latex) {
        literal(out, fmt::format("^{{{}}}", power));
    } else {
        literal(out, power < 0 ? fmt::format("^({})", power) : fmt::format("^{}", power));
    }
    return Prec::kPow;
}

Prec TextWriter::build_binary(std::vector<Piece>& out, const Expr& node) const {
    const bool latex = dialect_ == Dialect::kLatex;
    const std::span<const Expr> operands = node.children();
    const Expr& lhs = operands[0];
    const Expr& rhs = operands[1];
    switch (node.node().binary_op()) {
    case BinaryOp::kAdd:
        return sum(out, operands);
    case BinaryOp::kSub:
        child(out, lhs, Prec::kAdd);
        literal(out, " - ");
        child(out, rhs, Prec::kAdd, true);
        return Prec::kAdd;
    case BinaryOp::kMul:
        return product(out, operands);
    case BinaryOp::kDiv:
        if (latex) {
            wrapped(out, "\\frac{", lhs, "}{");
            child(out, rhs, Prec::kLowest);
            literal(out, "}");
            return Prec::kAtom;
        }
        child(out, lhs, Prec::kMul);
        literal(out, " / ");
        child(out, rhs, Prec::kMul, true);
        return Prec::kMul;
    case BinaryOp::kAtan2:
        call(out, "atan2", operands);
        return Prec::kAtom;
    case BinaryOp::kPow:
        break;
    }
    // A real power (laddu has none): base^exponent, a negative constant exponent in
    // parentheses as powi writes it.
    child(out, lhs, Prec::kPow, true);
    if (latex) {
        wrapped(out, "^{", rhs, "}");
    } else if (is_negative_constant(rhs)) {
        wrapped(out, "^(", rhs, ")");
    } else {
        literal(out, "^");
        child(out, rhs, Prec::kPow, true);
    }
    return Prec::kPow;
}

Prec TextWriter::build_leaf(std::vector<Piece>& out, const Expr& node) const {
    const bool latex = dialect_ == Dialect::kLatex;
    const detail::Node& n = node.node();
    switch (n.kind) {
    case NodeKind::kComplexConst:
        if (n.im == 0.0) {
            literal(out, number(n.re));
        } else if (n.re == 0.0) {
            literal(out, imaginary(n.im));
        } else {
            literal(out, number(n.re) + (n.im < 0.0 ? " - " : " + ") + imaginary(std::fabs(n.im)));
            return Prec::kAdd;
        }
        return Prec::kAtom;
    case NodeKind::kParameter:
        if (latex && !n.parameter->latex.empty()) {
            literal(out, n.parameter->latex);
        } else {
            literal(out, latex ? escape_latex(n.parameter->name) : n.parameter->name);
        }
        return Prec::kAtom;
    case NodeKind::kEventScalar:
        literal(out, latex ? escape_latex(n.name) : n.name);
        return Prec::kAtom;
    case NodeKind::kEventP4Component: {
        const char* component = to_string(n.p4_component());
        literal(out, latex ? fmt::format("{}_{{\\mathrm{{{}}}}}", escape_latex(n.name),
                                         escape_latex(component))
                           : fmt::format("{}.{}", n.name, component));
        return Prec::kAtom;
    }
    default:
        literal(out, number(n.re));
        return Prec::kAtom;
    }
}

// Vectors and matrices: [a, b] and [[a, b], [c, d]], or bmatrix in LaTeX.
void TextWriter::build_aggregate(std::vector<Piece>& out, const Expr& node) const {
    const bool latex = dialect_ == Dialect::kLatex;
    const std::string row_separator = latex ? " \\\\ " : ", ";
    literal(out, latex ? "\\begin{bmatrix}" : "[");
    if (node.kind() == NodeKind::kVector) {
        elements(out, node.children(), row_separator);
    } else {
        const std::uint32_t rows = node.value_kind().rows;
        const std::uint32_t cols = node.value_kind().cols;
        for (std::uint32_t r = 0; r < rows; ++r) {
            if (r > 0) {
                literal(out, row_separator);
            }
            literal(out, latex ? "" : "[");
            elements(out, node.children().subspan(std::size_t{r} * cols, cols),
                     latex ? " & " : ", ");
            literal(out, latex ? "" : "]");
        }
    }
    literal(out, latex ? "\\end{bmatrix}" : "]");
}

// An element of a vector or matrix: v[i], m[r, c]; v_{i}, m_{r,c} in LaTeX.
void TextWriter::build_element(std::vector<Piece>& out, const Expr& node) const {
    const detail::Node& n = node.node();
    child(out, node.children()[0], Prec::kPostfix);
    if (dialect_ == Dialect::kLatex) {
        literal(out, n.kind == NodeKind::kComponent ? fmt::format("_{{{}}}", n.index)
                                                    : fmt::format("_{{{},{}}}", n.index, n.index2));
    } else {
        literal(out, n.kind == NodeKind::kComponent ? fmt::format("[{}]", n.index)
                                                    : fmt::format("[{}, {}]", n.index, n.index2));
    }
}

Template TextWriter::build(const Expr& node) const {
    Template t;
    std::vector<Piece>& out = t.pieces;
    switch (node.kind()) {
    case NodeKind::kRealConst:
    case NodeKind::kComplexConst:
    case NodeKind::kParameter:
    case NodeKind::kEventScalar:
    case NodeKind::kEventP4Component:
        t.prec = build_leaf(out, node);
        break;
    case NodeKind::kUnary:
        t.prec = build_unary(out, node);
        break;
    case NodeKind::kBinary:
        t.prec = build_binary(out, node);
        break;
    case NodeKind::kNaryAdd:
        t.prec = sum(out, node.children());
        break;
    case NodeKind::kNaryMul:
        t.prec = product(out, node.children());
        break;
    case NodeKind::kVector:
    case NodeKind::kMatrix:
        build_aggregate(out, node);
        break;
    case NodeKind::kComponent:
    case NodeKind::kMatrixElement:
        build_element(out, node);
        t.prec = Prec::kPostfix;
        break;
    case NodeKind::kComplex:
    case NodeKind::kMatMul:
    case NodeKind::kMatVec:
    case NodeKind::kDot:
    case NodeKind::kSolve:
        call(out, call_name(node.kind()), node.children());
        break;
    }
    return t;
}

}  // namespace

std::string to_equation(const Expr& root, const RenderOptions& options) {
    return TextWriter(root, options, Dialect::kEquation).write();
}

std::string to_latex(const Expr& root, const RenderOptions& options) {
    return TextWriter(root, options, Dialect::kLatex).write();
}

std::string to_tree(const Expr& root, const RenderOptions& options) {
    if (options.expand_repeated) {
        // A line per use, of at least 16 bytes: refuse a blow-up before writing it.
        render_detail::check_size(
            render_detail::saturating_product(render_detail::expanded_uses(root), 16), "the tree",
            render_detail::kExpandRemedy);
    }
    const NodeTable table(root, options);
    std::string out = fmt::format("ExprGraph(root=#{})\n", table.index(root));

    struct Item {
        const Expr* node = nullptr;
        std::string prefix;  ///< the rails of the ancestors' open branches
        std::string edge;    ///< the child's role; empty for the root
        bool last = false;   ///< the last child of its parent
    };

    std::unordered_set<const void*> seen;
    std::vector<Item> stack{{&root, {}, {}, false}};
    while (!stack.empty()) {
        const Item item = std::move(stack.back());
        stack.pop_back();
        const Expr& node = *item.node;
        const std::size_t index = table.index(node);
        const bool repeated = !seen.insert(node.id()).second;
        const bool reference = repeated && !options.expand_repeated;
        const std::string line = render_detail::ansi(
            table.style(node), reference ? fmt::format("#{0} <reference to #{0}>", index)
                                         : render_detail::node_label(node, index));
        const bool is_root = item.edge.empty();
        if (is_root) {
            out += line;
        } else {
            out += item.prefix;
            out += item.last ? "┗ " : "┣ ";
            out += item.edge;
            out += ": ";
            out += line;
        }
        out += '\n';
        render_detail::check_size(out.size(), "the tree", render_detail::kExpandRemedy);
        if (reference) {
            continue;
        }
        const std::string rails = is_root ? item.prefix : item.prefix + (item.last ? "   " : "┃  ");
        const std::span<const Expr> children = node.children();
        for (std::size_t k = children.size(); k-- > 0;) {
            stack.push_back({&children[k], rails, render_detail::child_label(node, k),
                             k + 1 == children.size()});
        }
    }
    return out;
}

}  // namespace laddu::expr
