#include <algorithm>
#include <array>
#include <functional>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <laddu/base/error.hpp>
#include <laddu/physics/channel.hpp>

namespace laddu::physics {

using expr::Expr;

namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

std::string quoted(const std::vector<std::string>& names) {
    std::vector<std::string> out;
    out.reserve(names.size());
    for (const std::string& n : names) {
        out.push_back("'" + n + "'");
    }
    return fmt::format("{}", fmt::join(out, ", "));
}

Vec4 sum(const std::vector<Vec4>& vectors) {
    if (vectors.empty()) {
        return {Expr(0.0), Expr(0.0), Expr(0.0), Expr(0.0)};
    }
    Vec4 total = vectors.front();
    for (std::size_t k = 1; k < vectors.size(); ++k) {
        total = total + vectors[k];
    }
    return total;
}

void check_vertex_shape(const std::string& channel, const Vertex& vertex) {
    if (vertex.name.empty()) {
        throw ModelError(fmt::format("channel '{}': a vertex has an empty name; give every "
                                     "Vertex a unique name",
                                     channel));
    }
    if (vertex.incoming.empty() || vertex.outgoing.empty()) {
        throw ModelError(fmt::format("channel '{}': vertex '{}' needs at least one incoming and "
                                     "one outgoing edge (incoming: [{}], outgoing: [{}])",
                                     channel, vertex.name, quoted(vertex.incoming),
                                     quoted(vertex.outgoing)));
    }
    std::set<std::string> seen;
    for (const auto* side : {&vertex.incoming, &vertex.outgoing}) {
        for (const std::string& e : *side) {
            if (!seen.insert(e).second) {
                throw ModelError(fmt::format(
                    "channel '{}': edge '{}' appears more than once in vertex '{}'; list each "
                    "edge once (a particle line enters or leaves a vertex once)",
                    channel, e, vertex.name));
            }
        }
    }
}

}  // namespace

// ---- construction and topology checks ----

Channel::Channel(std::string name, std::vector<Edge> edges, std::vector<Vertex> vertices)
    : name_(std::move(name)), edges_(std::move(edges)), vertices_(std::move(vertices)) {
    check_topology();
}

void Channel::check_topology() {
    check_names();
    link_edges();
    check_acyclic();
}

void Channel::check_names() const {
    std::set<std::string> edge_set;
    for (const Edge& e : edges_) {
        if (e.name.empty()) {
            throw ModelError(fmt::format(
                "channel '{}': an edge has an empty name; give every Edge a unique name", name_));
        }
        if (!edge_set.insert(e.name).second) {
            throw ModelError(fmt::format("channel '{}': edge '{}' is defined twice; edge names "
                                         "must be unique",
                                         name_, e.name));
        }
        if (e.p4_column && e.p4) {
            throw ModelError(fmt::format("channel '{}': edge '{}' has both a p4 column ('{}') and "
                                         "a four-momentum expression; give only one",
                                         name_, e.name, *e.p4_column));
        }
    }
    std::set<std::string> vertex_set;
    for (const Vertex& v : vertices_) {
        check_vertex_shape(name_, v);
        if (!vertex_set.insert(v.name).second) {
            throw ModelError(fmt::format("channel '{}': vertex '{}' is defined twice; vertex "
                                         "names must be unique",
                                         name_, v.name));
        }
        for (const auto* side : {&v.incoming, &v.outgoing}) {
            const auto unknown = std::find_if(side->begin(), side->end(),
                                              [&](const auto& e) { return !edge_set.contains(e); });
            if (unknown != side->end()) {
                throw ModelError(fmt::format(
                    "channel '{}': vertex '{}' uses unknown edge '{}'; add Edge('{}', ...) to the "
                    "channel's edges or correct the name (edges: {})",
                    name_, v.name, *unknown, *unknown, quoted(edge_names())));
            }
        }
    }
}

