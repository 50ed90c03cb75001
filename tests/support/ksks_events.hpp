// tests/support/ksks_events.hpp: flat γ p → K_S K_S p events for cross-stage tests.
//
// A fixed-target reaction: a photon beam along +z with energy uniform in [8, 9] GeV hits a
// proton at rest. In the centre of mass the recoil proton and the K_S K_S system are emitted
// back to back (isotropic), the K_S K_S mass is uniform between threshold and its maximum, and
// each K_S pair decays isotropically in its rest frame. Linear polarisation: magnitude uniform
// in [0.3, 0.4], angle uniform in [-π, π]. Generated independently of the library (plain doubles,
// explicit boosts), so tests can compare library kinematics against it.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <random>
#include <span>
#include <vector>

#include <laddu/data/dataset.hpp>
#include <laddu/physics/particles.hpp>

namespace laddu::testing {

using P4 = std::array<double, 4>;  // (E, px, py, pz)

// Boosts `p` by velocity `beta`.
inline P4 boost(const P4& p, const std::array<double, 3>& beta) {
    const double b2 = beta[0] * beta[0] + beta[1] * beta[1] + beta[2] * beta[2];
    if (b2 == 0.0) {
        return p;
    }
    const double gamma = 1.0 / std::sqrt(1.0 - b2);
    const double bp = beta[0] * p[1] + beta[1] * p[2] + beta[2] * p[3];
    const double g2 = (gamma - 1.0) / b2;
    P4 out;
    out[0] = gamma * (p[0] + bp);
    for (int i = 0; i < 3; ++i) {
        out[static_cast<std::size_t>(i + 1)] = p[static_cast<std::size_t>(i + 1)] +
                                               g2 * bp * beta[static_cast<std::size_t>(i)] +
                                               gamma * beta[static_cast<std::size_t>(i)] * p[0];
    }
    return out;
}

// Two-body momentum of a parent of mass m into masses m1, m2.
inline double two_body_momentum(double m, double m1, double m2) {
    const double a = (m * m - (m1 + m2) * (m1 + m2)) * (m * m - (m1 - m2) * (m1 - m2));
    return std::sqrt(std::max(a, 0.0)) / (2.0 * m);
}

inline P4 at_rest_decay(double m_daughter, double q, double costheta, double phi) {
    const double sintheta = std::sqrt(std::max(0.0, 1.0 - costheta * costheta));
    return {std::sqrt(q * q + m_daughter * m_daughter), q * sintheta * std::cos(phi),
            q * sintheta * std::sin(phi), q * costheta};
}

struct KsKsEvents {
    std::vector<double> beam_e, beam_px, beam_py, beam_pz;
    std::vector<double> proton_e, proton_px, proton_py, proton_pz;
    std::vector<double> k1_e, k1_px, k1_py, k1_pz;
    std::vector<double> k2_e, k2_px, k2_py, k2_pz;
    std::vector<double> pol_magnitude, pol_angle, weight;

    [[nodiscard]] std::size_t size() const { return beam_e.size(); }

    [[nodiscard]] data::Dataset dataset() const {
        const std::vector<data::P4Input> p4s{{"beam", beam_e, beam_px, beam_py, beam_pz},
                                             {"proton", proton_e, proton_px, proton_py, proton_pz},
                                             {"kshort1", k1_e, k1_px, k1_py, k1_pz},
                                             {"kshort2", k2_e, k2_px, k2_py, k2_pz}};
        const std::vector<data::ScalarInput> scalars{{"pol_magnitude", pol_magnitude},
                                                     {"pol_angle", pol_angle}};
        return data::Dataset::from_arrays(p4s, scalars, weight);
    }
};

inline void push(std::vector<double>& e, std::vector<double>& x, std::vector<double>& y,
                 std::vector<double>& z, const P4& p) {
    e.push_back(p[0]);
    x.push_back(p[1]);
    y.push_back(p[2]);
    z.push_back(p[3]);
}

inline KsKsEvents generate_ksks(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const double mk = physics::kKaonShortMass;
    const double mp = physics::kProtonMass;
    constexpr double kPi = 3.14159265358979323846;
    KsKsEvents ev;
    for (std::size_t i = 0; i < n; ++i) {
        const double e_beam = 8.0 + u(rng);
        const P4 beam{e_beam, 0.0, 0.0, e_beam};
        const P4 target{mp, 0.0, 0.0, 0.0};
        const double w = std::sqrt(mp * mp + 2.0 * e_beam * mp);
        const std::array<double, 3> beta_cm{0.0, 0.0, e_beam / (e_beam + mp)};
        const double m_kk = 2.0 * mk + (w - mp - 2.0 * mk) * (0.02 + 0.5 * u(rng));
        const double q = two_body_momentum(w, mp, m_kk);
        const double cos_cm = 2.0 * u(rng) - 1.0;
        const double phi_cm = 2.0 * kPi * u(rng);
        const P4 kk_cm = at_rest_decay(m_kk, q, cos_cm, phi_cm);
        const P4 proton_cm{std::sqrt(q * q + mp * mp), -kk_cm[1], -kk_cm[2], -kk_cm[3]};
        const double qk = two_body_momentum(m_kk, mk, mk);
        const P4 k1_rest = at_rest_decay(mk, qk, 2.0 * u(rng) - 1.0, 2.0 * kPi * u(rng));
        const P4 k2_rest{k1_rest[0], -k1_rest[1], -k1_rest[2], -k1_rest[3]};
        const std::array<double, 3> beta_kk{kk_cm[1] / kk_cm[0], kk_cm[2] / kk_cm[0],
                                            kk_cm[3] / kk_cm[0]};
        const P4 k1 = boost(boost(k1_rest, beta_kk), beta_cm);
        const P4 k2 = boost(boost(k2_rest, beta_kk), beta_cm);
        const P4 proton = boost(proton_cm, beta_cm);
        (void)target;
        push(ev.beam_e, ev.beam_px, ev.beam_py, ev.beam_pz, beam);
        push(ev.proton_e, ev.proton_px, ev.proton_py, ev.proton_pz, proton);
        push(ev.k1_e, ev.k1_px, ev.k1_py, ev.k1_pz, k1);
        push(ev.k2_e, ev.k2_px, ev.k2_py, ev.k2_pz, k2);
        ev.pol_magnitude.push_back(0.3 + 0.1 * u(rng));
        ev.pol_angle.push_back(kPi * (2.0 * u(rng) - 1.0));
        ev.weight.push_back(1.0);
    }
    return ev;
}

}  // namespace laddu::testing
