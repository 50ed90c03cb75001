// laddu/physics/harmonics.hpp: spherical harmonics and the polarised-photoproduction Z_lm.
//
// spherical_harmonic(l, m, cos θ, φ) is Y_l^m with the Condon-Shortley phase and the
// normalisation √((2l+1)/4π · (l-|m|)!/(l+|m|)!), built from the associated-Legendre
// recursion in cos θ, as laddu's spherical_harmonic (and scipy.special.sph_harm). Y_l^{-m} =
// (-1)^m conj(Y_l^m).
//
// zlm() is the GlueX Z_lm for a linearly polarised photon beam, built exactly as laddu's
// K-matrix benchmark does (laddu-architecture.md §3.3): rot = Y_l^m(θ, φ) e^{-iΦ},
//   Z⁺ = √(1+P_γ) Re rot + i √(1-P_γ) Im rot,   Z⁻ = √(1-P_γ) Re rot + i √(1+P_γ) Im rot.
#pragma once

#include <laddu/expr/expr.hpp>

namespace laddu::physics {

/// Reflectivity ε of a photoproduction wave.
enum class Reflectivity : signed char { kPositive = 1, kNegative = -1 };

/// Y_l^m(cos θ, φ) as a Complex expression; throws ModelError unless 0 <= |m| <= l.
[[nodiscard]] expr::Expr spherical_harmonic(int l, int m, const expr::Expr& costheta,
                                            const expr::Expr& phi);

/// Z_lm^ε for polarisation degree `pol_magnitude` (P_γ) and angle `pol_angle` (Φ, see
/// polarization_angle()); Complex. ModelError as spherical_harmonic().
[[nodiscard]] expr::Expr zlm(int l, int m, Reflectivity reflectivity, const expr::Expr& costheta,
                             const expr::Expr& phi, const expr::Expr& pol_angle,
                             const expr::Expr& pol_magnitude);

}  // namespace laddu::physics
