#include <algorithm>
#include <cmath>
#include <ostream>
#include <unordered_map>

#include <fmt/format.h>

#include <laddu/expr/print.hpp>
#include <laddu/expr/traversal.hpp>

namespace laddu::expr {
namespace {

std::string number(double x) {
    return fmt::format("{}", x);
}

std::string complex_number(double re, double im) {
    return fmt::format("({}{}{}i)", re, im < 0 || std::signbit(im) ? "-" : "+", std::fabs(im));
}

bool is_leaf(const Expr& e) {
    return e.children().empty() && e.tags().empty();
}

std::string join(const std::vector<std::string>& parts, const char* separator) {
    return fmt::format("{}", fmt::join(parts, separator));
}

// The text of one node given the texts of its children.
std::string node_text(const Expr& e, const std::vector<std::string>& c) {
    const detail::Node& n = e.node();
    switch (n.kind) {
    case NodeKind::kRealConst:
        return number(n.re);
    case NodeKind::kComplexConst:
        return complex_number(n.re, n.im);
    case NodeKind::kParameter:
        return n.parameter->name;
    case NodeKind::kEventScalar:
        return fmt::format("[{}]", n.name);
    case NodeKind::kEventP4Component:
        return fmt::format("[{}.{}]", n.name, to_string(n.p4_component()));
    case NodeKind::kUnary:
        if (n.unary_op() == UnaryOp::kNeg) {
            return fmt::format("-{}", c[0]);
        }
        if (n.unary_op() == UnaryOp::kPowI) {
            return fmt::format("powi({}, {})", c[0], n.index);
        }
        return fmt::format("{}({})", to_string(n.unary_op()), c[0]);
    case NodeKind::kBinary:
        switch (n.binary_op()) {
        case BinaryOp::kAdd:
            return fmt::format("({} + {})", c[0], c[1]);
        case BinaryOp::kSub:
            return fmt::format("({} - {})", c[0], c[1]);
        case BinaryOp::kMul:
            return fmt::format("({} * {})", c[0], c[1]);
        case BinaryOp::kDiv:
            return fmt::format("({} / {})", c[0], c[1]);
        case BinaryOp::kPow:
        case BinaryOp::kAtan2:
            break;
        }
        return fmt::format("{}({}, {})", to_string(n.binary_op()), c[0], c[1]);
    case NodeKind::kNaryAdd:
        return fmt::format("({})", join(c, " + "));
    case NodeKind::kNaryMul:
        return fmt::format("({})", join(c, " * "));
    case NodeKind::kComplex:
        return fmt::format("complex({}, {})", c[0], c[1]);
    case NodeKind::kVector:
        return fmt::format("[{}]", join(c, ", "));
    case NodeKind::kMatrix: {
        std::vector<std::string> rows;
        const std::uint32_t cols = n.value_kind.cols;
        for (std::uint32_t r = 0; r < n.value_kind.rows; ++r) {
            rows.push_back(fmt::format(
                "[{}]", fmt::join(c.begin() + r * cols, c.begin() + (r + 1) * cols, ", ")));
        }
        return fmt::format("[{}]", join(rows, ", "));
    }
    case NodeKind::kComponent:
        return fmt::format("{}[{}]", c[0], n.index);
    case NodeKind::kMatrixElement:
        return fmt::format("{}[{}, {}]", c[0], n.index, n.index2);
    case NodeKind::kMatMul:
        return fmt::format("matmul({}, {})", c[0], c[1]);
    case NodeKind::kMatVec:
        return fmt::format("matvec({}, {})", c[0], c[1]);
    case NodeKind::kDot:
        return fmt::format("dot({}, {})", c[0], c[1]);
    case NodeKind::kSolve:
        break;
    }
    return fmt::format("solve({}, {})", c[0], c[1]);
}

std::string with_tags(const Expr& e, std::string text) {
    for (const std::string& tag : e.tags()) {
        text = fmt::format("tagged({}, \"{}\")", text, tag);
    }
    return text;
}

std::string escape(const std::string& text) {
    std::string out;
    for (char ch : text) {
        if (ch == '"' || ch == '\\') {
            out.push_back('\\');
        }
        out.push_back(ch);
    }
    return out;
}

}  // namespace

std::string to_string(const Expr& root) {
    const std::vector<Expr> order = topological_order(root);
    std::unordered_map<const void*, int> uses;
    for (const Expr& node : order) {
        for (const Expr& child : node.children()) {
            ++uses[child.id()];
        }
    }
    std::unordered_map<const void*, std::string> text;
    std::string bindings;
    int next_binding = 1;
    for (const Expr& node : order) {
        std::vector<std::string> children;
        for (const Expr& child : node.children()) {
            children.push_back(text.at(child.id()));
        }
        std::string own = with_tags(node, node_text(node, children));
        if (!is_leaf(node) && uses[node.id()] > 1 && !(node == root)) {
            std::string name = fmt::format("t{}", next_binding++);
            bindings += fmt::format("{} = {}\n", name, own);
            own = std::move(name);
        }
        text.emplace(node.id(), std::move(own));
    }
    return bindings + text.at(root.id());
}

std::string to_dot(const Expr& root) {
    const std::vector<Expr> order = topological_order(root);
    std::unordered_map<const void*, std::size_t> index;
    std::string out = "digraph expr {\n  node [shape=box, fontname=\"monospace\"];\n";
    for (const Expr& node : order) {
        const std::size_t id = index.size();
        index.emplace(node.id(), id);
        std::vector<std::string> placeholders(node.children().size(), "_");
        std::string label = node.children().empty()            ? node_text(node, placeholders)
                            : node.kind() == NodeKind::kUnary  ? to_string(node.node().unary_op())
                            : node.kind() == NodeKind::kBinary ? to_string(node.node().binary_op())
                                                               : to_string(node.kind());
        for (const std::string& tag : node.tags()) {
            label += fmt::format(" #{}", tag);
        }
        out += fmt::format("  n{} [label=\"{}\\n{}\"];\n", id, escape(label),
                           to_string(node.value_kind()));
        for (std::size_t k = 0; k < node.children().size(); ++k) {
            out += fmt::format("  n{} -> n{} [label=\"{}\"];\n", id,
                               index.at(node.children()[k].id()), k);
        }
    }
    return out + "}\n";
}

std::ostream& operator<<(std::ostream& out, const Expr& e) {
    return out << to_string(e);
}

}  // namespace laddu::expr
