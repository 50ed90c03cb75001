// laddu/amplitudes/photon_sdme.hpp: elements of the spin-density matrix of a real photon beam.
//
// In the helicity basis (λ, λ' = ±1) a beam of degree P_γ of linear polarisation at angle Φ to
// the production plane has
//   ρ^γ = ½ (1 - P_γ (cos 2Φ σ_x + sin 2Φ σ_y)),  i.e.  ρ_{++} = ρ_{--} = ½,
//   ρ_{+-} = -½ P_γ e^{-2iΦ},  ρ_{-+} = -½ P_γ e^{+2iΦ},
// and an unpolarised beam has ρ^γ = ½ 1 (K. Schilling, P. Seyboth and G. Wolf, Nucl. Phys. B 15
// (1970) 397). This is laddu v0.19.6's PhotonSDME amplitude; the result
// is Complex.
#pragma once

#include <optional>

#include <laddu/expr/expr.hpp>

namespace laddu::amplitudes {

/// Linear polarisation of the beam: Φ (pol_angle, radians) and P_γ (pol_magnitude).
struct LinearPolarization {
    expr::Expr angle;      ///< Φ, the polarisation angle to the production plane
    expr::Expr magnitude;  ///< P_γ, the degree of polarisation
};

/// ρ^γ_{λλ'} for helicities λ = helicity and λ' = helicity_prime (each +1 or -1; anything else
/// is a ModelError), for a linearly polarised beam or, without `polarization`, an unpolarised
/// one.
[[nodiscard]] expr::Expr
photon_sdme(int helicity, int helicity_prime,
            const std::optional<LinearPolarization>& polarization = std::nullopt);

}  // namespace laddu::amplitudes
