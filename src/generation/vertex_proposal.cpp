#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/generation/vertex_proposal.hpp>

namespace laddu::generation {

namespace {

using Vec3 = std::array<double, 3>;

double invariant_mass(const FourMomentum& p, std::string_view edge) {
    const double m2 = p.mass_squared();
    if (!(m2 >= 0.0) || !std::isfinite(m2)) {
        throw ModelError(fmt::format("edge `{}` has invariant mass² {}, not a finite "
                                     "non-negative number",
                                     edge, m2));
    }
    return std::sqrt(m2);
}

Vec3 velocity(const FourMomentum& p) {
    if (!(p.e > 0.0)) {
        throw ModelError(fmt::format("a vertex frame needs a positive energy, got {}", p.e));
    }
    return {p.px / p.e, p.py / p.e, p.pz / p.e};
}

// The four-momentum of mass `mass` moving along `direction` (a unit vector) with |p| = `p`.
FourMomentum on_shell(const Vec3& direction, double p, double mass) {
    const double x = direction[0] * p;
    const double y = direction[1] * p;
    const double z = direction[2] * p;
    return {std::sqrt(mass * mass + (x * x + y * y + z * z)), x, y, z};
}

FourMomentum boosted(const FourMomentum& p, const Vec3& beta) {
    return boost(p, beta[0], beta[1], beta[2]);
}

Vec3 cross(const Vec3& a, const Vec3& b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

Vec3 unit(const Vec3& v) {
    const double norm = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(norm > 0.0)) {
        throw ModelError("the paired incoming edge has no momentum in the centre-of-momentum "
                         "frame, so t exchange has no axis");
    }
    return {v[0] / norm, v[1] / norm, v[2] / norm};
}

VertexDraw isotropic_decay(std::span<const NamedMomentum> incoming,
                           std::span<const NamedMass> outgoing, ProposalRng& rng) {
    const FourMomentum& parent = incoming[0].p4;
    const double mass = invariant_mass(parent, incoming[0].name);
    const double p = breakup_momentum(mass, outgoing[0].mass, outgoing[1].mass);
    const Vec3 direction = rng.isotropic_direction();
    const Vec3 opposite{-direction[0], -direction[1], -direction[2]};
    const Vec3 beta = velocity(parent);
    return {{boosted(on_shell(direction, p, outgoing[0].mass), beta),
             boosted(on_shell(opposite, p, outgoing[1].mass), beta)},
            p / (4.0 * std::numbers::pi * mass)};
}

}  // namespace

double breakup_momentum(double parent, double first, double second) {
    if (!(std::isfinite(parent) && std::isfinite(first) && std::isfinite(second) && parent > 0.0 &&
          first >= 0.0 && second >= 0.0)) {
        throw ModelError(fmt::format("two-body masses must be finite with a positive parent and "
                                     "non-negative daughters, got parent={}, first={}, second={}",
                                     parent, first, second));
    }
    if (parent < first + second) {
        throw ModelError(
            fmt::format("the two-body threshold is closed: {} < {} + {}", parent, first, second));
    }
    const double lambda = (parent * parent - (first + second) * (first + second)) *
                          (parent * parent - (first - second) * (first - second));
    return std::sqrt(std::max(lambda, 0.0)) / (2.0 * parent);
}

VertexProposal VertexProposal::isotropic() {
    return {Kind::kIsotropic, "", "", {}};
}

VertexProposal VertexProposal::t_exchange(std::string incoming, std::string outgoing,
                                          TDistribution distribution) {
    return {Kind::kTExchange, std::move(incoming), std::move(outgoing), std::move(distribution)};
}

void VertexProposal::validate(const std::string& vertex, std::span<const std::string> incoming,
                              std::span<const std::string> outgoing) const {
    if (kind_ == Kind::kIsotropic) {
        if (incoming.size() != 1 || outgoing.size() != 2) {
            throw ModelError(fmt::format("vertex `{}`: an isotropic decay needs one incoming and "
                                         "two outgoing edges, got {} and {}",
                                         vertex, incoming.size(), outgoing.size()));
        }
        return;
    }
    if (incoming.size() != 2 || outgoing.size() != 2) {
        throw ModelError(fmt::format("vertex `{}`: t exchange needs two incoming and two outgoing "
                                     "edges, got {} and {}",
                                     vertex, incoming.size(), outgoing.size()));
    }
    if (std::find(incoming.begin(), incoming.end(), incoming_) == incoming.end()) {
        throw ModelError(fmt::format("vertex `{}`: the t-exchange incoming edge `{}` is not one "
                                     "of its incoming edges ({})",
                                     vertex, incoming_, fmt::join(incoming, ", ")));
    }
    if (std::find(outgoing.begin(), outgoing.end(), outgoing_) == outgoing.end()) {
        throw ModelError(fmt::format("vertex `{}`: the t-exchange outgoing edge `{}` is not one "
                                     "of its outgoing edges ({})",
                                     vertex, outgoing_, fmt::join(outgoing, ", ")));
    }
}

VertexDraw VertexProposal::propose(std::span<const NamedMomentum> incoming,
                                   std::span<const NamedMass> outgoing, ProposalRng& rng) const {
    if (kind_ == Kind::kIsotropic) {
        if (incoming.size() != 1 || outgoing.size() != 2) {
            throw ModelError("an isotropic decay needs one incoming and two outgoing edges");
        }
        return isotropic_decay(incoming, outgoing, rng);
    }
    if (incoming.size() != 2 || outgoing.size() != 2) {
        throw ModelError("t exchange needs two incoming and two outgoing edges");
    }
    const std::size_t paired_in = incoming[0].name == incoming_ ? 0 : 1;
    const std::size_t paired_out = outgoing[0].name == outgoing_ ? 0 : 1;
    if (incoming[paired_in].name != incoming_ || outgoing[paired_out].name != outgoing_) {
        throw ModelError(
            fmt::format("unknown t-exchange pairing `{}` → `{}`", incoming_, outgoing_));
    }
    const FourMomentum total = incoming[0].p4 + incoming[1].p4;
    const double root_s = invariant_mass(total, "incoming sum");
    const Vec3 beta = velocity(total);
    const FourMomentum in_cm = boosted(incoming[paired_in].p4, {-beta[0], -beta[1], -beta[2]});
    // Masses from the lab vectors: boosting a massless vector can leave a tiny negative m².
    const double m1 = invariant_mass(incoming[paired_in].p4, incoming[paired_in].name);
    const double m2 = invariant_mass(incoming[1 - paired_in].p4, incoming[1 - paired_in].name);
    const double m3 = outgoing[paired_out].mass;
    const double m4 = outgoing[1 - paired_out].mass;
    const double p_in = breakup_momentum(root_s, m1, m2);
    const double p_out = breakup_momentum(root_s, m3, m4);
    if (!(p_in > 0.0)) {
        throw ModelError("t exchange is undefined at the incoming threshold");
    }
    // t = m1² + m3² − 2(E1 E3 − p_in p_out cos θ) spans [centre − span, centre + span].
    const double e1 = std::sqrt(m1 * m1 + p_in * p_in);
    const double e3 = std::sqrt(m3 * m3 + p_out * p_out);
    const double centre = m1 * m1 + m3 * m3 - 2.0 * e1 * e3;
    const double span = 2.0 * p_in * p_out;
    const auto [t, q] = distribution_.sample(centre - span, centre + span, rng);
    const double costheta = std::clamp((t - centre) / span, -1.0, 1.0);
    const double sintheta = std::sqrt(std::max(1.0 - costheta * costheta, 0.0));
    const double phi = 2.0 * std::numbers::pi * rng.uniform();
    const Vec3 z = unit({in_cm.px, in_cm.py, in_cm.pz});
    const Vec3 seed = std::abs(z[2]) < 0.9 ? Vec3{0.0, 0.0, 1.0} : Vec3{1.0, 0.0, 0.0};
    const Vec3 x = unit(cross(seed, z));
    const Vec3 y = cross(z, x);
    Vec3 direction{};
    for (std::size_t k = 0; k < 3; ++k) {
        direction[k] =
            z[k] * costheta + x[k] * (sintheta * std::cos(phi)) + y[k] * (sintheta * std::sin(phi));
    }
    const Vec3 opposite{-direction[0], -direction[1], -direction[2]};
    VertexDraw draw;
    draw.outgoing.resize(2);
    draw.outgoing[paired_out] = boosted(on_shell(direction, p_out, m3), beta);
    draw.outgoing[1 - paired_out] = boosted(on_shell(opposite, p_out, m4), beta);
    draw.weight = 1.0 / (16.0 * std::numbers::pi * root_s * p_in * q);
    return draw;
}

std::string VertexProposal::describe() const {
    if (kind_ == Kind::kIsotropic) {
        return "isotropic()";
    }
    return fmt::format("t_exchange({} → {}, {})", incoming_, outgoing_, distribution_.describe());
}

}  // namespace laddu::generation
