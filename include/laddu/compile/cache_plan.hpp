// laddu/compile/cache_plan.hpp: the per-event cache columns of a compiled model.
//
// The frontier of PerEvent subexpressions that PerEvaluation nodes consume becomes cache
// columns, materialised once per event by the precompute program and read by the evaluate
// program. Aggregates are cached element-wise (one scalar column per element). The SolveRow
// specialisation adds inverse-row columns: for solve(M, b) with a PerEvent M and a
// parameter-dependent b, row i of M^-1 (n complex columns) is cached, and the evaluate program
// forms element i of the solution as dot(row_i, b).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <laddu/expr/expr.hpp>

namespace laddu::compile {

/// What a cache column holds.
enum class CacheColumnSource : std::uint8_t {
    kValue,       ///< element `element` of the PerEvent node `node`
    kInverseRow,  ///< element `element` of row `row` of the inverse of the matrix `node`
};

/// One scalar cache column.
struct CacheColumn {
    std::string name;  ///< the precompute output / evaluate input name ("cache3")
    bool is_complex = false;
    CacheColumnSource source = CacheColumnSource::kValue;
    expr::Expr node = expr::constant(0.0);  ///< the cached node (a matrix for inverse rows)
    std::uint32_t element = 0;  ///< element index (row-major for matrices; 0 for scalars)
    std::uint32_t row = 0;      ///< inverse-row index (kInverseRow only)

    /// Bytes per event: 8 for Real, 16 for Complex.
    [[nodiscard]] std::size_t bytes() const { return is_complex ? 16U : 8U; }
};

/// The cache columns, in precompute output order (= evaluate input order).
struct CachePlan {
    std::vector<CacheColumn> columns;

    /// Number of Real columns.
    [[nodiscard]] std::size_t real_columns() const;

    /// Number of Complex columns.
    [[nodiscard]] std::size_t complex_columns() const;

    /// Number of inverse-row columns (SolveRow specialisation).
    [[nodiscard]] std::size_t inverse_row_columns() const;

    /// Cache bytes per event (8 per Real column, 16 per Complex one).
    [[nodiscard]] std::size_t bytes_per_event() const;

    /// One line: "12 columns (4 real, 8 complex; 10 inverse-row), 160 bytes/event".
    [[nodiscard]] std::string summary() const;
};

}  // namespace laddu::compile
