// The Python Edge, Vertex and Channel carry laddu's generation settings next to the physics
// topology: Edge(mass_proposal=, initial_momentum=) and Vertex(generation=) keep them, Channel
// collects them by name so ld.Generator(channel) and channel.validate_generation() find them.
// The physics stage stays free of generation types; only these binding structs join the two.
#pragma once

#include <optional>
#include <utility>

#include <pybind11/pybind11.h>

#include <laddu/generation/channel_generator.hpp>
#include <laddu/physics/channel.hpp>

namespace laddu::python {

/// ld.Edge: a physics edge and its generation settings.
struct BoundEdge : physics::Edge {
    generation::EdgeGeneration generation;
};

/// ld.Vertex: a physics vertex and its proposal.
struct BoundVertex : physics::Vertex {
    std::optional<generation::VertexProposal> generation;
};

/// ld.Channel: the checked topology and the generation settings of its edges and vertices.
struct BoundChannel : physics::Channel {
    BoundChannel(physics::Channel channel, generation::ChannelProposals settings)
        : physics::Channel(std::move(channel)), proposals(std::move(settings)) {}

    generation::ChannelProposals proposals;
};

/// The ld.MassProposal argument of Edge(mass_proposal=) (None: none); TypeError otherwise.
[[nodiscard]] std::optional<generation::MassProposal>
mass_proposal_arg(const pybind11::handle& value);

/// The ld.InitialMomentum argument of Edge(initial_momentum=) (None: none); TypeError otherwise.
[[nodiscard]] std::optional<generation::InitialMomentum>
initial_momentum_arg(const pybind11::handle& value);

/// The ld.VertexProposal argument of Vertex(generation=) (None: none); TypeError otherwise.
[[nodiscard]] std::optional<generation::VertexProposal>
vertex_proposal_arg(const pybind11::handle& value);

/// MassProposal, ScalarSource, InitialMomentum, VertexProposal, GenerationReport, Generator and
/// Channel.validate_generation (after bind_physics).
void bind_channel_generation(pybind11::module_& module);

}  // namespace laddu::python
