// Channel-driven weighted generation: conservation, the Dalitz plot, the phase-space integral,
// thread-count independence and the errors naming edges and vertices.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numbers>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/data/root.hpp>
#include <laddu/generation/channel_generator.hpp>

#include "channel_test_support.hpp"
#include "test_statistics.hpp"

namespace laddu::generation {
namespace {

using testing::edge;
using testing::expect_model_error_naming;

constexpr double kProton = 0.93827208816;
constexpr double kKShort = 0.497611;
constexpr double kKaon = 0.493677;
constexpr double kPion = 0.13957039;
constexpr double kDMeson = 1.86966;

// laddu's tutorial γ p → X p, X → K_S K_S with a t slope of 4 and a 20% uniform admixture.
struct KsKs {
    physics::Channel channel{
        "gamma p -> K_S K_S p",
        {edge("gamma", 0.0), edge("target", kProton), edge("X", std::nullopt),
         edge("recoil", kProton), edge("ks1", kKShort), edge("ks2", kKShort)},
        {{"production", {"gamma", "target"}, {"X", "recoil"}}, {"decay", {"X"}, {"ks1", "ks2"}}}};
    ChannelProposals proposals;

    KsKs() {
        proposals.edges["gamma"].initial_momentum =
            InitialMomentum::energy_source(ScalarSource::uniform(8.0, 9.0), {0.0, 0.0, 1.0});
        proposals.edges["target"].initial_momentum = InitialMomentum::momentum({0.0, 0.0, 0.0});
        // laddu's tutorial starts at 0.995 GeV, below 2 m(K_S) = 0.995222 GeV, so its decay
        // vertex fails for a few events in 10⁴ (as laddu's does); start above threshold.
        proposals.edges["X"].mass_proposal = MassProposal::uniform(1.0, 2.0);
        proposals.vertices.emplace(
            "production", VertexProposal::t_exchange(
                              "gamma", "X",
                              TDistribution::mixture({{0.2, TComponent::uniform()},
                                                      {0.8, TComponent::exponential(4.0)}})));
        proposals.vertices.emplace("decay", VertexProposal::isotropic());
    }
};

FourMomentum p4_of(const data::Dataset& d, const std::string& name, std::size_t i) {
    return {d.column(name + "_e")[i], d.column(name + "_px")[i], d.column(name + "_py")[i],
            d.column(name + "_pz")[i]};
}

TEST(ChannelGenerator, KsKsEventsConserveFourMomentumWithTheTutorialColumns) {
    KsKs setup;
    ChannelGenerator generator(setup.channel, setup.proposals);
    generator.add_scalar("pol_magnitude", ScalarSource::uniform(0.2, 0.3));
    generator.add_scalar("pol_angle", ScalarSource::fixed(0.0));
    const auto [events, report] = generator.weighted({.events = 20000, .seed = 17, .threads = 2});
    EXPECT_EQ(events.p4_names(),
              (std::vector<std::string>{"gamma", "target", "X", "recoil", "ks1", "ks2"}));
    EXPECT_EQ(events.scalar_names(), (std::vector<std::string>{"pol_magnitude", "pol_angle"}));
    ASSERT_EQ(events.size(), 20000U);
    for (std::size_t i = 0; i < events.size(); ++i) {
        const FourMomentum in = p4_of(events, "gamma", i) + p4_of(events, "target", i);
        const FourMomentum out =
            p4_of(events, "recoil", i) + p4_of(events, "ks1", i) + p4_of(events, "ks2", i);
        ASSERT_NEAR(in.e, out.e, 1e-10 * in.e);
        ASSERT_NEAR(in.px, out.px, 1e-10 * in.e);
        ASSERT_NEAR(in.py, out.py, 1e-10 * in.e);
        ASSERT_NEAR(in.pz, out.pz, 1e-10 * in.e);
        ASSERT_GE(in.e, 8.0 + kProton);
        ASSERT_LE(in.e, 9.0 + kProton);
        ASSERT_NEAR(p4_of(events, "ks1", i).mass_squared(), kKShort * kKShort, 1e-9);
        const double pol = events.column("pol_magnitude")[i];
        ASSERT_TRUE(pol >= 0.2 && pol < 0.3);
        ASSERT_GT(events.weights()[i], 0.0);
    }
    EXPECT_EQ(report.requested, 20000U);
    EXPECT_EQ(report.produced, 20000U);
    EXPECT_EQ(report.proposals, 20000U);
    EXPECT_EQ(report.rejected, 0U);
    EXPECT_EQ(report.acceptance_rate(), 1.0);
    EXPECT_FALSE(report.envelope.has_value());
    EXPECT_EQ(report.seed, 17U);
    EXPECT_NEAR(report.sum_weights, events.sum_weights(), 1e-9 * report.sum_weights);
    EXPECT_LE(report.minimum_weight, report.maximum_weight);
}

TEST(ChannelGenerator, SameSeedSameEventsForAnyThreadCountAndChunking) {
    KsKs setup;
    ChannelGenerator generator(setup.channel, setup.proposals);
    generator.add_scalar("pol_magnitude", ScalarSource::uniform(0.2, 0.3));
    const auto [one, r1] = generator.weighted({.events = 5000, .seed = 3, .threads = 1});
    const auto [two, r2] =
        generator.weighted({.events = 5000, .seed = 3, .threads = 2, .chunk_events = 7});
    const auto [other, r3] = generator.weighted({.events = 5000, .seed = 4, .threads = 2});
    for (const char* column : {"ks1_px", "recoil_e", "gamma_e", "pol_magnitude"}) {
        const auto a = one.column(column);
        const auto b = two.column(column);
        EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin())) << column;
        EXPECT_NE(a[0], other.column(column)[0]) << column;
    }
    EXPECT_TRUE(std::equal(one.weights().begin(), one.weights().end(), two.weights().begin()));
    EXPECT_EQ(r1.sum_weights, r2.sum_weights);
    // event() is the same event the run produced.
    EXPECT_EQ(generator.event(4321, 3).weight, one.weights()[4321]);
}

