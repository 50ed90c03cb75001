// The seed runtime's acceptance tests (seed-spec.md §9) on the interpreter, event caches,
// reductions and storage policies, through the whole pipeline: expression → compile_model →
// PreparedModel. docs/runtime.md maps every seed test to its GoogleTest.
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/runtime/prepared_model.hpp>

#include "test_reductions.hpp"

namespace laddu::runtime {
namespace {

using expr::Expr;
using Complex = std::complex<double>;

Expr param(const std::string& name, double initial) {
    return expr::parameter(name, {.initial = initial});
}

// Events with the given scalar columns (and weights, when given).
data::Dataset scalars(const std::vector<std::pair<std::string, std::vector<double>>>& columns,
                      const std::vector<double>& weights = {}) {
    std::vector<data::ScalarInput> inputs;
    for (const auto& [name, values] : columns) {
        inputs.push_back({name, values});
    }
    return data::Dataset::from_scalars(inputs, weights);
}

// One event with an unused column (for parameter-only expressions).
data::Dataset one_event() {
    return scalars({{"unused", {0.0}}});
}

Execution exec(ir::Precision precision = ir::Precision::kF64, std::size_t threads = 1,
               AutodiffMode mode = AutodiffMode::kAuto) {
    Execution e;
    e.threads = threads;
    e.precision = precision;
    e.autodiff = mode;
    e.jit = JitPolicy::kDisabled;
    return e;
}

struct Prepared {
    compile::CompiledModel compiled;
    PreparedModel model;
    std::vector<double> defaults;
};

Prepared prepare(const Expr& root, const data::EventData& data, const Execution& execution = exec(),
                 const compile::CompileOptions& options = {}) {
    compile::CompiledModel compiled = compile::compile_model(expr::Model(root), options);
    PreparedModel model = PreparedModel::prepare(compiled, data, execution);
    std::vector<double> defaults = compiled.parameters.free_defaults();
    return {std::move(compiled), std::move(model), std::move(defaults)};
}

// Seed 2.
TEST(SeedRuntime, EvaluatesScalarExpressionWithParameters) {
    const Expr z =
        expr::constant(2.0) * param("x", 3.0) + expr::complex(param("re", 1.0), param("im", 2.0));
    const Prepared p = prepare(expr::norm_sqr(z), one_event());
    EXPECT_EQ(p.model.evaluate_row(p.defaults, 0), Complex(53.0, 0.0));
}

// Seed 15.
TEST(SeedRuntime, EvaluatesEventScalars) {
    const Prepared p = prepare(expr::scalar("x") * 2.0, scalars({{"x", {3.0}}}));
    EXPECT_EQ(p.model.evaluate_row(p.defaults, 0), Complex(6.0, 0.0));
}

// Seed 33.
TEST(SeedRuntime, EvaluatesP4SchemaComponentsAndAtan2) {
    const std::vector<double> e{10.0}, px{3.0}, py{4.0}, pz{5.0};
    const std::vector<data::P4Input> p4s{{"p", e, px, py, pz}};
    const auto data = data::Dataset::from_arrays(p4s, std::span<const data::ScalarInput>{});
    const Expr pe = expr::p4_component("p", expr::P4Component::kE);
    const Expr ppx = expr::p4_component("p", expr::P4Component::kPx);
    const Expr ppy = expr::p4_component("p", expr::P4Component::kPy);
    const Prepared p = prepare(pe + ppx + expr::atan2(ppy, ppx), data);
    EXPECT_EQ(p.model.evaluate_row(p.defaults, 0).real(), 13.0 + std::atan2(4.0, 3.0));
}

// Seed 17: the interpreter-only policy runs the interpreter and agrees with kAuto; a wrong
// parameter vector is an error.
TEST(SeedRuntime, ExecutionModeSelectsTheRetainedInterpreter) {
    const Expr root = expr::sin(expr::scalar("x")) * param("s", 1.5);
    const auto data = scalars({{"x", {0.1, 0.2, 0.3}}});
    const Prepared interp = prepare(root, data);
    EXPECT_EQ(interp.model.backend(), "interpreter");
    Execution automatic = exec();
    automatic.jit = JitPolicy::kAuto;
    const Prepared autop = prepare(root, data, automatic);
    EXPECT_EQ(autop.model.evaluate(autop.defaults), interp.model.evaluate(interp.defaults));
    const std::vector<double> none;
    EXPECT_THROW((void)interp.model.evaluate(none), EvaluationError);
}

// Seed 18: parameter-only f32 arithmetic rounds to float; f64 does not.
TEST(SeedRuntime, ParameterOnlyKernelInF32) {
    const Expr root = param("x", 16777216.0) + param("y", 1.0);
    const Prepared f32 = prepare(root, one_event(), exec(ir::Precision::kF32));
    const Prepared f64 = prepare(root, one_event(), exec(ir::Precision::kF64));
    EXPECT_EQ(f32.model.evaluate_row(f32.defaults, 0).real(), 16777216.0);
    EXPECT_EQ(f64.model.evaluate_row(f64.defaults, 0).real(), 16777217.0);
    const Evaluation g = f32.model.reduce_with_gradient(f32.defaults, ReductionTransform::kReal);
    EXPECT_EQ(g.value, 16777216.0);
    EXPECT_EQ(g.gradient, (std::vector<double>{1.0, 1.0}));
}

// Seed 9: f32 ignores the autodiff mode.
TEST(SeedRuntime, F32ReverseGradientsEqualForward) {
    const Expr root = expr::sin(param("x", 0.7) * expr::scalar("s"));
    const auto data = scalars({{"s", {0.5, 1.5}}});
    const Prepared fwd = prepare(root, data, exec(ir::Precision::kF32, 1, AutodiffMode::kForward));
    const Prepared rev = prepare(root, data, exec(ir::Precision::kF32, 1, AutodiffMode::kReverse));
    EXPECT_EQ(fwd.model.reduce_with_gradient(fwd.defaults, ReductionTransform::kReal),
              rev.model.reduce_with_gradient(rev.defaults, ReductionTransform::kReal));
}

// Seed 21: f32 event arithmetic, f64 accumulation.
TEST(SeedRuntime, F32ReducesEventScalarArithmeticWithF64Accumulation) {
    const Prepared p = prepare(expr::scalar("x") + param("scale", 1.0),
                               scalars({{"x", {16777216.0}}}), exec(ir::Precision::kF32));
    EXPECT_EQ(p.model.reduce(p.defaults, ReductionTransform::kReal), 16777216.0);
}

// Seed 22: f32 complex linear algebra within 1e-6 of f64.
TEST(SeedRuntime, F32EvaluatesComplexLinearAlgebra) {
    const Expr scale = param("scale", 0.75);
    const Expr m = expr::matrix({{expr::constant(2.0), scale}, {expr::constant(0.5), 3.0 + scale}});
    const Expr v = expr::vector({expr::constant(1.0), scale});
    const Expr root = expr::dot(
        expr::vector({expr::constant(Complex(1.0, 0.0)), expr::constant(Complex(0.0, 1.0))}),
        expr::solve(m, v));
    const Prepared f32 = prepare(root, one_event(), exec(ir::Precision::kF32));
    const Prepared f64 = prepare(root, one_event(), exec(ir::Precision::kF64));
    const Complex a = f32.model.evaluate_row(f32.defaults, 0);
    const Complex b = f64.model.evaluate_row(f64.defaults, 0);
    EXPECT_NEAR(a.real(), b.real(), 1e-6);
    EXPECT_NEAR(a.imag(), b.imag(), 1e-6);
    EXPECT_NE(b.imag(), 0.0);
}

// Seed 23: a computed cache entry (sin x, in f64) is rounded to f32 when read.
TEST(SeedRuntime, F32EvaluatesComputedEventCacheEntries) {
    const Expr root = expr::sin(expr::scalar("x")) * param("scale", 2.0) + 16777216.0;
    const Prepared p = prepare(root, scalars({{"x", {1.0}}}), exec(ir::Precision::kF32));
    EXPECT_GE(p.model.cache().slot_count(), 1U);
    const Evaluation g = p.model.reduce_with_gradient(p.defaults, ReductionTransform::kReal);
    EXPECT_EQ(g.value, 16777218.0);
    EXPECT_EQ(g.gradient, std::vector<double>{static_cast<double>(std::sin(1.0f))});
}

// Seed 24 (our analogue of direct vs cached rows): in f32, a row evaluated alone equals the
// same row of a block evaluation, bit for bit.
TEST(SeedRuntime, F32RowAndBlockEvaluationsAreBitwiseEqual) {
    const Expr s = param("s", 0.3);
    const Expr x = expr::scalar("x");
    const Expr root =
        expr::exp(expr::sin(x) * s + param("o", 0.1)) + expr::norm_sqr(expr::complex(s, x));
    const Prepared p =
        prepare(root, scalars({{"x", {0.1, 0.7, -0.4, 2.0, 1.1}}}), exec(ir::Precision::kF32));
    const std::vector<Complex> all = p.model.evaluate(p.defaults);
    for (std::size_t row = 0; row < all.size(); ++row) {
        EXPECT_EQ(p.model.evaluate_row(p.defaults, row), all[row]) << row;
    }
}

// Seed 34: the cache alone evaluates the model; new parameters need no recaching.
TEST(SeedRuntime, BatchCacheEvaluatesWithoutTheOriginalEventBatch) {
    const Expr root = expr::sin(expr::real(expr::scalar("x"))) * param("scale", 2.0);
    const Prepared p = prepare(root, scalars({{"x", {0.5, 1.0}}}));
    const EventCache& cache = p.model.cache();
    EXPECT_EQ(std::vector<double>(cache.weights().begin(), cache.weights().end()),
              (std::vector<double>{1.0, 1.0}));
    ASSERT_EQ(cache.slot_count(), 1U);
    EXPECT_EQ(cache.kind(0), ir::ValueKind::kReal);
    EXPECT_EQ(cache.resident_bytes(), 64 + 2 * 8);  // the Real slot's cache line, the weights
    EXPECT_EQ(p.model.evaluate(p.defaults),
              (std::vector<Complex>{2.0 * std::sin(0.5), 2.0 * std::sin(1.0)}));
    const std::vector<double> three{3.0};
    EXPECT_EQ(p.model.evaluate(three),
              (std::vector<Complex>{3.0 * std::sin(0.5), 3.0 * std::sin(1.0)}));
}

// Seed 8: a materialised cache entry is a leaf for reverse mode; values are equal exactly.
TEST(SeedRuntime, ReverseCachedEventMaterializationIsALeaf) {
    const Expr root = param("scale", 1.5) * (expr::scalar("x") + expr::sin(expr::scalar("y")));
    const auto data = scalars({{"x", {0.1, 0.2, 0.3}}, {"y", {1.0, -1.0, 0.5}}});
    const Prepared fwd = prepare(root, data, exec(ir::Precision::kF64, 1, AutodiffMode::kForward));
    const Prepared rev = prepare(root, data, exec(ir::Precision::kF64, 1, AutodiffMode::kReverse));
    EXPECT_TRUE(fwd.compiled.has_precompute());
    const auto a = fwd.model.reduce_with_gradient(fwd.defaults, ReductionTransform::kReal);
    const auto b = rev.model.reduce_with_gradient(rev.defaults, ReductionTransform::kReal);
    EXPECT_EQ(a.value, b.value);
    ASSERT_EQ(a.gradient.size(), 1U);
    EXPECT_NEAR(a.gradient[0], b.gradient[0], 1e-12);
    EXPECT_NEAR(a.gradient[0], 0.6 + std::sin(1.0) + std::sin(-1.0) + std::sin(0.5), 1e-12);
}

// Seed 36: an event-only solve caches its inverse row; values and gradients are exact.
TEST(SeedRuntime, EventOnlySolveComponentsAreExact) {
    const Expr x = expr::scalar("x");
    const Expr root = expr::component(
        expr::solve(expr::matrix({{x + 2.0}}), expr::vector({param("rhs", 3.0)})), 0);
    const auto data = scalars({{"x", {0.0, 1.0}}});
    const Prepared p = prepare(root, data);
    EXPECT_EQ(p.model.evaluate(p.defaults), (std::vector<Complex>{1.5, 1.0}));
    for (const auto& [row, gradient] : {std::pair{0, 0.5}, std::pair{1, 1.0 / 3.0}}) {
        const Prepared one = prepare(root, data.slice(static_cast<std::size_t>(row), 1));
        const auto g = one.model.reduce_with_gradient(one.defaults, ReductionTransform::kReal);
        EXPECT_EQ(g.gradient, std::vector<double>{gradient}) << row;
    }
}

// Seed 41: a filtered dataset keeps the surviving events' weights.
TEST(SeedRuntime, CachedDatasetPreservesTransformedBatchesAndWeights) {
    const auto data = scalars({{"x", {0.5, 1.0}}}, {2.0, 3.0});
    const auto kept = data.select([](const data::EventBatch& batch, std::size_t row) {
        return batch.scalar_at(0, row) > 0.75;
    });
    const Prepared p = prepare(expr::scalar("x") * param("scale", 2.0), kept);
    EXPECT_EQ(p.model.events(), 1U);
    EXPECT_EQ(p.model.weights(), std::vector<double>{3.0});
    EXPECT_EQ(p.model.sum_weights(), 3.0);
    EXPECT_EQ(p.model.evaluate(p.defaults), std::vector<Complex>{2.0});
}

// The data of seeds 42 and 43: x = 1, 2, 3 with weights 2, 3, 4 in two batches.
data::EventData two_batches(data::MemoryPolicy policy) {
    const auto all = scalars({{"x", {1.0, 2.0, 3.0}}}, {2.0, 3.0, 4.0});
    const std::vector<data::EventBatch> batches{all.batch().slice(0, 2), all.batch().slice(2, 1)};
    return data::EventData::from_source(
        std::make_shared<data::MemorySource>(all.batch().schema_ptr(), batches), policy);
}

// Seed 42: weighted sums are exact and the same serial and parallel.
TEST(SeedRuntime, CachedDatasetWeightedReductionsMatchTheDatasetPath) {
    const Expr root = expr::scalar("x") * param("two", 2.0);
    Evaluation serial_gradient;
    for (const std::size_t threads : {1U, 2U}) {
        const Prepared p = prepare(root, two_batches(data::MemoryPolicy::kFastest),
                                   exec(ir::Precision::kF64, threads));
        EXPECT_EQ(p.model.sum_weights(), 9.0);
        EXPECT_EQ(p.model.reduce(p.defaults, ReductionTransform::kReal), 40.0);  // Σ w · 2x
        const auto g = p.model.reduce_with_gradient(p.defaults, ReductionTransform::kReal);
        EXPECT_EQ(g.value, 40.0);
        EXPECT_EQ(g.gradient, std::vector<double>{20.0});  // Σ w x
        if (threads == 1) {
            serial_gradient = g;
        }
        EXPECT_EQ(g, serial_gradient);
    }
}

// Seed 43: resident and streaming, serial and two threads, give the same reductions.
TEST(SeedRuntime, ReductionPlansMatchAcrossStorageAndThreadPolicies) {
    const Expr root = expr::scalar("x") * param("scale", 2.0) + 1.0;
    const double log_value = 2.0 * std::log(3.0) + 3.0 * std::log(5.0) + 4.0 * std::log(7.0);
    const double log_gradient = 2.0 / 3.0 + 6.0 / 5.0 + 12.0 / 7.0;
    for (const auto policy : {data::MemoryPolicy::kResident, data::MemoryPolicy::kStreaming}) {
        for (const std::size_t threads : {1U, 2U}) {
            const Prepared p =
                prepare(root, two_batches(policy), exec(ir::Precision::kF64, threads));
            EXPECT_EQ(p.model.is_resident(), policy == data::MemoryPolicy::kResident);
            EXPECT_EQ(p.model.reduce(p.defaults, ReductionTransform::kReal), 49.0);
            EXPECT_EQ(p.model.reduce(p.defaults, ReductionTransform::kPositiveReal), 49.0);
            const auto g =
                p.model.reduce_with_gradient(p.defaults, ReductionTransform::kLogPositiveReal);
            EXPECT_NEAR(g.value, log_value, 1e-12);
            ASSERT_EQ(g.gradient.size(), 1U);
            EXPECT_NEAR(g.gradient[0], log_gradient, 1e-12);
        }
    }
}

// Seed 44.
TEST(SeedRuntime, PositiveReductionReportsTheInvalidValue) {
    const Prepared p = prepare(expr::scalar("x") * param("one", 1.0), scalars({{"x", {-2.0}}}));
    try {
        (void)p.model.reduce(p.defaults, ReductionTransform::kLogPositiveReal);
        FAIL() << "a negative value went under the log";
    } catch (const EvaluationError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("LogPositiveReal reduction requires a positive finite real value, "
                               "got -2 at event 0"),
                  std::string::npos)
            << message;
    }
}

// Seed 45.
TEST(SeedRuntime, EvaluatesLinearAlgebraNodes) {
    const Expr m = expr::matrix(
        {{expr::constant(2.0), expr::constant(0.0)}, {expr::constant(0.0), expr::constant(4.0)}});
    const Expr root =
        expr::dot(expr::solve(m, expr::vector({expr::constant(8.0), param("b", 12.0)})),
                  expr::vector({expr::constant(1.0), expr::constant(1.0)}));
    const Prepared p = prepare(root, one_event());
    EXPECT_EQ(p.model.evaluate_row(p.defaults, 0), Complex(7.0, 0.0));
}

// Seed 49: optimised and unoptimised compiles agree (gradients to 1e-12, the eliminated
// parameter with a zero gradient). Values: to 4 ulp, not exactly as in laddu: our optimiser
// reassociates (canonical ordering, CSE), which may move the last bit.
TEST(SeedRuntime, OptimizedAndUnoptimizedPlansEvaluateTheSameExpression) {
    const Expr e = expr::p4_component("p", expr::P4Component::kE);
    const Expr pz = expr::p4_component("p", expr::P4Component::kPz);
    const Expr mass = expr::sqrt(e * e - pz * pz);
    const Expr solved =
        expr::component(expr::solve(expr::matrix({{expr::constant(2.0), expr::constant(1.0)},
                                                  {expr::constant(1.0), expr::constant(3.0)}}),
                                    expr::vector({param("a", 0.4), expr::constant(1.0)})),
                        1);
    const Expr z = expr::polar_complex(mass, param("phi", 0.3)) * expr::conj(solved) +
                   expr::cis(param("c", -0.2)) + param("unused", 0.7) * 0.0;
    const std::vector<double> ev{3.0, 4.0}, zero{0.0, 0.0}, pzv{1.0, 2.0};
    const std::vector<data::P4Input> p4s{{"p", ev, zero, zero, pzv}};
    const auto data = data::Dataset::from_arrays(p4s, std::span<const data::ScalarInput>{});
    const Prepared opt = prepare(expr::norm_sqr(z), data);
    const Prepared raw = prepare(expr::norm_sqr(z), data, exec(), {.optimize = false});
    ASSERT_EQ(opt.defaults, raw.defaults);
    const std::vector<Complex> vo = opt.model.evaluate(opt.defaults);
    const std::vector<Complex> vr = raw.model.evaluate(raw.defaults);
    ASSERT_EQ(vo.size(), vr.size());
    for (std::size_t i = 0; i < vo.size(); ++i) {
        EXPECT_NEAR(vo[i].real(), vr[i].real(), 4 * 0x1p-52 * std::abs(vr[i].real())) << i;
    }
    const auto a = opt.model.reduce_with_gradient(opt.defaults, ReductionTransform::kReal);
    const auto b = raw.model.reduce_with_gradient(raw.defaults, ReductionTransform::kReal);
    ASSERT_EQ(a.gradient.size(), 4U);
    for (std::size_t k = 0; k < a.gradient.size(); ++k) {
        EXPECT_NEAR(a.gradient[k], b.gradient[k], 1e-12) << k;
    }
    EXPECT_EQ(a.gradient[3], 0.0);  // "unused"
}

}  // namespace
}  // namespace laddu::runtime