// Each particle line is produced by at most one vertex and consumed by at most one, and touches
// at least one.
void Channel::link_edges() {
    producer_.assign(edges_.size(), std::nullopt);
    consumer_.assign(edges_.size(), std::nullopt);
    const auto link = [&](std::size_t vi, const std::string& e, bool incoming) {
        std::optional<std::size_t>& slot = (incoming ? consumer_ : producer_)[edge_index(e)];
        if (slot) {
            throw ModelError(fmt::format(
                "channel '{}': edge '{}' is {} both vertex '{}' and vertex '{}'; a particle line "
                "is {} one vertex only: give each vertex its own edge",
                name_, e, incoming ? "an incoming edge of" : "an outgoing edge of",
                vertices_[*slot].name, vertices_[vi].name,
                incoming ? "consumed by" : "produced by"));
        }
        slot = vi;
    };
    for (std::size_t vi = 0; vi < vertices_.size(); ++vi) {
        for (const std::string& e : vertices_[vi].incoming) {
            link(vi, e, true);
        }
        for (const std::string& e : vertices_[vi].outgoing) {
            link(vi, e, false);
        }
    }
    for (std::size_t ei = 0; ei < edges_.size(); ++ei) {
        if (!producer_[ei] && !consumer_[ei]) {
            throw ModelError(fmt::format(
                "channel '{}': edge '{}' is not connected to any vertex; list it in a Vertex's "
                "incoming or outgoing edges, or remove it",
                name_, edges_[ei].name));
        }
    }
}

// Depth-first search from every vertex to the consumers of its outgoing edges.
void Channel::check_acyclic() const {
    enum class Mark : unsigned char { kNew, kActive, kDone };
    std::vector<Mark> marks(vertices_.size(), Mark::kNew);
    std::vector<std::string> trail;
    const std::function<void(std::size_t)> visit = [&](std::size_t vi) {
        marks[vi] = Mark::kActive;
        trail.push_back(vertices_[vi].name);
        for (const std::string& e : vertices_[vi].outgoing) {
            const std::optional<std::size_t> child = consumer_[edge_index(e)];
            if (child && marks[*child] == Mark::kActive) {
                trail.push_back(vertices_[*child].name);
                throw ModelError(fmt::format(
                    "channel '{}': vertices {} form a cycle (edge '{}' leads back to vertex "
                    "'{}'); a reaction graph must be acyclic: make the edge that closes the loop "
                    "a new final-state edge",
                    name_, fmt::join(trail, " -> "), e, vertices_[*child].name));
            }
            if (child && marks[*child] == Mark::kNew) {
                visit(*child);
            }
        }
        trail.pop_back();
        marks[vi] = Mark::kDone;
    };
    for (std::size_t vi = 0; vi < vertices_.size(); ++vi) {
        if (marks[vi] == Mark::kNew) {
            visit(vi);
        }
    }
}

// ---- lookups ----

std::vector<std::string> Channel::edge_names() const {
    std::vector<std::string> names;
    names.reserve(edges_.size());
    for (const Edge& e : edges_) {
        names.push_back(e.name);
    }
    return names;
}

std::vector<std::string> Channel::vertex_names() const {
    std::vector<std::string> names;
    names.reserve(vertices_.size());
    for (const Vertex& v : vertices_) {
        names.push_back(v.name);
    }
    return names;
}

std::size_t Channel::edge_index(const std::string& name) const {
    for (std::size_t k = 0; k < edges_.size(); ++k) {
        if (edges_[k].name == name) {
            return k;
        }
    }
    throw ModelError(fmt::format("channel '{}': unknown edge '{}' (edges: {})", name_, name,
                                 quoted(edge_names())));
}

std::size_t Channel::vertex_index(const std::string& name) const {
    for (std::size_t k = 0; k < vertices_.size(); ++k) {
        if (vertices_[k].name == name) {
            return k;
        }
    }
    throw ModelError(fmt::format("channel '{}': unknown vertex '{}' (vertices: {})", name_, name,
                                 quoted(vertex_names())));
}

const Edge& Channel::edge(const std::string& name) const {
    return edges_[edge_index(name)];
}

const Vertex& Channel::vertex(const std::string& name) const {
    return vertices_[vertex_index(name)];
}

