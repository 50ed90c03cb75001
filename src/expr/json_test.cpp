// Expressions and models through laddu-format JSON: a round trip gives the same node (hash-consing
// makes that structural equality), over random expressions and every node kind; laddu's own
// output for a few expressions reads back; malformed input is a ModelError naming the node.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/expr/json.hpp>
#include <laddu/expr/tags.hpp>

namespace laddu::expr {
namespace {

using ::testing::HasSubstr;

// A random real or complex scalar expression of about `depth` levels over two event columns,
// a four-momentum and three parameters (one fixed, one bounded on one side).
Expr random_scalar(std::mt19937& rng, int depth) {
    std::uniform_int_distribution<int> pick(0, 16);
    if (depth == 0) {
        switch (pick(rng) % 6) {
        case 0:
            return constant(std::uniform_real_distribution<double>(-3.0, 3.0)(rng));
        case 1:
            return scalar("x");
        case 2:
            return p4_component("k", static_cast<P4Component>(pick(rng) % 4));
        case 3:
            return parameter("a", {.initial = 0.3, .bounds = Bounds{0.0, INFINITY}});
        case 4:
            return parameter("b", {.fixed = 1.25, .unit = "GeV"});
        default:
            return constant(std::complex<double>(0.5, -0.25));
        }
    }
    const Expr a = random_scalar(rng, depth - 1);
    const Expr b = random_scalar(rng, depth - 1);
    switch (pick(rng)) {
    case 0:
        return a + b;
    case 1:
        return a - b;
    case 2:
        return a * b;
    case 3:
        return a / (b * b + 2.0);
    case 4:
        return unary(UnaryOp::kPowI, a, 3);
    case 5:
        return unary(UnaryOp::kExp, unary(UnaryOp::kReal, a));
    case 6:
        return unary(UnaryOp::kCos, a) + unary(UnaryOp::kTanh, unary(UnaryOp::kImag, b));
    case 7:
        return unary(UnaryOp::kNormSqr, a);
    case 8:
        return unary(UnaryOp::kConj, a) * unary(UnaryOp::kAbs, b);
    case 9:
        return complex(unary(UnaryOp::kReal, a), unary(UnaryOp::kImag, b));
    case 10:
        return binary(BinaryOp::kAtan2, unary(UnaryOp::kReal, a), unary(UnaryOp::kReal, b));
    case 11:
        return dot(vector({a, b}), vector({b, 1.0}));
    case 12:
        return solve(matrix(2, 2, {a * a + 3.0, b, 1.0, 4.0}), vector({a, b}))[1];
    case 13:
        return matmul(matrix(2, 2, {a, 1.0, b, 2.0}), matrix(2, 2, {1.0, a, 0.0, 1.0})).at(0, 1);
    case 14:
        return matvec(matrix(2, 2, {a, b, 1.0, 2.0}), vector({1.0, a}))[0];
    case 15:
        return nary_add({a, b, 1.0});
    default:
        return (a + b).tagged("T" + std::to_string(pick(rng) % 3));
    }
}

TEST(ExprJson, RandomExpressionsRoundTripToTheSameNode) {
    std::mt19937 rng(20261204);
    for (int trial = 0; trial < 300; ++trial) {
        const Expr e = random_scalar(rng, 1 + trial % 5);
        const std::string json = to_json(e);
        const Expr back = expr_from_json(json);
        EXPECT_TRUE(back == e) << json;
        EXPECT_EQ(to_json(back), json);
    }
}

TEST(ExprJson, ModelsKeepFixedParametersAndTags) {
    const Expr a = parameter("a", {.initial = 0.5});
    const Expr x = scalar("x");
    const Model model =
        Model(unary(UnaryOp::kNormSqr, (a * x).tagged("S") + (x * x).tagged("D"))).fix("a", 2.0);
    const Model back = model_from_json(to_json(model));
    EXPECT_TRUE(back.expression() == model.expression());
    EXPECT_EQ(back.parameters().free_count(), 0U);
    EXPECT_TRUE(project(back.expression(), {"S"}) == project(model.expression(), {"S"}));
}

TEST(ExprJson, ReadsWhatLadduWrites) {
    // laddu 0.21.4: (parameter('m', initial=1.2, bounds=(0.5, None), unit='GeV') * x).cos(),
    // tagged 'A', and complex(m, 2.0).
    const std::string written =
        R"({"root":3,"nodes":[{"ScalarParam":{"name":"m","state":"Free","initial":{"Value":1.2},)"
        R"("bounds":{"min":0.5,"max":null},"periodic":false,"scale":null,"unit":"GeV","latex":null,)"
        R"("description":null}},{"EventScalar":"x"},{"Binary":{"op":"Mul","lhs":0,"rhs":1}},)"
        R"({"Unary":{"op":"Cos","input":2}}],"metadata":[{"source":"Param","name":null,"tags":[]},)"
        R"({"source":"Event","name":null,"tags":[]},{"source":"Binary","name":null,"tags":[]},)"
        R"({"source":"Unary","name":null,"tags":["A"]}]})";
    const Expr m = parameter("m", {.initial = 1.2, .bounds = Bounds{0.5, INFINITY}, .unit = "GeV"});
    const Expr expected = unary(UnaryOp::kCos, m * scalar("x")).tagged("A");
    EXPECT_TRUE(expr_from_json(written) == expected);
    EXPECT_EQ(to_json(expected), written);
}

TEST(ExprJson, MalformedInputNamesTheNode) {
    const auto error = [](const std::string& json) {
        try {
            (void)expr_from_json(json);
        } catch (const ModelError& e) {
            return std::string(e.what());
        }
        ADD_FAILURE() << "no ModelError for " << json;
        return std::string();
    };
    EXPECT_THAT(error("{"), HasSubstr("does not parse"));
    EXPECT_THAT(error(R"({"root":0,"nodes":[{"Wobble":1}],"metadata":[{"tags":[]}]})"),
                HasSubstr("node 0: unknown node kind 'Wobble'"));
    EXPECT_THAT(error(R"({"root":0,"nodes":[{"Unary":{"op":"Cos","input":0}}],)"
                      R"("metadata":[{"tags":[]}]})"),
                HasSubstr("node 0: child 0 is not an earlier node"));
    EXPECT_THAT(error(R"({"root":1,"nodes":[{"RealConst":1.0}],"metadata":[{"tags":[]}]})"),
                HasSubstr("root 1"));
    EXPECT_THAT(error(R"({"root":0,"nodes":[{"RealConst":"one"}],"metadata":[{"tags":[]}]})"),
                HasSubstr("wrong type"));
    EXPECT_THAT(error(R"({"root":1,"nodes":[{"RealConst":1.0},)"
                      R"({"Unary":{"op":"Frobnicate","input":0}}],)"
                      R"("metadata":[{"tags":[]},{"tags":[]}]})"),
                HasSubstr("unknown operation 'Frobnicate'"));
    EXPECT_THROW((void)to_json(constant(NAN)), ModelError);
}

}  // namespace
}  // namespace laddu::expr
