// laddu/physics/channel.hpp: a reaction topology of edges (particles) and vertices.
//
// laddu's Channel. Edges are particle lines; vertices join incoming to outgoing edges. An edge
// consumed by a vertex but produced by none is initial, one produced but consumed by none is
// final, one both produced and consumed is intermediate. Each edge's four-momentum is an event
// column, an explicit expression, or left out and inferred by momentum conservation.
//
// Inference follows laddu: at each vertex that holds the edge, the edge is the difference of the
// vertex's other edges (Σ out - Σ other in, or Σ in - Σ other out), resolved recursively. Vertices
// where the edge is the only incoming edge (a parent from its daughters) are tried first, then
// those where it is the only outgoing edge (a daughter from its parents), then any vertex; the
// first level with exactly one workable vertex wins, two at one level is an ambiguity error.
//
// A VertexFrame is the centre-of-momentum frame of a vertex reached by laddu's chain of pure
// boosts: lab → CM of the root vertex's incoming edges → CM of the incoming edges of each vertex
// on the one path from the root down to the vertex. Angles follow frames.hpp.
//
// The topology is checked when the channel is built (ModelError naming the edge or vertex and
// the fix): unknown edges, an edge in no vertex, an edge consumed or produced by two vertices,
// cycles. Four-momenta and frames are checked when asked for.
//
// Example (laddu's benchmark channel):
//   Channel ch("gamma p -> Ks Ks p",
//              {{.name = "beam", .p4_column = "beam"}, {.name = "target"}, {.name = "kk"},
//               {.name = "proton", .p4_column = "proton"},
//               {.name = "kshort1", .p4_column = "kshort1"},
//               {.name = "kshort2", .p4_column = "kshort2"}},
//              {{"production", {"beam", "target"}, {"kk", "proton"}},
//               {"kk_decay", {"kk"}, {"kshort1", "kshort2"}}});
//   VertexFrame decay = ch.vertex_frame("kk_decay");
//   Expr c = decay.costheta("kshort1", -decay.vec3("proton"));
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <laddu/expr/expr.hpp>
#include <laddu/physics/frames.hpp>
#include <laddu/physics/particle.hpp>
#include <laddu/physics/quantum_numbers.hpp>
#include <laddu/physics/vectors.hpp>

namespace laddu::physics {

/// A particle line of a Channel (laddu's Edge).
struct Edge {
    std::string name;                              ///< unique within the channel
    std::optional<std::string> p4_column{};        ///< event four-vector column, if measured
    std::optional<Vec4> p4{};                      ///< explicit four-momentum expression
    std::optional<ParticleProperties> particle{};  ///< mass and quantum numbers, if known
    bool output = true;                            ///< kept in generated datasets (laddu)

    /// Whether the four-momentum is given (a column or an expression) rather than inferred.
    [[nodiscard]] bool has_explicit_p4() const { return p4_column.has_value() || p4.has_value(); }
};

/// A production, scattering or decay vertex of a Channel (laddu's Vertex).
struct Vertex {
    std::string name;                   ///< unique within the channel
    std::vector<std::string> incoming;  ///< edge names entering the vertex
    std::vector<std::string> outgoing;  ///< edge names leaving the vertex
};

/// Where an edge sits in the reaction graph.
enum class EdgeRole : unsigned char { kInitial, kIntermediate, kFinal };

class Channel;

/// The centre-of-momentum frame of one vertex of a Channel, with its angles and invariants.
class VertexFrame {
public:
    /// The vertex name.
    [[nodiscard]] const std::string& name() const { return name_; }

    /// The boost chain from the lab to this frame; ModelError if the vertex is reached from the
    /// roots by more than one path or a momentum on the path cannot be resolved.
    [[nodiscard]] Frame frame() const;

    /// The four-momentum of `edge` (any edge of the channel) in this frame.
    [[nodiscard]] Vec4 p4(const std::string& edge) const;

    /// The three-momentum of `edge` in this frame.
    [[nodiscard]] Vec3 vec3(const std::string& edge) const { return p4(edge).vec3(); }

    /// cos θ of `edge` about `z_axis` (a vector in this frame; the y hint does not enter).
    [[nodiscard]] expr::Expr costheta(const std::string& edge, const Vec3& z_axis) const;

    /// θ of `edge` about `z_axis` (frames.hpp theta()).
    [[nodiscard]] expr::Expr theta(const std::string& edge, const Vec3& z_axis) const;

    /// φ of `edge` with the axes built from `z_axis` and `y_hint` (vectors in this frame).
    [[nodiscard]] expr::Expr phi(const std::string& edge, const Vec3& z_axis,
                                 const Vec3& y_hint) const;

    /// cos θ, θ and φ together.
    [[nodiscard]] Angles angles(const std::string& edge, const Vec3& z_axis,
                                const Vec3& y_hint) const;

