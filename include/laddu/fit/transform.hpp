// laddu/fit/transform.hpp: MINUIT-style parameter transforms for minimisers without bounds.
//
// The variable-metric and Nelder-Mead minimisers work on unbounded internal parameters u; the
// likelihood sees external parameters x(u) that always lie inside their bounds:
//   two-sided [a, b]:  x = a + (b − a)(sin u + 1)/2,    u = asin(2(x − a)/(b − a) − 1)
//   lower a only:      x = a − 1 + √(u² + 1),            u = √((x − a + 1)² − 1)
//   upper b only:      x = b + 1 − √(u² + 1),            u = √((b − x + 1)² − 1)
//   periodic:          x = u wrapped into [a, b) (finite bounds) or [−π, π) (none)
//   otherwise:         x = u
// The internal gradient is the external one times dx/du (the Jacobian is diagonal). A minimum
// on a bound is a stationary point inside (dx/du = 0 there), so such a fit converges and ends
// exactly on the bound. L-BFGS-B handles box bounds natively and transforms only periodic
// parameters (TransformScope::kPeriodicOnly).
//
// Covariance: the Hessian is taken in the internal parameters and its inverse C_u mapped to the
// external ones, C_x = J C_u J with J = diag(dx/du) (what MINUIT does). At an interior minimum
// this equals the inverse of the external Hessian. A parameter on a bound has dx/du = 0, so its
// variance and covariances are 0 (MINUIT's convention), and the internal Hessian is block
// diagonal there, so the other parameters' covariance is the one with it held at the bound.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <laddu/expr/parameter.hpp>
#include <laddu/fit/minimizer.hpp>

namespace laddu::fit {

/// How one parameter is transformed.
enum class TransformKind : std::uint8_t {
    kIdentity,  ///< x = u
    kTwoSided,  ///< x = a + (b − a)(sin u + 1)/2
    kLower,     ///< x = a − 1 + √(u² + 1)
    kUpper,     ///< x = b + 1 − √(u² + 1)
    kPeriodic,  ///< x = u wrapped into its period
};

/// Which parameters a ParameterTransform transforms.
enum class TransformScope : std::uint8_t {
    kAll,           ///< bounds and periodic parameters (variable metric, Nelder-Mead)
    kPeriodicOnly,  ///< periodic parameters only; box bounds stay native (L-BFGS-B)
};

/// The transform of every parameter of an objective.
class ParameterTransform {
public:
    /// From one Bounds per parameter (or none) and one periodic flag per parameter (or none).
    /// Throws FitError for mismatched sizes or a periodic parameter with one infinite bound.
    ParameterTransform(std::span<const expr::Bounds> bounds, const std::vector<bool>& periodic,
                       std::size_t dimension, TransformScope scope = TransformScope::kAll);

    /// The transform of `objective` (its bounds and periodic flags) for `method`.
    [[nodiscard]] static ParameterTransform for_method(const Objective& objective, Method method);

    /// The number of parameters.
    [[nodiscard]] std::size_t size() const noexcept { return kinds_.size(); }

    /// The kind of parameter k.
    [[nodiscard]] TransformKind kind(std::size_t k) const { return kinds_[k]; }

    /// True when every parameter is kIdentity.
    [[nodiscard]] bool is_identity() const noexcept;

    /// True when some parameter has kTwoSided, kLower or kUpper (the Jacobian is not 1).
    [[nodiscard]] bool changes_scale() const noexcept;

    /// x(u). Periodic parameters are wrapped.
    [[nodiscard]] std::vector<double> to_external(std::span<const double> internal) const;

    /// u(x) for x clamped into its bounds (periodic parameters are wrapped first).
    [[nodiscard]] std::vector<double> to_internal(std::span<const double> external) const;

    /// dx_k/du_k at u (the diagonal of the Jacobian).
    [[nodiscard]] std::vector<double> jacobian(std::span<const double> internal) const;

    /// C_x = J C_u J for the n × n row-major internal covariance (or inverse Hessian) at u.
    [[nodiscard]] std::vector<double>
    covariance_to_external(std::span<const double> covariance,
                           std::span<const double> internal) const;

    /// The objective in internal parameters: value f(x(u)), gradient ∇f(x(u)) ∘ dx/du, no
    /// bounds, nothing periodic. It refers to `external`, which must outlive it.
    [[nodiscard]] Objective internal_objective(const Objective& external) const;

private:
    std::vector<TransformKind> kinds_;
    std::vector<double> lower_;
    std::vector<double> upper_;
    std::vector<expr::Bounds> native_;  // the bounds left to the minimiser (kPeriodicOnly)
};

/// `x` wrapped into [lower, upper): lower + (x − lower) mod (upper − lower).
[[nodiscard]] double wrap_periodic(double x, double lower, double upper) noexcept;

}  // namespace laddu::fit
