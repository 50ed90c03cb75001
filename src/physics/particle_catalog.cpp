// The built-in particle catalogue: laddu 0.21.4's particles, field for field.
#include <string>
#include <utility>

#include <laddu/base/error.hpp>
#include <laddu/physics/particle_catalog.hpp>

namespace laddu::physics {

namespace {

constexpr Parity kPos = Parity::kPositive;
constexpr Parity kNeg = Parity::kNegative;
constexpr Statistics kBoson = Statistics::kBoson;
constexpr Statistics kFermion = Statistics::kFermion;

std::vector<CatalogEntry> make_catalog() {
    std::vector<CatalogEntry> all;
    all.reserve(64);
    {  // PHOTON
        ParticleProperties p;
        p.name = "gamma";
        p.species = "photon";
        p.antiparticle_species = "photon";
        p.self_conjugate = true;
        p.spin = J::from_doubled(2);
        p.parity = kNeg;
        p.c_parity = kNeg;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 0.0;
        p.ids = {{"pdg", 22}};
        all.push_back({"PHOTON", std::move(p)});
    }
    {  // W_PLUS
        ParticleProperties p;
        p.name = "W+";
        p.species = "W+";
        p.antiparticle_species = "W-";
        p.self_conjugate = false;
        p.spin = J::from_doubled(2);
        p.charge = 1;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 80.369;
        p.ids = {{"pdg", 24}};
        all.push_back({"W_PLUS", std::move(p)});
    }
    {  // W_MINUS
        ParticleProperties p;
        p.name = "W-";
        p.species = "W-";
        p.antiparticle_species = "W+";
        p.self_conjugate = false;
        p.spin = J::from_doubled(2);
        p.charge = -1;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 80.369;
        p.ids = {{"pdg", -24}};
        all.push_back({"W_MINUS", std::move(p)});
    }
    {  // Z_BOSON
        ParticleProperties p;
        p.name = "Z0";
        p.species = "Z";
        p.antiparticle_species = "Z";
        p.self_conjugate = true;
        p.spin = J::from_doubled(2);
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 91.188;
        p.ids = {{"pdg", 23}};
        all.push_back({"Z_BOSON", std::move(p)});
    }
    {  // HIGGS
        ParticleProperties p;
        p.name = "H";
        p.species = "Higgs";
        p.antiparticle_species = "Higgs";
        p.self_conjugate = true;
        p.spin = J::from_doubled(0);
        p.parity = kPos;
        p.c_parity = kPos;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 125.2;
        p.ids = {{"pdg", 25}};
        all.push_back({"HIGGS", std::move(p)});
    }
    {  // ELECTRON
        ParticleProperties p;
        p.name = "e-";
        p.species = "electron";
        p.antiparticle_species = "positron";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.charge = -1;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 1;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.mass = 0.00051099895;
        p.ids = {{"pdg", 11}};
        all.push_back({"ELECTRON", std::move(p)});
    }
    {  // POSITRON
        ParticleProperties p;
        p.name = "e+";
        p.species = "positron";
        p.antiparticle_species = "electron";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.charge = 1;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = -1;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.mass = 0.00051099895;
        p.ids = {{"pdg", -11}};
        all.push_back({"POSITRON", std::move(p)});
    }
    {  // MUON
        ParticleProperties p;
        p.name = "mu-";
        p.species = "muon";
        p.antiparticle_species = "antimuon";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.charge = -1;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 1;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.mass = 0.1056583755;
        p.ids = {{"pdg", 13}};
        all.push_back({"MUON", std::move(p)});
    }
    {  // ANTIMUON
        ParticleProperties p;
        p.name = "mu+";
        p.species = "antimuon";
        p.antiparticle_species = "muon";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.charge = 1;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = -1;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.mass = 0.1056583755;
        p.ids = {{"pdg", -13}};
        all.push_back({"ANTIMUON", std::move(p)});
    }
    {  // TAU
        ParticleProperties p;
        p.name = "tau-";
        p.species = "tau";
        p.antiparticle_species = "antitau";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.charge = -1;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 1;
        p.statistics = kFermion;
        p.mass = 1.77693;
        p.ids = {{"pdg", 15}};
        all.push_back({"TAU", std::move(p)});
    }
    {  // ANTITAU
        ParticleProperties p;
        p.name = "tau+";
        p.species = "antitau";
        p.antiparticle_species = "tau";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.charge = 1;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = -1;
        p.statistics = kFermion;
        p.mass = 1.77693;
        p.ids = {{"pdg", -15}};
        all.push_back({"ANTITAU", std::move(p)});
    }
    {  // ELECTRON_NEUTRINO
        ParticleProperties p;
        p.name = "nu_e";
        p.species = "nu_e";
        p.antiparticle_species = "nubar_e";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 1;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.ids = {{"pdg", 12}};
        all.push_back({"ELECTRON_NEUTRINO", std::move(p)});
    }
    {  // ELECTRON_ANTINEUTRINO
        ParticleProperties p;
        p.name = "nubar_e";
        p.species = "nubar_e";
        p.antiparticle_species = "nu_e";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = -1;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.ids = {{"pdg", -12}};
        all.push_back({"ELECTRON_ANTINEUTRINO", std::move(p)});
    }
    {  // MUON_NEUTRINO
        ParticleProperties p;
        p.name = "nu_mu";
        p.species = "nu_mu";
        p.antiparticle_species = "nubar_mu";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 1;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.ids = {{"pdg", 14}};
        all.push_back({"MUON_NEUTRINO", std::move(p)});
    }
    {  // MUON_ANTINEUTRINO
        ParticleProperties p;
        p.name = "nubar_mu";
        p.species = "nubar_mu";
        p.antiparticle_species = "nu_mu";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = -1;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.ids = {{"pdg", -14}};
        all.push_back({"MUON_ANTINEUTRINO", std::move(p)});
    }
    {  // TAU_NEUTRINO
        ParticleProperties p;
        p.name = "nu_tau";
        p.species = "nu_tau";
        p.antiparticle_species = "nubar_tau";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 1;
        p.statistics = kFermion;
        p.ids = {{"pdg", 16}};
        all.push_back({"TAU_NEUTRINO", std::move(p)});
    }
    {  // TAU_ANTINEUTRINO
        ParticleProperties p;
        p.name = "nu_tau_bar";
        p.species = "nubar_tau";
        p.antiparticle_species = "nu_tau";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = -1;
        p.statistics = kFermion;
        p.ids = {{"pdg", -16}};
        all.push_back({"TAU_ANTINEUTRINO", std::move(p)});
    }
    {  // PI_PLUS
        ParticleProperties p;
        p.name = "pi+";
        p.species = "pi+";
        p.antiparticle_species = "pi-";
        p.self_conjugate = false;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.charge = 1;
        p.isospin = Isospin{J::from_doubled(2), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 0.13957039;
        p.ids = {{"pdg", 211}};
        all.push_back({"PI_PLUS", std::move(p)});
    }
    {  // PI_MINUS
        ParticleProperties p;
        p.name = "pi-";
        p.species = "pi-";
        p.antiparticle_species = "pi+";
        p.self_conjugate = false;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.charge = -1;
        p.isospin = Isospin{J::from_doubled(2), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 0.13957039;
        p.ids = {{"pdg", -211}};
        all.push_back({"PI_MINUS", std::move(p)});
    }
    {  // PI_ZERO
        ParticleProperties p;
        p.name = "pi0";
        p.species = "pi0";
        p.antiparticle_species = "pi0";
        p.self_conjugate = true;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.c_parity = kPos;
        p.g_parity = kNeg;
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(2), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 0.1349768;
        p.ids = {{"pdg", 111}};
        all.push_back({"PI_ZERO", std::move(p)});
    }
    {  // K_PLUS
        ParticleProperties p;
        p.name = "K+";
        p.species = "K+";
        p.antiparticle_species = "K-";
        p.self_conjugate = false;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.charge = 1;
        p.isospin = Isospin{J::from_doubled(1), std::nullopt};
        p.strangeness = 1;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 0.493677;
        p.ids = {{"pdg", 321}};
        all.push_back({"K_PLUS", std::move(p)});
    }
    {  // K_MINUS
        ParticleProperties p;
        p.name = "K-";
        p.species = "K-";
        p.antiparticle_species = "K+";
        p.self_conjugate = false;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.charge = -1;
        p.isospin = Isospin{J::from_doubled(1), std::nullopt};
        p.strangeness = -1;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 0.493677;
        p.ids = {{"pdg", -321}};
        all.push_back({"K_MINUS", std::move(p)});
    }
    {  // K_ZERO
        ParticleProperties p;
        p.name = "K0";
        p.species = "K0";
        p.antiparticle_species = "K0_bar";
        p.self_conjugate = false;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(1), std::nullopt};
        p.strangeness = 1;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 0.497611;
        p.ids = {{"pdg", 311}};
        all.push_back({"K_ZERO", std::move(p)});
    }
    {  // K_ZERO_BAR
        ParticleProperties p;
        p.name = "K0_bar";
        p.species = "K0_bar";
        p.antiparticle_species = "K0";
        p.self_conjugate = false;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(1), std::nullopt};
        p.strangeness = -1;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 0.497611;
        p.ids = {{"pdg", -311}};
        all.push_back({"K_ZERO_BAR", std::move(p)});
    }
    {  // K_SHORT
        ParticleProperties p;
        p.name = "K_S0";
        p.species = "K_S0";
        p.antiparticle_species = "K_S0";
        p.self_conjugate = true;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 0.497611;
        p.ids = {{"pdg", 310}};
        all.push_back({"K_SHORT", std::move(p)});
    }
    {  // K_LONG
        ParticleProperties p;
        p.name = "K_L0";
        p.species = "K_L0";
        p.antiparticle_species = "K_L0";
        p.self_conjugate = true;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 0.497611;
        p.ids = {{"pdg", 130}};
        all.push_back({"K_LONG", std::move(p)});
    }
    {  // ETA
        ParticleProperties p;
        p.name = "eta";
        p.species = "eta";
        p.antiparticle_species = "eta";
        p.self_conjugate = true;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.c_parity = kPos;
        p.g_parity = kPos;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 0.547862;
        p.ids = {{"pdg", 221}};
        all.push_back({"ETA", std::move(p)});
    }
    {  // ETA_PRIME
        ParticleProperties p;
        p.name = "eta'";
        p.species = "eta'";
        p.antiparticle_species = "eta'";
        p.self_conjugate = true;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.c_parity = kPos;
        p.g_parity = kPos;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 0.95778;
        p.ids = {{"pdg", 331}};
        all.push_back({"ETA_PRIME", std::move(p)});
    }
    {  // RHO_PLUS
        ParticleProperties p;
        p.name = "rho+";
        p.species = "rho+";
        p.antiparticle_species = "rho-";
        p.self_conjugate = false;
        p.spin = J::from_doubled(2);
        p.parity = kNeg;
        p.charge = 1;
        p.isospin = Isospin{J::from_doubled(2), std::nullopt};
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 0.77511;
        p.ids = {{"pdg", 213}};
        all.push_back({"RHO_PLUS", std::move(p)});
    }
    {  // RHO_MINUS
        ParticleProperties p;
        p.name = "rho-";
        p.species = "rho-";
        p.antiparticle_species = "rho+";
        p.self_conjugate = false;
        p.spin = J::from_doubled(2);
        p.parity = kNeg;
        p.charge = -1;
        p.isospin = Isospin{J::from_doubled(2), std::nullopt};
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 0.77511;
        p.ids = {{"pdg", -213}};
        all.push_back({"RHO_MINUS", std::move(p)});
    }
    {  // RHO_ZERO
        ParticleProperties p;
        p.name = "rho0";
        p.species = "rho0";
        p.antiparticle_species = "rho0";
        p.self_conjugate = true;
        p.spin = J::from_doubled(2);
        p.parity = kNeg;
        p.c_parity = kNeg;
        p.g_parity = kPos;
        p.isospin = Isospin{J::from_doubled(2), std::nullopt};
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 0.77511;
        p.ids = {{"pdg", 113}};
        all.push_back({"RHO_ZERO", std::move(p)});
    }
    {  // OMEGA
        ParticleProperties p;
        p.name = "omega";
        p.species = "omega";
        p.antiparticle_species = "omega";
        p.self_conjugate = true;
        p.spin = J::from_doubled(2);
        p.parity = kNeg;
        p.c_parity = kNeg;
        p.g_parity = kNeg;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 0.78266;
        p.ids = {{"pdg", 223}};
        all.push_back({"OMEGA", std::move(p)});
    }
    {  // PHI
        ParticleProperties p;
        p.name = "phi";
        p.species = "phi";
        p.antiparticle_species = "phi";
        p.self_conjugate = true;
        p.spin = J::from_doubled(2);
        p.parity = kNeg;
        p.c_parity = kNeg;
        p.g_parity = kNeg;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 1.019461;
        p.ids = {{"pdg", 333}};
        all.push_back({"PHI", std::move(p)});
    }
    {  // J_PSI
        ParticleProperties p;
        p.name = "J/psi";
        p.species = "J/psi";
        p.antiparticle_species = "J/psi";
        p.self_conjugate = true;
        p.spin = J::from_doubled(2);
        p.parity = kNeg;
        p.c_parity = kNeg;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 3.0969;
        p.ids = {{"pdg", 443}};
        all.push_back({"J_PSI", std::move(p)});
    }
    {  // D_PLUS
        ParticleProperties p;
        p.name = "D+";
        p.species = "D+";
        p.antiparticle_species = "D-";
        p.self_conjugate = false;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.charge = 1;
        p.isospin = Isospin{J::from_doubled(1), std::nullopt};
        p.strangeness = 0;
        p.charm = 1;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 1.86966;
        p.ids = {{"pdg", 411}};
        all.push_back({"D_PLUS", std::move(p)});
    }
    {  // D_MINUS
        ParticleProperties p;
        p.name = "D-";
        p.species = "D-";
        p.antiparticle_species = "D+";
        p.self_conjugate = false;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.charge = -1;
        p.isospin = Isospin{J::from_doubled(1), std::nullopt};
        p.strangeness = 0;
        p.charm = -1;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 1.86966;
        p.ids = {{"pdg", -411}};
        all.push_back({"D_MINUS", std::move(p)});
    }
    {  // D_ZERO
        ParticleProperties p;
        p.name = "D0";
        p.species = "D0";
        p.antiparticle_species = "D0_bar";
        p.self_conjugate = false;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(1), std::nullopt};
        p.strangeness = 0;
        p.charm = 1;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 1.86484;
        p.ids = {{"pdg", 421}};
        all.push_back({"D_ZERO", std::move(p)});
    }
    {  // D_ZERO_BAR
        ParticleProperties p;
        p.name = "D0_bar";
        p.species = "D0_bar";
        p.antiparticle_species = "D0";
        p.self_conjugate = false;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(1), std::nullopt};
        p.strangeness = 0;
        p.charm = -1;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 1.86484;
        p.ids = {{"pdg", -421}};
        all.push_back({"D_ZERO_BAR", std::move(p)});
    }
    {  // D_S_PLUS
        ParticleProperties p;
        p.name = "D_s+";
        p.species = "D_s+";
        p.antiparticle_species = "D_s-";
        p.self_conjugate = false;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.charge = 1;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.strangeness = 1;
        p.charm = 1;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 1.96835;
        p.ids = {{"pdg", 431}};
        all.push_back({"D_S_PLUS", std::move(p)});
    }
    {  // D_S_MINUS
        ParticleProperties p;
        p.name = "D_s-";
        p.species = "D_s-";
        p.antiparticle_species = "D_s+";
        p.self_conjugate = false;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.charge = -1;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.strangeness = -1;
        p.charm = -1;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 1.96835;
        p.ids = {{"pdg", -431}};
        all.push_back({"D_S_MINUS", std::move(p)});
    }
    {  // B_PLUS
        ParticleProperties p;
        p.name = "B+";
        p.species = "B+";
        p.antiparticle_species = "B-";
        p.self_conjugate = false;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.charge = 1;
        p.isospin = Isospin{J::from_doubled(1), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = 1;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 5.27941;
        p.ids = {{"pdg", 521}};
        all.push_back({"B_PLUS", std::move(p)});
    }
    {  // B_MINUS
        ParticleProperties p;
        p.name = "B-";
        p.species = "B-";
        p.antiparticle_species = "B+";
        p.self_conjugate = false;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.charge = -1;
        p.isospin = Isospin{J::from_doubled(1), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = -1;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 5.27941;
        p.ids = {{"pdg", -521}};
        all.push_back({"B_MINUS", std::move(p)});
    }
    {  // B_ZERO
        ParticleProperties p;
        p.name = "B0";
        p.species = "B0";
        p.antiparticle_species = "B0_bar";
        p.self_conjugate = false;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(1), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = 1;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 5.27972;
        p.ids = {{"pdg", 511}};
        all.push_back({"B_ZERO", std::move(p)});
    }
    {  // B_ZERO_BAR
        ParticleProperties p;
        p.name = "B0_bar";
        p.species = "B0_bar";
        p.antiparticle_species = "B0";
        p.self_conjugate = false;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(1), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = -1;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 5.27972;
        p.ids = {{"pdg", -511}};
        all.push_back({"B_ZERO_BAR", std::move(p)});
    }
    {  // B_S_ZERO
        ParticleProperties p;
        p.name = "B_s0";
        p.species = "B_s0";
        p.antiparticle_species = "B_s0_bar";
        p.self_conjugate = false;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.strangeness = -1;
        p.charm = 0;
        p.bottomness = 1;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 5.36693;
        p.ids = {{"pdg", 531}};
        all.push_back({"B_S_ZERO", std::move(p)});
    }
    {  // B_S_ZERO_BAR
        ParticleProperties p;
        p.name = "B_s0_bar";
        p.species = "B_s0_bar";
        p.antiparticle_species = "B_s0";
        p.self_conjugate = false;
        p.spin = J::from_doubled(0);
        p.parity = kNeg;
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.strangeness = 1;
        p.charm = 0;
        p.bottomness = -1;
        p.topness = 0;
        p.baryon_number = 0;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kBoson;
        p.mass = 5.36693;
        p.ids = {{"pdg", -531}};
        all.push_back({"B_S_ZERO_BAR", std::move(p)});
    }
    {  // PROTON
        ParticleProperties p;
        p.name = "p";
        p.species = "proton";
        p.antiparticle_species = "antiproton";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.parity = kPos;
        p.charge = 1;
        p.isospin = Isospin{J::from_doubled(1), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 1;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.mass = 0.93827208816;
        p.ids = {{"pdg", 2212}};
        all.push_back({"PROTON", std::move(p)});
    }
    {  // ANTIPROTON
        ParticleProperties p;
        p.name = "p_bar";
        p.species = "antiproton";
        p.antiparticle_species = "proton";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.parity = kPos;
        p.charge = -1;
        p.isospin = Isospin{J::from_doubled(1), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = -1;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.mass = 0.93827208816;
        p.ids = {{"pdg", -2212}};
        all.push_back({"ANTIPROTON", std::move(p)});
    }
    {  // NEUTRON
        ParticleProperties p;
        p.name = "n";
        p.species = "neutron";
        p.antiparticle_species = "antineutron";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.parity = kPos;
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(1), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 1;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.mass = 0.93956542052;
        p.ids = {{"pdg", 2112}};
        all.push_back({"NEUTRON", std::move(p)});
    }
    {  // ANTINEUTRON
        ParticleProperties p;
        p.name = "n_bar";
        p.species = "antineutron";
        p.antiparticle_species = "neutron";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.parity = kPos;
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(1), std::nullopt};
        p.strangeness = 0;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = -1;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.mass = 0.93956542052;
        p.ids = {{"pdg", -2112}};
        all.push_back({"ANTINEUTRON", std::move(p)});
    }
    {  // LAMBDA
        ParticleProperties p;
        p.name = "Lambda0";
        p.species = "Lambda0";
        p.antiparticle_species = "Lambda0_bar";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.parity = kPos;
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.strangeness = -1;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 1;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.mass = 1.115683;
        p.ids = {{"pdg", 3122}};
        all.push_back({"LAMBDA", std::move(p)});
    }
    {  // ANTILAMBDA
        ParticleProperties p;
        p.name = "Lambda0_bar";
        p.species = "Lambda0_bar";
        p.antiparticle_species = "Lambda0";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.parity = kPos;
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.strangeness = 1;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = -1;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.mass = 1.115683;
        p.ids = {{"pdg", -3122}};
        all.push_back({"ANTILAMBDA", std::move(p)});
    }
    {  // SIGMA_PLUS
        ParticleProperties p;
        p.name = "Sigma+";
        p.species = "Sigma+";
        p.antiparticle_species = "Sigma-_bar";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.parity = kPos;
        p.charge = 1;
        p.isospin = Isospin{J::from_doubled(2), std::nullopt};
        p.strangeness = -1;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 1;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.mass = 1.18937;
        p.ids = {{"pdg", 3222}};
        all.push_back({"SIGMA_PLUS", std::move(p)});
    }
    {  // ANTISIGMA_MINUS
        ParticleProperties p;
        p.name = "Sigma-_bar";
        p.species = "Sigma-_bar";
        p.antiparticle_species = "Sigma+";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.parity = kPos;
        p.charge = -1;
        p.isospin = Isospin{J::from_doubled(2), std::nullopt};
        p.strangeness = 1;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = -1;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.mass = 1.18937;
        p.ids = {{"pdg", -3222}};
        all.push_back({"ANTISIGMA_MINUS", std::move(p)});
    }
    {  // SIGMA_ZERO
        ParticleProperties p;
        p.name = "Sigma0";
        p.species = "Sigma0";
        p.antiparticle_species = "Sigma0_bar";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.parity = kPos;
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(2), std::nullopt};
        p.strangeness = -1;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 1;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.mass = 1.192642;
        p.ids = {{"pdg", 3212}};
        all.push_back({"SIGMA_ZERO", std::move(p)});
    }
    {  // ANTISIGMA_ZERO
        ParticleProperties p;
        p.name = "Sigma0_bar";
        p.species = "Sigma0_bar";
        p.antiparticle_species = "Sigma0";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.parity = kPos;
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(2), std::nullopt};
        p.strangeness = 1;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = -1;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.mass = 1.192642;
        p.ids = {{"pdg", -3212}};
        all.push_back({"ANTISIGMA_ZERO", std::move(p)});
    }
    {  // SIGMA_MINUS
        ParticleProperties p;
        p.name = "Sigma-";
        p.species = "Sigma-";
        p.antiparticle_species = "Sigma+_bar";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.parity = kPos;
        p.charge = -1;
        p.isospin = Isospin{J::from_doubled(2), std::nullopt};
        p.strangeness = -1;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 1;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.mass = 1.197449;
        p.ids = {{"pdg", 3112}};
        all.push_back({"SIGMA_MINUS", std::move(p)});
    }
    {  // ANTISIGMA_PLUS
        ParticleProperties p;
        p.name = "Sigma+_bar";
        p.species = "Sigma+_bar";
        p.antiparticle_species = "Sigma-";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.parity = kPos;
        p.charge = 1;
        p.isospin = Isospin{J::from_doubled(2), std::nullopt};
        p.strangeness = 1;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = -1;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.mass = 1.197449;
        p.ids = {{"pdg", -3112}};
        all.push_back({"ANTISIGMA_PLUS", std::move(p)});
    }
    {  // XI_ZERO
        ParticleProperties p;
        p.name = "Xi0";
        p.species = "Xi0";
        p.antiparticle_species = "Xi0_bar";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.parity = kPos;
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(1), std::nullopt};
        p.strangeness = -2;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 1;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.mass = 1.31486;
        p.ids = {{"pdg", 3322}};
        all.push_back({"XI_ZERO", std::move(p)});
    }
    {  // ANTI_XI_ZERO
        ParticleProperties p;
        p.name = "Xi0_bar";
        p.species = "Xi0_bar";
        p.antiparticle_species = "Xi0";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.parity = kPos;
        p.charge = 0;
        p.isospin = Isospin{J::from_doubled(1), std::nullopt};
        p.strangeness = 2;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = -1;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.mass = 1.31486;
        p.ids = {{"pdg", -3322}};
        all.push_back({"ANTI_XI_ZERO", std::move(p)});
    }
    {  // XI_MINUS
        ParticleProperties p;
        p.name = "Xi-";
        p.species = "Xi-";
        p.antiparticle_species = "Xi+_bar";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.parity = kPos;
        p.charge = -1;
        p.isospin = Isospin{J::from_doubled(1), std::nullopt};
        p.strangeness = -2;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 1;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.mass = 1.32171;
        p.ids = {{"pdg", 3312}};
        all.push_back({"XI_MINUS", std::move(p)});
    }
    {  // ANTI_XI_PLUS
        ParticleProperties p;
        p.name = "Xi+_bar";
        p.species = "Xi+_bar";
        p.antiparticle_species = "Xi-";
        p.self_conjugate = false;
        p.spin = J::from_doubled(1);
        p.parity = kPos;
        p.charge = 1;
        p.isospin = Isospin{J::from_doubled(1), std::nullopt};
        p.strangeness = 2;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = -1;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.mass = 1.32171;
        p.ids = {{"pdg", -3312}};
        all.push_back({"ANTI_XI_PLUS", std::move(p)});
    }
    {  // OMEGA_MINUS
        ParticleProperties p;
        p.name = "Omega-";
        p.species = "Omega-";
        p.antiparticle_species = "Omega+_bar";
        p.self_conjugate = false;
        p.spin = J::from_doubled(3);
        p.parity = kPos;
        p.charge = -1;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.strangeness = -3;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = 1;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.mass = 1.67245;
        p.ids = {{"pdg", 3334}};
        all.push_back({"OMEGA_MINUS", std::move(p)});
    }
    {  // ANTI_OMEGA_PLUS
        ParticleProperties p;
        p.name = "Omega+_bar";
        p.species = "Omega+_bar";
        p.antiparticle_species = "Omega-";
        p.self_conjugate = false;
        p.spin = J::from_doubled(3);
        p.parity = kPos;
        p.charge = 1;
        p.isospin = Isospin{J::from_doubled(0), std::nullopt};
        p.strangeness = 3;
        p.charm = 0;
        p.bottomness = 0;
        p.topness = 0;
        p.baryon_number = -1;
        p.electron_lepton_number = 0;
        p.muon_lepton_number = 0;
        p.tau_lepton_number = 0;
        p.statistics = kFermion;
        p.mass = 1.67245;
        p.ids = {{"pdg", -3334}};
        all.push_back({"ANTI_OMEGA_PLUS", std::move(p)});
    }
    return all;
}

}  // namespace

const std::vector<CatalogEntry>& builtin_particles() {
    static const std::vector<CatalogEntry> catalog = make_catalog();
    return catalog;
}

const ParticleProperties& builtin_particle(std::string_view key) {
    for (const auto& entry : builtin_particles()) {
        if (entry.key == key) {
            return entry.properties;
        }
    }
    throw ModelError("no particle '" + std::string(key) + "' in the built-in catalogue");
}

}  // namespace laddu::physics
