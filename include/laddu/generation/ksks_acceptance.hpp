// laddu/generation/ksks_acceptance.hpp: γ p → K_S K_S p kinematics and a toy acceptance.
//
// The toy acceptance of the demo and the K-matrix closure studies keeps a flat event with
// probability
//   ε(m, cosθ) = (1 − 0.5 x)(1 − 0.35 cos²θ),  x = (m − 2 m_K) / (m_max − 2 m_K),
// m = m(K_S K_S) and θ the helicity angle of kshort1 (its angle to −proton in the K_S K_S rest
// frame). It is smooth, below 1 everywhere, and not separable from the physics, so a fit that
// ignored it would be biased.
//
// Example:
//   data::Dataset mc = generation::accepted_ksks(200000, {.kk_mass_max = 2.0, .seed = 1}, 7);
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <laddu/data/dataset.hpp>
#include <laddu/generation/ksks.hpp>

namespace laddu::generation {

/// Per event: m(K_S K_S) and the helicity cosθ of kshort1.
struct KsKsKinematics {
    std::vector<double> m_kk;
    std::vector<double> costheta;
};

/// The kinematics of events with the four-momenta "proton", "kshort1", "kshort2" (DataError,
/// from Dataset::column, when one is missing).
[[nodiscard]] KsKsKinematics ksks_kinematics(const data::Dataset& events);

/// The toy efficiency ε of every event (the banner) for the window m < kk_mass_max.
[[nodiscard]] std::vector<double> ksks_toy_efficiency(const KsKsKinematics& kinematics,
                                                      double kk_mass_max,
                                                      double kaon_mass = KsKsOptions{}.kaon_mass);

/// The events of `flat` kept by the toy acceptance (accept_reject() with maximum 1 and `seed`).
/// ModelError when kk_mass_max is not above 2 m_K.
[[nodiscard]] data::Dataset apply_ksks_toy_acceptance(const data::Dataset& flat, double kk_mass_max,
                                                      std::uint64_t seed);

/// `generated` flat events of generate_ksks(generated, options) through the toy acceptance with
/// `acceptance_seed` (options.kk_mass_max must be set: ModelError otherwise).
[[nodiscard]] data::Dataset accepted_ksks(std::size_t generated, const KsKsOptions& options,
                                          std::uint64_t acceptance_seed);

}  // namespace laddu::generation
