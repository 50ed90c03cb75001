// laddu/physics/selection_rules.hpp: conservation rules for a two-body decay parent -> a + b in
// the partial wave (L, S), as laddu's RuleSet applies them.
//
// Each enabled rule gives a RuleCheck: pass, fail, or (when an input it needs is unknown) an
// outcome chosen by the rule's unknown policy: allow (UnknownAllowed), warn (Warning) or reject
// (a failure). A report is allowed when no check failed. The rules:
//   Parity: P = P_a P_b (-1)^L.  Isospin: I_a and I_b couple to I.  IsospinProjection:
//   I3 = I3_a + I3_b.  CParity: C = (-1)^(L+S) when a and b are each other's antiparticles
//   (unknown otherwise).  GParity: G = G_a G_b.  Charge, Strangeness, Charm, Bottomness,
//   Topness, BaryonNumber, Electron/Muon/TauLeptonNumber: additive, parent = a + b.
//   LeptonNumber: the sum of the three lepton numbers.  IdenticalParticleSymmetry: for daughters
//   of the same species, (-1)^(L + 2s - S) = +1 for bosons and -1 for fermions, with S <= 2s.
//   ConventionalMesonJpc: the parent's J^PC is reachable by a q q̄ pair (P = (-1)^(l+1),
//   C = (-1)^(l+s), s in {0, 1}).
// Angular-momentum coupling itself is not a rule here; SelectionRules (partial_waves.hpp)
// enumerates only waves whose J, L, S couple.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <laddu/physics/angular_momentum.hpp>
#include <laddu/physics/particle.hpp>

namespace laddu::physics {

/// The rules, in laddu's order (reports list checks in this order).
enum class RuleKind : unsigned char {
    kParity,
    kIsospin,
    kIsospinProjection,
    kCParity,
    kGParity,
    kCharge,
    kStrangeness,
    kCharm,
    kBottomness,
    kTopness,
    kBaryonNumber,
    kElectronLeptonNumber,
    kMuonLeptonNumber,
    kTauLeptonNumber,
    kLeptonNumber,
    kIdenticalParticleSymmetry,
    kConventionalMesonJpc,
};

/// laddu's name of a rule: "Parity", "CParity", "IdenticalParticleSymmetry", ...
[[nodiscard]] std::string_view rule_name(RuleKind rule);
/// A rule from its name, ignoring case and non-alphanumerics ("c_parity", "CParity", "i3");
/// std::nullopt for an unknown name.
[[nodiscard]] std::optional<RuleKind> parse_rule_kind(std::string_view name);

/// What an enforced rule does when an input it needs is unknown.
enum class UnknownPolicy : unsigned char { kAllow, kReject, kWarn };

/// The outcome of one check.
enum class RuleOutcome : unsigned char { kPass, kFail, kUnknownAllowed, kWarning };

/// "pass", "fail", "unknown_allowed", "warning".
[[nodiscard]] std::string_view outcome_name(RuleOutcome outcome);

/// One rule applied to one decay.
struct RuleCheck {
    RuleKind rule;                     ///< which rule
    RuleOutcome outcome;               ///< what it found
    std::string message;               ///< why
    std::vector<std::string> missing;  ///< unknown inputs ("parent.parity"), for unknown outcomes

    /// Whether the outcome is kFail.
    [[nodiscard]] bool is_failure() const { return outcome == RuleOutcome::kFail; }

    friend bool operator==(const RuleCheck&, const RuleCheck&) = default;
};

/// The checks of every enabled rule.
struct RuleReport {
    std::vector<RuleCheck> checks;  ///< in RuleKind order

    /// No check failed.
    [[nodiscard]] bool is_allowed() const;
    friend bool operator==(const RuleReport&, const RuleReport&) = default;
};

/// A set of enforced rules with their unknown policies (immutable-style: modifiers return
/// copies).
class RuleSet {
public:
    /// No rules: only angular-momentum coupling (applied by SelectionRules).
    [[nodiscard]] static RuleSet angular() { return {}; }

    /// Parity, Isospin, IsospinProjection, Charge, the four flavours, BaryonNumber and
    /// IdenticalParticleSymmetry, unknowns allowed (laddu's strong(); C- and G-parity are not in
    /// it: enforce("CParity") adds them).
    [[nodiscard]] static RuleSet strong();
    /// strong() without Isospin.
    [[nodiscard]] static RuleSet electromagnetic();
    /// Charge, BaryonNumber, the three lepton numbers, LeptonNumber, IdenticalParticleSymmetry.
    [[nodiscard]] static RuleSet weak();

    /// The set with `rule` enforced, unknowns allowed.
    [[nodiscard]] RuleSet enforce(RuleKind rule) const;
    /// The set with `rule` enforced, unknowns rejected.
    [[nodiscard]] RuleSet enforce_strict(RuleKind rule) const;
    /// The set without `rule`.
    [[nodiscard]] RuleSet disable(RuleKind rule) const;
    /// The set with `rule`'s unknown policy set (enforcing it if it was not).
    [[nodiscard]] RuleSet with_unknown_policy(RuleKind rule, UnknownPolicy policy) const;

    /// The enforced rules, in RuleKind order.
    [[nodiscard]] std::vector<RuleKind> enabled_rules() const;
    /// Every enabled rule applied to parent -> a + b in the wave (l, s).
    [[nodiscard]] RuleReport evaluate(const ParticleProperties& parent, const ParticleProperties& a,
                                      const ParticleProperties& b, L l, J s) const;

    friend bool operator==(const RuleSet&, const RuleSet&) = default;

private:
    std::map<RuleKind, UnknownPolicy> policies_;
};

/// P_a P_b (-1)^L, or std::nullopt when a daughter parity is unknown.
[[nodiscard]] std::optional<Parity> infer_parity(const ParticleProperties& a,
                                                 const ParticleProperties& b, L l);
/// (-1)^(L+S) when a and b are each other's antiparticles and S is an integer, else
/// std::nullopt.
[[nodiscard]] std::optional<Parity> infer_c_parity(const ParticleProperties& a,
                                                   const ParticleProperties& b, L l, J s);

}  // namespace laddu::physics
