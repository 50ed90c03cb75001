#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/physics/channel.hpp>

namespace laddu::physics {

using expr::Expr;

namespace {

std::string join(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) {
        if (!out.empty()) {
            out += ", ";
        }
        out += n;
    }
    return out;
}

Vec4 total(const std::vector<Vec4>& vectors) {
    Vec4 sum = vectors.front();
    for (std::size_t k = 1; k < vectors.size(); ++k) {
        sum = sum + vectors[k];
    }
    return sum;
}

}  // namespace

Channel::Channel(std::string name) : name_(std::move(name)) {}

Channel& Channel::edge(const std::string& name, const std::string& p4_column) {
    if (given_.contains(name)) {
        throw ModelError("channel '" + name_ + "': edge '" + name + "' is defined twice");
    }
    edge_order_.push_back(name);
    given_[name] = p4_column.empty() ? std::nullopt : std::optional<Vec4>(Vec4::event(p4_column));
    inferred_ = false;
    return *this;
}

Channel& Channel::edge(const std::string& name, const Vec4& p4) {
    if (given_.contains(name)) {
        throw ModelError("channel '" + name_ + "': edge '" + name + "' is defined twice");
    }
    edge_order_.push_back(name);
    given_[name] = p4;
    inferred_ = false;
    return *this;
}

Channel& Channel::vertex(const std::string& name, const std::vector<std::string>& incoming,
                         const std::vector<std::string>& outgoing) {
    for (const Vertex& v : vertices_) {
        if (v.name == name) {
            throw ModelError("channel '" + name_ + "': vertex '" + name + "' is defined twice");
        }
    }
    if (incoming.empty() || outgoing.empty()) {
        throw ModelError("channel '" + name_ + "': vertex '" + name +
                         "' needs at least one incoming and one outgoing edge");
    }
    for (const auto* list : {&incoming, &outgoing}) {
        for (const std::string& e : *list) {
            if (!given_.contains(e)) {
                throw ModelError(
                    fmt::format("channel '{}': vertex '{}' uses unknown edge '{}'; add "
                                "it with edge() first (edges: {})",
                                name_, name, e, join(edge_order_)));
            }
        }
    }
    vertices_.push_back({name, incoming, outgoing});
    inferred_ = false;
    return *this;
}

std::vector<std::string> Channel::edge_names() const {
    return edge_order_;
}

std::vector<std::string> Channel::vertex_names() const {
    std::vector<std::string> names;
    names.reserve(vertices_.size());
    for (const Vertex& v : vertices_) {
        names.push_back(v.name);
    }
    return names;
}

std::optional<std::pair<std::string, Vec4>> Channel::infer_at(const Vertex& v, bool parent) const {
    const auto& same = parent ? v.incoming : v.outgoing;
    const auto& other = parent ? v.outgoing : v.incoming;
    const auto is_missing = [this](const std::string& e) {
        return !resolved_.at(e);
    };
    const auto missing_same = std::count_if(same.begin(), same.end(), is_missing);
    const auto missing_other = std::count_if(other.begin(), other.end(), is_missing);
    if (missing_same != 1 || missing_other != 0) {
        return std::nullopt;
    }
    // Σ in = Σ out, solved for the one missing edge.
    std::string target;
    std::vector<Vec4> same_side;
    std::vector<Vec4> other_side;
    for (const std::string& e : same) {
        if (const std::optional<Vec4>& known = resolved_.at(e)) {
            same_side.push_back(*known);
        } else {
            target = e;
        }
    }
    other_side.reserve(other.size());
    for (const std::string& e : other) {
        if (const std::optional<Vec4>& known = resolved_.at(e)) {
            other_side.push_back(*known);
        }
    }
    Vec4 value = total(other_side);
    if (!same_side.empty()) {
        value = value - total(same_side);
    }
    return std::make_pair(std::move(target), std::move(value));
}

void Channel::infer() const {
    if (inferred_) {
        return;
    }
    resolved_ = given_;
    // A parent from its daughters first, then a daughter from its parents (laddu's priority);
    // start again from the parents after every inference.
    bool progress = true;
    while (progress) {
        progress = false;
        for (const bool parent : {true, false}) {
            for (const Vertex& v : vertices_) {
                if (auto inferred = infer_at(v, parent)) {
                    resolved_[inferred->first] = std::move(inferred->second);
                    progress = true;
                    break;
                }
            }
            if (progress) {
                break;
            }
        }
    }
    inferred_ = true;
}

