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

// The text of one node around its children: pieces[0] child0 pieces[1] child1 ... pieces[n],
// with its tags (tagged(text, "tag"), the first tag innermost). Printing writes the
// pieces and the children's texts into one string, so no node's text is copied into its parent's.
std::vector<std::string> node_pieces(const Expr& e) {
    const detail::Node& n = e.node();
    const std::size_t arity = e.children().size();
    const auto around = [arity](std::string open, const std::string& separator, std::string close) {
        std::vector<std::string> pieces(arity + 1, separator);
        pieces.front() = std::move(open);
        pieces.back() = std::move(close);
        return pieces;
    };
    std::vector<std::string> pieces;
    switch (n.kind) {
    case NodeKind::kRealConst:
        pieces = {number(n.re)};
        break;
    case NodeKind::kComplexConst:
        pieces = {complex_number(n.re, n.im)};
        break;
    case NodeKind::kParameter:
        pieces = {n.parameter->name};
        break;
    case NodeKind::kEventScalar:
        pieces = {fmt::format("[{}]", n.name)};
        break;
    case NodeKind::kEventP4Component:
        pieces = {fmt::format("[{}.{}]", n.name, to_string(n.p4_component()))};
        break;
    case NodeKind::kUnary:
        if (n.unary_op() == UnaryOp::kNeg) {
            pieces = {"-", ""};
        } else if (n.unary_op() == UnaryOp::kPowI) {
            pieces = {"powi(", fmt::format(", {})", n.index)};
        } else {
            pieces = {fmt::format("{}(", to_string(n.unary_op())), ")"};
        }
        break;
    case NodeKind::kBinary:
        switch (n.binary_op()) {
        case BinaryOp::kAdd:
            pieces = around("(", " + ", ")");
            break;
        case BinaryOp::kSub:
            pieces = around("(", " - ", ")");
            break;
        case BinaryOp::kMul:
            pieces = around("(", " * ", ")");
            break;
        case BinaryOp::kDiv:
            pieces = around("(", " / ", ")");
            break;
        case BinaryOp::kPow:
        case BinaryOp::kAtan2:
            pieces = around(fmt::format("{}(", to_string(n.binary_op())), ", ", ")");
            break;
        }
        break;
    case NodeKind::kNaryAdd:
        pieces = around("(", " + ", ")");
        break;
    case NodeKind::kNaryMul:
        pieces = around("(", " * ", ")");
        break;
    case NodeKind::kComplex:
        pieces = around("complex(", ", ", ")");
        break;
    case NodeKind::kVector:
        pieces = around("[", ", ", "]");
        break;
    case NodeKind::kMatrix: {
        pieces = around("[[", ", ", "]]");
        const std::uint32_t cols = n.value_kind.cols;
        for (std::uint32_t r = 1; r < n.value_kind.rows; ++r) {
            pieces[std::size_t{r} * cols] = "], [";
        }
        break;
    }
    case NodeKind::kComponent:
        pieces = {"", fmt::format("[{}]", n.index)};
        break;
    case NodeKind::kMatrixElement:
        pieces = {"", fmt::format("[{}, {}]", n.index, n.index2)};
        break;
    case NodeKind::kMatMul:
        pieces = around("matmul(", ", ", ")");
        break;
    case NodeKind::kMatVec:
        pieces = around("matvec(", ", ", ")");
        break;
    case NodeKind::kDot:
        pieces = around("dot(", ", ", ")");
        break;
    case NodeKind::kSolve:
        pieces = around("solve(", ", ", ")");
        break;
    }
    for (const std::string& tag : e.tags()) {
        pieces.front().insert(0, "tagged(");
        pieces.back() += fmt::format(", \"{}\")", tag);
    }
    return pieces;
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
    // A composite node used more than once is printed once, as a binding `tK = ...`, numbered
    // in topological order so every binding follows those it uses.
    std::unordered_map<const void*, std::string> names;
    for (const Expr& node : order) {
        if (!is_leaf(node) && uses[node.id()] > 1 && !(node == root)) {
            names.emplace(node.id(), fmt::format("t{}", names.size() + 1));
        }
    }
    std::string out;
    // Writes `top` with its unnamed descendants inline, depth first, with an explicit stack
    // (graphs can be 10^5 levels deep).
    const auto write = [&](const Expr& top) {
        struct Item {
            const Expr* node = nullptr;  ///< to expand, or null for `text`
            std::string text;
        };
        std::vector<Item> stack = {{&top, {}}};
        while (!stack.empty()) {
            const Item item = std::move(stack.back());
            stack.pop_back();
            if (item.node == nullptr) {
                out += item.text;
                continue;
            }
            const Expr& node = *item.node;
            const auto named = names.find(node.id());
            if (named != names.end() && !(node == top)) {
                out += named->second;
                continue;
            }
            std::vector<std::string> pieces = node_pieces(node);
            const std::span<const Expr> children = node.children();
            stack.push_back({nullptr, std::move(pieces.back())});
            for (std::size_t k = children.size(); k-- > 0;) {
                stack.push_back({&children[k], {}});
                if (k > 0) {
                    stack.push_back({nullptr, std::move(pieces[k])});
                }
            }
            out += pieces.front();
        }
    };
    for (const Expr& node : order) {
        const auto named = names.find(node.id());
        if (named != names.end()) {
            out += named->second;
            out += " = ";
            write(node);
            out += '\n';
        }
    }
    write(root);
    return out;
}

std::ostream& operator<<(std::ostream& out, const Expr& e) {
    return out << to_string(e);
}

}  // namespace laddu::expr