EdgeRole Channel::role(const std::string& edge) const {
    const std::size_t ei = edge_index(edge);
    if (!producer_[ei]) {
        return EdgeRole::kInitial;
    }
    return consumer_[ei] ? EdgeRole::kIntermediate : EdgeRole::kFinal;
}

std::vector<std::string> Channel::edges_with_role(EdgeRole wanted) const {
    std::vector<std::string> names;
    for (const Edge& e : edges_) {
        if (role(e.name) == wanted) {
            names.push_back(e.name);
        }
    }
    return names;
}

const ParticleProperties& Channel::particle(const std::string& edge) const {
    const Edge& e = this->edge(edge);
    if (!e.particle) {
        throw ModelError(fmt::format("channel '{}': edge '{}' has no particle properties; pass "
                                     "Edge('{}', particle=...)",
                                     name_, edge, edge));
    }
    return *e.particle;
}

std::vector<std::string> Channel::p4_columns() const {
    std::vector<std::string> columns;
    for (const Edge& e : edges_) {
        if (e.p4_column) {
            columns.push_back(*e.p4_column);
        }
    }
    return columns;
}

void Channel::check_p4_columns(const std::vector<std::string>& available_p4s) const {
    for (const Edge& e : edges_) {
        if (e.p4_column && !contains(available_p4s, *e.p4_column)) {
            throw DataError(fmt::format(
                "channel '{}': edge '{}' reads the four-momentum column '{}', which the dataset "
                "lacks (its p4s: [{}]); rename the column in the data or set Edge('{}', p4=...) "
                "to one of the dataset's p4s",
                name_, e.name, *e.p4_column, fmt::join(available_p4s, ", "), e.name));
        }
    }
}

// ---- four-momenta ----

// laddu's recursive resolution. An edge met again further down the same
// inference is unavailable along that path, not an error: the graph is known to be acyclic, so a
// revisit only means this route needs the edge being solved for.
struct Channel::Resolver {
    const Channel& channel;
    std::vector<std::size_t> stack;

    std::optional<Vec4> resolve(std::size_t ei) {
        const Edge& e = channel.edges_[ei];
        if (e.p4) {
            return e.p4;
        }
        if (e.p4_column) {
            return Vec4::event(*e.p4_column);
        }
        if (std::find(stack.begin(), stack.end(), ei) != stack.end()) {
            return std::nullopt;
        }
        stack.push_back(ei);
        std::optional<Vec4> found = infer(ei);
        stack.pop_back();
        return found;
    }

    // Parent from daughters, then daughter from parents, then any vertex (laddu's priority).
    std::optional<Vec4> infer(std::size_t ei) {
        const std::string& edge = channel.edges_[ei].name;
        std::vector<std::size_t> connected;
        for (std::size_t vi = 0; vi < channel.vertices_.size(); ++vi) {
            if (channel.producer_[ei] == vi || channel.consumer_[ei] == vi) {
                connected.push_back(vi);
            }
        }
        for (int level = 0; level < 3; ++level) {
            std::vector<std::pair<std::size_t, Vec4>> candidates;
            for (const std::size_t vi : connected) {
                const Vertex& v = channel.vertices_[vi];
                const bool matches =
                    level == 2 ||
                    (level == 0 ? v.incoming.size() == 1 && v.incoming.front() == edge
                                : v.outgoing.size() == 1 && v.outgoing.front() == edge);
                if (!matches) {
                    continue;
                }
                if (std::optional<Vec4> p4 = at_vertex(edge, v)) {
                    candidates.emplace_back(vi, std::move(*p4));
                }
            }
            if (candidates.size() == 1) {
                return std::move(candidates.front().second);
            }
            if (candidates.size() > 1) {
                throw ModelError(fmt::format(
                    "channel '{}': the four-momentum of edge '{}' is ambiguous: momentum "
                    "conservation gives it at both vertex '{}' and vertex '{}'; give '{}' a p4 "
                    "column (Edge('{}', p4=...)) to choose",
                    channel.name_, edge, channel.vertices_[candidates[0].first].name,
                    channel.vertices_[candidates[1].first].name, edge, edge));
            }
        }
        return std::nullopt;
    }

