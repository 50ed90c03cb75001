#include "rewrite_support.hpp"

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

bool is_constant_equal(const Expr& e, double value) {
    return is_constant(e) && e.node().re == value && e.node().im == 0.0;
}

}  // namespace laddu::compile::detail
