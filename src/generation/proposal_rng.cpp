#include <cmath>
#include <numbers>

#include <laddu/generation/proposal_rng.hpp>

namespace laddu::generation {

std::array<double, 3> ProposalRng::isotropic_direction() noexcept {
    // Uniform in cos θ and φ is uniform on the sphere (dΩ = d cos θ dφ).
    const double costheta = 2.0 * uniform() - 1.0;
    const double sintheta = std::sqrt(1.0 - costheta * costheta);
    const double phi = 2.0 * std::numbers::pi * uniform();
    return {sintheta * std::cos(phi), sintheta * std::sin(phi), costheta};
}

}  // namespace laddu::generation