// Φ₂(M; m1, m2) = p*/(4π M).
double phi2(double m, double m1, double m2) {
    return breakup_momentum(m, m1, m2) / (4.0 * std::numbers::pi * m);
}

// D → K⁻ Y, Y → π⁺ π⁺ with m_Y uniform over its whole kinematic range.
struct Dalitz {
    physics::Channel channel{"D -> K pi pi",
                             {edge("D", kDMeson), edge("K", kKaon), edge("Y", std::nullopt, false),
                              edge("pi1", kPion), edge("pi2", kPion)},
                             {{"D_decay", {"D"}, {"K", "Y"}}, {"Y_decay", {"Y"}, {"pi1", "pi2"}}}};
    ChannelProposals proposals;
    double low = 2.0 * kPion;
    double high = kDMeson - kKaon;

    Dalitz() {
        proposals.edges["D"].initial_momentum = InitialMomentum::p4({kDMeson, 0.0, 0.0, 0.0});
        proposals.edges["Y"].mass_proposal = MassProposal::uniform(low, high);
        // Y_decay has no proposal: a 1 → 2 vertex defaults to isotropic.
    }
};

TEST(ChannelGenerator, WeightedIntegralIsTheProductOfTwoBodyPhaseSpaces) {
    // laddu's weight is (high − low) · Φ₂(M; K, m_Y) · Φ₂(m_Y; π, π): Σw/N → ∫ dm_Y Φ₂ Φ₂.
    Dalitz setup;
    const ChannelGenerator generator(setup.channel, setup.proposals);
    const auto [events, report] = generator.weighted({.events = 100000, .seed = 5});
    double exact = 0.0;
    const int steps = 200000;
    const double h = (setup.high - setup.low) / steps;
    for (int k = 0; k < steps; ++k) {
        const double m = setup.low + (k + 0.5) * h;
        exact += phi2(kDMeson, kKaon, m) * phi2(m, kPion, kPion) * h;
    }
    const double n = static_cast<double>(events.size());
    const double mean = report.sum_weights / n;
    const double error = std::sqrt((report.sum_squared_weights / n - mean * mean) / n);
    EXPECT_NEAR(mean, exact, 5.0 * error) << "error " << error;
    EXPECT_LT(error, 0.01 * exact);
}

