// laddu/amplitudes/lookup.hpp: lookup tables and piecewise-constant functions of event
// variables, the forms of laddu v0.19.6's LookupTable amplitudes and of laddu v0.15's
// PiecewiseScalar.
//
// A table over d axes with coordinates x_a and values v (row-major, last axis fastest) is
//   T(x) = Σ_{i_0 … i_{d-1}} v[i_0, …, i_{d-1}] Π_a w^a_{i_a}(x_a),
// with per-axis weights
//   nearest (coordinates are N+1 bin edges e_k, N values):  w_k = 1[e_k <= x < e_{k+1}],
//   linear  (coordinates are N grid points e_k, N values):  the hat functions of piecewise-linear
//           interpolation, w_k = 1[e_{k-1} <= x < e_k] t_{k-1} + 1[e_k <= x < e_{k+1}] (1 - t_k),
//           t_k = (x - e_k) / (e_{k+1} - e_k), the last cell closed at e_{N-1};
// i.e. nearest-bin lookup and multilinear interpolation on a rectilinear grid (Press et al.,
// Numerical Recipes, 3rd ed., section 3.6). Outside the table the value is 0 (LookupBoundary::
// kZero) or that of the first or last bin or grid point (kClamp), as in laddu.
//
// The indicators are built from heaviside(x) = 1 - arg(x)/π: arg of a Real is atan2(0, x), which
// is exactly 0 for x >= +0 and exactly π for x < 0 in the interpreter, the JIT and constant
// folding alike, so every comparison is exact without a select operation. They depend on the
// event only, so the compiler caches them; the values may be parameters and differentiate as
// usual. A NaN or infinite variable gives NaN (laddu gave 0).
#pragma once

#include <cstdint>
#include <vector>

#include <laddu/expr/expr.hpp>

namespace laddu::amplitudes {

/// How a table is read between its coordinates.
enum class LookupInterpolation : std::uint8_t {
    kNearest,  ///< the bin containing x (coordinates are bin edges)
    kLinear,   ///< linear between grid points on each axis (coordinates are grid points)
};

/// What a table gives outside its range.
enum class LookupBoundary : std::uint8_t {
    kZero,   ///< 0 when any axis is outside
    kClamp,  ///< the value of the first or last bin or grid point of that axis
};

/// One axis of a table: a Real scalar expression and its strictly increasing coordinates.
struct LookupAxis {
    expr::Expr variable;              ///< the coordinate, usually built from event columns
    std::vector<double> coordinates;  ///< bin edges (nearest) or grid points (linear), >= 2
};

/// The interpolation and boundary behaviour of lookup_table().
struct LookupOptions {
    LookupInterpolation interpolation = LookupInterpolation::kNearest;
    LookupBoundary boundary = LookupBoundary::kZero;
};

/// The Heaviside step 1[x >= 0] of a Real scalar x (Real; exact, see above).
[[nodiscard]] expr::Expr heaviside(const expr::Expr& x);

/// The table T(x) above. `values` are scalars (constants, parameters, complex couplings),
/// row-major; there must be Π_a (N_a) of them, N_a the number of bins (nearest) or grid points
/// (linear) of axis a. The result is Real when every value is. ModelError on no axes, fewer than
/// two or non-finite or not strictly increasing coordinates, a count mismatch or non-scalar
/// inputs.
[[nodiscard]] expr::Expr lookup_table(const std::vector<LookupAxis>& axes,
                                      const std::vector<expr::Expr>& values,
                                      const LookupOptions& options = {});

/// laddu's PiecewiseScalar: values[k] on bin k of values.size() equal bins over [low, high),
/// 0 outside. ModelError when low >= high or values is empty.
[[nodiscard]] expr::Expr piecewise(const expr::Expr& x, double low, double high,
                                   const std::vector<expr::Expr>& values);

}  // namespace laddu::amplitudes