    // Appends the four-momenta of `names` other than `edge`; false if one is unavailable.
    bool collect(const std::vector<std::string>& names, const std::string& edge,
                 std::vector<Vec4>& out) {
        for (const std::string& n : names) {
            if (n == edge) {
                continue;
            }
            std::optional<Vec4> p4 = resolve(channel.edge_index(n));
            if (!p4) {
                return false;
            }
            out.push_back(std::move(*p4));
        }
        return true;
    }

    // Σ in = Σ out solved for `edge`: (other side) - (rest of its own side).
    std::optional<Vec4> at_vertex(const std::string& edge, const Vertex& v) {
        const bool is_incoming = contains(v.incoming, edge);
        std::vector<Vec4> same;
        std::vector<Vec4> other;
        if (!collect(is_incoming ? v.incoming : v.outgoing, edge, same) ||
            !collect(is_incoming ? v.outgoing : v.incoming, edge, other)) {
            return std::nullopt;
        }
        const Vec4 total = sum(other);
        return same.empty() ? total : total - sum(same);
    }
};

Vec4 Channel::p4(const std::string& edge) const {
    const std::size_t ei = edge_index(edge);
    Resolver resolver{*this, {}};
    if (std::optional<Vec4> p4 = resolver.resolve(ei)) {
        return *std::move(p4);
    }
    std::vector<std::string> reasons;
    for (const Vertex& v : vertices_) {
        if (!contains(v.incoming, edge) && !contains(v.outgoing, edge)) {
            continue;
        }
        std::vector<std::string> unknown;
        for (const auto* side : {&v.incoming, &v.outgoing}) {
            for (const std::string& n : *side) {
                if (n != edge && !edges_[edge_index(n)].has_explicit_p4()) {
                    unknown.push_back(n);
                }
            }
        }
        reasons.push_back(fmt::format("at vertex '{}' the edges without a p4 are {}", v.name,
                                      unknown.empty() ? "none" : quoted(unknown)));
    }
    throw ModelError(fmt::format(
        "channel '{}': edge '{}' has no p4 and cannot be inferred by momentum conservation ({}); "
        "give '{}' or enough of those edges a p4 column, e.g. Edge('{}', p4='{}')",
        name_, edge, fmt::join(reasons, "; "), edge, edge, edge));
}

Expr Channel::mass(const std::string& edge) const {
    return p4(edge).m();
}

Expr Channel::s(const std::string& edge) const {
    return p4(edge).m2();
}

// ---- vertex frames ----

Vec4 Channel::incoming_sum(const Vertex& vertex) const {
    std::vector<Vec4> incoming;
    incoming.reserve(vertex.incoming.size());
    for (const std::string& e : vertex.incoming) {
        incoming.push_back(p4(e));
    }
    return sum(incoming);
}

// The vertices from a root (a vertex whose incoming edges no vertex produces) down to `target`,
// as laddu's frame path; more than one path is an ambiguity.
std::vector<std::size_t> Channel::frame_path(const std::string& target) const {
    const std::size_t goal = vertex_index(target);
    std::vector<std::vector<std::size_t>> found;
    std::vector<std::size_t> path;
    const std::function<void(std::size_t)> walk = [&](std::size_t vi) {
        path.push_back(vi);
        if (vi == goal) {
            found.push_back(path);
        } else {
            for (const std::string& e : vertices_[vi].outgoing) {
                if (const std::optional<std::size_t> child = consumer_[edge_index(e)];
                    child && found.size() < 2) {
                    walk(*child);
                }
            }
        }
        path.pop_back();
    };
    for (std::size_t vi = 0; vi < vertices_.size() && found.size() < 2; ++vi) {
        const Vertex& v = vertices_[vi];
        const bool is_root = std::none_of(v.incoming.begin(), v.incoming.end(),
                                          [&](const auto& e) { return producer_[edge_index(e)]; });
        if (is_root) {
            walk(vi);
        }
    }
    if (found.size() != 1) {
        // Acyclic with non-empty vertices, so every vertex is reached at least once.
        throw ModelError(fmt::format(
            "channel '{}': the frame of vertex '{}' is ambiguous: it is reached from the root "
            "vertices by more than one path of boosts; give the channel a single production "
            "root and a tree of decays above this vertex",
            name_, target));
    }
    return found.front();
}

