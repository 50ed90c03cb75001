// Importance adaptations learned from a pilot sample (laddu's AdaptiveMassProposal and
// AdaptiveTwoBodyDecay): a defensive mixture of the base proposal with a piecewise-constant
// density fitted to the pilot's target weights. ChannelGenerator::unweighted learns them (see
// channel_generator.hpp) and uses them for the envelope pilot and the production proposals.
#pragma once

#include <optional>
#include <span>

#include <laddu/generation/mass_proposal.hpp>
#include <laddu/generation/vertex_proposal.hpp>

#include "piecewise_density.hpp"

namespace laddu::generation::detail {

/// f · base + (1 − f) · learned density in the mass (learned on equal bins).
struct AdaptiveMass {
    MassProposal base;
    PiecewiseDensity learned;
    double defensive = 0.2;

    /// A mass in [minimum, maximum]: one variate picks base or learned (when the learned
    /// density has weight in the window), then that proposal draws; the weight is 1/mixture.
    [[nodiscard]] MassDraw propose(double minimum, double maximum, ProposalRng& rng) const;

    /// The mixture density at `mass` (nullopt when the base has none, i.e. a fixed mass).
    [[nodiscard]] std::optional<double> density(double minimum, double maximum, double mass) const;
};

/// A 1 → 2 decay whose cos θ (parent rest frame, first daughter, z axis) follows
/// f/2 + (1 − f) · learned density on [−1, 1]; φ uniform. Weight q/(4π m) · ½ / density.
struct AdaptiveDecay {
    PiecewiseDensity learned;
    double defensive = 0.2;

    [[nodiscard]] VertexDraw propose(std::span<const NamedMomentum> incoming,
                                     std::span<const NamedMass> outgoing, ProposalRng& rng) const;
};

}  // namespace laddu::generation::detail