TEST(ChannelGenerator, DalitzPlotIsUniformWithTheMassJacobian) {
    // Lorentz-invariant phase space is dΦ₃ = Φ₂ Φ₂ dm_Y²/(2π) (PDG Kinematics §49.4.3), flat in
    // (m²_Kπ1, m²_ππ); laddu's weight measures dm_Y, so weight · 2 m_Y must be flat.
    Dalitz setup;
    const ChannelGenerator generator(setup.channel, setup.proposals);
    const auto [events, report] = generator.weighted({.events = 200000, .seed = 6});
    std::vector<double> s_kpi(events.size());
    std::vector<double> w(events.size());
    for (std::size_t i = 0; i < events.size(); ++i) {
        const FourMomentum k = p4_of(events, "K", i);
        const FourMomentum a = p4_of(events, "pi1", i);
        const FourMomentum b = p4_of(events, "pi2", i);
        s_kpi[i] = (k + a).mass_squared();
        w[i] = events.weights()[i] * 2.0 * std::sqrt((a + b).mass_squared());
    }
    // Dalitz-plot width in m²_ππ at fixed s = m²_Kπ1 (PDG Kinematics eq. 49.23).
    const auto width = [](double s) {
        const double root = std::sqrt(s);
        const double e_pi = (s - kKaon * kKaon + kPion * kPion) / (2.0 * root);
        const double e_other = (kDMeson * kDMeson - s - kPion * kPion) / (2.0 * root);
        const double p1 = std::sqrt(std::max(0.0, e_pi * e_pi - kPion * kPion));
        const double p2 = std::sqrt(std::max(0.0, e_other * e_other - kPion * kPion));
        return 4.0 * p1 * p2;
    };
    const double lo = (kKaon + kPion) * (kKaon + kPion);
    const double hi = (kDMeson - kPion) * (kDMeson - kPion);
    const std::size_t bins = 40;
    std::vector<double> expected(bins, 0.0);
    double total = 0.0;
    for (std::size_t b = 0; b < bins; ++b) {
        const int steps = 400;
        for (int k = 0; k < steps; ++k) {
            const double s = lo + (static_cast<double>(b) + (k + 0.5) / steps) * (hi - lo) / bins;
            expected[b] += width(s);
        }
        total += expected[b];
    }
    double sum_w = 0.0;
    for (const double x : w) {
        sum_w += x;
    }
    for (double& e : expected) {
        e *= sum_w / total;
    }
    const testing::WeightedChi2 fit = testing::weighted_chi2(s_kpi, w, lo, hi, bins, expected);
    const double ndf = static_cast<double>(fit.bins - 1);
    EXPECT_LT(fit.chi2, ndf + 5.0 * std::sqrt(2.0 * ndf)) << "chi2 " << fit.chi2 << " / " << ndf;
}

TEST(ChannelGenerator, ModelWeightsMultiplyTheProposalWeightsAndSeeEveryEdge) {
    // The model m_Y² reads the non-output edge Y; Σ w/N → ∫ dm_Y Φ₂ Φ₂ m_Y².
    Dalitz setup;
    const ChannelGenerator generator(setup.channel, setup.proposals);
    const ModelWeights mass2 = [](const data::Dataset& events) {
        std::vector<double> values;
        for (std::size_t i = 0; i < events.size(); ++i) {
            values.push_back(p4_of(events, "Y", i).mass_squared());
        }
        return values;
    };
    const auto [plain, plain_report] = generator.weighted({.events = 50000, .seed = 8});
    const auto [events, report] =
        generator.weighted({.events = 50000, .seed = 8, .diagnostics = true}, mass2);
    EXPECT_EQ(events.p4_names(), (std::vector<std::string>{"D", "K", "pi1", "pi2"}));
    for (std::size_t i = 0; i < events.size(); ++i) {
        const double m2 = (p4_of(events, "pi1", i) + p4_of(events, "pi2", i)).mass_squared();
        ASSERT_NEAR(events.weights()[i], plain.weights()[i] * m2, 1e-9 * events.weights()[i]);
        ASSERT_EQ(events.column("__laddu_proposal_weight")[i], plain.weights()[i]);
        ASSERT_NEAR(events.column("__laddu_model_weight")[i], m2, 1e-9 * m2);
    }
    double exact = 0.0;
    const int steps = 200000;
    const double h = (setup.high - setup.low) / steps;
    for (int k = 0; k < steps; ++k) {
        const double m = setup.low + (k + 0.5) * h;
        exact += phi2(kDMeson, kKaon, m) * phi2(m, kPion, kPion) * m * m * h;
    }
    const double n = static_cast<double>(events.size());
    const double mean = report.sum_weights / n;
    const double error = std::sqrt((report.sum_squared_weights / n - mean * mean) / n);
    EXPECT_NEAR(mean, exact, 5.0 * error);
    EXPECT_LT(error, 0.01 * exact);

    const ModelWeights negative = [](const data::Dataset& d) {
        std::vector<double> values(d.size(), 1.0);
        values[17] = -1.0;
        return values;
    };
    try {
        (void)generator.weighted({.events = 100, .seed = 8}, negative);
        ADD_FAILURE() << "no EvaluationError";
    } catch (const EvaluationError& failure) {
        EXPECT_NE(std::string(failure.what()).find("event 17: the model value -1"),
                  std::string::npos)
            << failure.what();
    }
}

