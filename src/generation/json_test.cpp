// The generation types as JSON (json.hpp): laddu's text for each kind, lossless round trips and
// the errors of malformed or invalid input.
#include <string>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/generation/json.hpp>
#include <laddu/generation/t_distribution.hpp>

namespace laddu::generation {
namespace {

TEST(GenerationJson, WritesLadduTextForEveryKind) {
    EXPECT_EQ(to_json(MassProposal::uniform(1.0, 2.0)),
              R"({"kind":"uniform","low":1.0,"high":2.0})");
    EXPECT_EQ(to_json(MassProposal::fixed(1.2)), R"({"kind":"fixed","mass":1.2})");
    EXPECT_EQ(to_json(ScalarSource::fixed(1.5)), R"({"kind":"fixed","value":1.5})");
    EXPECT_EQ(to_json(ScalarSource::uniform(0.2, 0.3)),
              R"({"kind":"uniform","min":0.2,"max":0.3})");
    EXPECT_EQ(to_json(ScalarSource::histogram({-1.0, 0.0, 1.0}, {1.0, 2.0})),
              R"({"kind":"histogram","edges":[-1.0,0.0,1.0],"weights":[1.0,2.0]})");
    EXPECT_EQ(to_json(InitialMomentum::momentum({0.0, 0.0, 0.0})),
              R"({"Momentum":{"x":0.0,"y":0.0,"z":0.0}})");
    EXPECT_EQ(to_json(InitialMomentum::p4({1.0, 0.0, 0.0, 0.5})),
              R"({"P4":{"e":1.0,"px":0.0,"py":0.0,"pz":0.5}})");
    EXPECT_EQ(to_json(InitialMomentum::energy_source(ScalarSource::uniform(8.0, 9.0), {0, 0, 1})),
              R"({"EnergyDirection":{"energy":{"kind":"uniform","min":8.0,"max":9.0},)"
              R"("direction":{"x":0.0,"y":0.0,"z":1.0}}})");
    EXPECT_EQ(to_json(VertexProposal::isotropic()), R"({"kind":"two_body_decay"})");
    EXPECT_EQ(to_json(VertexProposal::t_exchange(
                  "gamma", "X",
                  TDistribution::mixture(
                      {{0.2, TComponent::uniform()}, {0.8, TComponent::exponential(4.0)}}))),
              R"({"kind":"two_body_scattering","proposal":{"incoming_edge":"gamma",)"
              R"("outgoing_edge":"X","distribution":{"components":[[0.2,"Uniform"],)"
              R"([0.8,{"Exponential":{"slope":4.0}}]],"t_min":null,"t_max":null}}})");
    EXPECT_EQ(to_json(VertexProposal::t_exchange(
                  "gamma", "X",
                  TDistribution::single(TComponent::histogram({-3.0, -1.0, 0.0}, {1.0, 2.0}))
                      .with_limits(-2.5, std::nullopt))),
              R"({"kind":"two_body_scattering","proposal":{"incoming_edge":"gamma",)"
              R"("outgoing_edge":"X","distribution":{"components":[[1.0,{"Histogram":)"
              R"({"histogram":{"counts":[1.0,2.0],"bin_edges":[-3.0,-1.0,0.0],"underflow":0.0,)"
              R"("overflow":0.0,"errors":[1.0,1.4142135623730951]}}}]],"t_min":-2.5,)"
              R"("t_max":null}}})");
}

TEST(GenerationJson, RoundTripsAreLossless) {
    for (const std::string text : {R"({"kind":"uniform","low":0.1,"high":2.7182818284590451})",
                                   R"({"kind":"fixed","mass":0.49761100000000002})"}) {
        EXPECT_EQ(to_json(mass_proposal_from_json(text)),
                  to_json(mass_proposal_from_json(to_json(mass_proposal_from_json(text)))));
    }
    const ScalarSource h = ScalarSource::histogram({8.0, 8.5, 9.0}, {1.0, 3.0});
    EXPECT_EQ(to_json(scalar_source_from_json(to_json(h))), to_json(h));
    const InitialMomentum beam =
        InitialMomentum::energy_source(ScalarSource::uniform(1.0 / 3.0, 9.0), {0.1, 0.0, 1.0});
    EXPECT_EQ(to_json(initial_momentum_from_json(to_json(beam))), to_json(beam));
    const VertexProposal pole = VertexProposal::t_exchange(
        "a", "c",
        TDistribution::mixture(
            {{1.0 / 7.0, TComponent::pole(0.13957, 1.5)}, {2.0, TComponent::uniform()}})
            .with_limits(-4.0, -0.01));
    EXPECT_EQ(to_json(vertex_proposal_from_json(to_json(pole))), to_json(pole));
    GenerationReport report;
    report.requested = report.produced = 10;
    report.proposals = 65;
    report.rejected = 55;
    report.envelope = 6.829735288733992e-4;
    report.envelope_kind = EnvelopeKind::kProvenPhaseSpace;
    report.proven =
        ProvenEnvelopeReport{Interval(0.0, 6.829735288733992e-4), 6.829735288733992e-4, 7, 2, 1024};
    report.maximum_weight = 4.864689095090016e-4;
    report.minimum_weight = 6.543600411920364e-7;
    report.sum_weights = 0.1;
    report.sum_squared_weights = 0.01;
    report.seed = 18446744073709551615ULL;
    report.chunk_events = 10;
    report.estimated_peak_bytes = 7360;
    const GenerationReport back = generation_report_from_json(to_json(report));
    EXPECT_EQ(to_json(back), to_json(report));
    EXPECT_EQ(back.seed, report.seed);
    ASSERT_TRUE(back.proven);
    EXPECT_EQ(back.proven->subdivisions, 1024U);
}

TEST(GenerationJson, BadInputIsAModelErrorThatSaysWhat) {
    const auto message = [](auto read, const std::string& text) {
        try {
            (void)read(text);
        } catch (const ModelError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message(scalar_source_from_json, "{").find("does not parse"), std::string::npos);
    EXPECT_NE(message(scalar_source_from_json, R"({"kind":"nope"})").find("unknown kind 'nope'"),
              std::string::npos);
    EXPECT_NE(
        message(scalar_source_from_json, R"({"kind":"uniform","min":1.0})").find("no field 'max'"),
        std::string::npos);
    // laddu's reader accepts an empty interval; its constructor (and ours) refuses it.
    EXPECT_NE(message(scalar_source_from_json, R"({"kind":"uniform","min":0.3,"max":0.2})"),
              "no error");
    EXPECT_NE(message(mass_proposal_from_json, R"({"kind":"uniform","low":"a","high":2})")
                  .find("wrong type"),
              std::string::npos);
    EXPECT_NE(message(initial_momentum_from_json, R"({"Beam":{}})").find("EnergyDirection"),
              std::string::npos);
    EXPECT_NE(message(vertex_proposal_from_json,
                      R"({"kind":"two_body_scattering","proposal":{"incoming_edge":"a",)"
                      R"("outgoing_edge":"b","distribution":{"components":[[1.0,"Flat"]],)"
                      R"("t_min":null,"t_max":null}}})")
                  .find("none of \"Uniform\""),
              std::string::npos);
    EXPECT_NE(message(generation_report_from_json, R"({"requested":1})").find("no field"),
              std::string::npos);
}

}  // namespace
}  // namespace laddu::generation
