#include <thread>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/tags.hpp>
#include <laddu/expr/traversal.hpp>

namespace laddu::expr {
namespace {

template <typename F>
void expect_model_error(F&& build, const std::string& fragment) {
    try {
        build();
        FAIL() << "expected ModelError containing '" << fragment << "'";
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

TEST(Expr, StructurallyEqualNodesAreTheSameObject) {
    const Expr a = scalar("x") * parameter("p") + 2.0;
    const Expr b = scalar("x") * parameter("p") + 2.0;
    EXPECT_EQ(a.id(), b.id());
    EXPECT_TRUE(a == b);
    EXPECT_FALSE(a == scalar("x") * parameter("p") + 3.0);
    EXPECT_EQ(a.structural_hash(), b.structural_hash());
}

TEST(Expr, DistinguishesPayloads) {
    EXPECT_FALSE(constant(0.0) == constant(-0.0));
    EXPECT_FALSE(constant(1.0) == constant(std::complex<double>(1.0, 0.0)));
    EXPECT_FALSE(p4_component("k", P4Component::kPx) == p4_component("k", P4Component::kPy));
    EXPECT_FALSE(powi(scalar("x"), 2) == powi(scalar("x"), 3));
    EXPECT_FALSE(parameter("p") == parameter("p", {.initial = 1.0}));
    EXPECT_FALSE(scalar("x").tagged("A") == scalar("x"));
    EXPECT_TRUE(scalar("x").tagged("A").tagged("B") == scalar("x").tagged("B").tagged("A"));
}

TEST(Expr, InterningIsThreadSafe) {
    std::vector<Expr> results(4, constant(0.0));
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < results.size(); ++t) {
        threads.emplace_back([&results, t]() {
            Expr e = scalar("thread_x");
            for (int i = 0; i < 500; ++i) {
                e = e * parameter("thread_p") + constant(static_cast<double>(i));
            }
            results[t] = e;  // kept alive, so equal nodes must share one address
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    for (const Expr& e : results) {
        EXPECT_EQ(e.id(), results[0].id());
    }
}

TEST(Expr, ReleasedNodesLeaveTheInternTable) {
    const std::size_t before = detail::intern_table_size();
    {
        const Expr e = sin(scalar("release_me")) + 12345.678;
        EXPECT_GE(detail::intern_table_size(), before + 3);
    }
    EXPECT_EQ(detail::intern_table_size(), before);
}

TEST(ValueKinds, FollowTheDocumentedRules) {
    const Expr x = scalar("x");
    const Expr z = complex(x, parameter("p"));
    EXPECT_EQ(x.value_kind(), ValueKind::real());
    EXPECT_EQ(z.value_kind(), ValueKind::complex());
    EXPECT_EQ((x + z).value_kind(), ValueKind::complex());
    EXPECT_EQ(sqrt(x).value_kind(), ValueKind::real());
    EXPECT_EQ(sqrt(as_complex(x)).value_kind(), ValueKind::complex());
    EXPECT_EQ(as_complex(z), z);
    EXPECT_EQ(norm_sqr(z).value_kind(), ValueKind::real());
    EXPECT_EQ(abs(z).value_kind(), ValueKind::real());
    EXPECT_EQ(arg(z).value_kind(), ValueKind::real());
    EXPECT_EQ(real(z).value_kind(), ValueKind::real());
    EXPECT_EQ(pow(x, 0.5).value_kind(), ValueKind::real());
    EXPECT_EQ(pow(z, 0.5).value_kind(), ValueKind::complex());
    EXPECT_EQ(cis(x).value_kind(), ValueKind::complex());
    EXPECT_EQ(polar_complex(x, x).value_kind(), ValueKind::complex());
    EXPECT_EQ(constant(std::complex<double>(2.0, 0.0)).value_kind(), ValueKind::complex());

    const Expr v = vector({x, z, 1.0});
    EXPECT_EQ(v.value_kind(), ValueKind::vector(3, true));
    EXPECT_EQ(v[0].value_kind(), ValueKind::real());  // literal vectors keep element kinds
    EXPECT_EQ(v[1].value_kind(), ValueKind::complex());
    const Expr m = matrix({{x, 1.0, 2.0}, {3.0, x, 4.0}});
    EXPECT_EQ(m.value_kind(), ValueKind::matrix(2, 3, false));
    EXPECT_EQ(matvec(m, vector({x, x, x})).value_kind(), ValueKind::vector(2, false));
    EXPECT_EQ(matmul(m, matrix({{x}, {x}, {x}})).value_kind(), ValueKind::matrix(2, 1, false));
    EXPECT_EQ(dot(v, v).value_kind(), ValueKind::complex());
    const Expr square = matrix({{x, 1.0}, {2.0, x}});
    EXPECT_EQ(solve(square, vector({1.0, 2.0})).value_kind(), ValueKind::vector(2, true));
    EXPECT_EQ(solve(square, vector({1.0, 2.0}))[1].value_kind(), ValueKind::complex());
    EXPECT_EQ((square * 2.0 + square).value_kind(), ValueKind::matrix(2, 2, false));
    EXPECT_EQ((-v).value_kind(), v.value_kind());
    EXPECT_EQ(m.at(1, 2).value_kind(), ValueKind::real());
    EXPECT_EQ(zero_of(ValueKind::matrix(2, 2, true)).value_kind(), ValueKind::matrix(2, 2, true));
}

TEST(ValueKinds, MismatchesNameBothKindsAndTheOperation) {
    const Expr x = scalar("x");
    const Expr v = vector({x, x, x});
    const Expr m = matrix({{x, x}, {x, x}});
    expect_model_error([&] { (void)(v + m); }, "cannot add Vector(3) and Matrix(2x2)");
    expect_model_error([&] { (void)(v - x); }, "cannot subtract Vector(3) and Real");
    expect_model_error([&] { (void)(v * v); }, "cannot multiply Vector(3) and Vector(3)");
    expect_model_error([&] { (void)(x / v); }, "cannot divide Real and Vector(3)");
    expect_model_error([&] { (void)solve(matrix({{x, x, x}, {x, x, x}}), vector({x, x})); },
                       "solve needs a square matrix, got Matrix(2x3)");
    expect_model_error([&] { (void)solve(m, v); }, "solve needs a Vector(2) right-hand side");
    expect_model_error([&] { (void)atan2(complex(x, x), x); },
                       "atan2 needs Real operands, got Complex");
    expect_model_error([&] { (void)complex(complex(x, x), x); }, "complex needs Real operands");
    expect_model_error([&] { (void)sqrt(v); }, "sqrt needs a scalar operand, got Vector(3)");
    expect_model_error([&] { (void)v[3]; }, "component index 3 out of range for Vector(3)");
    expect_model_error([&] { (void)x[0]; }, "component needs a Vector, got Real");
    expect_model_error([&] { (void)m.at(2, 0); }, "out of range for Matrix(2x2)");
    expect_model_error([&] { (void)matmul(m, matrix({{x, x, x}})); },
                       "cannot matmul Matrix(2x2) and Matrix(1x3)");
    expect_model_error([&] { (void)matvec(m, v); }, "cannot matvec Matrix(2x2) and Vector(3)");
    expect_model_error([&] { (void)dot(v, vector({x})); }, "cannot dot Vector(3) and Vector(1)");
    expect_model_error([&] { (void)matrix(2, 2, {x, x, x}); },
                       "a 2x2 matrix needs 4 elements, got 3");
    expect_model_error([&] { (void)matrix({{x, x}, {x}}); }, "equal lengths");
    expect_model_error([&] { (void)vector({}); }, "at least one element");
    expect_model_error([&] { (void)vector({v}); }, "vector needs a scalar operand");
    expect_model_error([&] { (void)scalar(""); }, "non-empty");
}

TEST(Parameters, AreValidatedWhenCreated) {
    expect_model_error([] { (void)parameter(""); }, "non-empty name");
    expect_model_error([] { (void)parameter("m", {.bounds = Bounds{2.0, 1.0}}); },
                       "parameter 'm': bounds [2, 1] need lower < upper");
    expect_model_error([] { (void)parameter("m", {.initial = 5.0, .bounds = Bounds{0.0, 1.0}}); },
                       "initial value 5 is outside bounds [0, 1]");
    expect_model_error([] { (void)parameter("m", {.bounds = Bounds{0.0, 1.0}, .fixed = -1.0}); },
                       "fixed value -1 is outside bounds");
}

TEST(Tags, ProjectionKeepsInterferenceBetweenKeptAmplitudes) {
    const Expr a1 = (parameter("c1") * complex(scalar("x"), 1.0)).tagged("A1");
    const Expr a2 = (parameter("c2") * cis(scalar("y"))).tagged("A2");
    const Expr a3 = (parameter("c3") * as_complex(scalar("x"))).tagged("A3");
    const Expr intensity = norm_sqr(a1 + a2 + a3);
    const Expr zero = constant(std::complex<double>(0.0, 0.0));
    EXPECT_EQ(project(intensity, {"A1"}), norm_sqr(a1 + zero + zero));
    EXPECT_EQ(project(intensity, {"A1", "A2"}), norm_sqr(a1 + a2 + zero));
    EXPECT_EQ(project(intensity, {"A1", "A2", "A3"}), intensity);
    EXPECT_EQ(collect_tags(intensity), (std::vector<std::string>{"A1", "A2", "A3"}));
    EXPECT_TRUE(collect_tags(strip_tags(intensity)).empty());
}

TEST(Tags, ProjectionZerosAggregatesWithTheirShape) {
    const Expr v = vector({scalar("x"), scalar("y")}).tagged("V");
    const Expr e = dot(v, vector({1.0, 2.0}));
    EXPECT_EQ(project(e, {}), dot(zero_of(ValueKind::vector(2, false)), vector({1.0, 2.0})));
}

TEST(Traversal, VisitsEachNodeOnceChildrenFirst) {
    const Expr x = scalar("x");
    const Expr s = sin(x);
    const Expr e = s * s + x;
    const std::vector<Expr> order = topological_order(e);
    ASSERT_EQ(order.size(), 4U);
    EXPECT_EQ(order[0], x);
    EXPECT_EQ(order[1], s);
    EXPECT_EQ(order[3], e);
}

TEST(Traversal, RewriteBottomUpRebuildsParents) {
    const Expr x = scalar("x");
    const Expr e = sin(x) + cos(x);
    const Expr y = scalar("y");
    const Expr r = rewrite_bottom_up(e, [&](const Expr& n) { return n == x ? y : n; });
    EXPECT_EQ(r, sin(y) + cos(y));
}

TEST(Traversal, HandlesDeepChainsAndDestroysThemWithoutRecursion) {
    Expr e = scalar("x");
    for (int i = 0; i < 50000; ++i) {
        e = e + 1.0;
    }
    EXPECT_EQ(node_count(e), 50002U);
}

// An expression that dies after its thread's thread_local destructors have run (one held by a
// thread_local constructed before the thread first released a node, or one in static storage
// at exit) is still destroyed, children and all, with no use of destroyed state.
TEST(Traversal, AnExpressionDyingAfterItsThreadsLocalsIsDestroyed) {
    const std::size_t before = detail::intern_table_size();
    std::thread([] {
        struct Holder {
            Expr held;
        };
        thread_local Holder holder{scalar("late") * 2.0 + 3.0};
        // A node released now sets up the thread's release state after `holder` exists.
        {
            const Expr temporary = scalar("early") + 1.0;
        }
        EXPECT_NE(node_count(holder.held), 0U);
    }).join();
    EXPECT_EQ(detail::intern_table_size(), before);
}

}  // namespace
}  // namespace laddu::expr
