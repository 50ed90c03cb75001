#include "adaptive_proposals.hpp"

#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include <laddu/base/error.hpp>

namespace laddu::generation::detail {

MassDraw AdaptiveMass::propose(double minimum, double maximum, ProposalRng& rng) const {
    const bool learned_available = learned.truncated_total(minimum, maximum) > 0.0;
    // laddu draws the base/learned choice only when the learned density has weight here.
    const bool use_base = !learned_available || rng.uniform() < defensive;
    double mass = 0.0;
    if (use_base) {
        mass = base.propose(minimum, maximum, rng).mass;
    } else {
        const std::optional<double> drawn = learned.sample_window(minimum, maximum, rng);
        if (!drawn) {
            throw InternalError("an adaptive mass density with weight gave no draw");
        }
        mass = *drawn;
    }
    const std::optional<double> mixture = density(minimum, maximum, mass);
    if (!mixture) {
        throw ModelError("an adaptive mass proposal needs a base proposal with a density");
    }
    if (!(std::isfinite(*mixture) && *mixture > 0.0)) {
        throw ModelError(fmt::format("the adaptive mass-proposal density {} at mass {} is not "
                                     "finite and positive",
                                     *mixture, mass));
    }
    return {mass, 1.0 / *mixture};
}

std::optional<double> AdaptiveMass::density(double minimum, double maximum, double mass) const {
    const std::optional<double> base_density = base.density(minimum, maximum, mass);
    if (!base_density) {
        return std::nullopt;
    }
    if (!(learned.truncated_total(minimum, maximum) > 0.0)) {
        return base_density;
    }
    return defensive * *base_density +
           (1.0 - defensive) * learned.density(minimum, maximum, mass, false);
}

VertexDraw AdaptiveDecay::propose(std::span<const NamedMomentum> incoming,
                                  std::span<const NamedMass> outgoing, ProposalRng& rng) const {
    if (incoming.size() != 1 || outgoing.size() != 2) {
        throw ModelError("an adaptive decay needs one incoming and two outgoing edges");
    }
    const FourMomentum& parent = incoming[0].p4;
    const double m2 = parent.mass_squared();
    if (!(std::isfinite(m2) && m2 >= 0.0)) {
        throw ModelError(fmt::format("edge `{}` has invariant mass² {}, not a finite "
                                     "non-negative number",
                                     incoming[0].name, m2));
    }
    const double mass = std::sqrt(m2);
    const double q = breakup_momentum(mass, outgoing[0].mass, outgoing[1].mass);
    const double costheta =
        rng.uniform() < defensive ? 2.0 * rng.uniform() - 1.0 : learned.sample_indexed(rng);
    const double mixture =
        defensive * 0.5 + (1.0 - defensive) * learned.density(-1.0, 1.0, costheta, false);
    const double sintheta = std::sqrt(1.0 - costheta * costheta);
    const double phi = 2.0 * std::numbers::pi * rng.uniform();
    const double dx = sintheta * std::cos(phi);
    const double dy = sintheta * std::sin(phi);
    const double dz = costheta;
    if (!(parent.e > 0.0)) {
        throw ModelError(fmt::format("a vertex frame needs a positive energy, got {}", parent.e));
    }
    const auto daughter = [&](double sign, double m) {
        const double x = sign * dx * q;
        const double y = sign * dy * q;
        const double z = sign * dz * q;
        return boost_from_rest(FourMomentum{std::sqrt(m * m + (x * x + y * y + z * z)), x, y, z},
                               parent);
    };
    return {{daughter(1.0, outgoing[0].mass), daughter(-1.0, outgoing[1].mass)},
            q / (4.0 * std::numbers::pi * mass) * (0.5 / mixture)};
}

}  // namespace laddu::generation::detail
