#include "constant_folding.hpp"

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/expr/print.hpp>
#include <laddu/expr/traversal.hpp>

#include "../scalar_math.hpp"
#include "rewrite_support.hpp"

namespace laddu::compile {
namespace {

using detail::Complex;
using expr::Expr;
using expr::NodeKind;

Expr make_constant(Complex value, const expr::ValueKind& kind) {
    return kind.is_complex ? expr::constant(value) : expr::constant(value.real());
}

bool all_constant(std::span<const Expr> xs) {
    return std::all_of(xs.begin(), xs.end(), [](const Expr& x) { return expr::is_constant(x); });
}

bool is_real(const Expr& e) {
    return !e.value_kind().is_complex;
}

std::optional<Expr> fold_scalar(const Expr& node) {
    const auto children = node.children();
    if (children.empty() || !node.value_kind().is_scalar() || !all_constant(children)) {
        return std::nullopt;
    }
    const auto& n = node.node();
    switch (node.kind()) {
    case NodeKind::kUnary:
        return make_constant(detail::apply_unary(n.unary_op(), expr::constant_value(children[0]),
                                                 is_real(children[0]),
                                                 static_cast<std::int32_t>(n.index)),
                             node.value_kind());
    case NodeKind::kBinary:
        return make_constant(detail::apply_binary(n.binary_op(), expr::constant_value(children[0]),
                                                  is_real(children[0]),
                                                  expr::constant_value(children[1]),
                                                  is_real(children[1])),
                             node.value_kind());
    case NodeKind::kNaryAdd:
    case NodeKind::kNaryMul: {
        const auto op =
            node.kind() == NodeKind::kNaryAdd ? expr::BinaryOp::kAdd : expr::BinaryOp::kMul;
        Complex acc = expr::constant_value(children[0]);
        bool acc_real = is_real(children[0]);
        for (std::size_t i = 1; i < children.size(); ++i) {
            acc = detail::apply_binary(op, acc, acc_real, expr::constant_value(children[i]),
                                       is_real(children[i]));
            acc_real = acc_real && is_real(children[i]);
        }
        return make_constant(acc, node.value_kind());
    }
    case NodeKind::kComplex:
        return expr::constant(Complex(children[0].node().re, children[1].node().re));
    default:
        return std::nullopt;
    }
}

std::optional<Expr> fold_solve(const Expr& node) {
    const Expr& m = node.children()[0];
    const Expr& b = node.children()[1];
    if (m.kind() != NodeKind::kMatrix || !all_constant(m.children())) {
        return std::nullopt;
    }
    const std::size_t n = m.value_kind().rows;
    std::vector<Complex> a;
    for (const Expr& e : m.children()) {
        a.push_back(expr::constant_value(e));
    }
    auto singular = [&]() {
        return CompileError(fmt::format("solve with a constant singular matrix {}; check the "
                                        "matrix construction",
                                        expr::to_string(m)));
    };
    if (b.kind() == NodeKind::kVector && all_constant(b.children())) {
        std::vector<Complex> rhs;
        for (const Expr& e : b.children()) {
            rhs.push_back(expr::constant_value(e));
        }
        auto x = detail::solve_dense(n, a, rhs);
        if (!x) {
            throw singular();
        }
        std::vector<Expr> elements;
        for (const Complex& v : *x) {
            elements.push_back(expr::constant(v));
        }
        return expr::vector(std::move(elements));
    }
    auto inverse = detail::invert_dense(n, a);
    if (!inverse) {
        throw singular();
    }
    std::vector<Expr> elements;
    for (const Complex& v : *inverse) {
        elements.push_back(expr::constant(v));
    }
    const auto rows = static_cast<std::uint32_t>(n);
    return expr::matvec(expr::matrix(rows, rows, std::move(elements)),
                        detail::coerce_to(b, b.value_kind()));
}

}  // namespace

expr::Expr constant_folding(const expr::Expr& root) {
    return expr::rewrite_bottom_up(root, [](const Expr& node) -> Expr {
        if (node.kind() == NodeKind::kSolve) {
            if (auto folded = fold_solve(node)) {
                // matvec of a complex inverse is a complex vector, as the solve was.
                return *folded;
            }
            return node;
        }
        if (auto folded = fold_scalar(node)) {
            return *folded;
        }
        return node;
    });
}

}  // namespace laddu::compile
