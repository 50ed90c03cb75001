#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/generation/ksks.hpp>
#include <laddu/generation/phase_space.hpp>

namespace laddu::generation {

namespace {

struct Columns {
    std::vector<double> e, px, py, pz;

    void push(const FourMomentum& p) {
        e.push_back(p.e);
        px.push_back(p.px);
        py.push_back(p.py);
        pz.push_back(p.pz);
    }
};

}  // namespace

data::Dataset generate_ksks(std::size_t events, const KsKsOptions& options) {
    const double mk = options.kaon_mass;
    const double mp = options.proton_mass;
    if (!(options.beam_energy_min > 0.0) || !(options.beam_energy_max >= options.beam_energy_min) ||
        !std::isfinite(options.beam_energy_max)) {
        throw ModelError(fmt::format("generate_ksks: beam energy range [{}, {}] GeV must be "
                                     "positive, finite and ordered (min <= max)",
                                     options.beam_energy_min, options.beam_energy_max));
    }
    // Written so that NaN fails each check: a NaN kk_mass_max would otherwise mean the kinematic
    // limit, and a NaN polarisation would give NaN columns.
    if (!(options.kk_mass_max >= 0.0)) {
        throw ModelError(fmt::format("generate_ksks: kk_mass_max = {} GeV must be positive, or 0 "
                                     "for the kinematic limit",
                                     options.kk_mass_max));
    }
    if (!(options.pol_magnitude_min >= 0.0 &&
          options.pol_magnitude_min <= options.pol_magnitude_max &&
          options.pol_magnitude_max <= 1.0)) {
        throw ModelError(fmt::format("generate_ksks: polarisation range [{}, {}] must be ordered "
                                     "and within [0, 1]",
                                     options.pol_magnitude_min, options.pol_magnitude_max));
    }
    const auto cm_mass = [&](double e_beam) {
        return std::sqrt(mp * mp + 2.0 * e_beam * mp);
    };
    const double w_max = cm_mass(options.beam_energy_max);
    const double kk_limit = options.kk_mass_max > 0.0 ? options.kk_mass_max : w_max - mp;
    if (!(kk_limit > 2.0 * mk) || !(cm_mass(options.beam_energy_min) > mp + 2.0 * mk)) {
        throw ModelError(fmt::format("generate_ksks: no phase space: m(KsKs) window up to {} GeV "
                                     "and W from {} GeV, threshold 2 m_K = {} GeV",
                                     kk_limit, cm_mass(options.beam_energy_min), 2.0 * mk));
    }
    // dΦ₃ ∝ (p*/W) q* dm_X. p*/W grows with W and q* with m_X: the bound is at the top of both.
    const double bound = two_body_momentum(w_max, mp, 2.0 * mk) / w_max *
                         two_body_momentum(std::min(kk_limit, w_max - mp), mk, mk);

    std::mt19937_64 rng(options.seed);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    Columns beam, proton, k1, k2;
    std::vector<double> pol_magnitude, pol_angle;
    while (beam.e.size() < events) {
        const double e_beam = options.beam_energy_min +
                              (options.beam_energy_max - options.beam_energy_min) * uniform(rng);
        const double w = cm_mass(e_beam);
        const double top = std::min(kk_limit, w - mp);
        const double m_kk = 2.0 * mk + (top - 2.0 * mk) * uniform(rng);
        // Phase-space density per unit m_X, with the interval length (top − 2 m_K) as the
        // Jacobian of the uniform draw.
        const double weight = two_body_momentum(w, mp, m_kk) / w * two_body_momentum(m_kk, mk, mk) *
                              (top - 2.0 * mk) / (std::min(kk_limit, w_max - mp) - 2.0 * mk);
        const double cos_cm = 2.0 * uniform(rng) - 1.0;
        const double phi_cm = 2.0 * std::numbers::pi * uniform(rng);
        const double cos_kk = 2.0 * uniform(rng) - 1.0;
        const double phi_kk = 2.0 * std::numbers::pi * uniform(rng);
        const double u_pol = uniform(rng);
        const double u_angle = uniform(rng);
        if (uniform(rng) * bound >= weight) {
            continue;
        }
        const TwoBodyDecay production = two_body_decay(w, m_kk, mp, cos_cm, phi_cm);
        const TwoBodyDecay decay = two_body_decay(m_kk, mk, mk, cos_kk, phi_kk);
        const double beta = e_beam / (e_beam + mp);
        const auto to_lab = [&](const FourMomentum& p) {
            return boost(p, 0.0, 0.0, beta);
        };
        beam.push({e_beam, 0.0, 0.0, e_beam});
        proton.push(to_lab(production.second));
        k1.push(to_lab(boost_from_rest(decay.first, production.first)));
        k2.push(to_lab(boost_from_rest(decay.second, production.first)));
        pol_magnitude.push_back(options.pol_magnitude_min +
                                (options.pol_magnitude_max - options.pol_magnitude_min) * u_pol);
        pol_angle.push_back(std::numbers::pi * (2.0 * u_angle - 1.0));
    }
    const std::vector<double> weights(events, 1.0);
    const std::vector<data::P4Input> p4s{{"beam", beam.e, beam.px, beam.py, beam.pz},
                                         {"proton", proton.e, proton.px, proton.py, proton.pz},
                                         {"kshort1", k1.e, k1.px, k1.py, k1.pz},
                                         {"kshort2", k2.e, k2.px, k2.py, k2.pz}};
    const std::vector<data::ScalarInput> scalars{{"pol_magnitude", pol_magnitude},
                                                 {"pol_angle", pol_angle}};
    return data::Dataset::from_arrays(p4s, scalars, weights);
}

}  // namespace laddu::generation
