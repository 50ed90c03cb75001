// Run under mpirun -np 1, 2 and 3 with distributed_mpi_test.cpp's main: distributed::fit drives
// the minimiser on rank 0 and returns, on every rank, the result fit::fit finds in one process
// (values bit for bit, same evaluation counts); errors on rank 0 raise on every rank.
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/distributed/distributed_fit.hpp>
#include <laddu/distributed/mpi_collective.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/runtime/prepared_model.hpp>
#include <laddu/runtime/reduce.hpp>

namespace laddu::distributed {
namespace {

using expr::Expr;

// Σ_i w_i [(a − x_i)² + (b − y_i)² + 0.3 (a b − x_i y_i)²]: a smooth bowl over 3.5 chunks.
struct Bowl {
    std::vector<double> x, y, w;
    data::Dataset dataset;
    compile::CompiledModel compiled;
};

Bowl make_bowl() {
    Bowl b;
    std::mt19937_64 rng(11);
    std::normal_distribution<double> g(0.0, 1.0);
    for (std::size_t i = 0; i < 3 * runtime::kReductionChunk + 2048; ++i) {
        b.x.push_back(0.7 + g(rng));
        b.y.push_back(-0.4 + 0.5 * g(rng));
        b.w.push_back(1.0 + 0.1 * g(rng));
    }
    const std::vector<data::ScalarInput> scalars{{"x", b.x}, {"y", b.y}};
    b.dataset = data::Dataset::from_arrays(std::span<const data::P4Input>{}, scalars, b.w);
    const Expr a = expr::parameter("a");
    const Expr bb = expr::parameter("b");
    const Expr x = expr::scalar("x");
    const Expr y = expr::scalar("y");
    const Expr f =
        (a - x) * (a - x) + (bb - y) * (bb - y) + 0.3 * (a * bb - x * y) * (a * bb - x * y);
    b.compiled = compile::compile_model(expr::Model(f));
    return b;
}

runtime::Execution serial() {
    runtime::Execution execution;
    execution.threads = 1;
    return execution;
}

// `compiled` prepared on this rank's share of `dataset`, one thread per rank.
runtime::PreparedModel prepare_over_ranks(const compile::CompiledModel& compiled,
                                          const data::Dataset& dataset, Partitioning partitioning) {
    runtime::Execution execution = serial();
    execution.collective = mpi_collective(partitioning);
    return runtime::PreparedModel::prepare(compiled, dataset, execution);
}

template <typename Reducer>
fit::Objective objective_of(const Reducer& reducer, runtime::ReductionTransform transform) {
    fit::Objective objective;
    objective.dimension = 2;
    objective.value_and_gradient = [&reducer, transform](std::span<const double> x) {
        const runtime::Evaluation e = reducer.reduce_with_gradient(x, transform);
        return runtime::Evaluation{e.value, e.gradient};
    };
    objective.value = [&reducer, transform](std::span<const double> x) {
        return reducer.reduce(x, transform);
    };
    return objective;
}

// Bit patterns, so NaN entries compare equal to themselves.
std::vector<std::uint64_t> bits(const std::vector<double>& values) {
    std::vector<std::uint64_t> out;
    for (const double v : values) {
        out.push_back(std::bit_cast<std::uint64_t>(v));
    }
    return out;
}

void expect_same_fit(const fit::FitResult& got, const fit::FitResult& expected) {
    EXPECT_EQ(got.names, expected.names);
    EXPECT_EQ(got.start, expected.start);
    EXPECT_EQ(got.values, expected.values);
    EXPECT_EQ(got.value, expected.value);
    EXPECT_EQ(bits(got.uncertainties), bits(expected.uncertainties));
    EXPECT_EQ(bits(got.covariance), bits(expected.covariance));
    EXPECT_EQ(got.converged, expected.converged);
    EXPECT_EQ(got.termination, expected.termination);
    EXPECT_EQ(got.message, expected.message);
    EXPECT_EQ(got.iterations, expected.iterations);
    EXPECT_EQ(got.value_evaluations, expected.value_evaluations);
    EXPECT_EQ(got.gradient_evaluations, expected.gradient_evaluations);
}

TEST(DistributedFit, EveryRankReturnsTheOneProcessResult) {
    const Bowl b = make_bowl();
    const auto single = runtime::PreparedModel::prepare(b.compiled, b.dataset, serial());
    const std::vector<double> start{2.0, 1.0};
    for (const fit::Method method : {fit::Method::kLbfgsb, fit::Method::kNelderMead}) {
        fit::FitOptions options;
        options.minimizer.method = method;
        const fit::FitResult expected = fit::fit(
            objective_of(single, runtime::ReductionTransform::kReal), {"a", "b"}, start, options);
        ASSERT_TRUE(expected.converged) << expected.message;
        for (const Partitioning p : {Partitioning::kContiguous, Partitioning::kRows}) {
            const auto model = prepare_over_ranks(b.compiled, b.dataset, p);
            const fit::FitResult got =
                distributed::fit(objective_of(model, runtime::ReductionTransform::kReal),
                                 {"a", "b"}, start, options);
            expect_same_fit(got, expected);
        }
    }
}

TEST(DistributedFit, ResultsSurviveTheirByteString) {
    fit::FitResult r;
    r.names = {"a", "long name with spaces"};
    r.start = {1.0, -0.0};
    r.values = {0.1, 1e-300};
    r.uncertainties = {0.5, std::numeric_limits<double>::quiet_NaN()};
    r.covariance = {1.0, 2.0, 3.0, 4.0};
    r.correlation = {1.0, 0.5, 0.5, 1.0};
    r.value = -123.456;
    r.converged = true;
    r.termination = fit::Termination::kValueChange;
    r.message = "relative value change below tolerance";
    r.iterations = 17;
    r.value_evaluations = 40;
    r.gradient_evaluations = 39;
    r.wall_seconds = 0.25;
    const fit::FitResult back = deserialize_fit_result(serialize(r));
    EXPECT_EQ(back.names, r.names);
    EXPECT_EQ(back.values, r.values);
    EXPECT_TRUE(std::isnan(back.uncertainties[1]));
    EXPECT_EQ(back.covariance, r.covariance);
    EXPECT_EQ(back.termination, r.termination);
    EXPECT_EQ(back.message, r.message);
    EXPECT_EQ(back.gradient_evaluations, 39U);
    EXPECT_EQ(back.wall_seconds, 0.25);
    const std::string bytes = serialize(r);
    EXPECT_THROW((void)deserialize_fit_result(bytes.substr(0, bytes.size() - 3)), InternalError);
    EXPECT_THROW((void)deserialize_fit_result(bytes + "x"), InternalError);
}

TEST(DistributedFit, AMalformedStartOnRankZeroRaisesOnEveryRank) {
    const Bowl b = make_bowl();
    const auto model = prepare_over_ranks(b.compiled, b.dataset, Partitioning::kContiguous);
    const std::vector<double> start{2.0};  // one value for two parameters
    const auto begin = std::chrono::steady_clock::now();
    try {
        (void)distributed::fit(objective_of(model, runtime::ReductionTransform::kReal), {"a", "b"},
                               start);
        FAIL() << "no rank may return";
    } catch (const FitError& error) {
        EXPECT_NE(std::string(error.what()).find("start"), std::string::npos) << error.what();
    }
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count(),
              10.0);
}

TEST(DistributedFit, AnObjectiveThatCannotBeEvaluatedAtTheStartRaisesOnEveryRank) {
    const Bowl b = make_bowl();
    const auto model = prepare_over_ranks(b.compiled, b.dataset, Partitioning::kRows);
    // −(a² + x² + b² + 1) is negative everywhere: ln fails on every rank's chunks, the
    // collective raises on every rank, and rank 0's minimiser stops at its start point.
    const Expr a = expr::parameter("a");
    const Expr bb = expr::parameter("b");
    const Expr x = expr::scalar("x");
    const auto negative =
        compile::compile_model(expr::Model(-1.0 * (a * a + x * x + bb * bb + 1.0)));
    const auto broken = prepare_over_ranks(negative, b.dataset, Partitioning::kRows);
    const std::vector<double> start{0.5, 0.5};
    EXPECT_THROW(
        (void)distributed::fit(objective_of(broken, runtime::ReductionTransform::kLogPositiveReal),
                               {"a", "b"}, start),
        EvaluationError);
    // The ranks are still in step: a good fit right after works everywhere.
    const fit::FitResult again = distributed::fit(
        objective_of(model, runtime::ReductionTransform::kReal), {"a", "b"}, start);
    EXPECT_TRUE(again.converged) << again.message;
}

TEST(DistributedFit, RanksWithDifferentDimensionsFailTogether) {
    const MpiContext& world = MpiContext::world();
    if (world.size() < 2) {
        GTEST_SKIP() << "needs two ranks";
    }
    fit::Objective objective;
    objective.dimension = world.rank() == 1 ? 3 : 2;
    objective.value_and_gradient = [](std::span<const double> x) {
        return runtime::Evaluation{x[0] * x[0], std::vector<double>(x.size(), 0.0)};
    };
    std::vector<std::string> names(objective.dimension, "p");
    const std::vector<double> start(objective.dimension, 1.0);
    try {
        (void)distributed::fit(objective, names, start);
        FAIL() << "rank " << world.rank() << " did not raise";
    } catch (const FitError& error) {
        EXPECT_NE(std::string(error.what()).find("rank 1 of"), std::string::npos) << error.what();
    }
}

}  // namespace
}  // namespace laddu::distributed