VertexFrame Channel::vertex_frame(const std::string& name) const {
    (void)vertex_index(name);
    return {std::make_shared<const Channel>(*this), name};
}

VertexFrame::VertexFrame(std::shared_ptr<const Channel> channel, std::string name)
    : channel_(std::move(channel)), name_(std::move(name)) {}

// Built on demand, as laddu does: a frame that cannot be built fails only the queries that need
// it (the Mandelstam invariants do not).
Frame VertexFrame::frame() const {
    Frame frame = Frame::lab();
    for (const std::size_t vi : channel_->frame_path(name_)) {
        frame = frame.then_rest_frame_of(channel_->incoming_sum(channel_->vertices_[vi]));
    }
    return frame;
}

Vec4 VertexFrame::p4(const std::string& edge) const {
    return frame().transform(channel_->p4(edge));
}

Expr VertexFrame::costheta(const std::string& edge, const Vec3& z_axis) const {
    return physics::costheta(vec3(edge), z_axis);
}

Expr VertexFrame::theta(const std::string& edge, const Vec3& z_axis) const {
    return physics::theta(vec3(edge), z_axis);
}

Expr VertexFrame::phi(const std::string& edge, const Vec3& z_axis, const Vec3& y_hint) const {
    return physics::phi(vec3(edge), Axes::from_z_and_y_hint(z_axis, y_hint));
}

Angles VertexFrame::angles(const std::string& edge, const Vec3& z_axis, const Vec3& y_hint) const {
    return physics::angles(vec3(edge), z_axis, y_hint);
}

Expr VertexFrame::mandelstam(MandelstamChannel which) const {
    const Vertex& v = channel_->vertex(name_);
    const char* label = which == MandelstamChannel::kS   ? "s"
                        : which == MandelstamChannel::kT ? "t"
                                                         : "u";
    if (v.incoming.size() != 2 || v.outgoing.size() != 2) {
        throw ModelError(fmt::format(
            "channel '{}': Mandelstam {} needs a 2 -> 2 vertex, but vertex '{}' is {} -> {}; use "
            "channel.s(edge) for the invariant mass squared of an edge",
            channel_->name_, label, name_, v.incoming.size(), v.outgoing.size()));
    }

    struct Pair {
        const std::string& lhs;
        const std::string& rhs;
        bool sum;
    };

    const std::array<Pair, 2> pairs =
        which == MandelstamChannel::kS
            ? std::array<Pair, 2>{Pair{v.incoming[0], v.incoming[1], true},
                                  Pair{v.outgoing[0], v.outgoing[1], true}}
        : which == MandelstamChannel::kT
            ? std::array<Pair, 2>{Pair{v.incoming[0], v.outgoing[0], false},
                                  Pair{v.incoming[1], v.outgoing[1], false}}
            : std::array<Pair, 2>{Pair{v.incoming[0], v.outgoing[1], false},
                                  Pair{v.incoming[1], v.outgoing[0], false}};
    // laddu's choice: the pair with more explicit four-momenta, the first on a tie; a pair
    // whose momenta cannot be resolved is skipped.
    std::optional<std::pair<int, Expr>> best;
    std::string failure;
    for (const Pair& pair : pairs) {
        try {
            const Vec4 lhs = channel_->p4(pair.lhs);
            const Vec4 rhs = channel_->p4(pair.rhs);
            const int score = int{channel_->edge(pair.lhs).has_explicit_p4()} +
                              int{channel_->edge(pair.rhs).has_explicit_p4()};
            if (!best || score > best->first) {
                best.emplace(score, pair.sum ? (lhs + rhs).m2() : (lhs - rhs).m2());
            }
        } catch (const ModelError& e) {
            failure = e.what();
        }
    }
    if (!best) {
        throw ModelError(fmt::format("channel '{}': cannot build Mandelstam {} of vertex '{}': {}",
                                     channel_->name_, label, name_, failure));
    }
    return best->second;
}

}  // namespace laddu::physics
