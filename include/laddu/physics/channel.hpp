// laddu/physics/channel.hpp: a reaction topology of edges (particles) and vertices.
//
// laddu's Channel: edges are particles (initial, intermediate, final), each with a four-momentum
// read from an event column, given as an expression, or left out and inferred by momentum
// conservation; vertices join incoming to outgoing edges. A missing four-momentum is inferred
// at a vertex where it is the only unknown edge, preferring a parent from its daughters, then a
// daughter from its parents (laddu's priority), repeated until nothing changes.
//
// A VertexFrame is the rest frame of a vertex's incoming edges reached by laddu's chain of pure
// boosts: lab → CM of the root vertex → rest frame of each intermediate edge on the path down to
// the vertex. Angles follow frames.hpp.
//
// Example (laddu's benchmark channel):
//   Channel ch("gamma p -> Ks Ks p");
//   ch.edge("beam", "beam").edge("target").edge("kk").edge("proton", "proton")
//     .edge("kshort1", "kshort1").edge("kshort2", "kshort2")
//     .vertex("production", {"beam", "target"}, {"kk", "proton"})
//     .vertex("kk_decay", {"kk"}, {"kshort1", "kshort2"});
//   VertexFrame decay = ch.vertex_frame("kk_decay");
//   Expr c = decay.costheta("kshort1", -decay.vec3("proton"), y_hint);
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <laddu/expr/expr.hpp>
#include <laddu/physics/frames.hpp>
#include <laddu/physics/vectors.hpp>

namespace laddu::physics {

class Channel;

/// The rest frame of one vertex of a Channel, with its angles and invariants.
class VertexFrame {
public:
    /// The vertex name.
    [[nodiscard]] const std::string& name() const { return name_; }

    /// The boost chain from the lab to this frame.
    [[nodiscard]] const Frame& frame() const { return frame_; }

    /// The four-momentum of `edge` in this frame.
    [[nodiscard]] Vec4 p4(const std::string& edge) const;

    /// The three-momentum of `edge` in this frame.
    [[nodiscard]] Vec3 vec3(const std::string& edge) const { return p4(edge).vec3(); }

    /// cos θ of `edge` about `z_axis` (a vector in this frame); laddu ignores the y hint here.
    [[nodiscard]] expr::Expr costheta(const std::string& edge, const Vec3& z_axis) const;

    /// θ of `edge` about `z_axis` (frames.hpp theta()).
    [[nodiscard]] expr::Expr theta(const std::string& edge, const Vec3& z_axis) const;

    /// φ of `edge` with the axes built from `z_axis` and `y_hint` (vectors in this frame).
    [[nodiscard]] expr::Expr phi(const std::string& edge, const Vec3& z_axis,
                                 const Vec3& y_hint) const;

    /// cos θ, θ and φ together.
    [[nodiscard]] Angles angles(const std::string& edge, const Vec3& z_axis,
                                const Vec3& y_hint) const;

    /// s = (Σ incoming)².
    [[nodiscard]] expr::Expr s() const;

    /// t = (in₀ - out₀)² of a 2 → 2 vertex; ModelError for other vertices.
    [[nodiscard]] expr::Expr t() const;

    /// u = (in₀ - out₁)² of a 2 → 2 vertex; ModelError for other vertices.
    [[nodiscard]] expr::Expr u() const;

private:
    friend class Channel;

    VertexFrame(std::shared_ptr<const Channel> channel, std::string name, Frame frame);

    std::shared_ptr<const Channel> channel_;  // a copy: the frame outlives the builder
    std::string name_;
    Frame frame_;
};

/// Edges and vertices of a reaction (laddu's Channel).
class Channel {
public:
    /// An empty channel called `name`.
    explicit Channel(std::string name);

    /// Adds an edge whose four-momentum is the event column `p4_column`, or is inferred when
    /// `p4_column` is empty. ModelError for a duplicate name.
    Channel& edge(const std::string& name, const std::string& p4_column = "");

    /// Adds an edge with an explicit four-momentum expression.
    Channel& edge(const std::string& name, const Vec4& p4);

    /// Adds a vertex; every edge must exist already. ModelError otherwise.
    Channel& vertex(const std::string& name, const std::vector<std::string>& incoming,
                    const std::vector<std::string>& outgoing);

    /// The channel name.
    [[nodiscard]] const std::string& name() const { return name_; }

    /// Edge names in insertion order.
    [[nodiscard]] std::vector<std::string> edge_names() const;

    /// Vertex names in insertion order.
    [[nodiscard]] std::vector<std::string> vertex_names() const;

    /// The lab four-momentum of `edge`, read or inferred; ModelError if it cannot be inferred.
    [[nodiscard]] Vec4 p4(const std::string& edge) const;

    /// The invariant mass of `edge`.
    [[nodiscard]] expr::Expr mass(const std::string& edge) const;

    /// The invariant mass squared of `edge` (laddu's channel.s(edge)).
    [[nodiscard]] expr::Expr s(const std::string& edge) const;

    /// The rest frame of vertex `name`; ModelError for unknown vertices or a vertex that is
    /// neither a root (no produced incoming edge) nor reached through single-edge decays.
    [[nodiscard]] VertexFrame vertex_frame(const std::string& name) const;

private:
    struct Vertex {
        std::string name;
        std::vector<std::string> incoming;
        std::vector<std::string> outgoing;
    };

    const Vertex& find_vertex(const std::string& name) const;
    std::optional<std::pair<std::string, Vec4>> infer_at(const Vertex& v, bool parent) const;
    void infer() const;

    std::string name_;
    std::vector<std::string> edge_order_;
    std::vector<Vertex> vertices_;
    std::map<std::string, std::optional<Vec4>> given_;
    mutable std::map<std::string, std::optional<Vec4>> resolved_;
    mutable bool inferred_ = false;

    friend class VertexFrame;
};

}  // namespace laddu::physics