Vec4 Channel::p4(const std::string& edge) const {
    if (!given_.contains(edge)) {
        throw ModelError("channel '" + name_ + "': unknown edge '" + edge +
                         "' (edges: " + join(edge_order_) + ")");
    }
    infer();
    const std::optional<Vec4>& value = resolved_.at(edge);
    if (!value) {
        throw ModelError("channel '" + name_ + "': the four-momentum of edge '" + edge +
                         "' is neither given nor inferable; give it a p4 column or connect it "
                         "to a vertex where it is the only missing edge");
    }
    return *value;
}

Expr Channel::mass(const std::string& edge) const {
    return p4(edge).m();
}

Expr Channel::s(const std::string& edge) const {
    return p4(edge).m2();
}

const Channel::Vertex& Channel::find_vertex(const std::string& name) const {
    for (const Vertex& v : vertices_) {
        if (v.name == name) {
            return v;
        }
    }
    throw ModelError("channel '" + name_ + "': unknown vertex '" + name +
                     "' (vertices: " + join(vertex_names()) + ")");
}

VertexFrame Channel::vertex_frame(const std::string& name) const {
    const auto producer = [this](const std::string& edge) -> const Vertex* {
        for (const Vertex& v : vertices_) {
            if (std::find(v.outgoing.begin(), v.outgoing.end(), edge) != v.outgoing.end()) {
                return &v;
            }
        }
        return nullptr;
    };
    // Walk up through single-edge decays to the root, collecting the intermediate edges.
    std::vector<std::string> chain;
    const Vertex* current = &find_vertex(name);
    while (true) {
        const bool is_root = std::none_of(current->incoming.begin(), current->incoming.end(),
                                          [&](const std::string& e) { return producer(e); });
        if (is_root) {
            break;
        }
        if (current->incoming.size() != 1 || chain.size() > vertices_.size()) {
            throw ModelError("channel '" + name_ + "': vertex '" + current->name +
                             "' has produced incoming edges but is not a single-edge decay; "
                             "its rest frame is ambiguous");
        }
        chain.push_back(current->incoming.front());
        current = producer(current->incoming.front());
    }
    std::vector<Vec4> incoming;
    incoming.reserve(current->incoming.size());
    for (const std::string& e : current->incoming) {
        incoming.push_back(p4(e));
    }
    Frame frame = Frame::lab().then_rest_frame_of(total(incoming));
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        frame = frame.then_rest_frame_of(p4(*it));
    }
    return {std::make_shared<const Channel>(*this), name, std::move(frame)};
}

VertexFrame::VertexFrame(std::shared_ptr<const Channel> channel, std::string name, Frame frame)
    : channel_(std::move(channel)), name_(std::move(name)), frame_(std::move(frame)) {}

Vec4 VertexFrame::p4(const std::string& edge) const {
    return frame_.transform(channel_->p4(edge));
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

Expr VertexFrame::s() const {
    const auto& v = channel_->find_vertex(name_);
    std::vector<Vec4> incoming;
    incoming.reserve(v.incoming.size());
    for (const std::string& e : v.incoming) {
        incoming.push_back(channel_->p4(e));
    }
    return total(incoming).m2();
}

Expr VertexFrame::t() const {
    const auto& v = channel_->find_vertex(name_);
    if (v.incoming.size() != 2 || v.outgoing.size() != 2) {
        throw ModelError("vertex '" + name_ + "': t() needs a 2 -> 2 vertex");
    }
    return (channel_->p4(v.incoming[0]) - channel_->p4(v.outgoing[0])).m2();
}

Expr VertexFrame::u() const {
    const auto& v = channel_->find_vertex(name_);
    if (v.incoming.size() != 2 || v.outgoing.size() != 2) {
        throw ModelError("vertex '" + name_ + "': u() needs a 2 -> 2 vertex");
    }
    return (channel_->p4(v.incoming[0]) - channel_->p4(v.outgoing[1])).m2();
}

}  // namespace laddu::physics
