// laddu/generation/initial_momentum.hpp: the four-momentum of an initial edge of a generated
// channel (laddu's InitialMomentum): a fixed four-vector, a fixed three-momentum whose energy
// follows from the particle mass, or an energy drawn from a ScalarSource along a fixed
// direction (a beam with an energy spectrum).
//
// The edge's particle gives the mass m. A drawn energy E gives p = √(E² − m²) along the unit
// direction and the event weight 1/q(E) of the energy source (E_max − E_min for a uniform
// spectrum); fixed momenta have weight 1.
//
// Example: a photon beam between 8 and 9 GeV along z, a proton target at rest:
//   auto beam = InitialMomentum::energy_source(ScalarSource::uniform(8.0, 9.0), {0, 0, 1});
//   auto target = InitialMomentum::momentum({0.0, 0.0, 0.0});
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>

#include <laddu/generation/phase_space.hpp>
#include <laddu/generation/proposal_rng.hpp>
#include <laddu/generation/scalar_source.hpp>

namespace laddu::generation {

/// A drawn initial four-momentum and its importance weight.
struct InitialDraw {
    FourMomentum p4;
    double weight = 1.0;
};

/// What every draw of an initial momentum can be (for ChannelGenerator::phase_space_envelope):
/// the energy, momentum components and weight lie in these intervals; dimensions and regions as
/// in ScalarEnclosure.
struct InitialEnclosure {
    Interval energy;
    std::array<Interval, 3> momentum;
    Interval weight;
    std::size_t continuous_dimensions = 0;
    std::size_t piecewise_regions = 1;
};

/// How an initial edge's four-momentum is made (see the banner).
class InitialMomentum {
public:
    /// The kind of prescription.
    enum class Kind : unsigned char { kP4, kMomentum, kEnergy };

    /// A fixed four-vector (E, px, py, pz).
    [[nodiscard]] static InitialMomentum p4(const FourMomentum& p4);

    /// A fixed three-momentum; the energy is √(p² + m²).
    [[nodiscard]] static InitialMomentum momentum(const std::array<double, 3>& momentum);

    /// A fixed energy along `direction` (normalised when used).
    [[nodiscard]] static InitialMomentum energy(double energy,
                                                const std::array<double, 3>& direction);

    /// An energy drawn from `energy` along `direction`.
    [[nodiscard]] static InitialMomentum energy_source(ScalarSource energy,
                                                       const std::array<double, 3>& direction);

    /// The kind of prescription.
    [[nodiscard]] Kind kind() const noexcept { return kind_; }

    /// ModelError naming `edge` if `mass` is missing (the edge has no particle mass), a
    /// component is not finite, a fixed four-vector is off shell (|p² − m²| > 1e-9 (1 + m² +
    /// E²)) or has negative energy, the energy source reaches below m, or the direction is
    /// zero or not finite.
    void validate(const std::string& edge, std::optional<double> mass) const;

    /// A four-momentum for a particle of mass `mass` (validate() first); an energy source
    /// draws from `rng`.
    [[nodiscard]] InitialDraw sample(double mass, ProposalRng& rng) const;

    /// The enclosure of every draw for a particle of mass `mass` (validate() first).
    [[nodiscard]] InitialEnclosure enclose(double mass) const;

    /// A short description, e.g. "energy(uniform(8, 9), direction=[0, 0, 1])".
    [[nodiscard]] std::string describe() const;

private:
    friend struct detail::GenerationJson;

    InitialMomentum(Kind kind, FourMomentum p4, std::optional<ScalarSource> energy)
        : kind_(kind), p4_(p4), energy_(std::move(energy)) {}

    Kind kind_;
    FourMomentum p4_;  // kP4: the vector; kMomentum: (0, p); kEnergy: (0, direction)
    std::optional<ScalarSource> energy_;
};

}  // namespace laddu::generation
