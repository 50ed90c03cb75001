#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/generation/phase_space.hpp>

namespace laddu::generation {

FourMomentum operator+(const FourMomentum& a, const FourMomentum& b) noexcept {
    return {a.e + b.e, a.px + b.px, a.py + b.py, a.pz + b.pz};
}

FourMomentum boost(const FourMomentum& p, double bx, double by, double bz) noexcept {
    const double b2 = bx * bx + by * by + bz * bz;
    if (b2 == 0.0) {
        return p;
    }
    const double gamma = 1.0 / std::sqrt(1.0 - b2);
    const double bp = bx * p.px + by * p.py + bz * p.pz;
    const double g2 = (gamma - 1.0) / b2;
    const double k = g2 * bp + gamma * p.e;
    return {gamma * (p.e + bp), p.px + k * bx, p.py + k * by, p.pz + k * bz};
}

FourMomentum boost_from_rest(const FourMomentum& p, const FourMomentum& frame) noexcept {
    return boost(p, frame.px / frame.e, frame.py / frame.e, frame.pz / frame.e);
}

double two_body_momentum(double m, double m1, double m2) noexcept {
    const double a = (m * m - (m1 + m2) * (m1 + m2)) * (m * m - (m1 - m2) * (m1 - m2));
    return a > 0.0 ? std::sqrt(a) / (2.0 * m) : 0.0;
}

TwoBodyDecay two_body_decay(double m, double m1, double m2, double costheta, double phi) noexcept {
    const double q = two_body_momentum(m, m1, m2);
    const double sintheta = std::sqrt(std::max(0.0, 1.0 - costheta * costheta));
    const double x = q * sintheta * std::cos(phi);
    const double y = q * sintheta * std::sin(phi);
    const double z = q * costheta;
    return {{std::sqrt(q * q + m1 * m1), x, y, z}, {std::sqrt(q * q + m2 * m2), -x, -y, -z}};
}

NBodyPhaseSpace::NBodyPhaseSpace(double parent_mass, std::vector<double> masses)
    : parent_mass_(parent_mass), masses_(std::move(masses)) {
    if (masses_.size() < 2) {
        throw ModelError(
            fmt::format("phase space needs at least two daughters, got {}", masses_.size()));
    }
    double total = 0.0;
    for (const double m : masses_) {
        if (!(m >= 0.0)) {
            throw ModelError(fmt::format("daughter mass {} is negative or not a number", m));
        }
        total += m;
    }
    if (!(parent_mass_ > total)) {
        throw ModelError(fmt::format("parent mass {} is not above the sum of the daughter "
                                     "masses {}: the decay is closed",
                                     parent_mass_, total));
    }
    kinetic_ = parent_mass_ - total;
    // GENBOD's bound: each factor at its largest possible parent mass and smallest one.
    double emmax = kinetic_ + masses_[0];
    double emmin = 0.0;
    max_weight_ = 1.0;
    for (std::size_t k = 1; k < masses_.size(); ++k) {
        emmin += masses_[k - 1];
        emmax += masses_[k];
        max_weight_ *= two_body_momentum(emmax, emmin, masses_[k]);
    }
}

PhaseSpaceEvent NBodyPhaseSpace::generate(std::mt19937_64& rng) const {
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    const std::size_t n = masses_.size();
    // Sorted uniforms r_0 = 0 < r_1 .. r_{n-2} < r_{n-1} = 1 give the intermediate masses.
    std::vector<double> r(n, 0.0);
    r[n - 1] = 1.0;
    for (std::size_t k = 1; k + 1 < n; ++k) {
        r[k] = uniform(rng);
    }
    std::sort(r.begin() + 1, r.end() - 1);
    std::vector<double> invariant(n);
    double sum = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
        sum += masses_[k];
        invariant[k] = sum + r[k] * kinetic_;
    }
    PhaseSpaceEvent event;
    event.weight = 1.0;
    event.momenta.assign(n, FourMomentum{});
    event.momenta[0] = {masses_[0], 0.0, 0.0, 0.0};
    // Step k: the system (0..k-1) of mass invariant[k-1] and particle k come from invariant[k].
    for (std::size_t k = 1; k < n; ++k) {
        const double p = two_body_momentum(invariant[k], invariant[k - 1], masses_[k]);
        event.weight *= p;
        const double costheta = 2.0 * uniform(rng) - 1.0;
        const double phi = 2.0 * std::numbers::pi * uniform(rng);
        const TwoBodyDecay decay =
            two_body_decay(invariant[k], invariant[k - 1], masses_[k], costheta, phi);
        for (std::size_t i = 0; i < k; ++i) {
            event.momenta[i] = boost_from_rest(event.momenta[i], decay.first);
        }
        event.momenta[k] = decay.second;
    }
    return event;
}

PhaseSpaceEvent NBodyPhaseSpace::generate_unweighted(std::mt19937_64& rng) const {
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    for (;;) {
        PhaseSpaceEvent event = generate(rng);
        if (uniform(rng) * max_weight_ < event.weight) {
            event.weight = 1.0;
            return event;
        }
    }
}

}  // namespace laddu::generation
