// laddu/physics: kinematics and angular functions as expressions.
//
// vectors.hpp (Vec3, Vec4: (E, px, py, pz), metric (+,-,-,-), boosts) → frames.hpp (boost
// chains, axes, angles) → channel.hpp (laddu's Channel: edges, vertices, inferred momenta,
// VertexFrame) and reaction.hpp (2 → 2 + decay helpers, helicity / Gottfried-Jackson angles,
// polarisation angle) → wigner.hpp, harmonics.hpp (d, D, Y_lm, Z_lm) and clebsch_gordan.hpp
// (numeric 3j / CG). particles.hpp holds PDG masses; angular_momentum.hpp, quantum_numbers.hpp,
// particle.hpp, particle_catalog.hpp, selection_rules.hpp and partial_waves.hpp laddu's quantum
// numbers, particles and selection rules. See docs/physics.md.
#pragma once

#include <laddu/physics/angular_momentum.hpp>
#include <laddu/physics/channel.hpp>
#include <laddu/physics/clebsch_gordan.hpp>
#include <laddu/physics/frames.hpp>
#include <laddu/physics/harmonics.hpp>
#include <laddu/physics/partial_waves.hpp>
#include <laddu/physics/particle.hpp>
#include <laddu/physics/particle_catalog.hpp>
#include <laddu/physics/particles.hpp>
#include <laddu/physics/quantum_numbers.hpp>
#include <laddu/physics/reaction.hpp>
#include <laddu/physics/selection_rules.hpp>
#include <laddu/physics/vectors.hpp>
#include <laddu/physics/wigner.hpp>
