// ChannelGenerator::phase_space_envelope: the proven bound holds every generated weight, is
// tight where the maximum is known in closed form, drives unweighted(proven_envelope) and
// refuses what it cannot bound.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/generation/channel_generator.hpp>

#include "channel_test_support.hpp"

namespace laddu::generation {
namespace {

using testing::edge;

constexpr double kProton = 0.93827208816;
constexpr double kKShort = 0.497611;

physics::Channel ksks_channel() {
    return {
        "gamma p -> K_S K_S p",
        {edge("gamma", 0.0), edge("target", kProton), edge("X", std::nullopt, false),
         edge("recoil", kProton), edge("ks1", kKShort), edge("ks2", kKShort)},
        {{"production", {"gamma", "target"}, {"X", "recoil"}}, {"decay", {"X"}, {"ks1", "ks2"}}}};
}

ChannelProposals ksks_proposals(const TDistribution& t, const ScalarSource& beam) {
    ChannelProposals proposals;
    proposals.edges["gamma"].initial_momentum =
        InitialMomentum::energy_source(beam, {0.0, 0.0, 1.0});
    proposals.edges["target"].initial_momentum = InitialMomentum::momentum({0.0, 0.0, 0.0});
    proposals.edges["X"].mass_proposal = MassProposal::uniform(1.0, 2.0);
    proposals.vertices.emplace("production", VertexProposal::t_exchange("gamma", "X", t));
    proposals.vertices.emplace("decay", VertexProposal::isotropic());
    return proposals;
}

double largest_weight(const ChannelGenerator& generator, std::size_t events) {
    auto [data, report] = generator.weighted({.events = events, .seed = 3});
    return report.maximum_weight;
}

TEST(ProvenEnvelopeTest, AFixedDecayIsBoundedByItsExactWeight) {
    // A moving parent of mass 1.5 decaying to two K_S: every weight is p*/(4π M).
    const physics::Channel channel{
        "parent -> K_S K_S",
        {edge("parent", 1.5, false), edge("ks1", kKShort), edge("ks2", kKShort)},
        {{"decay", {"parent"}, {"ks1", "ks2"}}}};
    ChannelProposals proposals;
    proposals.edges["parent"].initial_momentum = InitialMomentum::momentum({0.0, 0.3, 2.0});
    const ChannelGenerator generator(channel, proposals);
    const ProvenEnvelopeReport proven = generator.phase_space_envelope();
    const double exact = breakup_momentum(1.5, kKShort, kKShort) / (4.0 * std::numbers::pi * 1.5);
    EXPECT_GE(proven.maximum_weight, largest_weight(generator, 1000));
    EXPECT_NEAR(proven.maximum_weight / exact, 1.0, 1e-11);
    EXPECT_EQ(proven.subdivisions, 0U);
    EXPECT_EQ(proven.continuous_dimensions, 2U);
    EXPECT_EQ(proven.piecewise_regions, 1U);
    EXPECT_EQ(proven.weight_interval.lo(), 0.0);
    EXPECT_EQ(proven.weight_interval.hi(), proven.maximum_weight);
}

// The K_S K_S p weight at beam energy 8.5 for m(X) = m and t, from the building blocks:
// 1 (the X window [1, 2]) · 1/(16π √s p_in q(t)) · p*(m)/(4π m).
double ksks_weight(const TDistribution& t_distribution, double m, double fraction) {
    const double s = kProton * kProton + 2.0 * 8.5 * kProton;
    const double root_s = std::sqrt(s);
    const double p_in = breakup_momentum(root_s, 0.0, kProton);
    const double p_out = breakup_momentum(root_s, m, kProton);
    const double e3 = std::sqrt(m * m + p_out * p_out);
    const double middle = m * m - 2.0 * p_in * e3;
    double low = middle - 2.0 * p_in * p_out;
    double high = middle + 2.0 * p_in * p_out;
    low = std::max(low, t_distribution.t_min().value_or(low));
    high = std::min(high, t_distribution.t_max().value_or(high));
    const double t = low + fraction * (high - low);
    const double q =
        t_distribution.density(middle - 2.0 * p_in * p_out, middle + 2.0 * p_in * p_out, t);
    return q > 0.0 ? 1.0 / (16.0 * std::numbers::pi * root_s * p_in * q) *
                         breakup_momentum(m, kKShort, kKShort) / (4.0 * std::numbers::pi * m)
                   : 0.0;
}

TEST(ProvenEnvelopeTest, TheKsKsChannelBoundHoldsEveryWeightAndIsTight) {
    for (const TDistribution& t :
         {TDistribution::mixture(
              {{0.2, TComponent::uniform()}, {0.8, TComponent::exponential(4.0)}}),
          TDistribution::single(TComponent::exponential(-1.0)),
          TDistribution::single(TComponent::pole(0.14, 2.0)),
          TDistribution::single(TComponent::pole(0.5, 1.0)),
          TDistribution::single(
              TComponent::histogram({-20.0, -4.0, -2.0, -0.5, 0.0}, {1.0, 0.0, 3.0, 2.0})),
          TDistribution::single(TComponent::uniform()).with_limits(-3.0, -0.1)}) {
        SCOPED_TRACE(t.describe());
        // A fixed beam: the bound must come within 1 % of the largest weight on a fine grid of
        // m(X) and t (ends included), and hold every sampled weight.
        const ChannelGenerator fixed(ksks_channel(), ksks_proposals(t, ScalarSource::fixed(8.5)));
        const ProvenEnvelopeReport proven = fixed.phase_space_envelope();
        double grid = 0.0;
        for (int i = 0; i <= 400; ++i) {
            for (int j = 0; j <= 400; ++j) {
                grid = std::max(grid, ksks_weight(t, 1.0 + i / 400.0, j / 400.0));
            }
        }
        EXPECT_GE(proven.maximum_weight, grid);
        EXPECT_LT(proven.maximum_weight, 1.01 * grid);
        EXPECT_GE(proven.maximum_weight, largest_weight(fixed, 20000));
        EXPECT_EQ(proven.continuous_dimensions, 1U + 2U + 2U);
        EXPECT_EQ(proven.piecewise_regions, t.piecewise_regions());
        // A beam spectrum adds a coordinate and its weight; the bound still holds every weight.
        // (Not for the pole 0.03 GeV² above t₊: over a spread of √s its enclosure needs more
        // boxes than the search allows, and the proof refuses it.)
        if (t.pole_at_or_below(0.02)) {
            continue;
        }
        const ChannelGenerator spread(ksks_channel(),
                                      ksks_proposals(t, ScalarSource::uniform(8.0, 9.0)));
        const ProvenEnvelopeReport wide = spread.phase_space_envelope();
        EXPECT_GE(wide.maximum_weight, largest_weight(spread, 20000));
        EXPECT_EQ(wide.continuous_dimensions, 1U + 1U + 2U + 2U);
    }
}

TEST(ProvenEnvelopeTest, UnweightedGenerationUsesTheProvenBound) {
    const ChannelGenerator generator(
        ksks_channel(),
        ksks_proposals(TDistribution::mixture(
                           {{0.2, TComponent::uniform()}, {0.8, TComponent::exponential(4.0)}}),
                       ScalarSource::fixed(8.5)));
    UnweightedConfig config{.events = 2000, .seed = 5, .proven_envelope = true};
    auto [data, report] = generator.unweighted(config);
    ASSERT_TRUE(report.proven);
    EXPECT_EQ(report.envelope_kind, EnvelopeKind::kProvenPhaseSpace);
    EXPECT_EQ(*report.envelope, report.proven->maximum_weight);
    EXPECT_EQ(report.pilot_proposals, 0U);
    EXPECT_EQ(report.produced, 2000U);
    EXPECT_EQ(data.size(), 2000U);
    EXPECT_GT(report.acceptance_rate(), 0.0);
    // The same events as a strict envelope of the same value.
    config.proven_envelope = false;
    config.max_weight = report.proven->maximum_weight;
    auto [strict, strict_report] = generator.unweighted(config);
    const auto a = strict.column("ks1_px");
    const auto b = data.column("ks1_px");
    EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end()));
    EXPECT_EQ(strict_report.proposals, report.proposals);
}

