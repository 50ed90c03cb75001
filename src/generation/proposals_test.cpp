// The proposal building blocks of channel generation: streams, scalar sources, mass proposals,
// initial momenta, t distributions and the two-body vertex proposals.
#include <array>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/generation/initial_momentum.hpp>
#include <laddu/generation/mass_proposal.hpp>
#include <laddu/generation/proposal_rng.hpp>
#include <laddu/generation/scalar_source.hpp>
#include <laddu/generation/t_distribution.hpp>
#include <laddu/generation/vertex_proposal.hpp>

#include "channel_test_support.hpp"
#include "test_statistics.hpp"

namespace laddu::generation {
namespace {

using testing::expect_model_error_naming;

using testing::ks_p_value;

constexpr double kProton = 0.938272;
constexpr double kKShort = 0.497611;
constexpr double kPValueFloor = 1e-3;

TEST(ProposalRng, StreamsAreDeterministicAndUniform) {
    ProposalRng a(derive_seed(17, 0, 5, 0));
    ProposalRng b(derive_seed(17, 0, 5, 0));
    ProposalRng c(derive_seed(17, 0, 6, 0));
    EXPECT_EQ(a.next_u64(), b.next_u64());
    EXPECT_NE(a.next_u64(), c.next_u64());
    ProposalRng rng(3);
    std::vector<double> u(20000);
    for (double& x : u) {
        x = rng.uniform();
        ASSERT_GT(x, 0.0);
        ASSERT_LT(x, 1.0);
    }
    EXPECT_GT(ks_p_value(u, [](double x) { return x; }), kPValueFloor);
}

TEST(ScalarSource, UniformAndHistogramDrawsAndWeights) {
    const ScalarSource uniform = ScalarSource::uniform(0.2, 0.3);
    ProposalRng rng(11);
    for (int i = 0; i < 100; ++i) {
        const ScalarDraw d = uniform.sample(rng);
        EXPECT_GE(d.value, 0.2);
        EXPECT_LT(d.value, 0.3);
        EXPECT_NEAR(d.weight, 0.1, 1e-15);
    }
    EXPECT_EQ(ScalarSource::fixed(1.5).sample(rng).value, 1.5);
    EXPECT_EQ(ScalarSource::fixed(1.5).sample(rng).weight, 1.0);

    // Bins [0, 1) weight 1 and [1, 3) weight 3: density 1/4 then 3/8.
    const ScalarSource hist = ScalarSource::histogram({0.0, 1.0, 3.0}, {1.0, 3.0});
    EXPECT_EQ(hist.support(), (std::pair<double, double>{0.0, 3.0}));
    std::vector<double> values;
    double sum_w = 0.0;
    double sum_w2 = 0.0;
    for (int i = 0; i < 20000; ++i) {
        const ScalarDraw d = hist.sample(rng);
        values.push_back(d.value);
        EXPECT_NEAR(d.weight, d.value < 1.0 ? 4.0 : 8.0 / 3.0, 1e-12);
        sum_w += d.weight;
        sum_w2 += d.weight * d.weight;
    }
    const auto cdf = [](double x) {
        return x < 1.0 ? x / 4.0 : 0.25 + 0.375 * (x - 1.0);
    };
    EXPECT_GT(ks_p_value(values, cdf), kPValueFloor);
    // E[1/q] is the length of the support.
    const double n = 20000.0;
    const double mean = sum_w / n;
    const double error = std::sqrt((sum_w2 / n - mean * mean) / n);
    EXPECT_NEAR(mean, 3.0, 5.0 * error);

    EXPECT_THROW((void)ScalarSource::uniform(1.0, 1.0), ModelError);
    EXPECT_THROW((void)ScalarSource::fixed(std::nan("")), ModelError);
    EXPECT_THROW((void)ScalarSource::histogram({0.0, 1.0}, {0.0}), ModelError);
    EXPECT_THROW((void)ScalarSource::histogram({0.0, 1.0, 0.5}, {1.0, 1.0}), ModelError);
}

TEST(MassProposal, UniformIsRecoveredAndClippedToTheWindow) {
    const MassProposal x = MassProposal::uniform(0.995, 2.0);
    std::vector<double> masses;
    for (std::uint64_t i = 0; i < 20000; ++i) {
        ProposalRng rng(derive_seed(5, 0, i, 1));
        const MassDraw d = x.propose(0.0, 4.2, rng);
        EXPECT_NEAR(d.weight, 1.005, 1e-15);
        masses.push_back(d.mass);
    }
    const double p = ks_p_value(masses, [](double m) { return (m - 0.995) / 1.005; });
    EXPECT_GT(p, kPValueFloor) << "KS p-value " << p;
    ProposalRng rng(1);
    const MassDraw clipped = MassProposal::uniform(0.5, 5.0).propose(0.0, 3.0, rng);
    EXPECT_NEAR(clipped.weight, 2.5, 1e-15);
    EXPECT_LE(clipped.mass, 3.0);
    EXPECT_EQ(*MassProposal::uniform(0.5, 5.0).density(0.0, 3.0, 1.0), 1.0 / 2.5);
    EXPECT_FALSE(MassProposal::fixed(1.0).density(0.0, 3.0, 1.0).has_value());
    EXPECT_THROW((void)MassProposal::uniform(2.0, 1.0), ModelError);
    EXPECT_THROW((void)MassProposal::fixed(-1.0), ModelError);
    EXPECT_THROW((void)MassProposal::fixed(4.0).propose(0.0, 3.0, rng), ModelError);
    EXPECT_THROW((void)MassProposal::uniform(3.5, 5.0).propose(0.0, 3.0, rng), ModelError);
}

TEST(InitialMomentum, SamplesOnShellAndValidatesNamingTheEdge) {
    const auto beam = InitialMomentum::energy_source(ScalarSource::uniform(8.0, 9.0), {0, 0, 2});
    beam.validate("gamma", 0.0);
    ProposalRng rng(2);
    const InitialDraw d = beam.sample(0.0, rng);
    EXPECT_GE(d.p4.e, 8.0);
    EXPECT_NEAR(d.p4.pz, d.p4.e, 1e-12);
    EXPECT_NEAR(d.weight, 1.0, 1e-15);
    const InitialDraw target = InitialMomentum::momentum({0.0, 0.0, 1.0}).sample(kProton, rng);
    EXPECT_NEAR(target.p4.mass_squared(), kProton * kProton, 1e-12);

    expect_model_error_naming([&] { beam.validate("gamma", std::nullopt); }, "`gamma`");
    expect_model_error_naming([&] { beam.validate("heavy", 8.5); }, "`heavy`");
    expect_model_error_naming(
        [] { InitialMomentum::p4({1.0, 0.0, 0.0, 0.5}).validate("target", kProton); },
        "`target` is off shell");
    expect_model_error_naming(
        [] { InitialMomentum::energy(5.0, {0.0, 0.0, 0.0}).validate("beam", 0.0); }, "`beam`");
    InitialMomentum::p4({kProton, 0.0, 0.0, 0.0}).validate("target", kProton);
}

// Truncated exponential on [a, b] with slope s: its CDF and mean.
double exp_cdf(double t, double a, double b, double s) {
    return std::expm1(s * (t - a)) / std::expm1(s * (b - a));
}

double exp_mean(double a, double b, double s) {
    return (b * std::exp(s * b) - a * std::exp(s * a)) / (std::exp(s * b) - std::exp(s * a)) -
           1.0 / s;
}

TEST(TDistribution, ComponentsAreNormalisedAndSampledFromTheirDensity) {
    const double a = -3.0;
    const double b = -0.1;
    const std::vector<TComponent> components = {
        TComponent::uniform(),         TComponent::exponential(4.0),
        TComponent::exponential(-1.5), TComponent::pole(0.14, 2.0),
        TComponent::pole(0.5, 1.0),    TComponent::histogram({-4.0, -1.0, 0.0}, {1.0, 2.0})};
    for (const TComponent& c : components) {
        // Midpoint rule: ∫ q dt = 1.
        double integral = 0.0;
        const int steps = 200000;
        for (int k = 0; k < steps; ++k) {
            integral += c.density(a, b, a + (k + 0.5) * (b - a) / steps) * (b - a) / steps;
        }
        EXPECT_NEAR(integral, 1.0, 1e-6) << c.describe();
        // Inverse-CDF draws have the density: KS against the numerical CDF.
        std::vector<double> draws;
        ProposalRng rng(9);
        for (int i = 0; i < 5000; ++i) {
            draws.push_back(c.sample(a, b, rng.uniform()));
        }
        const auto cdf = [&](double t) {
            double sum = 0.0;
            const int n = 2000;
            for (int k = 0; k < n; ++k) {
                sum += c.density(a, b, a + (k + 0.5) * (t - a) / n) * (t - a) / n;
            }
            return sum;
        };
        EXPECT_GT(ks_p_value(draws, cdf), kPValueFloor) << c.describe();
    }
    EXPECT_THROW((void)TComponent::pole(0.1, 0.0), ModelError);
    EXPECT_THROW((void)TComponent::pole(2.0, 1.0).sample(3.0, 5.0, 0.5), ModelError);
    EXPECT_THROW((void)TDistribution::mixture({}), ModelError);
    EXPECT_THROW((void)TDistribution::single(TComponent::uniform()).with_limits(-1.0, -2.0),
                 ModelError);
    ProposalRng rng(1);
    EXPECT_THROW(
        (void)TDistribution::single(TComponent::uniform()).with_limits(1.0, 2.0).sample(a, b, rng),
        ModelError);
}

TEST(TDistribution, ExponentialSlopeIsRecoveredFromDraws) {
    const double a = -5.0;
    const double b = -0.05;
    const double slope = 4.0;
    const TDistribution dist = TDistribution::mixture(
        {{0.2, TComponent::uniform()}, {0.8, TComponent::exponential(slope)}});
    const TDistribution pure = TDistribution::single(TComponent::exponential(slope));
    std::vector<double> t_values;
    double sum = 0.0;
    double sum2 = 0.0;
    const int n = 40000;
    for (int i = 0; i < n; ++i) {
        ProposalRng rng(derive_seed(21, 0, static_cast<std::uint64_t>(i), 0));
        const auto [t, q] = pure.sample(a, b, rng);
        EXPECT_NEAR(q, pure.density(a, b, t), 1e-12 * q);
        t_values.push_back(t);
        sum += -t;
        sum2 += t * t;
        ProposalRng rng2(derive_seed(22, 0, static_cast<std::uint64_t>(i), 0));
        const auto [tm, qm] = dist.sample(a, b, rng2);
        EXPECT_NEAR(qm,
                    0.2 / (b - a) +
                        0.8 * slope * std::exp(slope * (tm - a)) / std::expm1(slope * (b - a)),
                    1e-12 * qm);
    }
    const double mean = sum / n;
    const double error = std::sqrt((sum2 / n - mean * mean) / n);
    EXPECT_NEAR(mean, -exp_mean(a, b, slope), 5.0 * error);
    EXPECT_GT(ks_p_value(t_values, [&](double t) { return exp_cdf(t, a, b, slope); }),
              kPValueFloor);
}

FourMomentum rest(double m) {
    return {m, 0.0, 0.0, 0.0};
}

TEST(VertexProposal, IsotropicDecayIsIsotropicConservesMomentumAndWeighsPhaseSpace) {
    // A moving parent: cos θ of the first daughter in its rest frame must be uniform.
    const double m = 1.5;
    const FourMomentum parent{std::sqrt(m * m + 4.0), 0.0, 1.2, 1.6};
    const std::array<NamedMomentum, 1> in{{{"X", parent}}};
    const std::array<NamedMass, 2> out{{{"ks1", kKShort}, {"ks2", kKShort}}};
    const VertexProposal decay = VertexProposal::isotropic();
    const double p_star = breakup_momentum(m, kKShort, kKShort);
    std::vector<double> costheta;
    std::vector<double> phi;
    for (std::uint64_t i = 0; i < 20000; ++i) {
        ProposalRng rng(derive_seed(4, 0, i, 10000));
        const VertexDraw d = decay.propose(in, out, rng);
        const FourMomentum sum = d.outgoing[0] + d.outgoing[1];
        ASSERT_NEAR(sum.e, parent.e, 1e-12);
        ASSERT_NEAR(sum.py, parent.py, 1e-12);
        ASSERT_NEAR(sum.pz, parent.pz, 1e-12);
        ASSERT_NEAR(d.outgoing[0].mass_squared(), kKShort * kKShort, 1e-12);
        ASSERT_NEAR(d.weight, p_star / (4.0 * std::numbers::pi * m), 1e-15);
        const FourMomentum r = boost(d.outgoing[0], -parent.px / parent.e, -parent.py / parent.e,
                                     -parent.pz / parent.e);
        const double p = std::sqrt(r.px * r.px + r.py * r.py + r.pz * r.pz);
        EXPECT_NEAR(p, p_star, 1e-10);
        costheta.push_back(r.pz / p);
        phi.push_back(std::atan2(r.py, r.px));
    }
    EXPECT_GT(ks_p_value(costheta, [](double c) { return (c + 1.0) / 2.0; }), kPValueFloor);
    EXPECT_GT(
        ks_p_value(phi, [](double f) { return (f + std::numbers::pi) / (2 * std::numbers::pi); }),
        kPValueFloor);
    const std::array<NamedMass, 2> heavy{{{"a", 1.0}, {"b", 1.0}}};
    ProposalRng rng(1);
    EXPECT_THROW((void)decay.propose(in, heavy, rng), ModelError);
}

TEST(VertexProposal, TExchangeWeightsIntegrateToTwoBodyPhaseSpace) {
    // γ(8.5 GeV) p → X(1.5) p: Σw/N → Φ₂ = p_out/(4π√s), Σw t/N → Φ₂ · (t₋ + t₊)/2.
    const FourMomentum gamma{8.5, 0.0, 0.0, 8.5};
    const std::array<NamedMomentum, 2> in{{{"gamma", gamma}, {"target", rest(kProton)}}};
    const std::array<NamedMass, 2> out{{{"recoil", kProton}, {"X", 1.5}}};
    const VertexProposal production =
        VertexProposal::t_exchange("gamma", "X",
                                   TDistribution::mixture({{0.2, TComponent::uniform()},
                                                           {0.8, TComponent::exponential(4.0)}}));
    const FourMomentum total = gamma + rest(kProton);
    const double root_s = std::sqrt(total.mass_squared());
    const double p_in = breakup_momentum(root_s, 0.0, kProton);
    const double p_out = breakup_momentum(root_s, 1.5, kProton);
    const double e3 = std::sqrt(1.5 * 1.5 + p_out * p_out);
    const double centre = 1.5 * 1.5 - 2.0 * p_in * e3;
    const double phase_space = p_out / (4.0 * std::numbers::pi * root_s);
    const int n = 40000;
    double sw = 0.0;
    double sw2 = 0.0;
    double swt = 0.0;
    double swt2 = 0.0;
    for (int i = 0; i < n; ++i) {
        ProposalRng rng(derive_seed(8, 0, static_cast<std::uint64_t>(i), 10000));
        const VertexDraw d = production.propose(in, out, rng);
        const FourMomentum sum = d.outgoing[0] + d.outgoing[1];
        ASSERT_NEAR(sum.e, total.e, 1e-11);
        ASSERT_NEAR(sum.pz, total.pz, 1e-11);
        ASSERT_NEAR(sum.px, 0.0, 1e-11);
        const FourMomentum& x = d.outgoing[1];  // outgoing order: recoil, X
        ASSERT_NEAR(x.mass_squared(), 2.25, 1e-10);
        const FourMomentum q{gamma.e - x.e, gamma.px - x.px, gamma.py - x.py, gamma.pz - x.pz};
        const double t = q.mass_squared();
        ASSERT_GE(t, centre - 2.0 * p_in * p_out - 1e-9);
        ASSERT_LE(t, centre + 2.0 * p_in * p_out + 1e-9);
        sw += d.weight;
        sw2 += d.weight * d.weight;
        swt += d.weight * t;
        swt2 += d.weight * t * d.weight * t;
    }
    const auto check = [&](double s, double s2, double expected) {
        const double mean = s / n;
        const double error = std::sqrt((s2 / n - mean * mean) / n);
        EXPECT_NEAR(mean, expected, 5.0 * error);
        EXPECT_LT(error, 0.02 * std::abs(expected));
    };
    check(sw, sw2, phase_space);
    check(swt, swt2, phase_space * centre);

    expect_model_error_naming(
        [&] {
            const std::array<std::string, 2> ins{"beam", "target"};
            const std::array<std::string, 2> outs{"recoil", "X"};
            production.validate("production", ins, outs);
        },
        "`production`");
    expect_model_error_naming(
        [] {
            const std::array<std::string, 1> ins{"X"};
            const std::array<std::string, 3> outs{"a", "b", "c"};
            VertexProposal::isotropic().validate("decay", ins, outs);
        },
        "`decay`");
}

}  // namespace
}  // namespace laddu::generation
