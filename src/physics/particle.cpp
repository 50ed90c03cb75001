// ParticleProperties: validated updates (laddu's rules for self-conjugacy, C-parity, statistics).
#include <array>
#include <cmath>
#include <sstream>

#include <laddu/base/error.hpp>
#include <laddu/physics/particle.hpp>

namespace laddu::physics {

namespace {

using Field = std::optional<int> ParticleProperties::*;

struct Additive {
    const char* name;
    Field field;
};

constexpr std::array<Additive, 9> kAdditive{{
    {"charge", &ParticleProperties::charge},
    {"strangeness", &ParticleProperties::strangeness},
    {"charm", &ParticleProperties::charm},
    {"bottomness", &ParticleProperties::bottomness},
    {"topness", &ParticleProperties::topness},
    {"baryon_number", &ParticleProperties::baryon_number},
    {"electron_lepton_number", &ParticleProperties::electron_lepton_number},
    {"muon_lepton_number", &ParticleProperties::muon_lepton_number},
    {"tau_lepton_number", &ParticleProperties::tau_lepton_number},
}};

[[noreturn]] void relation(const std::string& message) {
    throw ModelError("Invalid relation: " + message);
}

constexpr const char* kDistinctSpecies =
    "self-conjugate particle cannot have distinct species and antiparticle_species";
constexpr const char* kCParityOnlySelfConjugate =
    "C-parity is only applicable to self-conjugate particles";

bool is_self_conjugate(const ParticleProperties& p) {
    return p.self_conjugate == true;
}

void fill_zero_additive(ParticleProperties& p) {
    if (is_self_conjugate(p)) {
        for (const auto& a : kAdditive) {
            if (!(p.*a.field)) {
                p.*a.field = 0;
            }
        }
    }
}

void check_invariants(const ParticleProperties& p) {
    if (is_self_conjugate(p)) {
        for (const auto& a : kAdditive) {
            if ((p.*a.field).value_or(0) != 0) {
                relation(std::string("self-conjugate particles must have ") + a.name + " = 0");
            }
        }
    }
    if (p.c_parity && p.self_conjugate == false) {
        relation(kCParityOnlySelfConjugate);
    }
}

void set_species(ParticleProperties& p, const std::string& species) {
    if (is_self_conjugate(p)) {
        if (p.antiparticle_species && *p.antiparticle_species != species) {
            relation(kDistinctSpecies);
        }
        if (!p.antiparticle_species) {
            p.antiparticle_species = species;
        }
    }
    p.species = species;
    check_invariants(p);
}

void set_antiparticle_species(ParticleProperties& p, const std::string& anti) {
    if (is_self_conjugate(p)) {
        if (p.species && *p.species != anti) {
            relation(kDistinctSpecies);
        }
        if (!p.species) {
            p.species = anti;
        }
    }
    p.antiparticle_species = anti;
    check_invariants(p);
}

void set_self_conjugate(ParticleProperties& p, bool value) {
    if (value) {
        if (p.species && p.antiparticle_species && *p.species != *p.antiparticle_species) {
            relation(kDistinctSpecies);
        }
        if (p.species && !p.antiparticle_species) {
            p.antiparticle_species = p.species;
        } else if (!p.species && p.antiparticle_species) {
            p.species = p.antiparticle_species;
        }
        p.self_conjugate = true;
        fill_zero_additive(p);
    } else {
        if (p.c_parity) {
            relation("non-self-conjugate particles cannot have C-parity");
        }
        p.self_conjugate = false;
    }
    check_invariants(p);
}

void set_c_parity(ParticleProperties& p, Parity c) {
    if (p.self_conjugate == false) {
        relation(kCParityOnlySelfConjugate);
    }
    p.c_parity = c;
    if (!p.self_conjugate) {
        set_self_conjugate(p, true);
    }
    check_invariants(p);
}

void set_additive(ParticleProperties& p, const Additive& a, int value) {
    if (is_self_conjugate(p) && value != 0) {
        throw ModelError(std::string("Invalid value for ") + a.name +
                         ": expected 0 for self-conjugate particles, got " + std::to_string(value));
    }
    p.*a.field = value;
    check_invariants(p);
}

std::string mass_text(double value) {
    std::ostringstream out;
    out << value;
    return out.str();
}

}  // namespace

bool ParticleProperties::is_antiparticle_of(const ParticleProperties& other) const {
    if (!species || !other.species) {
        return false;
    }
    if (antiparticle_species && other.antiparticle_species) {
        return *antiparticle_species == *other.species && *other.antiparticle_species == *species;
    }
    if (antiparticle_species) {
        return *antiparticle_species == *other.species;
    }
    if (other.antiparticle_species) {
        return *other.antiparticle_species == *species;
    }
    return false;
}

ParticleProperties ParticleProperties::jp(J j, Parity p) {
    ParticleProperties out;
    out.spin = j;
    out.parity = p;
    out.statistics = statistics_from_spin(j);
    return out;
}

ParticleProperties ParticleProperties::jpc(J j, Parity p, Parity c) {
    ParticleProperties out = jp(j, p);
    out.c_parity = c;
    return out;
}

ParticleProperties ParticleProperties::boson(L j) {
    ParticleProperties out;
    out.spin = j.as_j();
    out.statistics = statistics_from_spin(*out.spin);
    out.baryon_number = 0;
    out.electron_lepton_number = 0;
    out.muon_lepton_number = 0;
    out.tau_lepton_number = 0;
    return out;
}

ParticleProperties ParticleProperties::lepton(int electron, int muon, int tau) {
    ParticleProperties out;
    out.strangeness = 0;
    out.charm = 0;
    out.bottomness = 0;
    out.topness = 0;
    out.baryon_number = 0;
    out.electron_lepton_number = electron;
    out.muon_lepton_number = muon;
    out.tau_lepton_number = tau;
    return out;
}

ParticleProperties ParticleProperties::hadron() {
    ParticleProperties out;
    out.electron_lepton_number = 0;
    out.muon_lepton_number = 0;
    out.tau_lepton_number = 0;
    return out;
}

ParticleProperties ParticleProperties::meson() {
    ParticleProperties out = hadron();
    out.baryon_number = 0;
    return out;
}

ParticleProperties ParticleProperties::baryon(int b) {
    ParticleProperties out = hadron();
    out.baryon_number = b;
    return out;
}

ParticleProperties apply_patch(ParticleProperties p, const ParticlePatch& patch) {
    if (patch.name) {
        p.name = patch.name;
    }
    if (patch.species && patch.antiparticle_species) {
        p.self_conjugate = *patch.species == *patch.antiparticle_species;
        p.species = patch.species;
        p.antiparticle_species = patch.antiparticle_species;
        fill_zero_additive(p);
        check_invariants(p);
    } else if (patch.species) {
        set_species(p, *patch.species);
    } else if (patch.antiparticle_species) {
        set_antiparticle_species(p, *patch.antiparticle_species);
    }
    if (patch.self_conjugate) {
        set_self_conjugate(p, *patch.self_conjugate);
    }
    if (patch.spin) {
        p.spin = patch.spin;
        p.statistics = statistics_from_spin(*patch.spin);
    }
    if (patch.parity) {
        p.parity = patch.parity;
    }
    if (patch.c_parity) {
        set_c_parity(p, *patch.c_parity);
    }
    if (patch.g_parity) {
        p.g_parity = patch.g_parity;
    }
    if (patch.charge) {
        set_additive(p, kAdditive[0], *patch.charge);
    }
    if (patch.isospin) {
        p.isospin = patch.isospin;
    }
    const std::array<std::pair<const std::optional<int>*, std::size_t>, 8> rest{{
        {&patch.strangeness, 1},
        {&patch.charm, 2},
        {&patch.bottomness, 3},
        {&patch.topness, 4},
        {&patch.baryon_number, 5},
        {&patch.electron_lepton_number, 6},
        {&patch.muon_lepton_number, 7},
        {&patch.tau_lepton_number, 8},
    }};
    for (const auto& [value, index] : rest) {
        if (*value) {
            set_additive(p, kAdditive[index], **value);
        }
    }
    if (patch.statistics) {
        if (p.spin && statistics_from_spin(*p.spin) != *patch.statistics) {
            relation("spin and statistics must be consistent");
        }
        p.statistics = patch.statistics;
    }
    if (patch.mass) {
        if (!std::isfinite(*patch.mass) || *patch.mass < 0.0) {
            throw ModelError(
                "Invalid value for particle mass: expected finite and non-negative, got " +
                mass_text(*patch.mass));
        }
        p.mass = patch.mass;
    }
    if (patch.ids) {
        p.ids = *patch.ids;
    }
    return p;
}

}  // namespace laddu::physics
