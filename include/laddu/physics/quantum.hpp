// laddu/physics/quantum.hpp: spin-parity of particles and the partial waves of a two-body decay.
//
// A small counterpart of laddu's quantum module: particles with mass, spin (doubled), intrinsic
// parity and charge, a catalogue of the particles the bundled models use (PDG 2024, see
// particles.hpp), and the (L, S) waves allowed for J^P → a + b by angular-momentum coupling
// (|L - S| <= J <= L + S, |s_a - s_b| <= S <= s_a + s_b) and parity conservation
// (P = P_a P_b (-1)^L), as laddu's SelectionRules.strong().allowed_partial_waves does for these
// two rules. Identical-particle symmetrisation is not applied.
#pragma once

#include <string_view>
#include <vector>

#include <laddu/physics/particles.hpp>

namespace laddu::physics {

/// Intrinsic parity.
enum class Parity : signed char { kNegative = -1, kPositive = 1 };

/// A particle species.
struct Particle {
    std::string_view name;  ///< laddu-style name ("K_S", "proton")
    double mass;            ///< GeV
    int two_spin;           ///< 2 s
    Parity parity;          ///< intrinsic parity
    int charge;             ///< in units of e
};

/// Particles used by the bundled models (masses from particles.hpp).
namespace catalog {
inline constexpr Particle kPhoton{"photon", 0.0, 2, Parity::kNegative, 0};
inline constexpr Particle kPiPlus{"pi+", kPionChargedMass, 0, Parity::kNegative, 1};
inline constexpr Particle kPiMinus{"pi-", kPionChargedMass, 0, Parity::kNegative, -1};
inline constexpr Particle kPi0{"pi0", kPionNeutralMass, 0, Parity::kNegative, 0};
inline constexpr Particle kKPlus{"K+", kKaonChargedMass, 0, Parity::kNegative, 1};
inline constexpr Particle kKMinus{"K-", kKaonChargedMass, 0, Parity::kNegative, -1};
inline constexpr Particle kKShort{"K_S", kKaonShortMass, 0, Parity::kNegative, 0};
inline constexpr Particle kKLong{"K_L", kKaonLongMass, 0, Parity::kNegative, 0};
inline constexpr Particle kEta{"eta", kEtaMass, 0, Parity::kNegative, 0};
inline constexpr Particle kEtaPrime{"eta'", kEtaPrimeMass, 0, Parity::kNegative, 0};
inline constexpr Particle kRho0{"rho0", kRhoMass, 2, Parity::kNegative, 0};
inline constexpr Particle kOmega{"omega", kOmegaMass, 2, Parity::kNegative, 0};
inline constexpr Particle kPhi{"phi", kPhiMass, 2, Parity::kNegative, 0};
inline constexpr Particle kProton{"proton", kProtonMass, 1, Parity::kPositive, 1};
inline constexpr Particle kNeutron{"neutron", kNeutronMass, 1, Parity::kPositive, 0};
inline constexpr Particle kLambda{"Lambda", kLambdaMass, 1, Parity::kPositive, 0};
}  // namespace catalog

/// One two-body partial wave: orbital L and total daughter spin S (doubled).
struct PartialWave {
    int l;      ///< orbital angular momentum
    int two_s;  ///< 2 S

    friend bool operator==(const PartialWave&, const PartialWave&) = default;
};

/// The (L, S) waves with L <= max_l allowed for a parent of spin two_j/2 and parity `parity`
/// decaying to `a` + `b`, ordered by L then S. ModelError for two_j < 0 or max_l < 0.
[[nodiscard]] std::vector<PartialWave>
allowed_partial_waves(int two_j, Parity parity, const Particle& a, const Particle& b, int max_l);

}  // namespace laddu::physics
