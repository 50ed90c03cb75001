// Helpers shared by the rewrite passes. Every rewrite must keep a node's ValueKind (shape and
// field): parents were built against it, and Expr::with_children asserts it.
#pragma once

#include <cstdint>
#include <vector>

#include <laddu/expr/expr.hpp>

namespace laddu::compile::detail {

/// `e` widened to `kind`'s field (as_complex for a Real scalar where Complex is wanted).
[[nodiscard]] expr::Expr coerce_to(const expr::Expr& e, const expr::ValueKind& kind);

/// A Vector or Matrix literal of `kind` from scalar elements, each widened to Complex when
/// `kind` is complex (so components keep the kind the aggregate promised).
[[nodiscard]] expr::Expr literal_aggregate(const expr::ValueKind& kind,
                                           std::vector<expr::Expr> elements);

/// True for Vector and Matrix literal nodes.
[[nodiscard]] bool is_literal_aggregate(const expr::Expr& e);

/// The canonical operand order of sums and products: constants first, then by structural
/// hash (a strict weak order; operands with equal hashes are equivalent).
[[nodiscard]] bool canonical_before(const expr::Expr& a, const expr::Expr& b);

/// `node` with the operands of a commutative sum or product (n-ary or binary) in canonical order,
/// ties broken by address, so equal multisets give one node; any other node unchanged. A node
/// already in that order is its own key (no node is built). A lookup key only: address order
/// differs from run to run, so it must not be built into the graph.
[[nodiscard]] expr::Expr commutative_key(const expr::Expr& node);

/// (M⁻¹)_ij of the square matrix `m`, as the expression solve(m, e_j)[i].
[[nodiscard]] expr::Expr inverse_element(const expr::Expr& m, std::uint32_t i, std::uint32_t j);

/// True for a constant equal to `value` (either field).
[[nodiscard]] bool is_constant_equal(const expr::Expr& e, double value);

}  // namespace laddu::compile::detail
