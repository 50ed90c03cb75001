// laddu/physics/particle.hpp: a particle's quantum numbers, each one known or unknown.
//
// laddu's ParticleProperties: every field is optional, because selection rules distinguish "not
// conserved" from "cannot be checked". Setting a field through ParticlePatch validates it against
// the others as laddu does: a self-conjugate particle has species == antiparticle species and
// zero additive quantum numbers (filled in as 0 when it is declared self-conjugate), only a
// self-conjugate particle has a C-parity (setting one makes an undeclared particle
// self-conjugate), statistics must agree with the spin (setting the spin sets the statistics),
// and the mass is finite and non-negative. Violations throw ModelError with laddu's messages.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <laddu/physics/angular_momentum.hpp>
#include <laddu/physics/quantum_numbers.hpp>

namespace laddu::physics {

/// The known properties of a particle (laddu's ParticleProperties).
struct ParticleProperties {
    std::optional<std::string> name;                        ///< display name ("p", "pi+")
    std::optional<std::string> species;                     ///< species identifier ("proton")
    std::optional<std::string> antiparticle_species;        ///< its antiparticle's species
    std::optional<bool> self_conjugate;                     ///< particle == antiparticle
    std::optional<J> spin;                                  ///< spin
    std::optional<Parity> parity;                           ///< intrinsic parity
    std::optional<Parity> c_parity;                         ///< C-parity (self-conjugate only)
    std::optional<Parity> g_parity;                         ///< G-parity
    std::optional<int> charge;                              ///< electric charge in units of e
    std::optional<Isospin> isospin;                         ///< isospin and projection
    std::optional<int> strangeness;                         ///< S
    std::optional<int> charm;                               ///< C
    std::optional<int> bottomness;                          ///< B'
    std::optional<int> topness;                             ///< T
    std::optional<int> baryon_number;                       ///< B
    std::optional<int> electron_lepton_number;              ///< L_e
    std::optional<int> muon_lepton_number;                  ///< L_mu
    std::optional<int> tau_lepton_number;                   ///< L_tau
    std::optional<Statistics> statistics;                   ///< boson or fermion
    std::optional<double> mass;                             ///< GeV
    std::vector<std::pair<std::string, std::int64_t>> ids;  ///< external codes ({"pdg", 2212})

    /// Whether this is the antiparticle of `other`, judged from species names: both
    /// antiparticle species known and crossed, or the one known antiparticle species matching.
    [[nodiscard]] bool is_antiparticle_of(const ParticleProperties& other) const;

    /// Spin and parity, with the statistics the spin implies.
    [[nodiscard]] static ParticleProperties jp(J j, Parity p);
    /// Spin, parity and C-parity, with the statistics the spin implies.
    [[nodiscard]] static ParticleProperties jpc(J j, Parity p, Parity c);
    /// Integer spin `j` and zero baryon and lepton numbers.
    [[nodiscard]] static ParticleProperties boson(L j);
    /// Zero flavour and baryon number and the given lepton numbers.
    [[nodiscard]] static ParticleProperties lepton(int electron, int muon, int tau);
    /// Zero lepton numbers.
    [[nodiscard]] static ParticleProperties hadron();
    /// A hadron with baryon number 0.
    [[nodiscard]] static ParticleProperties meson();
    /// A hadron with baryon number `b`.
    [[nodiscard]] static ParticleProperties baryon(int b);

    friend bool operator==(const ParticleProperties&, const ParticleProperties&) = default;
};

/// Fields to set on a ParticleProperties (laddu's keyword arguments of Particle(...)).
struct ParticlePatch {
    std::optional<std::string> name;                  ///< see ParticleProperties
    std::optional<std::string> species;               ///< see ParticleProperties
    std::optional<std::string> antiparticle_species;  ///< see ParticleProperties
    std::optional<bool> self_conjugate;               ///< see ParticleProperties
    std::optional<J> spin;                            ///< also sets the statistics
    std::optional<Parity> parity;                     ///< see ParticleProperties
    std::optional<Parity> c_parity;                   ///< see ParticleProperties
    std::optional<Parity> g_parity;                   ///< see ParticleProperties
    std::optional<int> charge;                        ///< see ParticleProperties
    std::optional<Isospin> isospin;                   ///< see ParticleProperties
    std::optional<int> strangeness;                   ///< see ParticleProperties
    std::optional<int> charm;                         ///< see ParticleProperties
    std::optional<int> bottomness;                    ///< see ParticleProperties
    std::optional<int> topness;                       ///< see ParticleProperties
    std::optional<int> baryon_number;                 ///< see ParticleProperties
    std::optional<int> electron_lepton_number;        ///< see ParticleProperties
    std::optional<int> muon_lepton_number;            ///< see ParticleProperties
    std::optional<int> tau_lepton_number;             ///< see ParticleProperties
    std::optional<Statistics> statistics;             ///< must agree with the spin
    std::optional<double> mass;                       ///< finite, >= 0
    std::optional<std::vector<std::pair<std::string, std::int64_t>>> ids;  ///< replaces all ids
};

/// `base` with the patch's fields set in laddu's order (name, species names, self-conjugacy,
/// spin, parity, C, G, charge, isospin, flavours, baryon and lepton numbers, statistics, mass,
/// ids); ModelError on the first inconsistency.
[[nodiscard]] ParticleProperties apply_patch(ParticleProperties base, const ParticlePatch& patch);

}  // namespace laddu::physics
