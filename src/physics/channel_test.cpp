#include <array>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/physics/channel.hpp>
#include <laddu/physics/vectors.hpp>

#include "reference/expr_reference.hpp"

namespace laddu::physics {
namespace {

using expr::Expr;
using laddu::testing::Event;
using P4 = std::array<double, 4>;
using ::testing::HasSubstr;

double value(const Expr& e, const Event& event = {}) {
    return laddu::testing::evaluate(e, event).real();
}

Vec4 fixed(double px, double py, double pz, double e) {
    return {Expr(e), Expr(px), Expr(py), Expr(pz)};
}

Edge measured(const std::string& name) {
    return {.name = name, .p4_column = name};
}

Edge inferred(const std::string& name) {
    return {.name = name};
}

Edge given(const std::string& name, const Vec4& p4) {
    return {.name = name, .p4 = p4};
}

// Independent numeric boost by velocity b (a vector at rest acquires velocity b).
P4 numeric_boost(const P4& p, const std::array<double, 3>& b) {
    const double b2 = b[0] * b[0] + b[1] * b[1] + b[2] * b[2];
    const double gamma = 1.0 / std::sqrt(1.0 - b2);
    const double bp = b[0] * p[1] + b[1] * p[2] + b[2] * p[3];
    const double k = (gamma - 1.0) * bp / b2 + gamma * p[0];
    return {gamma * (p[0] + bp), p[1] + k * b[0], p[2] + k * b[1], p[3] + k * b[2]};
}

P4 rest_frame_of(const P4& p, const P4& frame) {
    return numeric_boost(p, {-frame[1] / frame[0], -frame[2] / frame[0], -frame[3] / frame[0]});
}

P4 add(const P4& a, const P4& b) {
    return {a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]};
}

P4 on_shell(double mass, double px, double py, double pz) {
    return {std::sqrt(mass * mass + px * px + py * py + pz * pz), px, py, pz};
}

// γ p → X p, X → a b in general directions (no axis is special).
Event production_event() {
    Event event;
    event.p4["beam"] = {6.0, 0.3, -0.2, 5.98};
    event.p4["recoil"] = on_shell(0.938, -0.4, 0.55, 1.1);
    event.p4["a"] = on_shell(0.4976, 0.9, -0.1, 2.2);
    event.p4["b"] = on_shell(0.4976, -0.2, -0.35, 1.9);
    return event;
}

Channel production_channel() {
    return {"gamma p -> X p",
            {measured("beam"), inferred("target"), inferred("x"), measured("recoil"), measured("a"),
             measured("b")},
            {{"production", {"beam", "target"}, {"x", "recoil"}}, {"decay", {"x"}, {"a", "b"}}}};
}

void expect_p4_near(const Vec4& actual, const P4& expected, const Event& event, double tol) {
    EXPECT_NEAR(value(actual.e(), event), expected[0], tol);
    EXPECT_NEAR(value(actual.px(), event), expected[1], tol);
    EXPECT_NEAR(value(actual.py(), event), expected[2], tol);
    EXPECT_NEAR(value(actual.pz(), event), expected[3], tol);
}

template <typename F>
std::string model_error(F&& build) {
    try {
        build();
    } catch (const ModelError& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected ModelError";
    return {};
}

// ---- inference and roles ----

TEST(Channel, InfersAParentFromItsDaughters) {
    const Channel channel("KsKs",
                          {given("ks1", fixed(0.0, 0.0, 1.0, 1.0)),
                           given("ks2", fixed(0.0, 0.0, -1.0, 1.0)), inferred("x")},
                          {{"x_decay", {"x"}, {"ks1", "ks2"}}});
    EXPECT_DOUBLE_EQ(value(channel.mass("x")), 2.0);
    EXPECT_DOUBLE_EQ(value(channel.s("x")), 4.0);
}

TEST(Channel, InfersASingleMissingEdgeFromConservation) {
    const Channel channel("production",
                          {given("beam", fixed(0.0, 0.0, 3.0, 5.0)), given("x", fixed(0, 0, 1, 3)),
                           given("recoil", fixed(0.0, 0.0, 2.0, 3.0)), inferred("target")},
                          {{"production", {"beam", "target"}, {"x", "recoil"}}});
    const Vec4 target = channel.p4("target");
    EXPECT_DOUBLE_EQ(value(target.e()), 1.0);
    EXPECT_DOUBLE_EQ(value(target.vec3().mag()), 0.0);
}

TEST(Channel, InfersThroughAChainOfVertices) {
    const Event event = production_event();
    const Channel channel = production_channel();
    const P4 x = add(event.p4.at("a"), event.p4.at("b"));
    const P4 total = add(x, event.p4.at("recoil"));
    const P4& beam = event.p4.at("beam");
    expect_p4_near(channel.p4("x"), x, event, 1e-13);
    expect_p4_near(channel.p4("target"),
                   {total[0] - beam[0], total[1] - beam[1], total[2] - beam[2], total[3] - beam[3]},
                   event, 1e-13);
}

TEST(Channel, ClassifiesInitialIntermediateAndFinalEdges) {
    const Channel channel = production_channel();
    EXPECT_EQ(channel.edges_with_role(EdgeRole::kInitial),
              (std::vector<std::string>{"beam", "target"}));
    EXPECT_EQ(channel.edges_with_role(EdgeRole::kIntermediate), (std::vector<std::string>{"x"}));
    EXPECT_EQ(channel.edges_with_role(EdgeRole::kFinal),
              (std::vector<std::string>{"recoil", "a", "b"}));
    EXPECT_EQ(channel.edge_names(),
              (std::vector<std::string>{"beam", "target", "x", "recoil", "a", "b"}));
    EXPECT_EQ(channel.vertex_names(), (std::vector<std::string>{"production", "decay"}));
    EXPECT_EQ(channel.p4_columns(), (std::vector<std::string>{"beam", "recoil", "a", "b"}));
    EXPECT_TRUE(channel.edge("beam").output);
}

TEST(Channel, ReturnsTheParticleOfAnEdge) {
    ParticleProperties kaon;
    kaon.name = "K_S";
    kaon.mass = 0.497611;
    const Channel channel(
        "decay", {inferred("x"), {.name = "a", .p4_column = "a", .particle = kaon}, measured("b")},
        {{"decay", {"x"}, {"a", "b"}}});
    EXPECT_EQ(channel.particle("a").name, "K_S");
    EXPECT_THAT(model_error([&] { (void)channel.particle("b"); }),
                HasSubstr("edge 'b' has no particle properties; pass Edge('b', particle=...)"));
}

// ---- vertex frames ----

TEST(Channel, VertexAnglesUseTheSuppliedAxesInTheVertexRestFrame) {
    const Channel channel("simple",
                          {given("x", fixed(0.0, 0.0, 0.0, 2.0)), given("a", fixed(1, 0, 0, 1)),
                           given("b", fixed(-1.0, 0.0, 0.0, 1.0))},
                          {{"x_decay", {"x"}, {"a", "b"}}});
    const VertexFrame frame = channel.vertex_frame("x_decay");
    EXPECT_NEAR(value(frame.costheta("a", Vec3::z_axis())), 0.0, 1e-15);
    EXPECT_NEAR(value(frame.theta("a", Vec3::z_axis())), std::numbers::pi / 2, 1e-15);
    EXPECT_NEAR(value(frame.phi("a", Vec3::z_axis(), Vec3::y_axis())), 0.0, 1e-15);
    EXPECT_NEAR(value(frame.phi("b", Vec3::z_axis(), Vec3::y_axis())), std::numbers::pi, 1e-15);
}

// The decay frame is lab → CM(beam + target) → rest frame of x, computed here numerically.
TEST(Channel, VertexFramesBoostThroughTheRootCmAndThePath) {
    const Event event = production_event();
    const Channel channel = production_channel();
    const P4 x = add(event.p4.at("a"), event.p4.at("b"));
    const P4 cm = add(x, event.p4.at("recoil"));
    const P4 x_cm = rest_frame_of(x, cm);
    for (const std::string edge : {"beam", "recoil", "a", "target"}) {
        const P4 lab = edge == "target"
                           ? P4{cm[0] - event.p4.at("beam")[0], cm[1] - event.p4.at("beam")[1],
                                cm[2] - event.p4.at("beam")[2], cm[3] - event.p4.at("beam")[3]}
                           : event.p4.at(edge);
        const P4 in_cm = rest_frame_of(lab, cm);
        expect_p4_near(channel.vertex_frame("production").p4(edge), in_cm, event, 1e-12);
        expect_p4_near(channel.vertex_frame("decay").p4(edge), rest_frame_of(in_cm, x_cm), event,
                       1e-12);
    }
    const VertexFrame decay = channel.vertex_frame("decay");
    EXPECT_NEAR(value((decay.vec3("a") + decay.vec3("b")).mag(), event), 0.0, 1e-13);
    EXPECT_EQ(decay.frame().depth(), 2U);
}

// A vertex with two incoming edges below the root: its frame is the CM of both (laddu uses the
// rest frame of the path edge alone; docs/physics.md).
TEST(Channel, TheFrameOfAVertexWithSeveralIncomingEdgesIsTheirCm) {
    Event event = production_event();
    event.p4["c"] = on_shell(0.2, 0.1, 0.3, -0.4);
    event.p4["d"] = on_shell(0.3, 0.5, 0.1, 1.0);
    const Channel fixed_target(
        "scatter",
        {measured("beam"), given("target", fixed(0.0, 0.0, 0.0, 0.938)), inferred("x"),
         measured("recoil"), measured("c"), measured("d"), inferred("e")},
        {{"production", {"beam", "target"}, {"x", "recoil"}}, {"scatter", {"x", "c"}, {"d", "e"}}});
    const VertexFrame frame = fixed_target.vertex_frame("scatter");
    EXPECT_NEAR(value((frame.vec3("x") + frame.vec3("c")).mag(), event), 0.0, 1e-12);
    EXPECT_NEAR(value((frame.vec3("d") + frame.vec3("e")).mag(), event), 0.0, 1e-12);
    EXPECT_GT(value(frame.vec3("x").mag(), event), 0.1);
}

// laddu's Mandelstam fixture: the pair with more explicit momenta is used.
TEST(Channel, MandelstamUsesThePairWithMoreExplicitMomenta) {
    const Channel channel("production",
                          {given("beam", fixed(0.0, 0.0, 3.0, 5.0)), given("x", fixed(0, 0, 1, 3)),
                           given("recoil", fixed(0.0, 0.0, 2.0, 3.0)), inferred("target")},
                          {{"production", {"beam", "target"}, {"x", "recoil"}}});
    const VertexFrame vertex = channel.vertex_frame("production");
    EXPECT_DOUBLE_EQ(value(vertex.s()), 27.0);
    EXPECT_DOUBLE_EQ(value(vertex.t()), 0.0);
    EXPECT_DOUBLE_EQ(value(vertex.u()), 3.0);
    EXPECT_DOUBLE_EQ(value(vertex.mandelstam(MandelstamChannel::kU)), 3.0);
}

TEST(Channel, MandelstamRejectsAVertexThatIsNotTwoToTwo) {
    const Channel channel = production_channel();
    EXPECT_THAT(model_error([&] { (void)channel.vertex_frame("decay").s(); }),
                HasSubstr("Mandelstam s needs a 2 -> 2 vertex, but vertex 'decay' is 1 -> 2"));
}

// ---- malformed topologies: one test each ----

TEST(ChannelErrors, UnknownEdgeInAVertex) {
    EXPECT_THAT(model_error([] {
                    Channel("c", {measured("a"), measured("b")}, {{"v", {"a"}, {"b", "z"}}});
                }),
                HasSubstr("vertex 'v' uses unknown edge 'z'; add Edge('z', ...) to the channel's "
                          "edges or correct the name (edges: 'a', 'b')"));
}

TEST(ChannelErrors, EdgeListedTwiceInOneVertex) {
    EXPECT_THAT(model_error([] { Channel("c", {measured("a")}, {{"v", {"a"}, {"a"}}}); }),
                HasSubstr("edge 'a' appears more than once in vertex 'v'"));
}

TEST(ChannelErrors, EdgeConsumedByTwoVertices) {
    EXPECT_THAT(model_error([] {
                    Channel("c", {inferred("x"), measured("a"), measured("b")},
                            {{"one", {"x"}, {"a"}}, {"two", {"x"}, {"b"}}});
                }),
                HasSubstr("edge 'x' is an incoming edge of both vertex 'one' and vertex 'two'"));
}

TEST(ChannelErrors, EdgeProducedByTwoVertices) {
    EXPECT_THAT(model_error([] {
                    Channel("c", {measured("a"), measured("b"), measured("x")},
                            {{"one", {"a"}, {"x"}}, {"two", {"b"}, {"x"}}});
                }),
                HasSubstr("edge 'x' is an outgoing edge of both vertex 'one' and vertex 'two'"));
}

TEST(ChannelErrors, DanglingEdge) {
    EXPECT_THAT(model_error([] {
                    Channel("c", {measured("a"), measured("b"), measured("spare")},
                            {{"v", {"a"}, {"b"}}});
                }),
                HasSubstr("edge 'spare' is not connected to any vertex"));
}

TEST(ChannelErrors, Cycle) {
    EXPECT_THAT(model_error([] {
                    Channel("c", {inferred("a"), inferred("b")},
                            {{"ab", {"a"}, {"b"}}, {"ba", {"b"}, {"a"}}});
                }),
                HasSubstr("vertices ab -> ba -> ab form a cycle"));
}

TEST(ChannelErrors, DuplicateNamesAndEmptyVertices) {
    EXPECT_THAT(model_error([] { Channel("c", {measured("a"), measured("a")}, {}); }),
                HasSubstr("edge 'a' is defined twice"));
    EXPECT_THAT(model_error([] {
                    Channel("c", {measured("a"), measured("b")},
                            {{"v", {"a"}, {"b"}}, {"v", {"a"}, {"b"}}});
                }),
                HasSubstr("vertex 'v' is defined twice"));
    EXPECT_THAT(model_error([] { Channel("c", {measured("a")}, {{"v", {}, {"a"}}}); }),
                HasSubstr("vertex 'v' needs at least one incoming and one outgoing edge"));
    EXPECT_THAT(model_error([] { Channel("c", {{.name = ""}}, {}); }),
                HasSubstr("an edge has an empty name"));
    EXPECT_THAT(model_error([] {
                    Channel("c", {{.name = "a", .p4_column = "a", .p4 = fixed(0, 0, 0, 1)}}, {});
                }),
                HasSubstr("edge 'a' has both a p4 column ('a') and a four-momentum expression"));
}

TEST(ChannelErrors, EdgeThatCannotBeInferred) {
    const Channel channel("c", {inferred("x"), inferred("a"), measured("b")},
                          {{"decay", {"x"}, {"a", "b"}}});
    // laddu reports this as "cyclic p4 inference involving `x`": the recursion meets x again.
    EXPECT_THAT(model_error([&] { (void)channel.mass("x"); }),
                HasSubstr("edge 'x' has no p4 and cannot be inferred by momentum conservation (at "
                          "vertex 'decay' the edges without a p4 are 'a')"));
}

TEST(ChannelErrors, EdgeInferredAmbiguously) {
    const Channel channel(
        "c",
        {measured("a"), measured("b"), inferred("x"), measured("y"), measured("c"), measured("d"),
         measured("e")},
        {{"production", {"a", "b"}, {"x", "y"}}, {"scatter", {"x", "c"}, {"d", "e"}}});
    EXPECT_THAT(model_error([&] { (void)channel.p4("x"); }),
                HasSubstr("the four-momentum of edge 'x' is ambiguous: momentum conservation "
                          "gives it at both vertex 'production' and vertex 'scatter'"));
}

TEST(ChannelErrors, VertexFrameReachedByTwoPaths) {
    const Channel diamond("diamond",
                          {measured("initial"), inferred("left"), inferred("right"),
                           measured("join_left"), measured("join_right"), measured("out")},
                          {{"root", {"initial"}, {"left", "right"}},
                           {"left_branch", {"left"}, {"join_left"}},
                           {"right_branch", {"right"}, {"join_right"}},
                           {"target", {"join_left", "join_right"}, {"out"}}});
    EXPECT_THAT(model_error([&] { (void)diamond.vertex_frame("target").vec3("out"); }),
                HasSubstr("the frame of vertex 'target' is ambiguous"));
    EXPECT_NO_THROW((void)diamond.vertex_frame("left_branch").frame());
}

TEST(ChannelErrors, UnknownEdgeOrVertexInAQuery) {
    const Channel channel = production_channel();
    EXPECT_THAT(model_error([&] { (void)channel.p4("zz"); }),
                HasSubstr("unknown edge 'zz' (edges: 'beam', 'target', 'x', 'recoil', 'a', 'b')"));
    EXPECT_THAT(model_error([&] { (void)channel.vertex_frame("w"); }),
                HasSubstr("unknown vertex 'w' (vertices: 'production', 'decay')"));
}

TEST(ChannelErrors, P4ColumnTheDatasetLacks) {
    const Channel channel = production_channel();
    EXPECT_NO_THROW(channel.check_p4_columns({"a", "b", "beam", "recoil", "extra"}));
    try {
        channel.check_p4_columns({"a", "b", "beam"});
        FAIL() << "expected DataError";
    } catch (const DataError& e) {
        EXPECT_THAT(e.what(), HasSubstr("edge 'recoil' reads the four-momentum column 'recoil', "
                                        "which the dataset lacks (its p4s: [a, b, beam])"));
    }
}

}  // namespace
}  // namespace laddu::physics
