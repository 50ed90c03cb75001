// The conservation rules of a two-body decay and how a RuleSet applies them.
#include <array>
#include <cctype>
#include <cstdint>
#include <utility>

#include <laddu/physics/selection_rules.hpp>

namespace laddu::physics {

namespace {

using Strings = std::vector<std::string>;

// A rule's finding before the unknown policy is applied.
struct Raw {
    enum Kind : std::uint8_t { kPass, kFail, kUnknown } kind;

    std::string message;
    Strings missing;
};

Raw pass(std::string message) {
    return {Raw::kPass, std::move(message), {}};
}

Raw fail(std::string message) {
    return {Raw::kFail, std::move(message), {}};
}

Raw unknown(Strings missing, std::string message) {
    return {Raw::kUnknown, std::move(message), std::move(missing)};
}

struct Input {
    const ParticleProperties& parent;
    const ParticleProperties& a;
    const ParticleProperties& b;
    L l;
    J s;
};

Raw parity_rule(const Input& in) {
    if (!in.parent.parity) {
        return unknown({"parent.parity"}, "parent parity is unknown");
    }
    Strings absent;
    if (!in.a.parity) {
        absent.emplace_back("daughter_a.parity");
    }
    if (!in.b.parity) {
        absent.emplace_back("daughter_b.parity");
    }
    if (!absent.empty()) {
        return unknown(std::move(absent),
                       "final-state parity cannot be inferred because one or both daughter "
                       "parities are unknown");
    }
    const Parity final_parity = *infer_parity(in.a, in.b, in.l);
    const std::string l = std::to_string(in.l.value());
    if (*in.parent.parity == final_parity) {
        return pass("parity is conserved for L = " + l + " with final parity " +
                    std::string(parity_name(final_parity)));
    }
    return fail("parity is not conserved for L = " + l + ": parent parity is " +
                std::string(parity_name(*in.parent.parity)) + ", final parity is " +
                std::string(parity_name(final_parity)));
}

// The three isospins, or the unknown outcome naming the first missing one.
std::optional<Raw> missing_isospin(const Input& in) {
    if (!in.parent.isospin) {
        return unknown({"parent.isospin"}, "parent isospin is unknown");
    }
    if (!in.a.isospin) {
        return unknown({"daughter_a.isospin"}, "first daughter isospin is unknown");
    }
    if (!in.b.isospin) {
        return unknown({"daughter_b.isospin"}, "second daughter isospin is unknown");
    }
    return std::nullopt;
}

Raw isospin_rule(const Input& in) {
    if (auto missing = missing_isospin(in)) {
        return *missing;
    }
    if (in.parent.isospin->isospin.can_couple_to(in.a.isospin->isospin, in.b.isospin->isospin)) {
        return pass("daughter isospins can couple to parent isospin");
    }
    return fail("daughter isospins cannot couple to parent isospin");
}

Raw isospin_projection_rule(const Input& in) {
    if (auto missing = missing_isospin(in)) {
        return *missing;
    }
    const auto& parent = in.parent.isospin->projection;
    const auto& a = in.a.isospin->projection;
    const auto& b = in.b.isospin->projection;
    if (!parent) {
        return unknown({"parent.isospin.projection"}, "parent isospin projection is unknown");
    }
    if (!a) {
        return unknown({"daughter_a.isospin.projection"},
                       "first daughter isospin projection is unknown");
    }
    if (!b) {
        return unknown({"daughter_b.isospin.projection"},
                       "second daughter isospin projection is unknown");
    }
    if (std::int64_t{parent->doubled()} == std::int64_t{a->doubled()} + b->doubled()) {
        return pass("isospin projection is conserved");
    }
    return fail("isospin projection is not conserved");
}

constexpr const char* kCAssumption = "assumes a C-eigenstate particle-antiparticle combination";

Raw c_parity_rule(const Input& in) {
    if (!in.parent.c_parity) {
        return unknown({"parent.c_parity"}, "parent C-parity is unknown or not applicable");
    }
    const auto final_c = infer_c_parity(in.a, in.b, in.l, in.s);
    if (!final_c) {
        return unknown(
            {"daughter_a.species", "daughter_a.antiparticle_species", "daughter_b.species",
             "daughter_b.antiparticle_species"},
            std::string("final-state C-parity cannot be inferred; this check currently ") +
                kCAssumption);
    }
    if (*in.parent.c_parity == *final_c) {
        return pass("C-parity is conserved with inferred C_final = " +
                    std::string(parity_name(*final_c)) + "; " + kCAssumption);
    }
    return fail(
        "C-parity is not conserved: parent C = " + std::string(parity_name(*in.parent.c_parity)) +
        ", inferred final C = " + std::string(parity_name(*final_c)) + "; " + kCAssumption);
}

Raw g_parity_rule(const Input& in) {
    if (!in.parent.g_parity) {
        return unknown({"parent.g_parity"}, "parent G-parity is unknown or not applicable");
    }
    if (!in.a.g_parity) {
        return unknown({"daughter_a.g_parity"},
                       "first daughter G-parity is unknown or not applicable");
    }
    if (!in.b.g_parity) {
        return unknown({"daughter_b.g_parity"},
                       "second daughter G-parity is unknown or not applicable");
    }
    const int product = parity_value(*in.a.g_parity) * parity_value(*in.b.g_parity);
    if (parity_value(*in.parent.g_parity) == product) {
        return pass("G-parity product check passes");
    }
    return fail("G-parity product check fails: parent G = " +
                std::string(parity_name(*in.parent.g_parity)) +
                ", daughter product = " + std::to_string(product));
}

struct AdditiveRule {
    const char* field;
    const char* display;
    const char* symbol;
    std::optional<int> ParticleProperties::* member;
};

Raw additive_rule(const AdditiveRule& rule, const Input& in) {
    const auto& parent = in.parent.*rule.member;
    const auto& a = in.a.*rule.member;
    const auto& b = in.b.*rule.member;
    if (parent && a && b) {
        const long long final_value = static_cast<long long>(*a) + *b;
        if (*parent == final_value) {
            return pass(std::string(rule.display) + " is conserved");
        }
        return fail(std::string(rule.display) + " is not conserved: parent " + rule.symbol + " = " +
                    std::to_string(*parent) + ", final " + rule.symbol + " = " +
                    std::to_string(final_value));
    }
    Strings missing;
    if (!parent) {
        missing.push_back(std::string("parent.") + rule.field);
    }
    if (!a) {
        missing.push_back(std::string("daughter_a.") + rule.field);
    }
    if (!b) {
        missing.push_back(std::string("daughter_b.") + rule.field);
    }
    return unknown(std::move(missing), std::string(rule.display) +
                                           " cannot be checked because required values are "
                                           "unknown");
}

Raw lepton_number_rule(const Input& in) {
    using P = ParticleProperties;
    const std::array<std::pair<const char*, const P*>, 3> who{
        {{"parent", &in.parent}, {"daughter_a", &in.a}, {"daughter_b", &in.b}}};
    const std::array<std::pair<const char*, std::optional<int> P::*>, 3> fields{{
        {"electron_lepton_number", &P::electron_lepton_number},
        {"muon_lepton_number", &P::muon_lepton_number},
        {"tau_lepton_number", &P::tau_lepton_number},
    }};
    Strings missing;
    for (const auto& [prefix, particle] : who) {
        for (const auto& [name, member] : fields) {
            if (!(particle->*member)) {
                missing.push_back(std::string(prefix) + "." + name);
            }
        }
    }
    if (!missing.empty()) {
        return unknown(std::move(missing),
                       "total lepton number cannot be checked because required values are "
                       "unknown");
    }
    const auto total = [&](const P& p) {
        return static_cast<long long>(*p.electron_lepton_number) + *p.muon_lepton_number +
               *p.tau_lepton_number;
    };
    const long long parent = total(in.parent);
    const long long daughters = total(in.a) + total(in.b);
    if (parent == daughters) {
        return pass("total lepton number is conserved");
    }
    return fail("total lepton number is not conserved: parent L = " + std::to_string(parent) +
                ", final L = " + std::to_string(daughters));
}

Raw identical_particle_rule(const Input& in) {
    if (!in.a.species) {
        return unknown({"daughter_a.species"}, "first daughter species is unknown");
    }
    if (!in.b.species) {
        return unknown({"daughter_b.species"}, "second daughter species is unknown");
    }
    if (*in.a.species != *in.b.species) {
        return pass("daughters are not identical particles");
    }
    if (!in.a.statistics) {
        return unknown({"daughter_a.statistics"}, "first daughter statistics are unknown");
    }
    if (!in.b.statistics) {
        return unknown({"daughter_b.statistics"}, "second daughter statistics are unknown");
    }
    if (*in.a.statistics != *in.b.statistics) {
        return fail("identical particles have inconsistent statistics assignments");
    }
    if (!in.a.spin) {
        return unknown({"daughter_a.spin"}, "first daughter spin is unknown");
    }
    if (!in.b.spin) {
        return unknown({"daughter_b.spin"}, "second daughter spin is unknown");
    }
    if (*in.a.spin != *in.b.spin) {
        return fail("identical particles have inconsistent spin assignments");
    }
    if (!in.s.is_integer()) {
        return fail("two identical particles cannot couple to half-integer total spin");
    }
    const std::int64_t coupled = in.s.doubled() / 2;
    const std::int64_t two_s = in.a.spin->doubled();
    if (coupled > two_s) {
        return fail("coupled spin is incompatible with two identical daughter spins");
    }
    // Exchange of the two daughters multiplies the state by (-1)^(L + 2s - S).
    const bool symmetric = (std::int64_t{in.l.value()} + two_s - coupled) % 2 == 0;
    const bool allowed = *in.a.statistics == Statistics::kBoson ? symmetric : !symmetric;
    if (allowed) {
        return pass("identical-particle exchange symmetry is satisfied");
    }
    return fail("identical-particle exchange symmetry is violated");
}

Raw conventional_meson_rule(const Input& in) {
    const auto& p = in.parent;
    if (!p.spin) {
        return unknown({"parent.spin"}, "parent spin is unknown");
    }
    if (!p.parity) {
        return unknown({"parent.parity"}, "parent parity is unknown");
    }
    if (!p.c_parity) {
        return unknown({"parent.c_parity"}, "parent C-parity is unknown or not applicable");
    }
    if (!p.spin->is_integer()) {
        return fail("half-integer J is not compatible with a conventional meson assignment");
    }
    const std::int64_t j = p.spin->doubled() / 2;
    for (std::int64_t l = 0; l <= j + 1; ++l) {
        for (std::int64_t s = 0; s <= 1; ++s) {
            const bool angular = j >= std::llabs(l - s) && j <= l + s;
            const bool parity_ok = parity_value(*p.parity) == ((l + 1) % 2 == 0 ? 1 : -1);
            const bool c_ok = parity_value(*p.c_parity) == ((l + s) % 2 == 0 ? 1 : -1);
            if (angular && parity_ok && c_ok) {
                return pass("J^PC is compatible with a conventional q qbar meson assignment");
            }
        }
    }
    return fail("J^PC = " + p.spin->to_string() + std::string(parity_name(*p.parity)) +
                std::string(parity_name(*p.c_parity)) +
                " is exotic for a conventional q qbar meson assignment");
}

Raw evaluate_rule(RuleKind rule, const Input& in) {
    using P = ParticleProperties;
    switch (rule) {
    case RuleKind::kParity:
        return parity_rule(in);
    case RuleKind::kIsospin:
        return isospin_rule(in);
    case RuleKind::kIsospinProjection:
        return isospin_projection_rule(in);
    case RuleKind::kCParity:
        return c_parity_rule(in);
    case RuleKind::kGParity:
        return g_parity_rule(in);
    case RuleKind::kCharge:
        return additive_rule({"charge", "charge", "Q", &P::charge}, in);
    case RuleKind::kStrangeness:
        return additive_rule({"strangeness", "strangeness", "S", &P::strangeness}, in);
    case RuleKind::kCharm:
        return additive_rule({"charm", "charm", "C", &P::charm}, in);
    case RuleKind::kBottomness:
        return additive_rule({"bottomness", "bottomness", "B'", &P::bottomness}, in);
    case RuleKind::kTopness:
        return additive_rule({"topness", "topness", "T", &P::topness}, in);
    case RuleKind::kBaryonNumber:
        return additive_rule({"baryon_number", "baryon number", "B", &P::baryon_number}, in);
    case RuleKind::kElectronLeptonNumber:
        return additive_rule({"electron_lepton_number", "electron-family lepton number", "L_e",
                              &P::electron_lepton_number},
                             in);
    case RuleKind::kMuonLeptonNumber:
        return additive_rule(
            {"muon_lepton_number", "muon-family lepton number", "L_mu", &P::muon_lepton_number},
            in);
    case RuleKind::kTauLeptonNumber:
        return additive_rule(
            {"tau_lepton_number", "tau-family lepton number", "L_tau", &P::tau_lepton_number}, in);
    case RuleKind::kLeptonNumber:
        return lepton_number_rule(in);
    case RuleKind::kIdenticalParticleSymmetry:
        return identical_particle_rule(in);
    case RuleKind::kConventionalMesonJpc:
        return conventional_meson_rule(in);
    }
    return fail("unknown rule");
}

RuleCheck apply_policy(RuleKind rule, UnknownPolicy policy, Raw raw) {
    switch (raw.kind) {
    case Raw::kPass:
        return {rule, RuleOutcome::kPass, std::move(raw.message), {}};
    case Raw::kFail:
        return {rule, RuleOutcome::kFail, std::move(raw.message), {}};
    case Raw::kUnknown:
        break;
    }
    switch (policy) {
    case UnknownPolicy::kAllow:
        return {rule, RuleOutcome::kUnknownAllowed, std::move(raw.message), std::move(raw.missing)};
    case UnknownPolicy::kWarn:
        return {rule, RuleOutcome::kWarning, std::move(raw.message), std::move(raw.missing)};
    case UnknownPolicy::kReject:
        break;
    }
    return {rule, RuleOutcome::kFail, raw.message + "; unknown inputs are rejected by policy", {}};
}

constexpr std::array<std::pair<RuleKind, std::string_view>, 17> kNames{{
    {RuleKind::kParity, "Parity"},
    {RuleKind::kIsospin, "Isospin"},
    {RuleKind::kIsospinProjection, "IsospinProjection"},
    {RuleKind::kCParity, "CParity"},
    {RuleKind::kGParity, "GParity"},
    {RuleKind::kCharge, "Charge"},
    {RuleKind::kStrangeness, "Strangeness"},
    {RuleKind::kCharm, "Charm"},
    {RuleKind::kBottomness, "Bottomness"},
    {RuleKind::kTopness, "Topness"},
    {RuleKind::kBaryonNumber, "BaryonNumber"},
    {RuleKind::kElectronLeptonNumber, "ElectronLeptonNumber"},
    {RuleKind::kMuonLeptonNumber, "MuonLeptonNumber"},
    {RuleKind::kTauLeptonNumber, "TauLeptonNumber"},
    {RuleKind::kLeptonNumber, "LeptonNumber"},
    {RuleKind::kIdenticalParticleSymmetry, "IdenticalParticleSymmetry"},
    {RuleKind::kConventionalMesonJpc, "ConventionalMesonJpc"},
}};

std::string normalise(std::string_view name) {
    std::string out;
    for (const char c : name) {
        if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
            out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
        }
    }
    return out;
}

}  // namespace

