// Selection rules, partial-wave enumeration and the built-in catalogue on textbook decays.
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/physics/partial_waves.hpp>
#include <laddu/physics/particle_catalog.hpp>
#include <laddu/physics/selection_rules.hpp>

namespace laddu::physics {
namespace {

std::vector<std::string> labels(const std::vector<AllowedPartialWave>& waves) {
    std::vector<std::string> out;
    for (const auto& w : waves) {
        out.push_back(w.wave.label());
    }
    return out;
}

const ParticleProperties& P(std::string_view key) {
    return builtin_particle(key);
}

ParticleProperties state(J j, Parity p, std::optional<Parity> c = std::nullopt) {
    ParticleProperties out = c ? ParticleProperties::jpc(j, p, *c) : ParticleProperties::jp(j, p);
    return out;
}

const RuleCheck& check(const RuleReport& report, RuleKind rule) {
    for (const auto& c : report.checks) {
        if (c.rule == rule) {
            return c;
        }
    }
    throw std::runtime_error("no check");
}

TEST(Catalog, LadduEntries) {
    const auto& all = builtin_particles();
    EXPECT_EQ(all.size(), 64u);
    std::set<std::string_view> keys;
    for (const auto& e : all) {
        keys.insert(e.key);
    }
    EXPECT_EQ(keys.size(), all.size());
    EXPECT_EQ(P("PROTON").mass, 0.93827208816);
    EXPECT_EQ(P("K_SHORT").mass, 0.497611);
    EXPECT_EQ(P("PROTON").name, "p");
    EXPECT_EQ(P("PI_ZERO").c_parity, Parity::kPositive);
    EXPECT_EQ(P("PI_ZERO").g_parity, Parity::kNegative);
    EXPECT_EQ(P("PROTON").ids.at(0).second, 2212);
    EXPECT_TRUE(P("PI_PLUS").is_antiparticle_of(P("PI_MINUS")));
    EXPECT_THROW((void)builtin_particle("PI0"), ModelError);
}

TEST(PartialWaves, LabelsAndValidation) {
    EXPECT_EQ(PartialWave::make(J::from_integer(2), L::from_integer(1), J::from_integer(1)).label(),
              "3P2");
    EXPECT_EQ(
        PartialWave::make(J::from_ratio(3, 2), L::from_integer(1), J::from_ratio(1, 2)).label(),
        "2P3/2");
    EXPECT_THROW(
        (void)PartialWave::make(J::from_integer(1), L::from_integer(0), J::from_integer(0)),
        ModelError);
}

TEST(PartialWaves, TextbookStrongDecays) {
    const auto strong = SelectionRules::strong(L::from_integer(4));
    // ρ(1⁻) → π⁺π⁻: P wave only.
    EXPECT_EQ(labels(strong.allowed_partial_waves(P("RHO_ZERO"), P("PI_PLUS"), P("PI_MINUS"))),
              (std::vector<std::string>{"1P1"}));
    // 2⁺ → K_S K_S: D wave (identical bosons, even L).
    const auto f2 = state(J::from_integer(2), Parity::kPositive, Parity::kPositive);
    EXPECT_EQ(labels(strong.allowed_partial_waves(f2, P("K_SHORT"), P("K_SHORT"))),
              (std::vector<std::string>{"1D2"}));
    // 1⁺ → ρπ: S and D waves with S = 1.
    const auto a1 = state(J::from_integer(1), Parity::kPositive);
    EXPECT_EQ(labels(strong.allowed_partial_waves(a1, P("RHO_ZERO"), P("PI_ZERO"))),
              (std::vector<std::string>{"3S1", "3D1"}));
    // Δ(3/2⁺) → p π⁰: P wave with S = 1/2 (and F wave forbidden by coupling).
    const auto delta = state(J::from_ratio(3, 2), Parity::kPositive);
    EXPECT_EQ(labels(strong.allowed_partial_waves(delta, P("PROTON"), P("PI_ZERO"))),
              (std::vector<std::string>{"2P3/2"}));
    // 0⁻ → π⁰π⁰ is forbidden by parity; unknown parent spin gives nothing.
    EXPECT_TRUE(strong
                    .allowed_partial_waves(state(J::from_integer(0), Parity::kNegative),
                                           P("PI_ZERO"), P("PI_ZERO"))
                    .empty());
    EXPECT_TRUE(strong.allowed_partial_waves({}, P("PI_ZERO"), P("PI_ZERO")).empty());
}

TEST(Rules, OutcomesAndPolicies) {
    const auto strong = RuleSet::strong();
    EXPECT_EQ(strong.enabled_rules().size(), 10u);
    const auto report = strong.evaluate(P("RHO_ZERO"), P("PI_PLUS"), P("PI_MINUS"),
                                        L::from_integer(1), J::from_integer(0));
    EXPECT_TRUE(report.is_allowed());
    EXPECT_EQ(check(report, RuleKind::kParity).outcome, RuleOutcome::kPass);
    EXPECT_EQ(check(report, RuleKind::kParity).message,
              "parity is conserved for L = 1 with final parity Negative");
    // ρ⁰'s charge is unknown in laddu's catalogue: allowed by default, a failure when rejected.
    EXPECT_EQ(check(report, RuleKind::kCharge).outcome, RuleOutcome::kUnknownAllowed);
    EXPECT_EQ(check(report, RuleKind::kCharge).missing,
              (std::vector<std::string>{"parent.charge"}));
    const auto strict = strong.with_unknown_policy(RuleKind::kCharge, UnknownPolicy::kReject);
    const auto rejected = strict.evaluate(P("RHO_ZERO"), P("PI_PLUS"), P("PI_MINUS"),
                                          L::from_integer(1), J::from_integer(0));
    EXPECT_FALSE(rejected.is_allowed());
    EXPECT_EQ(check(rejected, RuleKind::kCharge).message,
              "charge cannot be checked because required values are unknown; unknown inputs are "
              "rejected by policy");
    const auto warn = strong.with_unknown_policy(RuleKind::kCharge, UnknownPolicy::kWarn);
    EXPECT_EQ(check(warn.evaluate(P("RHO_ZERO"), P("PI_PLUS"), P("PI_MINUS"), L::from_integer(1),
                                  J::from_integer(0)),
                    RuleKind::kCharge)
                  .outcome,
              RuleOutcome::kWarning);
    // Parity failure: ρ → ππ in S wave.
    const auto s_wave = strong.evaluate(P("RHO_ZERO"), P("PI_PLUS"), P("PI_MINUS"),
                                        L::from_integer(0), J::from_integer(0));
    EXPECT_EQ(check(s_wave, RuleKind::kParity).outcome, RuleOutcome::kFail);
    EXPECT_EQ(strong.disable(RuleKind::kParity).enabled_rules().size(), 9u);
    // Charge: K⁺ → π⁺ π⁺ fails charge and strangeness.
    const auto bad = strong.evaluate(P("K_PLUS"), P("PI_PLUS"), P("PI_PLUS"), L::from_integer(0),
                                     J::from_integer(0));
    EXPECT_EQ(check(bad, RuleKind::kCharge).message,
              "charge is not conserved: parent Q = 1, final Q = 2");
    EXPECT_EQ(check(bad, RuleKind::kStrangeness).outcome, RuleOutcome::kFail);
}

TEST(Rules, CAndGParity) {
    const auto rules = RuleSet::strong().enforce(RuleKind::kCParity).enforce(RuleKind::kGParity);
    // ω(1⁻⁻) → π⁺π⁻ in P wave: C = (-1)^(L+S) = -1 passes; G(π±) unknown.
    const auto omega = rules.evaluate(P("OMEGA"), P("PI_PLUS"), P("PI_MINUS"), L::from_integer(1),
                                      J::from_integer(0));
    EXPECT_EQ(check(omega, RuleKind::kCParity).outcome, RuleOutcome::kPass);
    EXPECT_EQ(check(omega, RuleKind::kGParity).outcome, RuleOutcome::kUnknownAllowed);
    // ω (G = -1) → π⁰π⁰ fails G: (-1)(-1) = +1.
    const auto g = rules.evaluate(P("OMEGA"), P("PI_ZERO"), P("PI_ZERO"), L::from_integer(1),
                                  J::from_integer(0));
    EXPECT_EQ(check(g, RuleKind::kGParity).outcome, RuleOutcome::kFail);
    EXPECT_EQ(check(g, RuleKind::kIdenticalParticleSymmetry).outcome, RuleOutcome::kFail);
    // C of a non-conjugate pair cannot be inferred.
    const auto kp = rules.evaluate(P("PHI"), P("K_PLUS"), P("PI_MINUS"), L::from_integer(1),
                                   J::from_integer(0));
    EXPECT_EQ(check(kp, RuleKind::kCParity).outcome, RuleOutcome::kUnknownAllowed);
    EXPECT_EQ(check(kp, RuleKind::kCParity).missing.size(), 4u);
}

TEST(Rules, WeakAndConventionalMesons) {
    const auto weak = RuleSet::weak();
    const auto ok = weak.evaluate(P("PI_PLUS"), P("ANTIMUON"), P("MUON_NEUTRINO"),
                                  L::from_integer(0), J::from_integer(0));
    EXPECT_TRUE(ok.is_allowed());
    const auto bad = weak.evaluate(P("PI_PLUS"), P("POSITRON"), P("MUON_NEUTRINO"),
                                   L::from_integer(0), J::from_integer(0));
    EXPECT_EQ(check(bad, RuleKind::kElectronLeptonNumber).outcome, RuleOutcome::kFail);
    EXPECT_EQ(check(bad, RuleKind::kMuonLeptonNumber).outcome, RuleOutcome::kFail);
    EXPECT_EQ(check(bad, RuleKind::kLeptonNumber).outcome, RuleOutcome::kPass);

    const auto jpc = RuleSet::angular().enforce(RuleKind::kConventionalMesonJpc);
    const auto exotic = state(J::from_integer(1), Parity::kNegative, Parity::kPositive);
    const auto r =
        jpc.evaluate(exotic, P("PI_ZERO"), P("ETA"), L::from_integer(1), J::from_integer(0));
    EXPECT_EQ(check(r, RuleKind::kConventionalMesonJpc).message,
              "J^PC = 1NegativePositive is exotic for a conventional q qbar meson assignment");
    const auto normal = state(J::from_integer(2), Parity::kPositive, Parity::kPositive);
    EXPECT_TRUE(
        jpc.evaluate(normal, P("PI_ZERO"), P("PI_ZERO"), L::from_integer(2), J::from_integer(0))
            .is_allowed());
    EXPECT_EQ(parse_rule_kind("c_parity"), RuleKind::kCParity);
    EXPECT_EQ(parse_rule_kind("I3"), RuleKind::kIsospinProjection);
    EXPECT_FALSE(parse_rule_kind("bogus").has_value());
    EXPECT_EQ(rule_name(RuleKind::kIdenticalParticleSymmetry), "IdenticalParticleSymmetry");
}

}  // namespace
}  // namespace laddu::physics
