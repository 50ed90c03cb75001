// laddu/generation/vertex_proposal.hpp: how the generator makes the outgoing momenta of a
// channel vertex (laddu's VertexProposal) and the phase-space weight that goes with them.
//
// Two families, both two-body (PDG Review of Particle Physics, "Kinematics", §49.4.2-49.5):
//   isotropic    1 → 2: a direction uniform on the sphere in the parent rest frame, boosted to
//                the lab. Weight Φ₂ = p*/(4π M) (p* the breakup momentum, M the parent mass),
//                i.e. dΦ₂/dΩ = p*/(16π² M) over q(Ω) = 1/(4π).
//   t_exchange   2 → 2: t drawn from a TDistribution on its physical interval, φ uniform about
//                the paired incoming edge in the centre-of-momentum frame. With
//                dΦ₂ = dt dφ/(32π² √s p_in), integrating φ, the weight is
//                1/(16π √s p_in q(t)).
// The paired edges define t = (p_in,paired − p_out,paired)². The weights multiply along the
// channel, so a weighted event carries dΦ_n/q over the generated variables: summed weights
// estimate phase-space integrals.
//
// Example: γ p → X p with an exponential t slope of 4 GeV⁻², X → K_S K_S isotropic:
//   auto production = VertexProposal::t_exchange(
//       "gamma", "X", TDistribution::single(TComponent::exponential(4.0)));
//   auto decay = VertexProposal::isotropic();
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <laddu/generation/phase_space.hpp>
#include <laddu/generation/proposal_rng.hpp>
#include <laddu/generation/t_distribution.hpp>

namespace laddu::generation {

/// An incoming edge of a vertex and its four-momentum.
struct NamedMomentum {
    std::string_view name;
    FourMomentum p4;
};

/// An outgoing edge of a vertex and its mass.
struct NamedMass {
    std::string_view name;
    double mass = 0.0;
};

/// The outgoing four-momenta (in the vertex's outgoing order) and the weight.
struct VertexDraw {
    std::vector<FourMomentum> outgoing;
    double weight = 1.0;
};

/// A phase-space proposal for one vertex (see the banner).
class VertexProposal {
public:
    /// The family.
    enum class Kind : unsigned char { kIsotropic, kTExchange };

    /// An isotropic 1 → 2 decay.
    [[nodiscard]] static VertexProposal isotropic();

    /// A 2 → 2 scattering with t = (incoming − outgoing)² drawn from `distribution`.
    [[nodiscard]] static VertexProposal t_exchange(std::string incoming, std::string outgoing,
                                                   TDistribution distribution);

    /// The family.
    [[nodiscard]] Kind kind() const noexcept { return kind_; }

    /// The paired edges of a t_exchange.
    [[nodiscard]] const std::string& incoming_edge() const noexcept { return incoming_; }

    [[nodiscard]] const std::string& outgoing_edge() const noexcept { return outgoing_; }

    /// The t distribution of a t_exchange.
    [[nodiscard]] const TDistribution& distribution() const noexcept { return distribution_; }

    /// ModelError naming `vertex` if the vertex is not 1 → 2 (isotropic) or 2 → 2
    /// (t_exchange), or a paired edge is not on the right side of the vertex.
    void validate(const std::string& vertex, std::span<const std::string> incoming,
                  std::span<const std::string> outgoing) const;

    /// Outgoing momenta for `incoming` momenta and `outgoing` masses; ModelError when the
    /// kinematics are closed (a parent lighter than its daughters, √s below threshold).
    [[nodiscard]] VertexDraw propose(std::span<const NamedMomentum> incoming,
                                     std::span<const NamedMass> outgoing, ProposalRng& rng) const;

    /// A short description.
    [[nodiscard]] std::string describe() const;

private:
    VertexProposal(Kind kind, std::string incoming, std::string outgoing,
                   TDistribution distribution)
        : kind_(kind), incoming_(std::move(incoming)), outgoing_(std::move(outgoing)),
          distribution_(std::move(distribution)) {}

    Kind kind_;
    std::string incoming_;
    std::string outgoing_;
    TDistribution distribution_;
};

/// The two-body breakup momentum of `parent` into `first` + `second`; ModelError for masses
/// that are not finite, a parent that is not positive, or a parent below threshold.
[[nodiscard]] double breakup_momentum(double parent, double first, double second);

}  // namespace laddu::generation