std::string_view rule_name(RuleKind rule) {
    for (const auto& [kind, name] : kNames) {
        if (kind == rule) {
            return name;
        }
    }
    return "Unknown";
}

std::optional<RuleKind> parse_rule_kind(std::string_view name) {
    const std::string key = normalise(name);
    if (key == "i3") {
        return RuleKind::kIsospinProjection;
    }
    for (const auto& [kind, text] : kNames) {
        if (normalise(text) == key) {
            return kind;
        }
    }
    return std::nullopt;
}

std::string_view outcome_name(RuleOutcome outcome) {
    switch (outcome) {
    case RuleOutcome::kPass:
        return "pass";
    case RuleOutcome::kFail:
        return "fail";
    case RuleOutcome::kUnknownAllowed:
        return "unknown_allowed";
    case RuleOutcome::kWarning:
        return "warning";
    }
    return "fail";
}

bool RuleReport::is_allowed() const {
    for (const auto& check : checks) {
        if (check.is_failure()) {
            return false;
        }
    }
    return true;
}

RuleSet RuleSet::strong() {
    RuleSet set;
    for (const RuleKind rule :
         {RuleKind::kParity, RuleKind::kIsospin, RuleKind::kIsospinProjection, RuleKind::kCharge,
          RuleKind::kStrangeness, RuleKind::kCharm, RuleKind::kBottomness, RuleKind::kTopness,
          RuleKind::kBaryonNumber, RuleKind::kIdenticalParticleSymmetry}) {
        set.policies_[rule] = UnknownPolicy::kAllow;
    }
    return set;
}

