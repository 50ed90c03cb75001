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

class ChannelReader {
public:
    explicit ChannelReader(const TomlFailure& failure) : fail_(failure) {}

    ChannelSpec read(const toml::table& t) {
        allow(t, "channel", {"name", "edges", "vertices", "scalars"});
        const std::string name = string(t, "name", "channel");
        std::vector<physics::Edge> edges;
        generation::ChannelProposals proposals;
        const toml::array& edge_list = array(t, "edges", "channel");
        for (std::size_t i = 0; i < edge_list.size(); ++i) {
            edges.push_back(edge(edge_list[i], fmt::format("channel.edges[{}]", i), proposals));
        }
        std::vector<physics::Vertex> vertices;
        const toml::array& vertex_list = array(t, "vertices", "channel");
        for (std::size_t i = 0; i < vertex_list.size(); ++i) {
            vertices.push_back(
                vertex(vertex_list[i], fmt::format("channel.vertices[{}]", i), proposals));
        }
        std::vector<std::pair<std::string, generation::ScalarSource>> scalars;
        if (const toml::node* s = t.get("scalars")) {
            if (!s->is_table()) {
                fail(s, "channel.scalars", "expected a table of ScalarSource tables");
            }
            for (const auto& [key, node] : *s->as_table()) {
                const std::string column(key.str());
                scalars.emplace_back(column, parse(node, "channel.scalars." + column,
                                                   generation::scalar_source_from_json));
            }
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
    [[noreturn]] void fail(const toml::node* node, const std::string& key,
                           const std::string& what) const {
        fail_(node, key, what);
        throw InternalError("the model-file failure callback returned");
    }

    void allow(const toml::table& t, const std::string& path,
               const std::vector<std::string_view>& keys) const {
        for (const auto& [key, node] : t) {
            if (std::find(keys.begin(), keys.end(), key.str()) == keys.end()) {
                fail(&node, path + "." + std::string(key.str()),
                     fmt::format("unknown key '{}' (expected one of: {})", key.str(),
                                 fmt::join(keys, ", ")));
            }
        }
    }

    const toml::table& as_table(const toml::node& node, const std::string& path) const {
        if (!node.is_table()) {
            fail(&node, path, "expected a table");
        }
        return *node.as_table();
    }

    const toml::array& array(const toml::table& t, const char* key, const std::string& path) const {
        const toml::node* node = t.get(key);
        if (node == nullptr || !node->is_array()) {
            fail(node != nullptr ? node : &t, path + "." + key,
                 node != nullptr ? "expected an array of tables" : "missing (an array of tables)");
        }
        return *node->as_array();
    }

    std::string string(const toml::table& t, const char* key, const std::string& path) const {
        const toml::node* node = t.get(key);
        if (node == nullptr || !node->is_string()) {
            fail(node != nullptr ? node : &t, path + "." + key,
                 node != nullptr ? "expected a string" : "missing (a string is required)");
        }
        return std::string(node->as_string()->get());
    }

    std::vector<std::string> strings(const toml::table& t, const char* key,
                                     const std::string& path) const {
        std::vector<std::string> out;
        const toml::array& a = array(t, key, path);
        for (const toml::node& item : a) {
            if (!item.is_string()) {
                fail(&item, path + "." + key, "expected an array of edge names (strings)");
            }
            out.emplace_back(item.as_string()->get());
        }
        return out;
    }

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
        allow(t, path, {"name", "particle", "mass", "output", "initial_momentum", "mass_proposal"});
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
            const std::optional<double> value = mass->value<double>();
            if (!value || e.particle) {
                fail(mass, path + ".mass",
                     e.particle ? "give either particle or mass, not both"
                                : "expected a number (GeV)");
            }
            physics::ParticleProperties p;
            p.mass = *value;
            e.particle = p;
        }
        if (const toml::node* output = t.get("output")) {
            if (!output->is_boolean()) {
                fail(output, path + ".output", "expected true or false");
            }
            e.output = output->as_boolean()->get();
        }
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
        allow(t, path, {"name", "incoming", "outgoing", "generation"});
        physics::Vertex v{string(t, "name", path), strings(t, "incoming", path),
                          strings(t, "outgoing", path)};
        if (const toml::node* generation = t.get("generation")) {
            proposals.vertices.emplace(v.name, parse(*generation, path + ".generation",
                                                     generation::vertex_proposal_from_json));
        }
        return v;
    }

    const TomlFailure& fail_;
};

}  // namespace

ChannelSpec read_channel(const toml::table& t, const TomlFailure& fail) {
    return ChannelReader(fail).read(t);
}

}  // namespace laddu::cli
