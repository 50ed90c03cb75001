// Channel-driven unweighted generation (ChannelGenerator::unweighted): laddu's accept rule
// event by event, unweighted samples following the weighted distribution (with and without a
// model), thread-count independence, envelope growth and the errors.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/generation/channel_generator.hpp>

#include "adaptive_proposals.hpp"
#include "channel_test_support.hpp"
#include "piecewise_density.hpp"

namespace laddu::generation {
namespace {

using testing::edge;

constexpr double kProton = 0.93827208816;
constexpr double kKShort = 0.497611;

// laddu's tutorial γ p → X p, X → K_S K_S (X on [1, 2] GeV); `default_decay` leaves the decay
// without a proposal, so the pilot may learn its cos θ.
ChannelGenerator ksks(bool default_decay = false) {
    const physics::Channel channel{
        "gamma p -> K_S K_S p",
        {edge("gamma", 0.0), edge("target", kProton), edge("X", std::nullopt, false),
         edge("recoil", kProton), edge("ks1", kKShort), edge("ks2", kKShort)},
        {{"production", {"gamma", "target"}, {"X", "recoil"}}, {"decay", {"X"}, {"ks1", "ks2"}}}};
    ChannelProposals proposals;
    proposals.edges["gamma"].initial_momentum =
        InitialMomentum::energy_source(ScalarSource::uniform(8.0, 9.0), {0.0, 0.0, 1.0});
    proposals.edges["target"].initial_momentum = InitialMomentum::momentum({0.0, 0.0, 0.0});
    proposals.edges["X"].mass_proposal = MassProposal::uniform(1.0, 2.0);
    proposals.vertices.emplace(
        "production",
        VertexProposal::t_exchange("gamma", "X",
                                   TDistribution::mixture({{0.2, TComponent::uniform()},
                                                           {0.8, TComponent::exponential(4.0)}})));
    if (!default_decay) {
        proposals.vertices.emplace("decay", VertexProposal::isotropic());
    }
    return {channel, proposals};
}

FourMomentum p4_of(const data::Dataset& d, const std::string& name, std::size_t i) {
    return {d.column(name + "_e")[i], d.column(name + "_px")[i], d.column(name + "_py")[i],
            d.column(name + "_pz")[i]};
}

double mass_x(const data::Dataset& d, std::size_t i) {
    return std::sqrt((p4_of(d, "ks1", i) + p4_of(d, "ks2", i)).mass_squared());
}

// cos θ of ks1 in the X rest frame (z along the lab z axis): what the decay adaptation learns.
double costheta_x(const data::Dataset& d, std::size_t i) {
    const FourMomentum x = p4_of(d, "ks1", i) + p4_of(d, "ks2", i);
    const FourMomentum k = boost(p4_of(d, "ks1", i), -x.px / x.e, -x.py / x.e, -x.pz / x.e);
    return k.pz / std::sqrt(k.px * k.px + k.py * k.py + k.pz * k.pz);
}

// A resonance in m(X) with a cos θ modulation: the model reads the non-output edge X.
std::vector<double> model_value(const data::Dataset& d) {
    std::vector<double> values;
    for (std::size_t i = 0; i < d.size(); ++i) {
        const double s = p4_of(d, "X", i).mass_squared();
        const double c = costheta_x(d, i);
        values.push_back((0.2 + c * c) / ((s - 2.25) * (s - 2.25) + 0.15 * 0.15 * 2.25));
    }
    return values;
}

// χ² of unweighted counts against a weighted reference histogram scaled to them; the
// variance adds the counts' Poisson variance and the reference's Σw².
double chi2_against_weighted(const std::vector<double>& sample,
                             const std::vector<double>& reference, std::span<const double> weights,
                             double low, double high, std::size_t bins) {
    std::vector<double> counts(bins, 0.0);
    std::vector<double> sum(bins, 0.0);
    std::vector<double> sum2(bins, 0.0);
    const auto bin_of = [&](double x) {
        return std::min(bins - 1, static_cast<std::size_t>(std::max(0.0, (x - low) / (high - low)) *
                                                           static_cast<double>(bins)));
    };
    double total = 0.0;
    for (std::size_t i = 0; i < reference.size(); ++i) {
        sum[bin_of(reference[i])] += weights[i];
        sum2[bin_of(reference[i])] += weights[i] * weights[i];
        total += weights[i];
    }
    for (const double x : sample) {
        counts[bin_of(x)] += 1.0;
    }
    const auto n = static_cast<double>(sample.size());
    double chi2 = 0.0;
    for (std::size_t b = 0; b < bins; ++b) {
        const double expected = n * sum[b] / total;
        const double variance = expected + n * n * sum2[b] / (total * total);
        chi2 += (counts[b] - expected) * (counts[b] - expected) / variance;
    }
    return chi2;
}

// About 6σ above the mean of a χ² with `dof` degrees of freedom: fixed seeds, so a correct
// generator passes it every time and a wrong shape (hundreds) fails it.
double chi2_limit(std::size_t dof) {
    return static_cast<double>(dof) + 6.0 * std::sqrt(2.0 * static_cast<double>(dof));
}

TEST(ChannelUnweighted, AcceptsTheFirstProposalsPassingLadduRuleWithAStrictEnvelope) {
    const ChannelGenerator generator = ksks();
    const auto [weighted, weighted_report] = generator.weighted({.events = 100000, .seed = 9});
    const double envelope = 3.0 * weighted_report.maximum_weight;
    const auto [events, report] =
        generator.unweighted({.events = 500, .seed = 9, .threads = 2, .max_weight = envelope});
    ASSERT_EQ(events.size(), 500U);
    EXPECT_TRUE(std::all_of(events.weights().begin(), events.weights().end(),
                            [](double w) { return w == 1.0; }));
    std::size_t row = 0;
    std::uint64_t index = 0;
    for (; row < 500; ++index) {
        const GeneratedEvent e = generator.event(index, 9);
        const double u = ProposalRng(derive_seed(9, 2, index, 0)).uniform();
        if (u * envelope <= e.weight) {
            ASSERT_EQ(p4_of(events, "ks1", row).pz, e.p4s[4].pz) << "row " << row;
            ASSERT_EQ(p4_of(events, "recoil", row).e, e.p4s[3].e) << "row " << row;
            ++row;
        }
    }
    EXPECT_EQ(report.proposals, index);
    EXPECT_EQ(report.rejected, index - 500);
    EXPECT_EQ(report.produced, 500U);
    EXPECT_EQ(report.envelope, envelope);
    EXPECT_EQ(report.envelope_kind, EnvelopeKind::kStrict);
    EXPECT_EQ(report.pilot_proposals, 0U);
    EXPECT_EQ(report.envelope_updates, 0U);
    EXPECT_DOUBLE_EQ(report.acceptance_rate(), 500.0 / static_cast<double>(index));
    EXPECT_LE(report.maximum_weight, envelope);
}

TEST(ChannelUnweighted, PhaseSpaceSamplesFollowTheWeightedDistribution) {
    const ChannelGenerator generator = ksks();
    const auto [weighted, wr] = generator.weighted({.events = 200000, .seed = 1});
    const auto [events, report] = generator.unweighted({.events = 20000, .seed = 2});
    EXPECT_EQ(report.pilot_proposals, 10000U);  // no adaptation gains 2 % here
    EXPECT_EQ(report.envelope_kind, EnvelopeKind::kPilot);
    EXPECT_EQ(report.produced, 20000U);
    EXPECT_EQ(report.proposals, report.produced + report.rejected);
    std::vector<double> reference;
    std::vector<double> sample;
    for (std::size_t i = 0; i < weighted.size(); ++i) {
        reference.push_back(mass_x(weighted, i));
    }
    for (std::size_t i = 0; i < events.size(); ++i) {
        sample.push_back(mass_x(events, i));
    }
    EXPECT_LT(chi2_against_weighted(sample, reference, weighted.weights(), 1.0, 2.0, 20),
              chi2_limit(19));
    // A wrong target (the proposal density, flat in m(X)) fails the same test.
    const std::vector<double> flat(weighted.size(), 1.0);
    EXPECT_GT(chi2_against_weighted(sample, reference, flat, 1.0, 2.0, 20), 10.0 * chi2_limit(19));
}

TEST(ChannelUnweighted, ModelSamplesFollowTheModelWeightedDistributionWithAdaptation) {
    const ChannelGenerator generator = ksks(true);
    const ModelWeights model = model_value;
    const auto [weighted, wr] = generator.weighted({.events = 100000, .seed = 3}, model);
    const auto [events, report] =
        generator.unweighted({.events = 5000, .seed = 4, .diagnostics = true}, model);
    // The resonance makes the mass adaptation pay: two pilots.
    EXPECT_EQ(report.pilot_proposals, 20000U);
    EXPECT_LE(report.maximum_weight, *report.envelope);
    std::vector<double> ref_m;
    std::vector<double> ref_c;
    std::vector<double> m;
    std::vector<double> c;
    for (std::size_t i = 0; i < weighted.size(); ++i) {
        ref_m.push_back(mass_x(weighted, i));
        ref_c.push_back(costheta_x(weighted, i));
    }
    for (std::size_t i = 0; i < events.size(); ++i) {
        m.push_back(mass_x(events, i));
        c.push_back(costheta_x(events, i));
        const double target = events.column("__laddu_target_weight")[i];
        ASSERT_NEAR(target,
                    events.column("__laddu_proposal_weight")[i] *
                        events.column("__laddu_model_weight")[i],
                    1e-12 * target);
    }
    EXPECT_LT(chi2_against_weighted(m, ref_m, weighted.weights(), 1.0, 2.0, 25), chi2_limit(24));
    EXPECT_LT(chi2_against_weighted(c, ref_c, weighted.weights(), -1.0, 1.0, 20), chi2_limit(19));
}

TEST(ChannelUnweighted, SameEventsForAnyThreadCountAndBatch) {
    const ChannelGenerator generator = ksks(true);
    const ModelWeights model = model_value;
    const auto [one, r1] = generator.unweighted({.events = 1000, .seed = 6, .threads = 1}, model);
    const auto [two, r2] = generator.unweighted({.events = 1000, .seed = 6, .threads = 2}, model);
    // Without growth the batch size changes nothing either.
    const auto [small, r3] =
        generator.unweighted({.events = 1000, .seed = 6, .threads = 2, .chunk_events = 300}, model);
    const auto values = [](const data::Dataset& d, const std::string& column) {
        const std::span<const double> c = d.column(column);
        return std::vector<double>(c.begin(), c.end());
    };
    for (const std::string column : {"gamma_e", "recoil_px", "ks1_pz", "ks2_py"}) {
        EXPECT_EQ(values(one, column), values(two, column)) << column;
        EXPECT_EQ(values(one, column), values(small, column)) << column;
    }
    for (const GenerationReport* r : {&r2, &r3}) {
        EXPECT_EQ(r->proposals, r1.proposals);
        EXPECT_EQ(r->envelope, r1.envelope);
        EXPECT_EQ(r->sum_weights, r1.sum_weights);
        EXPECT_EQ(r->pilot_proposals, r1.pilot_proposals);
    }
    const auto [other, r4] = generator.unweighted({.events = 1000, .seed = 7}, model);
    EXPECT_NE(values(other, "ks1_pz"), values(one, "ks1_pz"));
}

TEST(ChannelUnweighted, AGrownEnvelopeThinsTheAcceptedEvents) {
    const ChannelGenerator generator = ksks();
    try {
        (void)generator.unweighted({.events = 100, .seed = 5, .max_weight = 1e-6});
        ADD_FAILURE() << "no overflow error";
    } catch (const ModelError& error) {
        const std::string what = error.what();
        EXPECT_NE(what.find("exceeds the envelope 1e-06 at proposal"), std::string::npos) << what;
        EXPECT_NE(what.find("grow_envelope=True"), std::string::npos) << what;
    }
    const auto [events, report] = generator.unweighted({.events = 2000,
                                                        .seed = 5,
                                                        .max_weight = 1e-6,
                                                        .grow_envelope = true,
                                                        .chunk_events = 500});
    EXPECT_EQ(events.size(), 2000U);
    EXPECT_GE(report.envelope_updates, 1U);
    EXPECT_GT(*report.envelope, 1e-6);
    EXPECT_LE(report.maximum_weight, *report.envelope);
    EXPECT_EQ(report.proposals, report.produced + report.rejected);
    // Grown to the largest overflow × safety_factor, so the final envelope is at most twice the
    // largest weight seen.
    EXPECT_LE(*report.envelope, 2.0 * report.maximum_weight);
}

// laddu's PiecewiseDensity::uniform tests (density.rs), and the adaptive proposals' weights.
TEST(ChannelUnweighted, EqualBinDensityClipsAndSamplesAsLaddu) {
    const auto density = detail::PiecewiseDensity::uniform(0.0, 4.0, {1.0, 3.0, 2.0, 4.0}, "d");
    const double low = 0.5;
    const double high = 3.25;
    const int steps = 22000;
    const double dx = (high - low) / steps;
    double integral = 0.0;
    for (int k = 0; k < steps; ++k) {
        integral += density.density(low, high, low + (k + 0.5) * dx, false) * dx;
    }
    EXPECT_NEAR(integral, 1.0, 1e-12);
    ProposalRng rng(17);
    for (int k = 0; k < 1000; ++k) {
        const std::optional<double> x = density.sample_window(low, high, rng);
        ASSERT_TRUE(x && *x >= low && *x <= high);
        ASSERT_GT(density.density(low, high, *x, false), 0.0);
    }
    const auto two = detail::PiecewiseDensity::uniform(0.0, 2.0, {1.0, 3.0}, "d");
    EXPECT_EQ(two.density(-1.0, 3.0, 1.0, false), 0.75);  // the right bin at an inner edge
    EXPECT_EQ(two.density(-1.0, 3.0, 2.0, false), 0.75);  // the domain's upper end included
    EXPECT_EQ(two.density(-1.0, 3.0, 2.1, false), 0.0);
    for (int k = 0; k < 1000; ++k) {
        const double x = two.sample_indexed(rng);
        ASSERT_TRUE(x >= 0.0 && x <= 2.0);
    }
}

TEST(ChannelUnweighted, AdaptiveProposalsWeighByTheInverseMixtureDensity) {
    // The mean weight of each proposal is the measure of its domain: 2 − 1 for the mass; for the
    // decay Φ₂ = q/(4πm), since the angular factor ½/g(cos θ) averages to 1 under g.
    const detail::AdaptiveMass mass{
        MassProposal::uniform(1.0, 2.0),
        detail::PiecewiseDensity::uniform(1.2, 1.8, {1.0, 5.0, 20.0, 5.0, 1.0}, "m"), 0.2};
    const auto decay_density =
        detail::PiecewiseDensity::uniform(-1.0, 1.0, {8.0, 1.0, 1.0, 1.0, 1.0, 8.0}, "c");
    const detail::AdaptiveDecay decay{decay_density, 0.2};
    const FourMomentum parent{std::sqrt(1.5 * 1.5 + 0.7 * 0.7), 0.3, -0.2,
                              std::sqrt(0.7 * 0.7 - 0.13)};
    const NamedMomentum in[] = {{"X", parent}};
    const NamedMass out[] = {{"ks1", kKShort}, {"ks2", kKShort}};
    const double q = breakup_momentum(1.5, kKShort, kKShort);
    double mass_sum = 0.0;
    double decay_sum = 0.0;
    double decay_sum2 = 0.0;
    const int n = 200000;
    for (int k = 0; k < n; ++k) {
        ProposalRng rng(derive_seed(3, 0, static_cast<std::uint64_t>(k), 1));
        const MassDraw m = mass.propose(0.0, 3.0, rng);
        ASSERT_TRUE(m.mass >= 1.0 && m.mass <= 2.0);
        ASSERT_NEAR(m.weight, 1.0 / *mass.density(0.0, 3.0, m.mass), 1e-12 * m.weight);
        mass_sum += m.weight;
        const VertexDraw d = decay.propose(in, out, rng);
        const FourMomentum sum = d.outgoing[0] + d.outgoing[1];
        ASSERT_NEAR(sum.e, parent.e, 1e-12);
        ASSERT_NEAR(sum.pz, parent.pz, 1e-12);
        decay_sum += d.weight;
        decay_sum2 += d.weight * d.weight;
    }
    EXPECT_NEAR(mass_sum / n, 1.0, 0.01);
    const double mean = decay_sum / n;
    const double error = std::sqrt((decay_sum2 / n - mean * mean) / n);
    EXPECT_NEAR(mean, q / (4.0 * std::numbers::pi * 1.5), 5.0 * error);
}

template <typename F>
std::string model_error(F&& f) {
    try {
        f();
    } catch (const ModelError& error) {
        return error.what();
    }
    ADD_FAILURE() << "no ModelError";
    return {};
}

TEST(ChannelUnweighted, ExhaustedProposalsAndBadOptionsAreModelErrors) {
    const ChannelGenerator generator = ksks();
    const std::string exhausted = model_error(
        [&] { (void)generator.unweighted({.events = 1000, .seed = 1, .max_proposals = 1500}); });
    EXPECT_NE(exhausted.find("of 1000 requested events after exhausting max_proposals=1500"),
              std::string::npos)
        << exhausted;
    EXPECT_NE(exhausted.find("envelope"), std::string::npos) << exhausted;
    EXPECT_NE(exhausted.find("raise max_proposals"), std::string::npos) << exhausted;
    EXPECT_NE(model_error([&] {
                  (void)generator.unweighted({.events = 10, .max_proposals = 5});
              }).find("at least the requested event count"),
              std::string::npos);
    EXPECT_NE(model_error([&] {
                  (void)generator.unweighted({.events = 0});
              }).find("positive number of events"),
              std::string::npos);
    EXPECT_NE(model_error([&] {
                  (void)generator.unweighted({.events = 10, .pilot_proposals = 0});
              }).find("pilot_proposals must be positive"),
              std::string::npos);
    EXPECT_NE(model_error([&] {
                  (void)generator.unweighted({.events = 10, .safety_factor = 1.0});
              }).find("greater than one"),
              std::string::npos);
    EXPECT_NE(model_error([&] {
                  (void)generator.unweighted({.events = 10, .max_weight = -1.0});
              }).find("max_weight must be finite and positive"),
              std::string::npos);
    EXPECT_NE(model_error([&] {
                  (void)generator.unweighted({.events = 10, .memory_bytes = 100});
              }).find("more than the memory budget"),
              std::string::npos);
    EXPECT_NE(model_error([&] {
                  (void)generator.unweighted({.events = 10, .memory_bytes = 200000});
              }).find("reduce pilot_proposals"),
              std::string::npos);
}

}  // namespace
}  // namespace laddu::generation
