// laddu/physics/particle_catalog.hpp: laddu's built-in particle catalogue (`ld.particles`).
//
// The 64 particles of laddu 0.21.4's catalogue with its names, species, quantum numbers, PDG
// codes and masses (GeV, PDG 2024: S. Navas et al. (Particle Data Group), Phys. Rev. D 110
// (2024) 030001), field for field as laddu has them, including the fields laddu leaves unknown
// (e.g. the charge of self-conjugate mesons other than the π⁰, the isospin of K_S, K_L and the
// photon, every isospin projection, the neutrino masses). Entries are in laddu's order.
#pragma once

#include <string_view>
#include <vector>

#include <laddu/physics/particle.hpp>

namespace laddu::physics {

/// One catalogue particle under its key ("PROTON", "K_SHORT").
struct CatalogEntry {
    std::string_view key;           ///< attribute name in ld.particles
    ParticleProperties properties;  ///< the particle
};

/// Every catalogue particle, in laddu's order.
[[nodiscard]] const std::vector<CatalogEntry>& builtin_particles();

/// The catalogue particle under `key`; ModelError naming the key if there is none.
[[nodiscard]] const ParticleProperties& builtin_particle(std::string_view key);

}  // namespace laddu::physics
