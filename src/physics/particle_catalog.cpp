// The built-in particle catalogue: laddu 0.21.4's particles, field for field, one row each.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <laddu/base/error.hpp>
#include <laddu/physics/particle_catalog.hpp>

namespace laddu::physics {

namespace {

// One particle. The statistics follow from the spin (spin-statistics), so they are not a column.
struct Row {
    std::string_view key;
    std::string_view name;
    std::string_view species;
    std::string_view antiparticle_species;
    bool self_conjugate = false;
    int doubled_spin = 0;
    std::string_view parities;  ///< P, C and G: '+', '-', or '.' where laddu leaves it unknown
    std::optional<int> charge;
    std::optional<int> doubled_isospin;  ///< the projection is unknown for every particle
    std::optional<int> strangeness;
    std::optional<int> charm;
    std::optional<int> bottomness;
    std::optional<int> topness;
    int baryon_number = 0;
    int electron_lepton_number = 0;
    int muon_lepton_number = 0;
    int tau_lepton_number = 0;
    std::optional<double> mass;  ///< GeV
    std::int64_t pdg = 0;
};

constexpr std::nullopt_t kNo = std::nullopt;

// Line 1: key, name, species, antiparticle species, self-conjugate, 2J, PCG.
// Line 2: charge, 2I, S, C, B', T, baryon number, L_e, L_mu, L_tau, mass (GeV), PDG code.
// clang-format off
constexpr std::array kRows = std::to_array<Row>({
    {"PHOTON",                "gamma",       "photon",      "photon",      true,  2, "--.",
     kNo, kNo, kNo, kNo, kNo, kNo, 0,  0,  0,  0,  0.0,           22},
    {"W_PLUS",                "W+",          "W+",          "W-",          false, 2, "...",
     1,   0,   kNo, kNo, kNo, kNo, 0,  0,  0,  0,  80.369,        24},
    {"W_MINUS",               "W-",          "W-",          "W+",          false, 2, "...",
     -1,  0,   kNo, kNo, kNo, kNo, 0,  0,  0,  0,  80.369,        -24},
    {"Z_BOSON",               "Z0",          "Z",           "Z",           true,  2, "...",
     kNo, 0,   kNo, kNo, kNo, kNo, 0,  0,  0,  0,  91.188,        23},
    {"HIGGS",                 "H",           "Higgs",       "Higgs",       true,  0, "++.",
     kNo, 0,   kNo, kNo, kNo, kNo, 0,  0,  0,  0,  125.2,         25},
    {"ELECTRON",              "e-",          "electron",    "positron",    false, 1, "...",
     -1,  0,   0,   0,   0,   0,   0,  1,  0,  0,  0.00051099895, 11},
    {"POSITRON",              "e+",          "positron",    "electron",    false, 1, "...",
     1,   0,   0,   0,   0,   0,   0,  -1, 0,  0,  0.00051099895, -11},
    {"MUON",                  "mu-",         "muon",        "antimuon",    false, 1, "...",
     -1,  0,   0,   0,   0,   0,   0,  0,  1,  0,  0.1056583755,  13},
    {"ANTIMUON",              "mu+",         "antimuon",    "muon",        false, 1, "...",
     1,   0,   0,   0,   0,   0,   0,  0,  -1, 0,  0.1056583755,  -13},
    {"TAU",                   "tau-",        "tau",         "antitau",     false, 1, "...",
     -1,  0,   0,   0,   0,   0,   0,  0,  0,  1,  1.77693,       15},
    {"ANTITAU",               "tau+",        "antitau",     "tau",         false, 1, "...",
     1,   0,   0,   0,   0,   0,   0,  0,  0,  -1, 1.77693,       -15},
    {"ELECTRON_NEUTRINO",     "nu_e",        "nu_e",        "nubar_e",     false, 1, "...",
     0,   0,   0,   0,   0,   0,   0,  1,  0,  0,  kNo,           12},
    {"ELECTRON_ANTINEUTRINO", "nubar_e",     "nubar_e",     "nu_e",        false, 1, "...",
     0,   0,   0,   0,   0,   0,   0,  -1, 0,  0,  kNo,           -12},
    {"MUON_NEUTRINO",         "nu_mu",       "nu_mu",       "nubar_mu",    false, 1, "...",
     0,   0,   0,   0,   0,   0,   0,  0,  1,  0,  kNo,           14},
    {"MUON_ANTINEUTRINO",     "nubar_mu",    "nubar_mu",    "nu_mu",       false, 1, "...",
     0,   0,   0,   0,   0,   0,   0,  0,  -1, 0,  kNo,           -14},
    {"TAU_NEUTRINO",          "nu_tau",      "nu_tau",      "nubar_tau",   false, 1, "...",
     0,   0,   0,   0,   0,   0,   0,  0,  0,  1,  kNo,           16},
    {"TAU_ANTINEUTRINO",      "nu_tau_bar",  "nubar_tau",   "nu_tau",      false, 1, "...",
     0,   0,   0,   0,   0,   0,   0,  0,  0,  -1, kNo,           -16},
    {"PI_PLUS",               "pi+",         "pi+",         "pi-",         false, 0, "-..",
     1,   2,   0,   0,   0,   0,   0,  0,  0,  0,  0.13957039,    211},
    {"PI_MINUS",              "pi-",         "pi-",         "pi+",         false, 0, "-..",
     -1,  2,   0,   0,   0,   0,   0,  0,  0,  0,  0.13957039,    -211},
    {"PI_ZERO",               "pi0",         "pi0",         "pi0",         true,  0, "-+-",
     0,   2,   0,   0,   0,   0,   0,  0,  0,  0,  0.1349768,     111},
    {"K_PLUS",                "K+",          "K+",          "K-",          false, 0, "-..",
     1,   1,   1,   0,   0,   0,   0,  0,  0,  0,  0.493677,      321},
    {"K_MINUS",               "K-",          "K-",          "K+",          false, 0, "-..",
     -1,  1,   -1,  0,   0,   0,   0,  0,  0,  0,  0.493677,      -321},
    {"K_ZERO",                "K0",          "K0",          "K0_bar",      false, 0, "-..",
     0,   1,   1,   0,   0,   0,   0,  0,  0,  0,  0.497611,      311},
    {"K_ZERO_BAR",            "K0_bar",      "K0_bar",      "K0",          false, 0, "-..",
     0,   1,   -1,  0,   0,   0,   0,  0,  0,  0,  0.497611,      -311},
    {"K_SHORT",               "K_S0",        "K_S0",        "K_S0",        true,  0, "-..",
     kNo, kNo, kNo, kNo, kNo, kNo, 0,  0,  0,  0,  0.497611,      310},
    {"K_LONG",                "K_L0",        "K_L0",        "K_L0",        true,  0, "-..",
     kNo, kNo, kNo, kNo, kNo, kNo, 0,  0,  0,  0,  0.497611,      130},
    {"ETA",                   "eta",         "eta",         "eta",         true,  0, "-++",
     kNo, 0,   kNo, kNo, kNo, kNo, 0,  0,  0,  0,  0.547862,      221},
    {"ETA_PRIME",             "eta'",        "eta'",        "eta'",        true,  0, "-++",
     kNo, 0,   kNo, kNo, kNo, kNo, 0,  0,  0,  0,  0.95778,       331},
    {"RHO_PLUS",              "rho+",        "rho+",        "rho-",        false, 2, "-..",
     1,   2,   kNo, kNo, kNo, kNo, 0,  0,  0,  0,  0.77511,       213},
    {"RHO_MINUS",             "rho-",        "rho-",        "rho+",        false, 2, "-..",
     -1,  2,   kNo, kNo, kNo, kNo, 0,  0,  0,  0,  0.77511,       -213},
    {"RHO_ZERO",              "rho0",        "rho0",        "rho0",        true,  2, "--+",
     kNo, 2,   kNo, kNo, kNo, kNo, 0,  0,  0,  0,  0.77511,       113},
    {"OMEGA",                 "omega",       "omega",       "omega",       true,  2, "---",
     kNo, 0,   kNo, kNo, kNo, kNo, 0,  0,  0,  0,  0.78266,       223},
    {"PHI",                   "phi",         "phi",         "phi",         true,  2, "---",
     kNo, 0,   kNo, kNo, kNo, kNo, 0,  0,  0,  0,  1.019461,      333},
    {"J_PSI",                 "J/psi",       "J/psi",       "J/psi",       true,  2, "--.",
     kNo, 0,   kNo, kNo, kNo, kNo, 0,  0,  0,  0,  3.0969,        443},
    {"D_PLUS",                "D+",          "D+",          "D-",          false, 0, "-..",
     1,   1,   0,   1,   0,   0,   0,  0,  0,  0,  1.86966,       411},
    {"D_MINUS",               "D-",          "D-",          "D+",          false, 0, "-..",
     -1,  1,   0,   -1,  0,   0,   0,  0,  0,  0,  1.86966,       -411},
    {"D_ZERO",                "D0",          "D0",          "D0_bar",      false, 0, "-..",
     0,   1,   0,   1,   0,   0,   0,  0,  0,  0,  1.86484,       421},
    {"D_ZERO_BAR",            "D0_bar",      "D0_bar",      "D0",          false, 0, "-..",
     0,   1,   0,   -1,  0,   0,   0,  0,  0,  0,  1.86484,       -421},
    {"D_S_PLUS",              "D_s+",        "D_s+",        "D_s-",        false, 0, "-..",
     1,   0,   1,   1,   0,   0,   0,  0,  0,  0,  1.96835,       431},
    {"D_S_MINUS",             "D_s-",        "D_s-",        "D_s+",        false, 0, "-..",
     -1,  0,   -1,  -1,  0,   0,   0,  0,  0,  0,  1.96835,       -431},
    {"B_PLUS",                "B+",          "B+",          "B-",          false, 0, "-..",
     1,   1,   0,   0,   1,   0,   0,  0,  0,  0,  5.27941,       521},
    {"B_MINUS",               "B-",          "B-",          "B+",          false, 0, "-..",
     -1,  1,   0,   0,   -1,  0,   0,  0,  0,  0,  5.27941,       -521},
    {"B_ZERO",                "B0",          "B0",          "B0_bar",      false, 0, "-..",
     0,   1,   0,   0,   1,   0,   0,  0,  0,  0,  5.27972,       511},
    {"B_ZERO_BAR",            "B0_bar",      "B0_bar",      "B0",          false, 0, "-..",
     0,   1,   0,   0,   -1,  0,   0,  0,  0,  0,  5.27972,       -511},
    {"B_S_ZERO",              "B_s0",        "B_s0",        "B_s0_bar",    false, 0, "-..",
     0,   0,   -1,  0,   1,   0,   0,  0,  0,  0,  5.36693,       531},
    {"B_S_ZERO_BAR",          "B_s0_bar",    "B_s0_bar",    "B_s0",        false, 0, "-..",
     0,   0,   1,   0,   -1,  0,   0,  0,  0,  0,  5.36693,       -531},
    {"PROTON",                "p",           "proton",      "antiproton",  false, 1, "+..",
     1,   1,   0,   0,   0,   0,   1,  0,  0,  0,  0.93827208816, 2212},
    {"ANTIPROTON",            "p_bar",       "antiproton",  "proton",      false, 1, "+..",
     -1,  1,   0,   0,   0,   0,   -1, 0,  0,  0,  0.93827208816, -2212},
    {"NEUTRON",               "n",           "neutron",     "antineutron", false, 1, "+..",
     0,   1,   0,   0,   0,   0,   1,  0,  0,  0,  0.93956542052, 2112},
    {"ANTINEUTRON",           "n_bar",       "antineutron", "neutron",     false, 1, "+..",
     0,   1,   0,   0,   0,   0,   -1, 0,  0,  0,  0.93956542052, -2112},
    {"LAMBDA",                "Lambda0",     "Lambda0",     "Lambda0_bar", false, 1, "+..",
     0,   0,   -1,  0,   0,   0,   1,  0,  0,  0,  1.115683,      3122},
    {"ANTILAMBDA",            "Lambda0_bar", "Lambda0_bar", "Lambda0",     false, 1, "+..",
     0,   0,   1,   0,   0,   0,   -1, 0,  0,  0,  1.115683,      -3122},
    {"SIGMA_PLUS",            "Sigma+",      "Sigma+",      "Sigma-_bar",  false, 1, "+..",
     1,   2,   -1,  0,   0,   0,   1,  0,  0,  0,  1.18937,       3222},
    {"ANTISIGMA_MINUS",       "Sigma-_bar",  "Sigma-_bar",  "Sigma+",      false, 1, "+..",
     -1,  2,   1,   0,   0,   0,   -1, 0,  0,  0,  1.18937,       -3222},
    {"SIGMA_ZERO",            "Sigma0",      "Sigma0",      "Sigma0_bar",  false, 1, "+..",
     0,   2,   -1,  0,   0,   0,   1,  0,  0,  0,  1.192642,      3212},
    {"ANTISIGMA_ZERO",        "Sigma0_bar",  "Sigma0_bar",  "Sigma0",      false, 1, "+..",
     0,   2,   1,   0,   0,   0,   -1, 0,  0,  0,  1.192642,      -3212},
    {"SIGMA_MINUS",           "Sigma-",      "Sigma-",      "Sigma+_bar",  false, 1, "+..",
     -1,  2,   -1,  0,   0,   0,   1,  0,  0,  0,  1.197449,      3112},
    {"ANTISIGMA_PLUS",        "Sigma+_bar",  "Sigma+_bar",  "Sigma-",      false, 1, "+..",
     1,   2,   1,   0,   0,   0,   -1, 0,  0,  0,  1.197449,      -3112},
    {"XI_ZERO",               "Xi0",         "Xi0",         "Xi0_bar",     false, 1, "+..",
     0,   1,   -2,  0,   0,   0,   1,  0,  0,  0,  1.31486,       3322},
    {"ANTI_XI_ZERO",          "Xi0_bar",     "Xi0_bar",     "Xi0",         false, 1, "+..",
     0,   1,   2,   0,   0,   0,   -1, 0,  0,  0,  1.31486,       -3322},
    {"XI_MINUS",              "Xi-",         "Xi-",         "Xi+_bar",     false, 1, "+..",
     -1,  1,   -2,  0,   0,   0,   1,  0,  0,  0,  1.32171,       3312},
    {"ANTI_XI_PLUS",          "Xi+_bar",     "Xi+_bar",     "Xi-",         false, 1, "+..",
     1,   1,   2,   0,   0,   0,   -1, 0,  0,  0,  1.32171,       -3312},
    {"OMEGA_MINUS",           "Omega-",      "Omega-",      "Omega+_bar",  false, 3, "+..",
     -1,  0,   -3,  0,   0,   0,   1,  0,  0,  0,  1.67245,       3334},
    {"ANTI_OMEGA_PLUS",       "Omega+_bar",  "Omega+_bar",  "Omega-",      false, 3, "+..",
     1,   0,   3,   0,   0,   0,   -1, 0,  0,  0,  1.67245,       -3334},
});
// clang-format on

std::optional<Parity> parity_of(char c) {
    if (c == '.') {
        return std::nullopt;
    }
    return c == '+' ? Parity::kPositive : Parity::kNegative;
}

CatalogEntry entry_of(const Row& row) {
    ParticleProperties p;
    p.name = std::string(row.name);
    p.species = std::string(row.species);
    p.antiparticle_species = std::string(row.antiparticle_species);
    p.self_conjugate = row.self_conjugate;
    p.spin = J::from_doubled(row.doubled_spin);
    p.parity = parity_of(row.parities[0]);
    p.c_parity = parity_of(row.parities[1]);
    p.g_parity = parity_of(row.parities[2]);
    p.charge = row.charge;
    if (row.doubled_isospin) {
        p.isospin = Isospin{J::from_doubled(*row.doubled_isospin), std::nullopt};
    }
    p.strangeness = row.strangeness;
    p.charm = row.charm;
    p.bottomness = row.bottomness;
    p.topness = row.topness;
    p.baryon_number = row.baryon_number;
    p.electron_lepton_number = row.electron_lepton_number;
    p.muon_lepton_number = row.muon_lepton_number;
    p.tau_lepton_number = row.tau_lepton_number;
    p.statistics = row.doubled_spin % 2 == 0 ? Statistics::kBoson : Statistics::kFermion;
    p.mass = row.mass;
    p.ids = {{"pdg", row.pdg}};
    return {row.key, std::move(p)};
}

}  // namespace

const std::vector<CatalogEntry>& builtin_particles() {
    static const std::vector<CatalogEntry> catalog = [] {
        std::vector<CatalogEntry> all;
        all.reserve(kRows.size());
        for (const Row& row : kRows) {
            all.push_back(entry_of(row));
        }
        return all;
    }();
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
