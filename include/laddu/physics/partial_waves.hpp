// laddu/physics/partial_waves.hpp: two-body partial waves ^{2S+1}L_J and their enumeration
// under a RuleSet (laddu's PartialWave, AllowedPartialWave and SelectionRules).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <laddu/physics/angular_momentum.hpp>
#include <laddu/physics/selection_rules.hpp>

namespace laddu::physics {

/// A wave with total J, orbital L and total daughter spin S that couple (|L - S| <= J <= L + S).
struct PartialWave {
    J j;  ///< total angular momentum
    L l;  ///< orbital angular momentum
    J s;  ///< coupled daughter spin

    /// ModelError "Invalid relation: j, l, and s must be compatible" unless L and S couple to J.
    [[nodiscard]] static PartialWave make(J j, L l, J s);
    /// Spectroscopic label (2S+1) L J: "3P2", "2P3/2", "11L72".
    [[nodiscard]] std::string label() const;

    friend bool operator==(const PartialWave&, const PartialWave&) = default;
};

/// A wave that passed the rules, with the final state's parity and C-parity when inferable.
struct AllowedPartialWave {
    PartialWave wave;                ///< the wave
    std::optional<Parity> parity;    ///< P_a P_b (-1)^L
    std::optional<Parity> c_parity;  ///< (-1)^(L+S) for a particle-antiparticle pair

    friend bool operator==(const AllowedPartialWave&, const AllowedPartialWave&) = default;
};

/// Enumerates the (L, S) waves of parent -> a + b up to max_l and keeps those the rules allow.
struct SelectionRules {
    RuleSet rules;  ///< rules each wave must pass
    L max_l;        ///< largest L scanned

    /// RuleSet::strong() with this max_l.
    [[nodiscard]] static SelectionRules strong(L max_l) { return {RuleSet::strong(), max_l}; }

    /// RuleSet::electromagnetic() with this max_l.
    [[nodiscard]] static SelectionRules electromagnetic(L max_l) {
        return {RuleSet::electromagnetic(), max_l};
    }

    /// RuleSet::weak() with this max_l.
    [[nodiscard]] static SelectionRules weak(L max_l) { return {RuleSet::weak(), max_l}; }

    /// For each S in s_a ⊗ s_b (ascending), each L = 0..max_l whose (J, L, S) couple and whose
    /// rule report is allowed. Empty when the parent's or a daughter's spin is unknown.
    [[nodiscard]] std::vector<AllowedPartialWave>
    allowed_partial_waves(const ParticleProperties& parent, const ParticleProperties& a,
                          const ParticleProperties& b) const;
};

}  // namespace laddu::physics
