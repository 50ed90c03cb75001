#include "rewrite_support.hpp"

#include <algorithm>
#include <functional>

#include <laddu/base/assert.hpp>

namespace laddu::compile::detail {

using expr::Expr;
using expr::NodeKind;

Expr coerce_to(const Expr& e, const expr::ValueKind& kind) {
    if (e.value_kind().is_scalar() && kind.is_scalar() && kind.is_complex &&
        !e.value_kind().is_complex) {
        return is_constant(e) ? expr::constant(std::complex<double>(e.node().re, 0.0))
                              : expr::as_complex(e);
    }
    return e;
}

Expr literal_aggregate(const expr::ValueKind& kind, std::vector<Expr> elements) {
    LADDU_ASSERT(elements.size() == kind.size()) << "literal_aggregate: wrong element count";
    if (kind.is_complex) {
        for (Expr& e : elements) {
            e = coerce_to(e, expr::ValueKind::complex());
        }
    }
    return kind.shape == expr::Shape::kVector
               ? expr::vector(std::move(elements))
               : expr::matrix(kind.rows, kind.cols, std::move(elements));
}

bool is_literal_aggregate(const Expr& e) {
    return e.kind() == NodeKind::kVector || e.kind() == NodeKind::kMatrix;
}

bool canonical_before(const Expr& a, const Expr& b) {
    const bool a_const = is_constant(a);
    const bool b_const = is_constant(b);
    if (a_const != b_const) {
        return a_const;
    }
    return a.structural_hash() < b.structural_hash();
}

Expr commutative_key(const Expr& node) {
    const bool binary =
        node.kind() == NodeKind::kBinary && (node.node().binary_op() == expr::BinaryOp::kAdd ||
                                             node.node().binary_op() == expr::BinaryOp::kMul);
    if (!binary && node.kind() != NodeKind::kNaryAdd && node.kind() != NodeKind::kNaryMul) {
        return node;
    }
    // Canonical order first, so that after canonical_ordering most nodes are their own key.
    const auto before = [](const Expr& a, const Expr& b) {
        if (canonical_before(a, b)) {
            return true;
        }
        return !canonical_before(b, a) && std::less<const void*>{}(a.id(), b.id());
    };
    if (std::is_sorted(node.children().begin(), node.children().end(), before)) {
        return node;
    }
    std::vector<Expr> operands(node.children().begin(), node.children().end());
    std::sort(operands.begin(), operands.end(), before);
    switch (node.kind()) {
    case NodeKind::kNaryAdd:
        return expr::nary_add(std::move(operands));
    case NodeKind::kNaryMul:
        return expr::nary_mul(std::move(operands));
    default:
        return expr::binary(node.node().binary_op(), operands[0], operands[1]);
    }
}

Expr inverse_element(const Expr& m, std::uint32_t i, std::uint32_t j) {
    std::vector<Expr> unit(m.value_kind().rows, expr::constant(0.0));
    unit[j] = expr::constant(1.0);
    return expr::component(expr::solve(m, expr::vector(std::move(unit))), i);
}

bool is_constant_equal(const Expr& e, double value) {
    return is_constant(e) && e.node().re == value && e.node().im == 0.0;
}

}  // namespace laddu::compile::detail
