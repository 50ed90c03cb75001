#include <algorithm>
#include <array>
#include <cmath>
#include <span>
#include <string>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/generation/accept_reject.hpp>
#include <laddu/generation/ksks_acceptance.hpp>
#include <laddu/generation/phase_space.hpp>

namespace laddu::generation {

KsKsKinematics ksks_kinematics(const data::Dataset& events) {
    const auto columns = [&](const std::string& name) {
        return std::array<std::span<const double>, 4>{
            events.column(name + "_e"), events.column(name + "_px"), events.column(name + "_py"),
            events.column(name + "_pz")};
    };
    const auto proton = columns("proton");
    const auto kshort1 = columns("kshort1");
    const auto kshort2 = columns("kshort2");
    const auto at = [](const std::array<std::span<const double>, 4>& c, std::size_t i) {
        return FourMomentum{c[0][i], c[1][i], c[2][i], c[3][i]};
    };
    KsKsKinematics k;
    k.m_kk.reserve(events.size());
    k.costheta.reserve(events.size());
    for (std::size_t i = 0; i < events.size(); ++i) {
        const FourMomentum k1 = at(kshort1, i);
        const FourMomentum kk = k1 + at(kshort2, i);
        // The angle between two momenta is the same in every frame reached from the lab by a
        // pure boost, so boosting lab → KK directly gives the helicity angle of lab → CM → KK.
        const double bx = -kk.px / kk.e;
        const double by = -kk.py / kk.e;
        const double bz = -kk.pz / kk.e;
        const FourMomentum k1r = boost(k1, bx, by, bz);
        const FourMomentum pr = boost(at(proton, i), bx, by, bz);
        const double dot = -(k1r.px * pr.px + k1r.py * pr.py + k1r.pz * pr.pz);
        const double norm = std::hypot(k1r.px, k1r.py, k1r.pz) * std::hypot(pr.px, pr.py, pr.pz);
        k.m_kk.push_back(std::sqrt(std::max(0.0, kk.mass_squared())));
        k.costheta.push_back(dot / norm);
    }
    return k;
}

std::vector<double> ksks_toy_efficiency(const KsKsKinematics& kinematics, double kk_mass_max,
                                        double kaon_mass) {
    const double threshold = 2.0 * kaon_mass;
    if (!(kk_mass_max > threshold)) {
        throw ModelError(fmt::format("toy acceptance: the m(KsKs) window's upper end {} GeV must "
                                     "be above the threshold 2 m_K = {} GeV",
                                     kk_mass_max, threshold));
    }
    std::vector<double> efficiency(kinematics.m_kk.size());
    for (std::size_t i = 0; i < efficiency.size(); ++i) {
        const double x =
            std::clamp((kinematics.m_kk[i] - threshold) / (kk_mass_max - threshold), 0.0, 1.0);
        const double c = kinematics.costheta[i];
        efficiency[i] = (1.0 - 0.5 * x) * (1.0 - 0.35 * c * c);
    }
    return efficiency;
}

data::Dataset apply_ksks_toy_acceptance(const data::Dataset& flat, double kk_mass_max,
                                        std::uint64_t seed) {
    const std::vector<double> efficiency = ksks_toy_efficiency(ksks_kinematics(flat), kk_mass_max);
    return accept_reject(flat, efficiency, seed, 1.0);
}

data::Dataset accepted_ksks(std::size_t generated, const KsKsOptions& options,
                            std::uint64_t acceptance_seed) {
    if (!(options.kk_mass_max > 0.0)) {
        throw ModelError("accepted_ksks needs KsKsOptions::kk_mass_max (the upper end of the "
                         "m(KsKs) window that the toy acceptance is defined on)");
    }
    return apply_ksks_toy_acceptance(generate_ksks(generated, options), options.kk_mass_max,
                                     acceptance_seed);
}

}  // namespace laddu::generation