TEST(ChannelGenerator, BadChannelsAreModelErrorsNamingTheEdgeOrVertex) {
    {
        KsKs setup;
        setup.proposals.edges["gamma"].initial_momentum.reset();
        expect_model_error_naming([&] { validate_generation(setup.channel, setup.proposals); },
                                  "initial edge `gamma` has no momentum source");
    }
    {
        KsKs setup;
        setup.proposals.edges["X"].mass_proposal.reset();
        expect_model_error_naming([&] { validate_generation(setup.channel, setup.proposals); },
                                  "edge `X` has neither");
    }
    {
        KsKs setup;
        setup.proposals.vertices.erase("production");
        expect_model_error_naming([&] { validate_generation(setup.channel, setup.proposals); },
                                  "vertex `production` has no generation proposal");
    }
    {
        KsKs setup;
        setup.proposals.vertices.erase("production");
        setup.proposals.vertices.emplace(
            "production",
            VertexProposal::t_exchange("beam", "X", TDistribution::single(TComponent::uniform())));
        expect_model_error_naming([&] { ChannelGenerator g(setup.channel, setup.proposals); },
                                  "vertex `production`");
    }
    {
        KsKs setup;
        setup.proposals.edges["ks1"].mass_proposal = MassProposal::uniform(0.4, 0.6);
        setup.proposals.edges["nope"].mass_proposal = MassProposal::fixed(1.0);
        expect_model_error_naming([&] { validate_generation(setup.channel, setup.proposals); },
                                  "nope");
    }
    {
        // An X mass the decay cannot reach fails at run time, naming the vertex.
        KsKs setup;
        setup.proposals.edges["X"].mass_proposal = MassProposal::uniform(0.5, 2.0);
        const ChannelGenerator generator(setup.channel, setup.proposals);
        expect_model_error_naming([&] { (void)generator.weighted({.events = 1000, .seed = 1}); },
                                  "vertex `decay` failed");
    }
    KsKs setup;
    ChannelGenerator generator(setup.channel, setup.proposals);
    EXPECT_THROW(generator.add_scalar("ks1", ScalarSource::fixed(1.0)), ModelError);
    EXPECT_THROW(generator.add_scalar("__laddu_model_weight", ScalarSource::fixed(1.0)),
                 ModelError);
    generator.add_scalar("pol", ScalarSource::fixed(1.0));
    EXPECT_THROW(generator.add_scalar("pol", ScalarSource::fixed(1.0)), ModelError);
    EXPECT_THROW((void)generator.weighted({.events = 0}), ModelError);
}

TEST(ChannelGenerator, DiagnosticsColumnsHoldTheWeights) {
    KsKs setup;
    const ChannelGenerator generator(setup.channel, setup.proposals);
    const auto [events, report] =
        generator.weighted({.events = 100, .seed = 2, .diagnostics = true});
    for (std::size_t i = 0; i < events.size(); ++i) {
        EXPECT_EQ(events.column("__laddu_proposal_weight")[i], events.weights()[i]);
        EXPECT_EQ(events.column("__laddu_target_weight")[i], events.weights()[i]);
        EXPECT_EQ(events.column("__laddu_model_weight")[i], 1.0);
    }
}

