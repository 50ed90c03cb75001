// laddu/generation/mass_proposal.hpp: how the generator chooses an edge's invariant mass
// (laddu's MassProposal): fixed, or uniform in [low, high] clipped to what the event allows.
//
// An edge without a mass proposal takes its particle's mass. A uniform proposal draws
// m = a + u (b − a) on [a, b] = [low, high] ∩ [0, M], M the invariant mass of all initial edges
// of the event (laddu clips to that window, not to the vertex threshold: a mass a vertex cannot
// reach is an error at that vertex, so the proposal range must respect thresholds), and weights
// the event by b − a = 1/q(m). A fixed mass has weight 1.
//
// Example: the K_S K_S system of γ p → K_S K_S p between 0.995 and 2 GeV:
//   MassProposal x = MassProposal::uniform(0.995, 2.0);
#pragma once

#include <optional>
#include <string>

#include <laddu/generation/proposal_rng.hpp>

namespace laddu::generation {

/// A drawn mass and its importance weight 1/q(m).
struct MassDraw {
    double mass = 0.0;
    double weight = 1.0;
};

/// A fixed or uniform invariant-mass proposal (see the banner).
class MassProposal {
public:
    /// Always `mass`; ModelError unless finite and non-negative.
    [[nodiscard]] static MassProposal fixed(double mass);

    /// Uniform on [low, high]; ModelError unless finite and low < high.
    [[nodiscard]] static MassProposal uniform(double low, double high);

    /// Whether the mass is fixed.
    [[nodiscard]] bool is_fixed() const noexcept { return !high_.has_value(); }

    /// The fixed mass or the lower limit.
    [[nodiscard]] double low() const noexcept { return low_; }

    /// The upper limit of a uniform proposal.
    [[nodiscard]] std::optional<double> high() const noexcept { return high_; }

    /// A mass in [minimum, maximum] (one variate for a uniform proposal); ModelError if a fixed
    /// mass lies outside or the uniform range does not overlap the window.
    [[nodiscard]] MassDraw propose(double minimum, double maximum, ProposalRng& rng) const;

    /// The normalised proposal density at `mass` within [minimum, maximum]; nullopt for a fixed
    /// mass (a point mass has no density).
    [[nodiscard]] std::optional<double> density(double minimum, double maximum, double mass) const;

    /// A short description, e.g. "uniform(0.995, 2)".
    [[nodiscard]] std::string describe() const;

private:
    MassProposal(double low, std::optional<double> high) : low_(low), high_(high) {}

    [[nodiscard]] std::pair<double, double> window(double minimum, double maximum) const;

    double low_;
    std::optional<double> high_;
};

}  // namespace laddu::generation
