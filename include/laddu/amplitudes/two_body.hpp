// laddu/amplitudes/two_body.hpp: two-body break-up momentum and phase-space factor.
//
//   q(s) = √((s - (m1+m2)²)(s - (m1-m2)²)) / (2√s),   ρ(s) = 2 q(s) / √s,
// with the complex principal square root, so below threshold q and ρ are positive imaginary
// (the physical sheet). The unphysical sheet flips the sign, as laddu's Sheet::Unphysical.
// s is a Real expression (> 0); masses are Real expressions or numbers.
#pragma once

#include <complex>

#include <laddu/expr/expr.hpp>

namespace laddu::amplitudes {

/// Riemann sheet of the two-body functions.
enum class Sheet : unsigned char { kPhysical, kUnphysical };

/// The break-up momentum q(s; m1, m2) (Complex); laddu's q.
[[nodiscard]] expr::Expr breakup_momentum(const expr::Expr& s, const expr::Expr& mass1,
                                          const expr::Expr& mass2, Sheet sheet = Sheet::kPhysical);

/// The two-body phase-space factor ρ(s; m1, m2) = 2q/√s (Complex); laddu's rho.
[[nodiscard]] expr::Expr phase_space_factor(const expr::Expr& s, const expr::Expr& mass1,
                                            const expr::Expr& mass2,
                                            Sheet sheet = Sheet::kPhysical);

/// laddu's name for breakup_momentum().
[[nodiscard]] inline expr::Expr q(const expr::Expr& s, const expr::Expr& mass1,
                                  const expr::Expr& mass2, Sheet sheet = Sheet::kPhysical) {
    return breakup_momentum(s, mass1, mass2, sheet);
}

/// laddu's name for phase_space_factor().
[[nodiscard]] inline expr::Expr rho(const expr::Expr& s, const expr::Expr& mass1,
                                    const expr::Expr& mass2, Sheet sheet = Sheet::kPhysical) {
    return phase_space_factor(s, mass1, mass2, sheet);
}

/// q(s; m1, m2) evaluated numerically.
[[nodiscard]] std::complex<double> breakup_momentum_value(double s, double mass1, double mass2,
                                                          Sheet sheet = Sheet::kPhysical);

/// ρ(s; m1, m2) evaluated numerically.
[[nodiscard]] std::complex<double> phase_space_factor_value(double s, double mass1, double mass2,
                                                            Sheet sheet = Sheet::kPhysical);

}  // namespace laddu::amplitudes