    /// A Mandelstam invariant of this 2 → 2 vertex (in₀ in₁ → out₀ out₁): s = (in₀ + in₁)² or
    /// (out₀ + out₁)², t = (in₀ - out₀)² or (in₁ - out₁)², u = (in₀ - out₁)² or (in₁ - out₀)²,
    /// whichever pair has more explicit four-momenta (the first on a tie), as laddu chooses.
    /// ModelError for a vertex that is not 2 → 2 or whose momenta cannot be resolved.
    [[nodiscard]] expr::Expr mandelstam(MandelstamChannel channel) const;

    /// mandelstam(kS).
    [[nodiscard]] expr::Expr s() const { return mandelstam(MandelstamChannel::kS); }

    /// mandelstam(kT).
    [[nodiscard]] expr::Expr t() const { return mandelstam(MandelstamChannel::kT); }

    /// mandelstam(kU).
    [[nodiscard]] expr::Expr u() const { return mandelstam(MandelstamChannel::kU); }

private:
    friend class Channel;

    VertexFrame(std::shared_ptr<const Channel> channel, std::string name);

    std::shared_ptr<const Channel> channel_;  // a copy: the frame outlives the channel object
    std::string name_;
};

/// A validated reaction graph (laddu's Channel). Immutable once built.
class Channel {
public:
    /// Builds and checks the topology; ModelError naming the offending edge or vertex for an
    /// empty or repeated name, a vertex without incoming or outgoing edges, an edge listed twice
    /// in a vertex, an unknown edge, an edge given both a column and an expression, an edge in
    /// no vertex, an edge consumed (or produced) by two vertices, or a cycle.
    Channel(std::string name, std::vector<Edge> edges, std::vector<Vertex> vertices);

    /// The channel name.
    [[nodiscard]] const std::string& name() const { return name_; }

    /// The edges in the order given.
    [[nodiscard]] const std::vector<Edge>& edges() const { return edges_; }

    /// The vertices in the order given.
    [[nodiscard]] const std::vector<Vertex>& vertices() const { return vertices_; }

    /// Edge names in the order given.
    [[nodiscard]] std::vector<std::string> edge_names() const;

    /// Vertex names in the order given.
    [[nodiscard]] std::vector<std::string> vertex_names() const;

    /// The edge called `name`; ModelError if there is none.
    [[nodiscard]] const Edge& edge(const std::string& name) const;

    /// The vertex called `name`; ModelError if there is none.
    [[nodiscard]] const Vertex& vertex(const std::string& name) const;

    /// Whether `edge` is initial, intermediate or final.
    [[nodiscard]] EdgeRole role(const std::string& edge) const;

    /// Names of the edges with `role`, in the order given.
    [[nodiscard]] std::vector<std::string> edges_with_role(EdgeRole role) const;

    /// The particle attached to `edge`; ModelError if it has none.
    [[nodiscard]] const ParticleProperties& particle(const std::string& edge) const;

    /// The lab four-momentum of `edge`, given or inferred; ModelError if it cannot be inferred
    /// or the inference is ambiguous.
    [[nodiscard]] Vec4 p4(const std::string& edge) const;

    /// The lab three-momentum of `edge`.
    [[nodiscard]] Vec3 vec3(const std::string& edge) const { return p4(edge).vec3(); }

    /// The invariant mass of `edge`.
    [[nodiscard]] expr::Expr mass(const std::string& edge) const;

    /// The invariant mass squared of `edge` (laddu's channel.s(edge)).
    [[nodiscard]] expr::Expr s(const std::string& edge) const;

    /// The centre-of-momentum frame of vertex `name`; ModelError for an unknown vertex or one
    /// reached from the roots by more than one path.
    [[nodiscard]] VertexFrame vertex_frame(const std::string& name) const;

    /// The event four-vector columns the edges read, in edge order.
    [[nodiscard]] std::vector<std::string> p4_columns() const;

    /// DataError naming the edge if an edge reads a column not in `available_p4s`.
    void check_p4_columns(const std::vector<std::string>& available_p4s) const;

private:
    struct Resolver;

    std::size_t edge_index(const std::string& name) const;
    std::size_t vertex_index(const std::string& name) const;
    void check_topology();
    void check_names() const;
    void link_edges();
    void check_acyclic() const;
    Vec4 incoming_sum(const Vertex& vertex) const;
    std::vector<std::size_t> frame_path(const std::string& target) const;

    std::string name_;
    std::vector<Edge> edges_;
    std::vector<Vertex> vertices_;
    std::vector<std::optional<std::size_t>> producer_;  // per edge: the vertex producing it
    std::vector<std::optional<std::size_t>> consumer_;  // per edge: the vertex consuming it

    friend class VertexFrame;
};

}  // namespace laddu::physics
