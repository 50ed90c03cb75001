#include <algorithm>
#include <bit>
#include <cstdlib>
#include <random>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/expr/print.hpp>
#include <laddu/ir/print.hpp>

#include "scoped_env.hpp"
#include "test_support/kmatrix_model.hpp"
#include "test_support/reference.hpp"

namespace laddu::compile {
namespace {

using expr::Expr;
using testing::close;

const Expr kX = expr::scalar("x");
const Expr kY = expr::scalar("y");

// The compiled programs agree with the reference evaluator of the source expression, with and
// without optimisation, on random events and parameters.
void expect_agreement(const expr::Model& model, double lo = 0.2, double hi = 1.5) {
    const CompiledModel optimized = compile_model(model);
    const CompiledModel plain = compile_model(model, {.optimize = false});
    std::mt19937 rng(42);
    for (int trial = 0; trial < 20; ++trial) {
        const auto event = testing::random_event(model.expression(), rng, lo, hi);
        const auto params = testing::random_params(model.parameters(), rng);
        const auto expected = testing::evaluate_reference(model.expression(), params, event).at(0);
        const auto a = testing::run_compiled(optimized, event, params);
        const auto b = testing::run_compiled(plain, event, params);
        EXPECT_TRUE(close(a, expected, 1e-8)) << "optimised " << a << " vs " << expected;
        EXPECT_TRUE(close(b, expected, 1e-8)) << "unoptimised " << b << " vs " << expected;
    }
}

expr::Model coherent_sum() {
    const Expr c1 = expr::complex(expr::parameter("c1 re"), expr::parameter("c1 im"));
    const Expr c2 = expr::complex(expr::parameter("c2 re"), expr::parameter("c2 im"));
    const Expr a1 = expr::cis(kX) * kY;
    const Expr a2 = expr::complex(kX * kX, kY);
    return expr::Model(expr::norm_sqr(c1 * a1 + c2 * a2) + expr::norm_sqr(c2 * expr::conj(a1)));
}

TEST(CompileModel, ProgramsAgreeWithTheReferenceEvaluator) {
    expect_agreement(coherent_sum());
    const Expr p = expr::parameter("p", {.initial = 0.5});
    const Expr m = expr::matrix({{kX + 2.0, kY}, {kY * kX, 3.0 + kX}});
    expect_agreement(expr::Model(expr::norm_sqr(expr::solve(m, expr::vector({p, p * kX}))[1])));
    expect_agreement(expr::Model(
        expr::real(expr::exp(expr::complex(p, kX)) * expr::sqrt(expr::as_complex(kY - 1.0)))));
    expect_agreement(expr::Model(
        expr::abs(expr::dot(expr::matvec(m * p, expr::vector({kX, 1.0})), expr::vector({1.0, p}))) +
        expr::atan2(kY, p) * expr::powi(kX, -2) + expr::pow(kX, p)));
}

TEST(CompileModel, AggregateOperationsAreScalarised) {
    const Expr p = expr::parameter("p");
    const Expr v = expr::vector({kX, expr::cis(kY)});
    const Expr w = expr::vector({p, kX * p});
    const Expr m = expr::matrix({{kX, p}, {1.0, kY}});
    const Expr e = expr::dot(-v + expr::conj(w) * 2.0, v - w / p) +
                   expr::matmul(m, expr::matmul(m, m)).at(1, 0) + expr::matvec(m, w)[1];
    expect_agreement(expr::Model(expr::norm_sqr(e)));
}

TEST(CompileModel, KmatrixStandInAgreesWithTheReferenceEvaluator) {
    expect_agreement(testing::kmatrix_benchmark_model(), 0.1, 0.9);  // |P_gamma| < 1
}

TEST(CompileModel, GoldenIrForASmallModel) {
    const Expr c = expr::complex(expr::parameter("a"), expr::parameter("b"));
    const CompiledModel compiled = compile_model(expr::Model(expr::norm_sqr(c * expr::cis(kX))));
    // |c cis(x)|^2 = |c|^2 |cis(x)|^2: the event factor is one Real column.
    EXPECT_EQ(ir::to_string(compiled.precompute), "program: 1 input, 0 parameters, 1 output\n"
                                                  "input 0 real \"x\"\n"
                                                  "output 0 %4 \"cache0\"\n"
                                                  "%0 = load.r 0  ; event\n"
                                                  "%1 = cos.r %0  ; event\n"
                                                  "%2 = sin.r %0  ; event\n"
                                                  "%3 = complex.c %1, %2  ; event\n"
                                                  "%4 = norm_sqr.r %3  ; event\n");
    EXPECT_EQ(ir::to_string(compiled.evaluate), "program: 1 input, 2 parameters, 1 output\n"
                                                "input 0 real \"cache0\"\n"
                                                "output 0 %5 \"intensity\"\n"
                                                "%0 = load.r 0  ; event\n"
                                                "%1 = param.r 0  ; invariant\n"
                                                "%2 = param.r 1  ; invariant\n"
                                                "%3 = complex.c %1, %2  ; invariant\n"
                                                "%4 = norm_sqr.r %3  ; invariant\n"
                                                "%5 = mul_n.r %0, %4  ; event\n");
}

TEST(CachePlan, CachesTheEventFrontierElementWise) {
    const Expr p = expr::parameter("p");
    // sin(x) and x*y are the PerEvent operands of parameter-dependent nodes; the vector is
    // cached element-wise through its components.
    const Expr v = expr::vector({expr::sin(kX), kX * kY});
    const CompiledModel compiled = compile_model(expr::Model(p * v[0] + expr::cis(p) * v[1]));
    EXPECT_EQ(compiled.cache_plan.columns.size(), 2U);
    EXPECT_EQ(compiled.cache_plan.real_columns(), 2U);
    EXPECT_EQ(compiled.cache_plan.bytes_per_event(), 16U);
    EXPECT_EQ(compiled.precompute.inputs.size(), 2U);
    EXPECT_EQ(compiled.precompute.inputs[0].name, "x");
}

TEST(CachePlan, ModelsWithoutParametersOrEvents) {
    const CompiledModel event_only = compile_model(expr::Model(expr::sin(kX) * kY));
    EXPECT_EQ(event_only.cache_plan.columns.size(), 1U);  // the root itself
    EXPECT_EQ(event_only.evaluate.size(), 1U);
    expect_agreement(expr::Model(expr::sin(kX) * kY));
    const CompiledModel constant = compile_model(expr::Model(expr::constant(2.0) * 3.0));
    EXPECT_FALSE(constant.has_precompute());
    EXPECT_EQ(testing::run_compiled(constant, {}, {}), std::complex<double>(6.0, 0.0));
}

// The SolveRow lowering serves solves whose right-hand side is not linear in coefficients;
// with a linear one collect_coefficients writes the component as Σ_j (M⁻¹)_ij b_j first
// (CollectCoefficients tests below), so these tests turn that pass off.
CompileOptions without_collection() {
    CompileOptions options;
    options.disabled_passes.insert("collect_coefficients");
    return options;
}

TEST(CachePlan, SolveRowCachesOnlyTheNeededInverseRows) {
    const Expr p = expr::parameter("p");
    const Expr q = expr::parameter("q");
    const Expr m = expr::matrix({{kX + 2.0, kY, 0.5}, {kY, 3.0, kX}, {1.0, kX, 4.0}});
    const expr::Model model(expr::norm_sqr(expr::solve(m, expr::vector({p, q, p * q}))[2]));
    const CompiledModel compiled = compile_model(model, without_collection());
    EXPECT_EQ(compiled.cache_plan.inverse_row_columns(), 3U);  // one row of a 3x3 inverse
    EXPECT_EQ(compiled.cache_plan.complex_columns(), 3U);
    EXPECT_EQ(compiled.report.evaluate_stats.count(ir::OpCode::kSolve), 0U);
    EXPECT_EQ(compiled.report.evaluate_stats.count(ir::OpCode::kDot), 1U);
    EXPECT_EQ(compiled.report.precompute_stats.count(ir::OpCode::kSolve), 1U);
    expect_agreement(model);
}

TEST(CachePlan, GoldenIrForTheSolveRowSpecialisation) {
    const Expr p = expr::parameter("p");
    const Expr m = expr::matrix({{kX, 1.0}, {2.0, kY}});
    const CompiledModel compiled = compile_model(
        expr::Model(expr::real(expr::solve(m, expr::vector({p, 1.0}))[0])), without_collection());
    // Row 0 of M^-1 solves M^T y = e_0; evaluate dots it with the rhs.
    EXPECT_EQ(ir::to_string(compiled.precompute),
              "program: 2 inputs, 0 parameters, 2 outputs\n"
              "input 0 real \"x\"\n"
              "input 1 real \"y\"\n"
              "output 0 %7 \"cache0\"\n"
              "output 1 %8 \"cache1\"\n"
              "%0 = load.r 0  ; event\n"
              "%1 = const.r 2  ; invariant\n"
              "%2 = const.r 1  ; invariant\n"
              "%3 = load.r 1  ; event\n"
              "%4 = const.r 1  ; invariant\n"
              "%5 = const.r 0  ; invariant\n"
              "%6 = solve.v %0, %1, %2, %3, %4, %5, n=2, m=1  ; event\n"
              "%7 = extract.c %6, i=0  ; event\n"
              "%8 = extract.c %6, i=1  ; event\n");
    EXPECT_EQ(ir::to_string(compiled.evaluate), "program: 2 inputs, 1 parameter, 1 output\n"
                                                "input 0 complex \"cache0\"\n"
                                                "input 1 complex \"cache1\"\n"
                                                "output 0 %5 \"intensity\"\n"
                                                "%0 = param.r 0  ; invariant\n"
                                                "%1 = const.r 1  ; invariant\n"
                                                "%2 = load.c 0  ; event\n"
                                                "%3 = load.c 1  ; event\n"
                                                "%4 = dot.c %2, %3, %0, %1, n=2  ; event\n"
                                                "%5 = real.r %4  ; event\n");
}

TEST(CollectCoefficients, ASolveComponentCostsOneColumnPerCoefficient) {
    const Expr p = expr::parameter("p");
    const Expr q = expr::parameter("q");
    const Expr m = expr::matrix({{kX + 2.0, kY, 0.5}, {kY, 3.0, kX}, {1.0, kX, 4.0}});
    const expr::Model model(expr::norm_sqr(expr::solve(m, expr::vector({p, q, p * q}))[2]));
    const CompiledModel compiled = compile_model(model);
    // (M⁻¹)_20 p + (M⁻¹)_21 q + (M⁻¹)_22 pq: one Complex column per coefficient, read by
    // one dot of three coefficient products (no dot with an inverse row at every evaluation).
    EXPECT_EQ(compiled.cache_plan.inverse_row_columns(), 0U);
    EXPECT_EQ(compiled.cache_plan.complex_columns(), 3U);
    EXPECT_EQ(compiled.report.evaluate_stats.count(ir::OpCode::kDot), 1U);
    EXPECT_EQ(compiled.report.precompute_stats.count(ir::OpCode::kSolve), 1U);  // the row
    expect_agreement(model);
}

TEST(CollectCoefficients, EventFactorsGoIntoASumWithOneUseAndCoefficientsMerge) {
    const Expr p = expr::parameter("p");
    const Expr q = expr::parameter("q");
    // P-vector style: cis(x) · (p y + q sin x) + p x², collected as p (cis(x) y + x²) +
    // q cis(x) sin x: two Complex columns, where the written form needs cis(x), y, sin x, x².
    const Expr inner = p * kY + q * expr::sin(kX);
    const expr::Model model(expr::norm_sqr(expr::cis(kX) * inner + p * kX * kX));
    const CompiledModel collected = compile_model(model);
    const CompiledModel written = compile_model(model, without_collection());
    EXPECT_EQ(collected.cache_plan.columns.size(), 2U);
    EXPECT_GT(written.cache_plan.columns.size(), 2U);
    expect_agreement(model);
}

TEST(CollectCoefficients, ASumWithSeveralUsesIsNotCopiedIntoEach) {
    const Expr p = expr::parameter("p");
    const Expr q = expr::parameter("q");
    // S feeds two different event factors: distributing would cache x y, x sin x, y², y sin x
    // while y, sin x, x (and y again) are needed anyway by the written form.
    const Expr s = p * kY + q * expr::sin(kX);
    const expr::Model model(expr::real(kX * s) + expr::imag(expr::cis(kY) * s));
    const CompiledModel compiled = compile_model(model);
    EXPECT_LE(compiled.cache_plan.columns.size(),
              compile_model(model, without_collection()).cache_plan.columns.size());
    expect_agreement(model);
}

TEST(CachePlan, ParameterDependentMatrixSolvesPerEvaluation) {
    const Expr p = expr::parameter("p");
    const Expr m = expr::matrix({{kX + p, kY}, {kY, 3.0}});
    const expr::Model model(expr::norm_sqr(expr::solve(m, expr::vector({1.0, kX}))[0]));
    const CompiledModel compiled = compile_model(model);
    EXPECT_EQ(compiled.report.evaluate_stats.count(ir::OpCode::kSolve), 1U);
    EXPECT_EQ(compiled.cache_plan.inverse_row_columns(), 0U);
    expect_agreement(model);
}

TEST(CachePlan, ConstantMatrixIsSolvedAtCompileTime) {
    const Expr p = expr::parameter("p");
    const Expr m = expr::matrix({{2.0, 1.0}, {1.0, 3.0}});
    const expr::Model model(expr::norm_sqr(expr::solve(m, expr::vector({p, kX}))[0]));
    const CompiledModel compiled = compile_model(model);
    EXPECT_EQ(compiled.report.evaluate_stats.count(ir::OpCode::kSolve), 0U);
    EXPECT_EQ(compiled.report.precompute_stats.count(ir::OpCode::kSolve), 0U);
    expect_agreement(model);
}

TEST(CachePlan, ReportsTheKmatrixBenchmarkModel) {
    const expr::Model model = testing::kmatrix_benchmark_model();
    EXPECT_EQ(model.parameters().free_count(), 34U);
    EXPECT_EQ(model.parameters().fixed_indices().size(), 6U);
    const CompiledModel compiled = compile_model(model);
    std::cout << compiled.report.to_string(compiled.cache_plan);
    // Collected by coefficient (collect_coefficients): one complex column per free pole
    // coupling plus one for each K-matrix's fixed-coupling part, and the Z_lm factors; the
    // inverse rows are only inside those columns, so none is cached by itself.
    EXPECT_EQ(compiled.cache_plan.inverse_row_columns(), 0U);
    // Regression numbers of the current compiler (docs/compile.md): update them deliberately.
    // Before collect_coefficients: 71 columns (30 real, 41 complex), 896 bytes per event and
    // 183 event instructions in evaluate.
    EXPECT_EQ(compiled.cache_plan.columns.size(), 19U);
    EXPECT_EQ(compiled.cache_plan.real_columns(), 6U);
    EXPECT_EQ(compiled.cache_plan.complex_columns(), 13U);
    EXPECT_EQ(compiled.cache_plan.bytes_per_event(), 256U);
    // With the coupling sums fused into kDot (ir::fuse_dots).
    EXPECT_EQ(compiled.report.evaluate_stats.invariant_count, 54U);
    EXPECT_EQ(compiled.report.evaluate_stats.event_count, 28U);
    EXPECT_EQ(compiled.report.precompute_stats.invariant_count, 279U);
    EXPECT_EQ(compiled.report.precompute_stats.event_count, 715U);
    EXPECT_EQ(compiled.report.evaluate_stats.count(ir::OpCode::kSolve), 0U);
    EXPECT_EQ(compiled.report.precompute_stats.count(ir::OpCode::kSolve), 4U);
}

// sum_g |sum_a c_a A_a|^2 from the decomposition's programs equals the model's value.
void expect_hermitian_form_matches(const expr::Model& model, const NormalizationDecomposition& n,
                                   double lo, double hi) {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 10; ++trial) {
        const auto event = testing::random_event(model.expression(), rng, lo, hi);
        const auto params = testing::random_params(model.parameters(), rng);
        std::vector<double> free;
        for (const auto& name : model.parameters().free_names()) {
            free.push_back(params.at(name));
        }
        std::vector<std::complex<double>> inputs;
        for (const auto& slot : n.amplitude_program.inputs) {
            inputs.emplace_back(event.at(slot.name));
        }
        const auto c = testing::execute_program(n.coefficient_program, {}, free);
        const auto a = testing::execute_program(n.amplitude_program, inputs, {});
        std::vector<std::complex<double>> group_sum(n.group_count);
        for (std::size_t k = 0; k < c.size(); ++k) {
            group_sum[n.group[k]] += c[k] * a[k];
        }
        double hermitian = 0.0;
        for (const auto& g : group_sum) {
            hermitian += std::norm(g);
        }
        const auto expected = testing::evaluate_reference(model.expression(), params, event).at(0);
        EXPECT_TRUE(close(hermitian, expected, 1e-8)) << hermitian << " vs " << expected;
    }
}

TEST(Normalization, DecomposesACoherentSum) {
    const expr::Model model = coherent_sum();
    const CompiledModel compiled = compile_model(model);
    ASSERT_TRUE(compiled.normalization.has_value());
    const NormalizationDecomposition& n = *compiled.normalization;
    EXPECT_EQ(n.group_count, 2U);
    EXPECT_EQ(n.amplitudes.size(), 3U);
    expect_hermitian_form_matches(model, n, -1.0, 1.0);
}

TEST(Normalization, DoesNotApplyWhenAmplitudesDependOnParameters) {
    const Expr p = expr::parameter("p");
    EXPECT_FALSE(compile_model(expr::Model(expr::norm_sqr(expr::exp(expr::complex(p * kX, kY)))))
                     .normalization);
    // (|cis(x) p|² + p and Re(cis(x) p) are separable: normalization_test.cpp.)
}

TEST(Normalization, DecomposesTheKmatrixStandIn) {
    const CompiledModel compiled = compile_model(testing::kmatrix_benchmark_model());
    ASSERT_TRUE(compiled.normalization.has_value());
    EXPECT_EQ(compiled.normalization->group_count, 4U);
    // Per group one term per free coupling (12 for S+ and D+, 6 for S-) plus one constant-
    // coefficient term: the products with the coupling fixed at 0 (0 * x stays, x may be inf).
    // 13 + 7 + 13 + 7.
    EXPECT_EQ(compiled.normalization->amplitudes.size(), 40U);
    expect_hermitian_form_matches(testing::kmatrix_benchmark_model(), *compiled.normalization, 0.1,
                                  0.9);
}

// The amplitudes read from the model's cache columns have the bits of the amplitudes computed
// from the events: the statistics do not depend on which of the two a pass runs.
TEST(Normalization, CachedAmplitudesAreTheEventAmplitudesBits) {
    const expr::Model model = testing::kmatrix_benchmark_model();
    const CompiledModel compiled = compile_model(model);
    ASSERT_TRUE(compiled.normalization.has_value());
    const NormalizationDecomposition& n = *compiled.normalization;
    ASSERT_TRUE(n.cached_amplitude_program.has_value());
    // The cache columns, then the event columns of the factors the cache does not hold.
    const auto& slots = n.cached_amplitude_program->inputs;
    ASSERT_GT(slots.size(), compiled.evaluate.inputs.size());
    for (std::size_t k = 0; k < compiled.evaluate.inputs.size(); ++k) {
        EXPECT_EQ(slots[k], compiled.evaluate.inputs[k]);
    }
    std::mt19937 rng(11);
    for (int trial = 0; trial < 20; ++trial) {
        const auto event = testing::random_event(model.expression(), rng, 0.1, 0.9);
        std::vector<std::complex<double>> raw;
        for (const auto& slot : n.amplitude_program.inputs) {
            raw.emplace_back(event.at(slot.name));
        }
        std::vector<std::complex<double>> columns_in;
        for (const auto& slot : compiled.precompute.inputs) {
            columns_in.emplace_back(event.at(slot.name));
        }
        auto columns = testing::execute_program(compiled.precompute, columns_in, {});
        for (std::size_t k = columns.size(); k < slots.size(); ++k) {
            columns.emplace_back(event.at(slots[k].name));
        }
        const auto direct = testing::execute_program(n.amplitude_program, raw, {});
        const auto cached = testing::execute_program(*n.cached_amplitude_program, columns, {});
        ASSERT_EQ(direct.size(), cached.size());
        for (std::size_t a = 0; a < direct.size(); ++a) {
            EXPECT_EQ(std::bit_cast<std::uint64_t>(direct[a].real()),
                      std::bit_cast<std::uint64_t>(cached[a].real()))
                << "amplitude " << a;
            EXPECT_EQ(std::bit_cast<std::uint64_t>(direct[a].imag()),
                      std::bit_cast<std::uint64_t>(cached[a].imag()))
                << "amplitude " << a;
        }
    }
}

// The first round's passes leave nothing for one another to fold or reorder in the K-matrix
// model, so the second round changes nothing and the loop stops there, before its cse.
TEST(CompileModel, TheKmatrixModelReachesItsFixedPointInTheFirstRound) {
    const CompiledModel compiled = compile_model(testing::kmatrix_benchmark_model());
    EXPECT_EQ(compiled.report.rounds, 2);
    const std::ptrdiff_t loop_runs =
        std::count_if(compiled.report.passes.begin(), compiled.report.passes.end(),
                      [](const PassTiming& pass) { return pass.pass == "canonical_ordering"; });
    EXPECT_EQ(loop_runs, 2);
}

TEST(CompileModel, DisabledPassesAreSkipped) {
    const CompileOptions options{.disabled_passes = {"cse", "canonical_ordering"}};
    const CompiledModel compiled = compile_model(coherent_sum(), options);
    for (const PassTiming& t : compiled.report.passes) {
        EXPECT_NE(t.pass, "cse");
        EXPECT_NE(t.pass, "canonical_ordering");
    }
    const CompiledModel all = compile_model(coherent_sum());
    EXPECT_TRUE(std::any_of(all.report.passes.begin(), all.report.passes.end(),
                            [](const PassTiming& t) { return t.pass == "cse"; }));
}

TEST(CompileModel, DumpPrintsTheExpressionAfterEachPass) {
    ::testing::internal::CaptureStderr();
    (void)compile_model(coherent_sum(), {.dump_passes = true});
    const std::string dump = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(dump.find("=== after bake_fixed_parameters"), std::string::npos);
    EXPECT_NE(dump.find("=== after cse"), std::string::npos);
}

TEST(CompileModel, DumpIsEnabledByTheEnvironment) {
    laddu::testing::ScopedEnv env("LADDU_DUMP", "passes");
    ::testing::internal::CaptureStderr();
    (void)compile_model(coherent_sum());
    const std::string dump = ::testing::internal::GetCapturedStderr();
    env.unset("LADDU_DUMP");
    EXPECT_NE(dump.find("=== after algebraic_simplification"), std::string::npos);
    ::testing::internal::CaptureStderr();
    (void)compile_model(coherent_sum());
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST(CompileModel, FixedParametersAreBakedAndLeaveTheEvaluateProgram) {
    const expr::Model model = coherent_sum().fix("c1 im", 0.5);
    const CompiledModel compiled = compile_model(model);
    EXPECT_EQ(compiled.evaluate.parameter_count, 3U);
    expect_agreement(model);
}

TEST(CompileModel, SingularConstantMatrixIsACompileError) {
    const Expr m = expr::matrix({{1.0, 1.0}, {1.0, 1.0}});
    const expr::Model model(
        expr::norm_sqr(expr::solve(m, expr::vector({expr::parameter("p"), kX}))[0]));
    EXPECT_THROW((void)compile_model(model), CompileError);
}

TEST(CompileModel, UserErrorsAreModelErrors) {
    EXPECT_THROW((void)coherent_sum().fix("nope", 1.0), ModelError);
    EXPECT_THROW(expr::Model(expr::parameter("p", {.initial = 1.0}) * expr::parameter("p")),
                 ModelError);
    EXPECT_THROW((void)(expr::vector({kX}) + kX), ModelError);
    EXPECT_THROW((void)expr::solve(expr::matrix({{kX, kX}}), expr::vector({kX})), ModelError);
}

}  // namespace
}  // namespace laddu::compile
