// laddu/amplitudes/breit_wigner.hpp: Breit-Wigner line shapes.
//
//   breit_wigner:              1 / (m² - s - i m Γ)                         (laddu breit_wigner)
//   relativistic_breit_wigner: 1 / (m² - s - i m Γ(s)),
//       Γ(s) = Γ (m/√s) (q/q₀) (F_L(q)/F_L(q₀))²,  q = q(s), q₀ = q(m²)     (laddu, >= 0.17)
//     which equals i/(mΓ) at s = m²; without barrier factors Γ(s) = Γ (m/√s) (q/q₀)^{2L+1}.
//   non_relativistic_breit_wigner: (Γ/2) / (m - √s - iΓ/2), equal to i at √s = m.
// Masses and widths are Real expressions (usually parameters); s is the Real invariant mass
// squared of the decaying system; the results are Complex.
#pragma once

#include <laddu/amplitudes/barrier.hpp>
#include <laddu/expr/expr.hpp>

namespace laddu::amplitudes {

/// 1 / (m² - s - i m Γ).
[[nodiscard]] expr::Expr breit_wigner(const expr::Expr& s, const expr::Expr& mass,
                                      const expr::Expr& width);

/// Options of relativistic_breit_wigner beyond laddu's positional arguments.
struct RelativisticBreitWignerOptions {
    bool barrier_factors = true;        ///< include (F_L(q)/F_L(q₀))²
    double q_r = kDefaultBarrierScale;  ///< barrier scale in GeV
};

/// 1 / (m² - s - i m Γ(s)) with the mass-dependent width above, for a decay to daughters of
/// masses mass1 and mass2 in a wave of orbital angular momentum l (0..8).
[[nodiscard]] expr::Expr
relativistic_breit_wigner(const expr::Expr& s, const expr::Expr& mass, const expr::Expr& width,
                          const expr::Expr& mass1, const expr::Expr& mass2, int l,
                          const RelativisticBreitWignerOptions& options = {});

/// (Γ/2) / (m - √s - iΓ/2).
[[nodiscard]] expr::Expr non_relativistic_breit_wigner(const expr::Expr& s, const expr::Expr& mass,
                                                       const expr::Expr& width);

}  // namespace laddu::amplitudes
