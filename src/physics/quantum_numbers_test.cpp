// Exact angular momenta, discrete quantum numbers and particle validation.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/physics/angular_momentum.hpp>
#include <laddu/physics/particle.hpp>
#include <laddu/physics/quantum_numbers.hpp>

namespace laddu::physics {
namespace {

std::string message_of(const auto& thunk) {
    try {
        thunk();
    } catch (const ModelError& e) {
        return e.what();
    }
    return "no error";
}

TEST(AngularMomentum, ConversionsAreExact) {
    EXPECT_EQ(J::from_ratio(3, 2).doubled(), 3u);
    EXPECT_EQ(J::from_double(1.5).doubled(), 3u);
    EXPECT_EQ(J::from_integer(2).doubled(), 4u);
    EXPECT_EQ(M::from_ratio(-1, 2).doubled(), -1);
    EXPECT_EQ(M::from_double(-0.5).doubled(), -1);
    EXPECT_EQ(L::from_double(2.0).value(), 2u);
    EXPECT_EQ(L::from_ratio(4, 2).value(), 2u);
    // Within the 1e-12 tolerance (doubled value), not beyond it.
    EXPECT_EQ(J::from_double(0.5 + 1e-13).doubled(), 1u);
    EXPECT_THROW((void)J::from_double(0.5 + 1e-11), ModelError);
}

TEST(AngularMomentum, BadValuesNameTheProblem) {
    EXPECT_EQ(message_of([] { (void)J::from_ratio(1, 3); }),
              "Invalid value for angular momentum: expected integer or half-integer, got 1/3");
    EXPECT_EQ(message_of([] { (void)J::from_integer(-1); }),
              "Invalid value for angular momentum: expected nonnegative, got -1");
    EXPECT_EQ(message_of([] { (void)J::from_double(0.3); }),
              "Invalid value for angular momentum: expected integer or half-integer, got 0.3");
    EXPECT_EQ(message_of([] { (void)J::from_double(-1.0); }),
              "Invalid value for angular momentum: expected nonnegative and representable as "
              "doubled u32, got -2");
    EXPECT_EQ(message_of([] { (void)M::from_double(std::nan("")); }), "projection must be finite");
    EXPECT_EQ(message_of([] { (void)L::from_double(1.5); }),
              "Invalid value for orbital angular momentum: expected integer, got 1.5");
    EXPECT_EQ(message_of([] { (void)L::from_j(J::from_ratio(1, 2)); }),
              "Invalid value for orbital angular momentum: expected integer, got 1/2");
    EXPECT_EQ(message_of([] { (void)J::from_integer(std::int64_t{1} << 31); }),
              "Invalid value for angular momentum: expected nonnegative and representable as "
              "doubled u32, got 4294967296");
    EXPECT_THROW((void)M::from_integer(std::int64_t{1} << 30), ModelError);
}

TEST(AngularMomentum, CouplingAndProjections) {
    const J half = J::from_ratio(1, 2);
    const J one = J::from_integer(1);
    std::vector<std::uint32_t> totals;
    for (const J j : half.coupled_with(one)) {
        totals.push_back(j.doubled());
    }
    EXPECT_EQ(totals, (std::vector<std::uint32_t>{1, 3}));
    EXPECT_TRUE(J::from_ratio(3, 2).can_couple_to(half, one));
    EXPECT_FALSE(J::from_integer(0).can_couple_to(half, one));
    EXPECT_FALSE(J::from_integer(1).can_couple_to(half, one));  // wrong integer-ness
    // Every total from coupled_with passes can_couple_to, and nothing else up to 6 does.
    for (int a = 0; a <= 6; ++a) {
        for (int b = 0; b <= 6; ++b) {
            const auto list = J::from_doubled(a).coupled_with(J::from_doubled(b));
            for (int t = 0; t <= 14; ++t) {
                const bool in_list =
                    std::find(list.begin(), list.end(), J::from_doubled(t)) != list.end();
                EXPECT_EQ(in_list,
                          J::from_doubled(t).can_couple_to(J::from_doubled(a), J::from_doubled(b)));
            }
        }
    }
    const auto ms = J::from_ratio(3, 2).projections();
    ASSERT_EQ(ms.size(), 4u);
    EXPECT_EQ(ms.front().doubled(), -3);
    EXPECT_EQ(ms.back().doubled(), 3);
    EXPECT_EQ((J::from_integer(1) + half).doubled(), 3u);
    EXPECT_EQ((M::from_integer(1) - M::from_ratio(1, 2)).doubled(), 1);
    EXPECT_EQ((-M::from_integer(1)).doubled(), -2);
    EXPECT_EQ(J::from_ratio(3, 2).multiplicity(), 4);
    EXPECT_EQ(L::from_integer(2).multiplicity(), 5);
    EXPECT_EQ(L::from_integer(3).parity(), Parity::kNegative);
    EXPECT_EQ(L::from_integer(2).parity(), Parity::kPositive);
    EXPECT_EQ(L::from_integer(2).letter(), "D");
    EXPECT_EQ(L::from_integer(7).letter(), "L7");
    EXPECT_EQ(J::from_ratio(3, 2).to_string(), "3/2");
    EXPECT_EQ(M::from_ratio(-1, 2).to_string(), "-1/2");
}

TEST(QuantumNumbers, ParityStatisticsIsospin) {
    EXPECT_EQ(parse_parity("+"), Parity::kPositive);
    EXPECT_EQ(parse_parity("NEG"), Parity::kNegative);
    EXPECT_EQ(message_of([] { (void)parse_parity("x"); }),
              "Failed to parse string: \"x\" does not correspond to a valid \"Parity\"!");
    EXPECT_EQ(Parity::kNegative * Parity::kNegative, Parity::kPositive);
    EXPECT_EQ(-Parity::kPositive, Parity::kNegative);
    EXPECT_EQ(parse_statistics("Boson"), Statistics::kBoson);
    EXPECT_EQ(statistics_from_spin(J::from_ratio(1, 2)), Statistics::kFermion);
    EXPECT_EQ(Isospin::make(J::from_integer(1), M::from_integer(-1)).projection->doubled(), -2);
    EXPECT_EQ(message_of([] { (void)Isospin::make(J::from_integer(1), M::from_ratio(1, 2)); }),
              "Invalid relation: spin projection must have the same integer/half-integer parity "
              "as spin, got J = 1, m = 1/2");
    EXPECT_EQ(message_of([] { (void)Isospin::make(J::from_integer(1), M::from_integer(2)); }),
              "Invalid relation: spin projection must satisfy -J <= m <= J, got J = 1, m = 2");
    EXPECT_EQ(parse_mandelstam_channel("T"), MandelstamChannel::kT);
}

TEST(Particle, PatchValidation) {
    ParticlePatch x;
    x.name = "X";
    x.species = "X";
    x.self_conjugate = true;
    x.spin = J::from_integer(2);
    x.parity = Parity::kPositive;
    x.statistics = Statistics::kBoson;
    const auto p = apply_patch({}, x);
    EXPECT_EQ(p.antiparticle_species, "X");
    EXPECT_EQ(p.charge, 0);  // self-conjugate: additive numbers filled with 0
    EXPECT_EQ(p.tau_lepton_number, 0);
    EXPECT_EQ(p.statistics, Statistics::kBoson);

    ParticlePatch c_only;
    c_only.c_parity = Parity::kNegative;
    EXPECT_EQ(apply_patch({}, c_only).self_conjugate, true);

    ParticlePatch bad_c;
    bad_c.self_conjugate = false;
    bad_c.c_parity = Parity::kPositive;
    EXPECT_EQ(message_of([&] { (void)apply_patch({}, bad_c); }),
              "Invalid relation: C-parity is only applicable to self-conjugate particles");
    ParticlePatch bad_charge;
    bad_charge.self_conjugate = true;
    bad_charge.charge = 1;
    EXPECT_EQ(message_of([&] { (void)apply_patch({}, bad_charge); }),
              "Invalid value for charge: expected 0 for self-conjugate particles, got 1");
    ParticlePatch bad_stats;
    bad_stats.spin = J::from_integer(1);
    bad_stats.statistics = Statistics::kFermion;
    EXPECT_EQ(message_of([&] { (void)apply_patch({}, bad_stats); }),
              "Invalid relation: spin and statistics must be consistent");
    ParticlePatch distinct;
    distinct.species = "a";
    distinct.antiparticle_species = "b";
    const auto ab = apply_patch({}, distinct);
    EXPECT_EQ(ab.self_conjugate, false);
    ParticlePatch then_self;
    then_self.self_conjugate = true;
    EXPECT_THROW((void)apply_patch(ab, then_self), ModelError);
    ParticlePatch bad_mass;
    bad_mass.mass = -1.0;
    EXPECT_THROW((void)apply_patch({}, bad_mass), ModelError);

    ParticleProperties a;
    a.species = "K+";
    a.antiparticle_species = "K-";
    ParticleProperties b;
    b.species = "K-";
    EXPECT_TRUE(a.is_antiparticle_of(b));
    EXPECT_FALSE(a.is_antiparticle_of(a));
    EXPECT_EQ(ParticleProperties::boson(L::from_integer(1)).baryon_number, 0);
    EXPECT_EQ(ParticleProperties::lepton(1, 0, 0).strangeness, 0);
    EXPECT_FALSE(ParticleProperties::hadron().baryon_number.has_value());
}

}  // namespace
}  // namespace laddu::physics
