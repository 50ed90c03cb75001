#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/generation/ksks.hpp>
#include <laddu/generation/phase_space.hpp>

namespace laddu::generation {
namespace {

FourMomentum p4(const data::Dataset& d, const std::string& name, std::size_t i) {
    return {d.column(name + "_e")[i], d.column(name + "_px")[i], d.column(name + "_py")[i],
            d.column(name + "_pz")[i]};
}

double mass(const FourMomentum& p) {
    return std::sqrt(std::max(0.0, p.mass_squared()));
}

TEST(KsKs, EventsConserveFourMomentumAndCarryTheBenchmarkColumns) {
    const KsKsOptions options{.kk_mass_max = 2.0, .seed = 4};
    const data::Dataset d = generate_ksks(2000, options);
    ASSERT_EQ(d.size(), 2000U);
    EXPECT_EQ(d.p4_names(), (std::vector<std::string>{"beam", "proton", "kshort1", "kshort2"}));
    EXPECT_EQ(d.scalar_names(), (std::vector<std::string>{"pol_magnitude", "pol_angle"}));
    for (std::size_t i = 0; i < d.size(); ++i) {
        const FourMomentum beam = p4(d, "beam", i);
        const FourMomentum initial = beam + FourMomentum{options.proton_mass, 0.0, 0.0, 0.0};
        const FourMomentum final_state =
            p4(d, "proton", i) + p4(d, "kshort1", i) + p4(d, "kshort2", i);
        EXPECT_NEAR(final_state.e, initial.e, 1e-11);
        EXPECT_NEAR(final_state.px, 0.0, 1e-11);
        EXPECT_NEAR(final_state.py, 0.0, 1e-11);
        EXPECT_NEAR(final_state.pz, initial.pz, 1e-11);
        EXPECT_GE(beam.e, 8.0);
        EXPECT_LE(beam.e, 9.0);
        EXPECT_NEAR(mass(p4(d, "proton", i)), options.proton_mass, 1e-8);
        EXPECT_NEAR(mass(p4(d, "kshort1", i)), options.kaon_mass, 1e-8);
        const double m_kk = mass(p4(d, "kshort1", i) + p4(d, "kshort2", i));
        EXPECT_GE(m_kk, 2.0 * options.kaon_mass - 1e-9);
        EXPECT_LE(m_kk, 2.0 + 1e-9);
        EXPECT_GE(d.column("pol_magnitude")[i], 0.3);
        EXPECT_LE(d.column("pol_magnitude")[i], 0.4);
        EXPECT_GE(d.column("pol_angle")[i], -std::numbers::pi);
        EXPECT_LT(d.column("pol_angle")[i], std::numbers::pi);
        EXPECT_EQ(d.weights()[i], 1.0);
    }
    const data::Dataset again = generate_ksks(2000, options);
    EXPECT_EQ(
        std::vector<double>(again.column("kshort1_px").begin(), again.column("kshort1_px").end()),
        std::vector<double>(d.column("kshort1_px").begin(), d.column("kshort1_px").end()));
}

// At a fixed beam energy, flat three-body phase space has dN/dm_X ∝ p*(W; m_p, m_X) q*(m_X).
TEST(KsKs, KsKsMassFollowsThreeBodyPhaseSpace) {
    const KsKsOptions options{.beam_energy_min = 8.5, .beam_energy_max = 8.5, .seed = 9};
    constexpr std::size_t kEvents = 40000;
    const data::Dataset d = generate_ksks(kEvents, options);
    const double mk = options.kaon_mass;
    const double mp = options.proton_mass;
    const double w = std::sqrt(mp * mp + 2.0 * 8.5 * mp);
    const double lo = 2.0 * mk;
    const double hi = w - mp;
    constexpr int kBins = 25;
    std::vector<double> counts(kBins, 0.0);
    for (std::size_t i = 0; i < d.size(); ++i) {
        const double m = mass(p4(d, "kshort1", i) + p4(d, "kshort2", i));
        counts[static_cast<std::size_t>(
            std::min(kBins - 1, static_cast<int>((m - lo) / (hi - lo) * kBins)))] += 1.0;
    }
    std::vector<double> expected(kBins, 0.0);
    double total = 0.0;
    for (int b = 0; b < kBins; ++b) {
        for (int k = 0; k < 100; ++k) {
            const double m = lo + (hi - lo) * (b + (k + 0.5) / 100.0) / kBins;
            expected[static_cast<std::size_t>(b)] +=
                two_body_momentum(w, mp, m) * two_body_momentum(m, mk, mk);
        }
        total += expected[static_cast<std::size_t>(b)];
    }
    double chi2 = 0.0;
    for (std::size_t b = 0; b < kBins; ++b) {
        const double mu = expected[b] / total * kEvents;
        chi2 += (counts[b] - mu) * (counts[b] - mu) / mu;
    }
    EXPECT_LT(chi2, 24.0 + 5.0 * std::sqrt(48.0)) << "chi2 " << chi2;
}

TEST(KsKs, RejectsEmptyPhaseSpace) {
    try {
        (void)generate_ksks(1, {.beam_energy_min = 9.0, .beam_energy_max = 8.0});
        FAIL();
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("min <= max"), std::string::npos);
    }
    try {
        (void)generate_ksks(1, {.kk_mass_max = 0.9});
        FAIL();
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("no phase space"), std::string::npos);
    }
}

}  // namespace
}  // namespace laddu::generation