TEST(ProvenEnvelopeTest, RefusesWhatItCannotBound) {
    const ChannelGenerator generator(
        ksks_channel(),
        ksks_proposals(TDistribution::single(TComponent::uniform()), ScalarSource::fixed(8.5)));
    const ModelWeights unit = [](const data::Dataset& d) {
        return std::vector<double>(d.size(), 1.0);
    };
    EXPECT_THROW((void)generator.unweighted({.events = 10, .proven_envelope = true}, unit),
                 ModelError);
    EXPECT_THROW(
        (void)generator.unweighted({.events = 10, .max_weight = 1.0, .proven_envelope = true}),
        ModelError);
    EXPECT_THROW(
        (void)generator.unweighted({.events = 10, .proven_envelope = true, .grow_envelope = true}),
        ModelError);
    // Elastic π π → π π paired on the same mass reaches t₊ = 0, where a massless pole sits.
    const physics::Channel elastic{
        "pi pi -> pi pi",
        {edge("a", 0.13957), edge("b", 0.13957), edge("c", 0.13957), edge("d", 0.13957)},
        {{"scatter", {"a", "b"}, {"c", "d"}}}};
    ChannelProposals proposals;
    proposals.edges["a"].initial_momentum = InitialMomentum::momentum({0.0, 0.0, 2.0});
    proposals.edges["b"].initial_momentum = InitialMomentum::momentum({0.0, 0.0, -2.0});
    proposals.vertices.emplace(
        "scatter",
        VertexProposal::t_exchange("a", "c", TDistribution::single(TComponent::pole(0.0, 2.0))));
    const ChannelGenerator pole(elastic, proposals);
    try {
        (void)pole.phase_space_envelope();
        FAIL() << "a pole at the edge of the t range was bounded";
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("scatter"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace laddu::generation
