// laddu/physics/particles.hpp: particle masses used by models, in GeV.
//
// Values from the Review of Particle Physics, S. Navas et al. (Particle Data Group),
// Phys. Rev. D 110 (2024) 030001 (the 2024 edition). The proton and neutron masses are the
// CODATA 2018 values the PDG quotes. Names follow laddu's catalogue (`ld.particles`).
#pragma once

namespace laddu::physics {

/// Charged pion mass, π±.
inline constexpr double kPionChargedMass = 0.13957039;
/// Neutral pion mass, π⁰.
inline constexpr double kPionNeutralMass = 0.1349768;
/// Charged kaon mass, K±.
inline constexpr double kKaonChargedMass = 0.493677;
/// Neutral kaon mass, K⁰ (also K_S and K_L).
inline constexpr double kKaonNeutralMass = 0.497611;
/// K_S mass (equal to the K⁰ mass; laddu's K_SHORT = 0.497611).
inline constexpr double kKaonShortMass = kKaonNeutralMass;
/// K_L mass (equal to the K⁰ mass).
inline constexpr double kKaonLongMass = kKaonNeutralMass;
/// η mass.
inline constexpr double kEtaMass = 0.547862;
/// η′(958) mass.
inline constexpr double kEtaPrimeMass = 0.95778;
/// ρ(770) mass (charged and neutral average the PDG gives for the e⁺e⁻ line shape).
inline constexpr double kRhoMass = 0.77526;
/// ω(782) mass.
inline constexpr double kOmegaMass = 0.78266;
/// φ(1020) mass.
inline constexpr double kPhiMass = 1.019461;
/// Proton mass (laddu's PROTON = 0.93827208816).
inline constexpr double kProtonMass = 0.93827208816;
/// Neutron mass.
inline constexpr double kNeutronMass = 0.93956542052;
/// Λ mass.
inline constexpr double kLambdaMass = 1.115683;
/// Electron mass.
inline constexpr double kElectronMass = 0.51099895000e-3;
/// Muon mass.
inline constexpr double kMuonMass = 0.1056583755;

/// ħc in GeV·fm: converts an interaction radius r (fm) into the barrier scale q_R = ħc / r.
inline constexpr double kHbarC = 0.1973269804;

}  // namespace laddu::physics
