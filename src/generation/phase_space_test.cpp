#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/generation/phase_space.hpp>

namespace laddu::generation {
namespace {

double mass(const FourMomentum& p) {
    return std::sqrt(std::max(0.0, p.mass_squared()));
}

TEST(PhaseSpace, TwoBodyDecayConservesFourMomentumAndMasses) {
    const TwoBodyDecay d = two_body_decay(1.8, 0.5, 0.14, 0.3, 1.1);
    const FourMomentum total = d.first + d.second;
    EXPECT_NEAR(total.e, 1.8, 1e-14);
    EXPECT_NEAR(total.px, 0.0, 1e-15);
    EXPECT_NEAR(total.py, 0.0, 1e-15);
    EXPECT_NEAR(total.pz, 0.0, 1e-15);
    EXPECT_NEAR(mass(d.first), 0.5, 1e-13);
    EXPECT_NEAR(mass(d.second), 0.14, 1e-13);
    // Breakup momentum from E1 = (m² + m1² − m2²) / 2m.
    const double e1 = (1.8 * 1.8 + 0.25 - 0.14 * 0.14) / 3.6;
    EXPECT_NEAR(two_body_momentum(1.8, 0.5, 0.14), std::sqrt(e1 * e1 - 0.25), 1e-14);
    EXPECT_NEAR(d.first.pz, 0.3 * two_body_momentum(1.8, 0.5, 0.14), 1e-14);
    EXPECT_EQ(two_body_momentum(0.5, 0.4, 0.2), 0.0);
}

TEST(PhaseSpace, BoostFromRestRoundTrips) {
    const FourMomentum frame{3.0, 0.4, -1.2, 2.0};
    const FourMomentum p{1.0, 0.1, 0.2, -0.3};
    const FourMomentum lab = boost_from_rest(p, frame);
    const FourMomentum back =
        boost(lab, -frame.px / frame.e, -frame.py / frame.e, -frame.pz / frame.e);
    EXPECT_NEAR(back.e, p.e, 1e-13);
    EXPECT_NEAR(back.px, p.px, 1e-13);
    EXPECT_NEAR(back.py, p.py, 1e-13);
    EXPECT_NEAR(back.pz, p.pz, 1e-13);
    EXPECT_NEAR(lab.mass_squared(), p.mass_squared(), 1e-12);
    // A particle at rest in `frame` moves with it.
    const FourMomentum rest = boost_from_rest({1.0, 0.0, 0.0, 0.0}, frame);
    const double m = mass(frame);
    EXPECT_NEAR(rest.e, frame.e / m, 1e-13);
    EXPECT_NEAR(rest.pz, frame.pz / m, 1e-13);
}

TEST(PhaseSpace, EventsConserveFourMomentumAndStayInKinematicLimits) {
    for (const std::vector<double>& masses : {std::vector<double>{0.5, 0.14},
                                              {0.494, 0.1396, 0.1396},
                                              {0.938, 0.1396, 0.1396, 0.135}}) {
        const double parent = 2.2;
        const NBodyPhaseSpace ps(parent, masses);
        std::mt19937_64 rng(11);
        for (int trial = 0; trial < 500; ++trial) {
            const PhaseSpaceEvent ev = ps.generate(rng);
            ASSERT_EQ(ev.momenta.size(), masses.size());
            FourMomentum total;
            for (std::size_t i = 0; i < masses.size(); ++i) {
                total = total + ev.momenta[i];
                EXPECT_NEAR(mass(ev.momenta[i]), masses[i], 1e-9);
            }
            EXPECT_NEAR(total.e, parent, 1e-12);
            EXPECT_NEAR(std::hypot(total.px, total.py, total.pz), 0.0, 1e-12);
            EXPECT_GT(ev.weight, 0.0);
            EXPECT_LE(ev.weight, ps.max_weight() * (1.0 + 1e-12));
            double others = 0.0;
            for (const double m : masses) {
                others += m;
            }
            for (std::size_t i = 0; i < masses.size(); ++i) {
                for (std::size_t j = i + 1; j < masses.size(); ++j) {
                    const double mij = mass(ev.momenta[i] + ev.momenta[j]);
                    EXPECT_GE(mij, masses[i] + masses[j] - 1e-9);
                    EXPECT_LE(mij, parent - (others - masses[i] - masses[j]) + 1e-9);
                }
            }
        }
    }
}

TEST(PhaseSpace, TwoBodyWeightIsConstant) {
    const NBodyPhaseSpace ps(1.0, {0.3, 0.2});
    std::mt19937_64 rng(3);
    for (int i = 0; i < 10; ++i) {
        EXPECT_NEAR(ps.generate(rng).weight, two_body_momentum(1.0, 0.3, 0.2), 1e-15);
    }
}

// The length of the Dalitz plot in m23² at fixed m12² (PDG kinematics, eq. 49.23).
double dalitz_width(double s12, double M, double m1, double m2, double m3) {
    const double m12 = std::sqrt(s12);
    const double e2 = (s12 - m1 * m1 + m2 * m2) / (2.0 * m12);
    const double e3 = (M * M - s12 - m3 * m3) / (2.0 * m12);
    const double p2 = std::sqrt(std::max(0.0, e2 * e2 - m2 * m2));
    const double p3 = std::sqrt(std::max(0.0, e3 * e3 - m3 * m3));
    return 4.0 * p2 * p3;
}

// Flat Dalitz density: the unweighted m12² projection follows the Dalitz-plot width.
TEST(PhaseSpace, ThreeBodyDalitzProjectionIsFlatPhaseSpace) {
    const double M = 1.8696;
    const double m1 = 0.4937;
    const double m2 = 0.1396;
    const double m3 = 0.1396;
    const NBodyPhaseSpace ps(M, {m1, m2, m3});
    std::mt19937_64 rng(2026);
    constexpr int kEvents = 100000;
    constexpr int kBins = 40;
    const double lo = (m1 + m2) * (m1 + m2);
    const double hi = (M - m3) * (M - m3);
    std::vector<double> counts(kBins, 0.0);
    for (int i = 0; i < kEvents; ++i) {
        const PhaseSpaceEvent ev = ps.generate_unweighted(rng);
        const double s12 = (ev.momenta[0] + ev.momenta[1]).mass_squared();
        const auto bin = static_cast<int>((s12 - lo) / (hi - lo) * kBins);
        counts[static_cast<std::size_t>(std::clamp(bin, 0, kBins - 1))] += 1.0;
    }
    // Expected counts: the width integrated over each bin (midpoint rule, 200 steps per bin).
    std::vector<double> expected(kBins, 0.0);
    double total = 0.0;
    for (int b = 0; b < kBins; ++b) {
        for (int k = 0; k < 200; ++k) {
            const double s = lo + (hi - lo) * (b + (k + 0.5) / 200.0) / kBins;
            expected[static_cast<std::size_t>(b)] += dalitz_width(s, M, m1, m2, m3);
        }
        total += expected[static_cast<std::size_t>(b)];
    }
    double chi2 = 0.0;
    for (std::size_t b = 0; b < kBins; ++b) {
        const double mu = expected[b] / total * kEvents;
        chi2 += (counts[b] - mu) * (counts[b] - mu) / mu;
    }
    // ndf = 39; 5 sigma above the mean of a chi2 with 39 dof.
    EXPECT_LT(chi2, 39.0 + 5.0 * std::sqrt(2.0 * 39.0)) << "chi2 " << chi2;
}

TEST(PhaseSpace, RejectsBadMasses) {
    try {
        (void)NBodyPhaseSpace(1.0, {0.5});
        FAIL();
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("at least two daughters"), std::string::npos);
    }
    try {
        (void)NBodyPhaseSpace(1.0, {0.6, 0.5});
        FAIL();
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("the decay is closed"), std::string::npos);
    }
    try {
        (void)NBodyPhaseSpace(1.0, {0.1, -0.2});
        FAIL();
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("negative"), std::string::npos);
    }
}

}  // namespace
}  // namespace laddu::generation
