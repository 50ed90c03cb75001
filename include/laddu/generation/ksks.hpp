// laddu/generation/ksks.hpp: flat-phase-space γ p → K_S K_S p events.
//
// A photon along +z with energy uniform in [beam_energy_min, beam_energy_max] hits a proton at
// rest. In the centre of mass (invariant mass W) the final state is generated as sequential
// two-body decays W → p X, X → K_S K_S with m_X uniform in [2 m_K, min(kk_mass_max, W − m_p)]
// and isotropic decay angles, weighted by p*(W; m_p, m_X) / W · q*(m_X; m_K, m_K) (dΦ₃ per dm_X)
// and unweighted against the bound at the largest W: the kept events are three-body phase space (at
// each W, and across W in proportion to its phase-space volume) restricted to the m(K_S K_S)
// window. Linear polarisation: magnitude uniform in [pol_magnitude_min, pol_magnitude_max], angle
// uniform in [−π, π). Columns: four-momenta "beam", "proton", "kshort1", "kshort2" and scalars
// "pol_magnitude", "pol_angle" (those of amplitudes::kmatrix_benchmark_model()), weights 1.
#pragma once

#include <cstddef>
#include <cstdint>

#include <laddu/data/dataset.hpp>

namespace laddu::generation {

/// Options of generate_ksks().
struct KsKsOptions {
    double beam_energy_min = 8.0;  ///< GeV; equal to beam_energy_max for a fixed energy
    double beam_energy_max = 9.0;
    double kk_mass_max = 0.0;  ///< upper end of m(K_S K_S) in GeV; 0: the kinematic limit
    double pol_magnitude_min = 0.3;
    double pol_magnitude_max = 0.4;
    double kaon_mass = 0.497611;         ///< PDG K⁰
    double proton_mass = 0.93827208816;  ///< PDG proton
    std::uint64_t seed = 0;
};

/// `events` unweighted flat-phase-space events (deterministic in options.seed). Throws
/// ModelError for an empty, reversed or infinite beam-energy range, a negative, NaN or
/// below-threshold kk_mass_max, or a polarisation range outside [0, 1] (or NaN).
[[nodiscard]] data::Dataset generate_ksks(std::size_t events, const KsKsOptions& options = {});

}  // namespace laddu::generation
