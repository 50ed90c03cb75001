// Expression-valued K-matrices through compile → autodiff → runtime: with constant (or fixed)
// pole masses the per-event solve is cached by precompute; with a free pole mass the solve is
// redone per evaluation, and its exact gradient (the parameter-dependent Solve rule) matches
// central finite differences for forward and reverse mode, interpreter and JIT.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/amplitudes/chew_mandelstam.hpp>
#include <laddu/amplitudes/k_matrix.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/runtime/prepared_model.hpp>

namespace laddu {
namespace {

using expr::Expr;

// s below both thresholds (π π, K K̄), between them, near and above the poles.
const std::vector<double> kS = {0.05, 0.3, 0.75, 0.96, 1.1, 1.7, 2.4, 3.3};

data::Dataset dataset() {
    const std::vector<data::ScalarInput> scalars = {{"s", kS}};
    return data::Dataset::from_scalars(scalars);
}

// |F_0|² + |F_1|² of a 2-channel, 2-pole, L = 1 K-matrix with Chew-Mandelstam phase space.
// `m0` is the first pole mass and `g11` the second pole's coupling to K K̄ (constants, fixed
// or free parameters); both production couplings are free.
expr::Model two_channel_model(const Expr& m0, const Expr& g11 = expr::parameter("g11")) {
    const Expr s = expr::scalar("s");
    const Expr pole_masses = expr::vector({m0, Expr(1.45)});
    const Expr couplings = expr::matrix({{Expr(0.62), Expr(-0.31)}, {Expr(0.41), g11}});
    const Expr m1 = expr::vector({0.13957039, 0.493677});
    const Expr m2 = expr::vector({0.13957039, 0.497611});
    const Expr barriers = amplitudes::blatt_weisskopf_barriers(s, m1, m2, pole_masses, 1, 0.1973);
    const Expr k = amplitudes::k_matrix(s, pole_masses, couplings, barriers,
                                        expr::matrix({{0.1, -0.05}, {-0.05, 0.2}}));
    const Expr production =
        expr::vector({expr::complex(expr::parameter("b0 re"), expr::parameter("b0 im")),
                      expr::complex(expr::parameter("b1 re"), expr::parameter("b1 im"))});
    const Expr p = amplitudes::p_vector(s, pole_masses, production, couplings, barriers);
    const Expr c = expr::vector({amplitudes::chew_mandelstam(s, 0.13957039, 0.13957039),
                                 amplitudes::chew_mandelstam(s, 0.493677, 0.497611)});
    const Expr f = amplitudes::f_vector(s, pole_masses, k, p, c);
    return expr::Model(expr::norm_sqr(expr::component(f, 0)) +
                       expr::norm_sqr(expr::component(f, 1)));
}

std::size_t count_solves(const ir::Program& program) {
    return static_cast<std::size_t>(
        std::count_if(program.instructions.begin(), program.instructions.end(),
                      [](const ir::Instruction& inst) { return inst.op == ir::OpCode::kSolve; }));
}

TEST(KMatrixBlocksPipeline, ConstantOrFixedPoleMassesCacheTheSolve) {
    for (const Expr& m0 : {Expr(0.98), expr::parameter("m0", {.fixed = 0.98})}) {
        const auto compiled = compile::compile_model(two_channel_model(m0, 0.77));
        EXPECT_EQ(compiled.parameters.free_count(), 4U);
        EXPECT_EQ(count_solves(compiled.evaluate), 0U) << compiled.cache_plan.summary();
        EXPECT_GT(compiled.cache_plan.bytes_per_event(), 0U);
    }
}

TEST(KMatrixBlocksPipeline, FreePoleMassSolvesPerEvaluation) {
    const auto compiled =
        compile::compile_model(two_channel_model(expr::parameter("m0", {.initial = 0.98})));
    EXPECT_EQ(compiled.parameters.free_count(), 6U);
    EXPECT_GT(count_solves(compiled.evaluate), 0U);
}

TEST(KMatrixBlocksPipeline, FreePoleMassGradientMatchesCentralDifferences) {
    const Expr m0 = expr::parameter("m0", {.initial = 0.98});
    const auto compiled = compile::compile_model(two_channel_model(m0));
    const auto names = compiled.parameters.free_names();
    std::vector<double> params(names.size());
    for (std::size_t k = 0; k < names.size(); ++k) {
        params[k] = names[k] == "m0" ? 0.98 : 0.3 + 0.11 * static_cast<double>(k);
    }
    for (const auto mode : {runtime::AutodiffMode::kForward, runtime::AutodiffMode::kReverse}) {
        for (const auto jit : {runtime::JitPolicy::kDisabled, runtime::JitPolicy::kAuto}) {
            runtime::Execution execution;
            execution.threads = 1;
            execution.autodiff = mode;
            execution.jit = jit;
            const auto prepared = runtime::PreparedModel::prepare(compiled, dataset(), execution);
            const auto exact =
                prepared.reduce_with_gradient(params, runtime::ReductionTransform::kReal);
            ASSERT_EQ(exact.gradient.size(), names.size());
            for (std::size_t k = 0; k < names.size(); ++k) {
                const double h = 1e-6;
                auto up = params;
                auto down = params;
                up[k] += h;
                down[k] -= h;
                const double fd = (prepared.reduce(up, runtime::ReductionTransform::kReal) -
                                   prepared.reduce(down, runtime::ReductionTransform::kReal)) /
                                  (2.0 * h);
                EXPECT_NEAR(exact.gradient[k], fd, 1e-6 * std::max(1.0, std::abs(fd)))
                    << names[k]
                    << (mode == runtime::AutodiffMode::kForward ? " forward" : " reverse")
                    << (jit == runtime::JitPolicy::kDisabled ? " interp" : " jit");
            }
        }
    }
}

// The free-mass model evaluated at m0 = 0.98 equals the constant-mass model.
TEST(KMatrixBlocksPipeline, FreeAndConstantPoleMassAgree) {
    const auto free = compile::compile_model(two_channel_model(expr::parameter("m0")));
    const auto constant = compile::compile_model(two_channel_model(Expr(0.98)));
    runtime::Execution execution;
    execution.threads = 1;
    const auto a = runtime::PreparedModel::prepare(free, dataset(), execution);
    const auto b = runtime::PreparedModel::prepare(constant, dataset(), execution);
    const auto values = [](const compile::CompiledModel& model) {
        std::vector<double> v;
        for (const std::string& name : model.parameters.free_names()) {
            v.push_back(name == "m0" ? 0.98 : 0.4);
        }
        return v;
    };
    const auto pa = values(free);
    const auto pb = values(constant);
    const auto va = a.evaluate(pa);
    const auto vb = b.evaluate(pb);
    ASSERT_EQ(va.size(), vb.size());
    for (std::size_t i = 0; i < va.size(); ++i) {
        EXPECT_NEAR(va[i].real(), vb[i].real(), 1e-10 * std::abs(vb[i].real())) << "s = " << kS[i];
    }
}

}  // namespace
}  // namespace laddu
