// laddu/generation/phase_space.hpp: n-body phase space (Raubold-Lynch / GENBOD) and the
// kinematics it is built from.
//
// NBodyPhaseSpace draws the n-2 intermediate invariant masses M_2 < ... < M_{n-1} from sorted
// uniforms (M_k = m_1 + ... + m_k + r_k (M - Σ m)), decays each M_k isotropically into
// M_{k-1} + m_k and weights the event by Π_k p*(M_k; M_{k-1}, m_k). Weighted events are
// distributed as Lorentz-invariant phase space (constants dropped); accepting with probability
// weight / max_weight() gives unweighted ones. For two bodies the weight is constant.
//
// Example:
//   generation::NBodyPhaseSpace dalitz(1.8696, {0.4937, 0.1396, 0.1396});
//   std::mt19937_64 rng(1);
//   generation::PhaseSpaceEvent event = dalitz.generate(rng);  // momenta in the parent frame
#pragma once

#include <cstddef>
#include <random>
#include <vector>

namespace laddu::generation {

/// A four-momentum (E, px, py, pz) in GeV.
struct FourMomentum {
    double e = 0.0;
    double px = 0.0;
    double py = 0.0;
    double pz = 0.0;

    /// The invariant mass squared E² − p².
    [[nodiscard]] double mass_squared() const noexcept {
        return e * e - px * px - py * py - pz * pz;
    }
};

/// Component-wise sum.
[[nodiscard]] FourMomentum operator+(const FourMomentum& a, const FourMomentum& b) noexcept;

/// `p` boosted by the velocity (bx, by, bz) (|β| < 1).
[[nodiscard]] FourMomentum boost(const FourMomentum& p, double bx, double by, double bz) noexcept;

/// `p` boosted from the rest frame of `frame` into the frame in which `frame` is measured.
[[nodiscard]] FourMomentum boost_from_rest(const FourMomentum& p,
                                           const FourMomentum& frame) noexcept;

/// The breakup momentum of a parent of mass m into masses m1 and m2 (0 below threshold).
[[nodiscard]] double two_body_momentum(double m, double m1, double m2) noexcept;

/// A parent of mass m at rest decaying into m1 along (cosθ, φ) and m2 opposite.
struct TwoBodyDecay {
    FourMomentum first;
    FourMomentum second;
};

/// The two daughters of a parent at rest; requires m >= m1 + m2.
[[nodiscard]] TwoBodyDecay two_body_decay(double m, double m1, double m2, double costheta,
                                          double phi) noexcept;

/// One phase-space event: the daughters' momenta in the parent's rest frame and the weight.
struct PhaseSpaceEvent {
    std::vector<FourMomentum> momenta;
    double weight = 0.0;
};

/// n-body phase space of a parent of fixed mass at rest (see the banner).
class NBodyPhaseSpace {
public:
    /// Throws ModelError for fewer than two daughters, a negative mass, or a parent lighter
    /// than the sum of the daughter masses.
    NBodyPhaseSpace(double parent_mass, std::vector<double> masses);

    /// The daughter masses.
    [[nodiscard]] const std::vector<double>& masses() const noexcept { return masses_; }

    /// An upper bound of generate()'s weight (GENBOD's bound).
    [[nodiscard]] double max_weight() const noexcept { return max_weight_; }

    /// A weighted event, orientation isotropic.
    [[nodiscard]] PhaseSpaceEvent generate(std::mt19937_64& rng) const;

    /// An unweighted event (weight 1): generate() accepted with probability weight/max_weight().
    [[nodiscard]] PhaseSpaceEvent generate_unweighted(std::mt19937_64& rng) const;

private:
    double parent_mass_;
    std::vector<double> masses_;
    double kinetic_ = 0.0;
    double max_weight_ = 1.0;
};

}  // namespace laddu::generation