RuleSet RuleSet::electromagnetic() {
    return strong().disable(RuleKind::kIsospin);
}

RuleSet RuleSet::weak() {
    RuleSet set;
    for (const RuleKind rule :
         {RuleKind::kCharge, RuleKind::kBaryonNumber, RuleKind::kElectronLeptonNumber,
          RuleKind::kMuonLeptonNumber, RuleKind::kTauLeptonNumber, RuleKind::kLeptonNumber,
          RuleKind::kIdenticalParticleSymmetry}) {
        set.policies_[rule] = UnknownPolicy::kAllow;
    }
    return set;
}

RuleSet RuleSet::enforce(RuleKind rule) const {
    RuleSet out = *this;
    out.policies_[rule] = UnknownPolicy::kAllow;
    return out;
}

RuleSet RuleSet::enforce_strict(RuleKind rule) const {
    RuleSet out = *this;
    out.policies_[rule] = UnknownPolicy::kReject;
    return out;
}

RuleSet RuleSet::disable(RuleKind rule) const {
    RuleSet out = *this;
    out.policies_.erase(rule);
    return out;
}

RuleSet RuleSet::with_unknown_policy(RuleKind rule, UnknownPolicy policy) const {
    RuleSet out = *this;
    out.policies_[rule] = policy;
    return out;
}

std::vector<RuleKind> RuleSet::enabled_rules() const {
    std::vector<RuleKind> out;
    out.reserve(policies_.size());
    for (const auto& [rule, policy] : policies_) {
        out.push_back(rule);
    }
    return out;
}

RuleReport RuleSet::evaluate(const ParticleProperties& parent, const ParticleProperties& a,
                             const ParticleProperties& b, L l, J s) const {
    const Input input{parent, a, b, l, s};
    RuleReport report;
    for (const auto& [rule, policy] : policies_) {
        report.checks.push_back(apply_policy(rule, policy, evaluate_rule(rule, input)));
    }
    return report;
}

std::optional<Parity> infer_parity(const ParticleProperties& a, const ParticleProperties& b, L l) {
    if (!a.parity || !b.parity) {
        return std::nullopt;
    }
    return *a.parity * *b.parity * l.parity();
}

std::optional<Parity> infer_c_parity(const ParticleProperties& a, const ParticleProperties& b, L l,
                                     J s) {
    if (!a.is_antiparticle_of(b) || !s.is_integer()) {
        return std::nullopt;
    }
    return (l.value() + s.doubled() / 2) % 2 == 0 ? Parity::kPositive : Parity::kNegative;
}

}  // namespace laddu::physics
