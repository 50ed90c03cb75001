// The [channel] table of a model file (channel_file.hpp). Proposals are TOML tables in laddu's
// JSON form, handed to the generation stage's JSON readers as JSON text, so the file format and
// laddu's to_json()/from_json() are one schema.
#include "channel_file.hpp"

#include <algorithm>
#include <sstream>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/generation/json.hpp>
#include <laddu/physics/particle_catalog.hpp>

namespace laddu::cli {

namespace {

class ChannelReader : private TomlFields {
public:
    explicit ChannelReader(const TomlFields& fields) : TomlFields(fields) {}

    ChannelSpec read(const toml::table& t) {
        check_keys(t, "channel", {"name", "edges", "vertices", "scalars"});
        const std::string name = string(t, "name", "channel");
        generation::ChannelProposals proposals;
        const toml::array& edge_list = array(t, "edges", "channel");
        std::vector<physics::Edge> edges;
        edges.reserve(edge_list.size());
        for (std::size_t i = 0; i < edge_list.size(); ++i) {
            edges.push_back(edge(edge_list[i], fmt::format("channel.edges[{}]", i), proposals));
        }
        const toml::array& vertex_list = array(t, "vertices", "channel");
        std::vector<physics::Vertex> vertices;
        vertices.reserve(vertex_list.size());
        for (std::size_t i = 0; i < vertex_list.size(); ++i) {
            vertices.push_back(
                vertex(vertex_list[i], fmt::format("channel.vertices[{}]", i), proposals));
        }
        std::vector<std::pair<std::string, generation::ScalarSource>> scalars;
        for (const auto& [key, node] : table(t, "scalars", "channel", false)) {
            scalars.emplace_back(std::string(key.str()),
                                 parse(node, dotted("channel.scalars", key.str()),
                                       generation::scalar_source_from_json));
        }
        try {
            physics::Channel channel(name, std::move(edges), std::move(vertices));
            generation::validate_generation(channel, proposals);
            return {std::move(channel), std::move(proposals), std::move(scalars)};
        } catch (const ModelError& error) {
            fail(&t, "channel", error.what());
        }
    }

private:
    // A proposal in laddu's JSON form, read by the generation stage.
    template <typename Read>
    auto parse(const toml::node& node, const std::string& path, Read reader) const
        -> decltype(reader(std::string_view())) {
        if (!node.is_table()) {
            fail(&node, path, "expected a table in laddu's JSON form (docs/cli.md)");
        }
        std::ostringstream json;
        json << toml::json_formatter(*node.as_table());
        try {
            return reader(json.str());
        } catch (const ModelError& error) {
            fail(&node, path, error.what());
        }
    }

    physics::Edge edge(const toml::node& node, const std::string& path,
                       generation::ChannelProposals& proposals) const {
        const toml::table& t = as_table(node, path);
        check_keys(t, path,
                   {"name", "particle", "mass", "output", "initial_momentum", "mass_proposal"});
        physics::Edge e{.name = string(t, "name", path)};
        if (const toml::node* particle = t.get("particle")) {
            if (!particle->is_string()) {
                fail(particle, path + ".particle", "expected a catalogue key such as \"PROTON\"");
            }
            try {
                e.particle = physics::builtin_particle(particle->as_string()->get());
            } catch (const ModelError& error) {
                fail(particle, path + ".particle", error.what());
            }
        }
        if (const toml::node* mass = t.get("mass")) {
            if (e.particle) {
                fail(mass, path + ".mass", "give either particle or mass, not both");
            }
            physics::ParticleProperties p;
            p.mass = number(mass, path + ".mass");
            e.particle = p;
        }
        e.output = boolean_or(t, "output", path, e.output);
        if (const toml::node* initial = t.get("initial_momentum")) {
            proposals.edges[e.name].initial_momentum =
                parse(*initial, path + ".initial_momentum", generation::initial_momentum_from_json);
        }
        if (const toml::node* mass = t.get("mass_proposal")) {
            proposals.edges[e.name].mass_proposal =
                parse(*mass, path + ".mass_proposal", generation::mass_proposal_from_json);
        }
        return e;
    }

    physics::Vertex vertex(const toml::node& node, const std::string& path,
                           generation::ChannelProposals& proposals) const {
        const toml::table& t = as_table(node, path);
        check_keys(t, path, {"name", "incoming", "outgoing", "generation"});
        physics::Vertex v{string(t, "name", path), strings(t, "incoming", path),
                          strings(t, "outgoing", path)};
        if (const toml::node* generation = t.get("generation")) {
            proposals.vertices.emplace(v.name, parse(*generation, path + ".generation",
                                                     generation::vertex_proposal_from_json));
        }
        return v;
    }
};

}  // namespace

ChannelSpec read_channel(const toml::table& t, const TomlFields& fields) {
    return ChannelReader(fields).read(t);
}

}  // namespace laddu::cli
