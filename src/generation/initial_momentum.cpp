#include <cmath>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/generation/initial_momentum.hpp>

namespace laddu::generation {

InitialMomentum InitialMomentum::p4(const FourMomentum& p4) {
    return {Kind::kP4, p4, {}};
}

InitialMomentum InitialMomentum::momentum(const std::array<double, 3>& momentum) {
    return {Kind::kMomentum, {0.0, momentum[0], momentum[1], momentum[2]}, {}};
}

InitialMomentum InitialMomentum::energy(double energy, const std::array<double, 3>& direction) {
    return energy_source(ScalarSource::fixed(energy), direction);
}

InitialMomentum InitialMomentum::energy_source(ScalarSource energy,
                                               const std::array<double, 3>& direction) {
    return {Kind::kEnergy, {0.0, direction[0], direction[1], direction[2]}, std::move(energy)};
}

void InitialMomentum::validate(const std::string& edge, std::optional<double> mass) const {
    if (!mass) {
        throw ModelError(fmt::format("initial edge `{}` has no particle mass: give it a particle "
                                     "(Edge(particle=...)) so its momentum can be put on shell",
                                     edge));
    }
    const double m = *mass;
    const bool finite = std::isfinite(p4_.px) && std::isfinite(p4_.py) && std::isfinite(p4_.pz);
    switch (kind_) {
    case Kind::kP4: {
        if (!finite || !std::isfinite(p4_.e) || p4_.e < 0.0) {
            throw ModelError(
                fmt::format("the initial four-momentum of edge `{}` needs finite components and a "
                            "non-negative energy, got ({}, {}, {}, {})",
                            edge, p4_.e, p4_.px, p4_.py, p4_.pz));
        }
        const double tolerance = 1e-9 * (1.0 + m * m + p4_.e * p4_.e);
        if (std::abs(p4_.mass_squared() - m * m) > tolerance) {
            throw ModelError(fmt::format("initial edge `{}` is off shell: p² = {} but its "
                                         "mass² = {}",
                                         edge, p4_.mass_squared(), m * m));
        }
        return;
    }
    case Kind::kMomentum:
        if (!finite) {
            throw ModelError(fmt::format(
                "the initial momentum of edge `{}` needs finite components, got ({}, {}, {})", edge,
                p4_.px, p4_.py, p4_.pz));
        }
        return;
    case Kind::kEnergy:
        break;
    }
    const double minimum = energy_->support().first;
    if (minimum < m) {
        throw ModelError(fmt::format("the energy of initial edge `{}` can be {}, below its "
                                     "particle mass {}",
                                     edge, minimum, m));
    }
    const double norm = std::sqrt(p4_.px * p4_.px + p4_.py * p4_.py + p4_.pz * p4_.pz);
    if (!finite || !std::isfinite(norm) || norm <= 0.0) {
        throw ModelError(fmt::format("the direction of initial edge `{}` must be a finite "
                                     "non-zero vector, got ({}, {}, {})",
                                     edge, p4_.px, p4_.py, p4_.pz));
    }
}

InitialDraw InitialMomentum::sample(double mass, ProposalRng& rng) const {
    switch (kind_) {
    case Kind::kP4:
        return {p4_, 1.0};
    case Kind::kMomentum: {
        const double p2 = p4_.px * p4_.px + p4_.py * p4_.py + p4_.pz * p4_.pz;
        return {{std::sqrt(p2 + mass * mass), p4_.px, p4_.py, p4_.pz}, 1.0};
    }
    case Kind::kEnergy:
        break;
    }
    const ScalarDraw energy = energy_->sample(rng);
    if (energy.value < mass) {
        throw ModelError(fmt::format("a drawn initial energy {} is below the particle mass {}",
                                     energy.value, mass));
    }
    const double norm = std::sqrt(p4_.px * p4_.px + p4_.py * p4_.py + p4_.pz * p4_.pz);
    const double p = std::sqrt(energy.value * energy.value - mass * mass);
    return {{energy.value, p4_.px / norm * p, p4_.py / norm * p, p4_.pz / norm * p}, energy.weight};
}

InitialEnclosure InitialMomentum::enclose(double mass) const {
    const Interval m = Interval::point(mass);
    switch (kind_) {
    case Kind::kP4:
        return {Interval::point(p4_.e),
                {Interval::point(p4_.px), Interval::point(p4_.py), Interval::point(p4_.pz)},
                Interval::point(1.0),
                0,
                1};
    case Kind::kMomentum: {
        const std::array<Interval, 3> p{Interval::point(p4_.px), Interval::point(p4_.py),
                                        Interval::point(p4_.pz)};
        return {(p[0].sqr() + p[1].sqr() + p[2].sqr() + m.sqr()).sqrt(), p, Interval::point(1.0), 0,
                1};
    }
    case Kind::kEnergy:
        break;
    }
    const ScalarEnclosure energy = energy_->enclose();
    const Interval norm = (Interval::point(p4_.px).sqr() + Interval::point(p4_.py).sqr() +
                           Interval::point(p4_.pz).sqr())
                              .sqrt();
    const Interval p = (energy.value.sqr() - m.sqr()).sqrt();
    return {energy.value,
            {Interval::point(p4_.px) / norm * p, Interval::point(p4_.py) / norm * p,
             Interval::point(p4_.pz) / norm * p},
            energy.weight,
            energy.continuous_dimensions,
            energy.piecewise_regions};
}

std::string InitialMomentum::describe() const {
    switch (kind_) {
    case Kind::kP4:
        return fmt::format("p4([{}, {}, {}, {}])", p4_.e, p4_.px, p4_.py, p4_.pz);
    case Kind::kMomentum:
        return fmt::format("momentum([{}, {}, {}])", p4_.px, p4_.py, p4_.pz);
    case Kind::kEnergy:
        break;
    }
    return fmt::format("energy({}, direction=[{}, {}, {}])", energy_->describe(), p4_.px, p4_.py,
                       p4_.pz);
}

}  // namespace laddu::generation
