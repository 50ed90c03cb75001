// The autodiff API: errors, output layout, sparsity, invariance, accumulation, Auto.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/autodiff/gradient.hpp>
#include <laddu/base/error.hpp>
#include <laddu/ir/builder.hpp>
#include <laddu/ir/fuse_dots.hpp>

#include "testing/gradient_check.hpp"

namespace laddu::autodiff {
namespace {

using ir::OpCode;
using ir::ValueId;
using testing::Complex;
using testing::run_reference;

std::size_t count_op(const ir::Program& program, OpCode op) {
    std::size_t n = 0;
    for (const ir::Instruction& inst : program.instructions) {
        n += inst.op == op ? 1U : 0U;
    }
    return n;
}

// |Σ_k (p_{2k} + i p_{2k+1}) A_k|² with A_k cached Complex columns: 2·terms parameters.
ir::Program coherent_sum(std::uint32_t terms) {
    ir::Builder b;
    std::vector<ValueId> products;
    for (std::uint32_t k = 0; k < terms; ++k) {
        const ValueId amplitude =
            b.load(b.add_input("A" + std::to_string(k), ir::ValueKind::kComplex));
        const ValueId coupling = b.complex(b.param(2 * k), b.param(2 * k + 1));
        products.push_back(b.binary(OpCode::kMul, coupling, amplitude));
    }
    b.add_output(b.unary(OpCode::kNormSqr, b.add_n(products)), "intensity");
    return b.finish();
}

TEST(Gradient, InvalidPrimalIsCompileError) {
    ir::Program empty;  // no outputs
    try {
        (void)forward(empty);
        FAIL() << "expected CompileError";
    } catch (const CompileError& error) {
        EXPECT_NE(std::string(error.what()).find("autodiff::forward needs a valid program"),
                  std::string::npos);
        EXPECT_NE(std::string(error.what()).find("no outputs"), std::string::npos);
    }
    ir::Program bad;
    bad.instructions.push_back(ir::Instruction{});
    bad.instructions[0].op = ir::OpCode::kParam;
    bad.instructions[0].attr = 3;  // parameter_count is 0
    bad.outputs.push_back(ir::value_id(0));
    EXPECT_THROW((void)reverse(bad), CompileError);
    try {
        (void)gradient(bad);
    } catch (const CompileError& error) {
        EXPECT_NE(std::string(error.what()).find("autodiff::"), std::string::npos);
    }
}

TEST(Gradient, OutputsAreValueThenOneDerivativePerParameterWithNames) {
    const ir::Program program = coherent_sum(2);
    for (const ir::Program& g : {forward(program), reverse(program)}) {
        ASSERT_EQ(g.outputs.size(), 5U);
        ASSERT_EQ(g.output_names.size(), 5U);
        EXPECT_EQ(g.output_names[0], "intensity");
        EXPECT_EQ(g.output_names[3], "d(intensity)/d(p2)");
        EXPECT_EQ(g.inputs, program.inputs);
        EXPECT_EQ(g.parameter_count, program.parameter_count);
    }
}

TEST(Gradient, UnusedParametersGetZeroAndRepeatedParamsAccumulate) {
    ir::Builder b;
    b.set_parameter_count(3);
    const ValueId first = b.param(0);
    const ValueId second = b.param(0);  // the same parameter, another instruction
    b.add_output(b.binary(OpCode::kMul, first, second));
    const ir::Program program = b.finish();
    const std::vector<double> params{1.5, 2.0, 3.0};
    for (const ir::Program& g : {forward(program), reverse(program)}) {
        const auto out = run_reference(g, params, {});
        EXPECT_EQ(out[1], Complex(3.0));
        EXPECT_EQ(out[2], Complex(0.0));
        EXPECT_EQ(out[3], Complex(0.0));
    }
}

TEST(Gradient, EventLeavesAndConstantsCarryNoDerivatives) {
    // sin(load)·p0: sin(load) depends on no parameter, so no kCos is emitted in either mode.
    ir::Builder b;
    const ValueId s = b.unary(OpCode::kSin, b.load(b.add_input("x", ir::ValueKind::kReal)));
    b.add_output(b.binary(OpCode::kMul, s, b.param(0)));
    const ir::Program program = b.finish();
    EXPECT_EQ(count_op(forward(program), OpCode::kCos), 0U);
    EXPECT_EQ(count_op(reverse(program), OpCode::kCos), 0U);
    EXPECT_TRUE(testing::gradients_agree(program, std::vector<double>{0.3}, {{Complex(0.9)}}));
}

TEST(Gradient, DerivativesOfInvariantValuesStayInvariant) {
    // sin(p0)·load: cos(p0) is emitted once, invariant.
    ir::Builder b;
    const ValueId s = b.unary(OpCode::kSin, b.param(0));
    b.add_output(b.binary(OpCode::kMul, s, b.load(b.add_input("x", ir::ValueKind::kReal))));
    const ir::Program program = b.finish();
    for (const ir::Program& g : {forward(program), reverse(program)}) {
        ASSERT_EQ(count_op(g, OpCode::kCos), 1U);
        for (const ir::Instruction& inst : g.instructions) {
            if (inst.op == OpCode::kCos) {
                EXPECT_EQ(inst.cls, ir::ValueClass::kInvariant);
            }
        }
    }
}

TEST(Gradient, ReverseSumsSeveralContributionsWithAddN) {
    ir::Builder b;
    const ValueId p = b.param(0);
    b.add_output(b.binary(OpCode::kMul, p, b.unary(OpCode::kSin, p)));
    const ir::Program program = b.finish();
    EXPECT_EQ(count_op(reverse(program), OpCode::kAddN), 1U);
    const auto out = run_reference(reverse(program), std::vector<double>{0.5}, {});
    EXPECT_NEAR(out[1].real(), std::sin(0.5) + 0.5 * std::cos(0.5), 1e-15);
}

TEST(Gradient, ComponentsOfRealAndComplexRoots) {
    const ir::Program intensity = coherent_sum(1);
    const std::vector<double> params{0.4, -0.7};
    const std::vector<testing::Event> events{{Complex(0.3, 0.9)}};
    const auto full = run_reference(reverse(intensity), params, events[0]);
    const auto real = run_reference(reverse(intensity, Component::kReal), params, events[0]);
    const auto imag = run_reference(forward(intensity, Component::kImag), params, events[0]);
    EXPECT_EQ(full, real);
    EXPECT_EQ(imag[1], Complex(0.0));
    EXPECT_EQ(imag[2], Complex(0.0));
    // The full gradient of a complex root: one Complex output per parameter.
    ir::Builder b;
    const ValueId amplitude = b.load(b.add_input("A", ir::ValueKind::kComplex));
    b.add_output(b.binary(OpCode::kMul, b.complex(b.param(0), b.param(1)), amplitude));
    const ir::Program complex_root = b.finish();
    const auto g = run_reference(reverse(complex_root), params, events[0]);
    EXPECT_EQ(g[1], Complex(0.3, 0.9));                      // d/dp0 = A
    EXPECT_EQ(g[2], Complex(0.0, 1.0) * Complex(0.3, 0.9));  // d/dp1 = i·A
    EXPECT_TRUE(testing::gradients_agree(complex_root, params, events));
}

TEST(Gradient, TheImaginaryPartOfACouplingTakesTheAdjointsImaginaryPart) {
    // Re(ȳ · -i) = Im(ȳ): the reverse sweep reads the part, it multiplies nothing by ±i (a
    // complex product by (0, ±1) per coupling and event, where a part costs nothing).
    const ir::Program sum = coherent_sum(4);
    const ir::Program gradient = reverse(sum);
    for (const ir::Instruction& inst : gradient.instructions) {
        if (inst.op != OpCode::kMul) {
            continue;
        }
        for (const ValueId operand : gradient.operands_of(inst)) {
            const ir::Instruction& o = gradient.at(operand);
            EXPECT_FALSE(o.op == OpCode::kConstComplex && o.re == 0.0 && std::abs(o.im) == 1.0)
                << "a product by (0, " << o.im << ")";
        }
    }
    EXPECT_EQ(count_op(gradient, OpCode::kImag), 4U);
    const std::vector<double> params{0.4, -0.7, 1.1, 0.2, -0.3, 0.9, 0.5, -1.2};
    const std::vector<testing::Event> events{
        {Complex(0.3, 0.9), Complex(-1.1, 0.2), Complex(0.7, -0.4), Complex(0.05, 1.3)},
        {Complex(-0.6, 0.1), Complex(0.8, 0.8), Complex(-0.2, -0.9), Complex(1.4, 0.3)}};
    EXPECT_TRUE(testing::gradients_agree(sum, params, events));
}

TEST(Gradient, TheAdjointOfNormSqrIsItsOperandDoubledWithoutConjugates) {
    // norm_sqr's partial is 2·conj(z), emitted as conj(z + z); its adjoint coefficient, the
    // conjugate of that, is z + z (one add per part, no negations), and the conjugate no output
    // reads any more is dropped.
    const ir::Program sum = coherent_sum(3);
    const ir::Program gradient =
        autodiff::gradient(sum, GradientOptions{.mode = AutodiffMode::kReverse});
    EXPECT_EQ(count_op(gradient, OpCode::kConj), 0U);
    bool doubled = false;
    for (const ir::Instruction& inst : gradient.instructions) {
        const auto operands = gradient.operands_of(inst);
        doubled = doubled || (inst.op == OpCode::kAdd && operands[0] == operands[1] &&
                              inst.kind == ir::ValueKind::kComplex);
    }
    EXPECT_TRUE(doubled);
    const std::vector<double> params{0.4, -0.7, 1.1, 0.2, -0.3, 0.9};
    const std::vector<testing::Event> events{
        {Complex(0.3, 0.9), Complex(-1.1, 0.2), Complex(0.7, -0.4)},
        {Complex(-0.6, 0.0), Complex(0.8, -0.0), Complex(-0.2, -0.9)}};
    EXPECT_TRUE(testing::gradients_agree(sum, params, events));
}

TEST(Gradient, AutoPicksReverseWhenManyParametersFeedAChain) {
    // Σ_k p_k·x_k followed by a chain of 10 event operations: forward carries 20 tangents
    // through every link, reverse one adjoint.
    ir::Builder b;
    std::vector<ValueId> terms;
    for (std::uint32_t k = 0; k < 20; ++k) {
        terms.push_back(
            b.binary(OpCode::kMul, b.param(k),
                     b.load(b.add_input("x" + std::to_string(k), ir::ValueKind::kReal))));
    }
    ValueId chain = b.add_n(terms);
    for (int link = 0; link < 10; ++link) {
        chain = b.unary(link % 2 == 0 ? OpCode::kSin : OpCode::kExp, chain);
    }
    b.add_output(chain);
    const ir::Program many = b.finish();
    EXPECT_EQ(choose_mode(many), AutodiffMode::kReverse);
    EXPECT_EQ(gradient(many), ir::fuse_dots(reverse(many)));
    EXPECT_LT(estimated_cost(reverse(many)), estimated_cost(forward(many)));
}

TEST(Gradient, AutoPicksForwardForOneParameter) {
    ir::Builder b;
    b.add_output(b.unary(OpCode::kExp, b.param(0)));
    const ir::Program one = b.finish();
    EXPECT_EQ(choose_mode(one), AutodiffMode::kForward);
    EXPECT_EQ(gradient(one), gradient(one, {.mode = AutodiffMode::kForward}));
}

TEST(Gradient, SparseForwardIsAsCheapAsReverseOnACoherentSum) {
    // Each coupling reaches the root through its own term only, so forward carries one tangent
    // per term: both modes cost about 4 event instructions per parameter.
    const ir::Program sum = coherent_sum(20);
    const double f = estimated_cost(forward(sum));
    const double r = estimated_cost(reverse(sum));
    EXPECT_LT(f, 1.2 * r);
    EXPECT_LT(r, 1.2 * f);
    EXPECT_LT(r, 5.0 * estimated_cost(sum));
}

TEST(Gradient, EstimatedCostWeighsEventWorkAndSolves) {
    ir::Builder b;
    const ValueId x = b.load(b.add_input("x", ir::ValueKind::kReal));
    const ValueId p = b.param(0);
    b.add_output(b.binary(OpCode::kAdd, x, p));
    // load (event, 1) + param (invariant, 1/32) + add (event, 1).
    EXPECT_DOUBLE_EQ(estimated_cost(b.finish()), 2.0 + 1.0 / 32.0);
    ir::Builder s;
    const ValueId y = s.load(s.add_input("y", ir::ValueKind::kReal));
    const ValueId solved = s.solve(1, 1, std::vector<ValueId>{y, y});
    s.add_output(s.extract(solved, 0));
    // load + solve (1/3 + 1) + extract.
    EXPECT_DOUBLE_EQ(estimated_cost(s.finish()), 1.0 + 4.0 / 3.0 + 1.0);
}

TEST(Gradient, RootWithoutParametersHasZeroGradient) {
    ir::Builder b;
    b.set_parameter_count(2);
    b.add_output(b.unary(OpCode::kExp, b.load(b.add_input("x", ir::ValueKind::kComplex))));
    const ir::Program program = b.finish();
    for (const ir::Program& g : {forward(program), reverse(program)}) {
        const auto out =
            run_reference(g, std::vector<double>{1.0, 2.0}, std::vector{Complex(0.1, 0.2)});
        EXPECT_EQ(out[1], Complex(0.0));
        EXPECT_EQ(g.at(g.outputs[1]).kind, ir::ValueKind::kComplex);
    }
}

}  // namespace
}  // namespace laddu::autodiff
