// laddu/amplitudes/pol_phase.hpp: the polarisation phase factor of a linearly polarised photon.
//
//   pol_phase(Φ, P_γ) = P_γ e^{2iΦ},
// the factor by which the off-diagonal elements of the photon spin-density matrix carry the
// degree P_γ and angle Φ of linear polarisation (K. Schilling, P. Seyboth and G. Wolf, Nucl.
// Phys. B 15 (1970) 397; the beam factor of the GlueX Z_lm, V. Mathieu et al. (JPAC), Phys. Rev. D
// 100 (2019) 054017); laddu v0.19.6's PolPhase amplitude. Φ is the angle between the polarisation
// plane and the production plane (physics::polarization_angle), P_γ the degree of polarisation,
// both usually event columns; the result is Complex.
#pragma once

#include <laddu/expr/expr.hpp>

namespace laddu::amplitudes {

/// P_γ e^{2iΦ} of Real expressions Φ (pol_angle, radians) and P_γ (pol_magnitude). A constant
/// P_γ outside [0, 1] is a ModelError.
[[nodiscard]] expr::Expr pol_phase(const expr::Expr& pol_angle, const expr::Expr& pol_magnitude);

}  // namespace laddu::amplitudes
