#include "linear_algebra_expansion.hpp"

#include <laddu/expr/traversal.hpp>

#include "rewrite_support.hpp"

namespace laddu::compile {
namespace {

using detail::coerce_to;
using detail::is_literal_aggregate;
using detail::literal_aggregate;
using expr::Expr;
using expr::NodeKind;

// Element i of a vector, or (r, c) of a matrix, read through the literal when there is one.
Expr vector_element(const Expr& v, std::uint32_t i) {
    return v.kind() == NodeKind::kVector ? v.children()[i] : expr::component(v, i);
}

Expr matrix_entry(const Expr& m, std::uint32_t r, std::uint32_t c) {
    return m.kind() == NodeKind::kMatrix ? m.children()[r * m.value_kind().cols + c]
                                         : expr::matrix_element(m, r, c);
}

Expr sum_of_products(const std::vector<std::pair<Expr, Expr>>& pairs) {
    std::vector<Expr> terms;
    terms.reserve(pairs.size());
    for (const auto& [a, b] : pairs) {
        terms.push_back(a * b);
    }
    return terms.size() == 1 ? terms.front() : expr::nary_add(std::move(terms));
}

Expr flat_element(const Expr& literal, std::uint32_t index) {
    return literal.children()[index];
}

std::optional<Expr> expand(const Expr& node) {
    const auto children = node.children();
    const expr::ValueKind& kind = node.value_kind();
    switch (node.kind()) {
    case NodeKind::kComponent:
        if (children[0].kind() == NodeKind::kVector) {
            return coerce_to(children[0].children()[static_cast<std::size_t>(node.node().index)],
                             kind);
        }
        return std::nullopt;
    case NodeKind::kMatrixElement:
        if (children[0].kind() == NodeKind::kMatrix) {
            return coerce_to(matrix_entry(children[0],
                                          static_cast<std::uint32_t>(node.node().index),
                                          static_cast<std::uint32_t>(node.node().index2)),
                             kind);
        }
        return std::nullopt;
    case NodeKind::kMatVec: {
        if (!is_literal_aggregate(children[0]) && !is_literal_aggregate(children[1])) {
            return std::nullopt;
        }
        std::vector<Expr> rows;
        for (std::uint32_t r = 0; r < kind.rows; ++r) {
            std::vector<std::pair<Expr, Expr>> pairs;
            pairs.reserve(children[1].value_kind().rows);
            for (std::uint32_t k = 0; k < children[1].value_kind().rows; ++k) {
                pairs.emplace_back(matrix_entry(children[0], r, k), vector_element(children[1], k));
            }
            rows.push_back(sum_of_products(pairs));
        }
        return literal_aggregate(kind, std::move(rows));
    }
    case NodeKind::kMatMul: {
        if (!is_literal_aggregate(children[0]) || !is_literal_aggregate(children[1])) {
            return std::nullopt;
        }
        std::vector<Expr> elements;
        for (std::uint32_t r = 0; r < kind.rows; ++r) {
            for (std::uint32_t c = 0; c < kind.cols; ++c) {
                std::vector<std::pair<Expr, Expr>> pairs;
                pairs.reserve(children[0].value_kind().cols);
                for (std::uint32_t k = 0; k < children[0].value_kind().cols; ++k) {
                    pairs.emplace_back(matrix_entry(children[0], r, k),
                                       matrix_entry(children[1], k, c));
                }
                elements.push_back(sum_of_products(pairs));
            }
        }
        return literal_aggregate(kind, std::move(elements));
    }
    case NodeKind::kDot: {
        if (!is_literal_aggregate(children[0]) && !is_literal_aggregate(children[1])) {
            return std::nullopt;
        }
        std::vector<std::pair<Expr, Expr>> pairs;
        pairs.reserve(children[0].value_kind().rows);
        for (std::uint32_t k = 0; k < children[0].value_kind().rows; ++k) {
            pairs.emplace_back(vector_element(children[0], k), vector_element(children[1], k));
        }
        return coerce_to(sum_of_products(pairs), kind);
    }
    default:
        break;
    }
    if (kind.is_scalar() || children.empty()) {
        return std::nullopt;
    }
    // Element-wise forms: every aggregate operand must be a literal.
    for (const Expr& c : children) {
        if (!c.value_kind().is_scalar() && !is_literal_aggregate(c)) {
            return std::nullopt;
        }
    }
    auto element_of = [](const Expr& c, std::uint32_t i) {
        return c.value_kind().is_scalar() ? c : flat_element(c, i);
    };
    std::vector<Expr> elements;
    for (std::uint32_t i = 0; i < kind.size(); ++i) {
        std::vector<Expr> parts;
        for (const Expr& c : children) {
            parts.push_back(element_of(c, i));
        }
        switch (node.kind()) {
        case NodeKind::kUnary:
            elements.push_back(expr::unary(node.node().unary_op(), parts[0]));
            break;
        case NodeKind::kBinary:
            elements.push_back(expr::binary(node.node().binary_op(), parts[0], parts[1]));
            break;
        case NodeKind::kNaryAdd:
            elements.push_back(expr::nary_add(std::move(parts)));
            break;
        case NodeKind::kNaryMul:
            elements.push_back(expr::nary_mul(std::move(parts)));
            break;
        default:
            return std::nullopt;
        }
    }
    return literal_aggregate(kind, std::move(elements));
}

}  // namespace

expr::Expr linear_algebra_expansion(const expr::Expr& root) {
    return expr::rewrite_bottom_up(root, [](const Expr& node) {
        auto expanded = expand(node);
        return expanded ? *expanded : node;
    });
}

}  // namespace laddu::compile