TEST(ChannelGenerator, StreamingToParquetWritesTheWeightedEventsInBatches) {
    KsKs setup;
    ChannelGenerator generator(setup.channel, setup.proposals);
    generator.add_scalar("pol", ScalarSource::uniform(0.2, 0.3));
    const ModelWeights mass2 = [](const data::Dataset& events) {
        std::vector<double> values;
        for (std::size_t i = 0; i < events.size(); ++i) {
            values.push_back(p4_of(events, "X", i).mass_squared());
        }
        return values;
    };
    const auto dir = std::filesystem::temp_directory_path() / "laddu_weighted_to_test";
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "events.parquet").string();
    const WeightedConfig config{.events = 10007, .seed = 21, .diagnostics = true};
    const auto [events, report] = generator.weighted(config, mass2);
    // A budget for about 1000 events per batch: eleven batches and row groups.
    WeightedConfig tight = config;
    tight.memory_bytes = 1000 * 2 * (4 * 6 + 1 + 3 + 3) * sizeof(double) + 4096;
    for (const WeightedConfig& c : {config, tight}) {
        const GenerationReport streamed = generator.weighted_to(c, path, mass2);
        const data::Dataset back = data::read_parquet(path);
        ASSERT_EQ(back.size(), events.size());
        // read_parquet orders the four-momenta by name.
        auto names = events.p4_names();
        std::sort(names.begin(), names.end());
        EXPECT_EQ(back.p4_names(), names);
        EXPECT_EQ(back.scalar_names(), events.scalar_names());
        for (const std::string& name : events.schema().batch_column_names()) {
            const auto a = back.column(name);
            const auto b = events.column(name);
            ASSERT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end())) << name;
        }
        EXPECT_EQ(streamed.sum_weights, report.sum_weights);
        EXPECT_EQ(streamed.maximum_weight, report.maximum_weight);
        EXPECT_EQ(streamed.minimum_weight, report.minimum_weight);
        EXPECT_EQ(streamed.produced, report.produced);
        if (c.memory_bytes) {
            EXPECT_LE(streamed.estimated_peak_bytes, *c.memory_bytes);
        }
    }
    // A failing model leaves the finished file untouched and no temporary behind.
    const ModelWeights failing = [](const data::Dataset& batch) {
        std::vector<double> values(batch.size(), 1.0);
        values.back() = -1.0;
        return values;
    };
    EXPECT_THROW((void)generator.weighted_to(tight, path, failing), EvaluationError);
    EXPECT_EQ(data::read_parquet(path).size(), events.size());
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                            std::filesystem::directory_iterator{}),
              1);
    WeightedConfig tiny = config;
    tiny.memory_bytes = 100;
    EXPECT_THROW((void)generator.weighted_to(tiny, path), ModelError);
    std::filesystem::remove_all(dir);
}

TEST(ChannelGenerator, StreamingToRootWritesTheWeightedEventsInBasketsOfABatch) {
    KsKs setup;
    ChannelGenerator generator(setup.channel, setup.proposals);
    const auto dir = std::filesystem::temp_directory_path() / "laddu_weighted_to_root_test";
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "events.root").string();
    WeightedConfig config{.events = 5003, .seed = 8};
    config.memory_bytes = 1000 * 2 * (4 * 6 + 1) * sizeof(double) + 4096;
    const auto [events, report] = generator.weighted({.events = 5003, .seed = 8});
    data::RootWriteOptions options;
    options.tree = "mc";
    const GenerationReport streamed = generator.weighted_to(config, path, {}, options);
    EXPECT_EQ(streamed.sum_weights, report.sum_weights);
    const data::RootSource source({path});
    EXPECT_EQ(source.tree_name(), "mc");
    EXPECT_GT(source.fragment_sizes().size(), 4U);  // baskets of at most one batch
    const data::Dataset back = data::read_root(path);
    ASSERT_EQ(back.size(), events.size());
    for (const std::string& name : events.schema().batch_column_names()) {
        const auto a = back.column(name);
        const auto b = events.column(name);
        ASSERT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end())) << name;
    }
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace laddu::generation
