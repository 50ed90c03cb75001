// Every opcode's derivative rule, in both modes, against finite differences.
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/autodiff/gradient.hpp>
#include <laddu/ir/builder.hpp>

#include "testing/gradient_check.hpp"

namespace laddu::autodiff {
namespace {

using ir::OpCode;
using ir::ValueId;
using testing::Complex;
using testing::Event;
using testing::gradients_agree;

// Parameters p0..p2 and two inputs (a Real and a Complex column); operands of the rule under
// test depend on parameters and events so every rule sees both.
struct Fixture {
    ir::Builder b;
    ValueId p0, p1, p2, in_real, in_complex;

    Fixture() {
        const std::uint32_t real_slot = b.add_input("r", ir::ValueKind::kReal);
        const std::uint32_t complex_slot = b.add_input("c", ir::ValueKind::kComplex);
        p0 = b.param(0);
        p1 = b.param(1);
        p2 = b.param(2);
        in_real = b.load(real_slot);
        in_complex = b.load(complex_slot);
    }

    // 0.5·p0 + 0.3·r: in (0, 1) for the default parameters and events.
    ValueId real_operand() {
        return b.binary(OpCode::kAdd, b.binary(OpCode::kMul, b.const_real(0.5), p0),
                        b.binary(OpCode::kMul, b.const_real(0.3), in_real));
    }

    // complex(p0, p1) + 0.2·c: near 0.66 + 0.43i, away from every branch cut.
    ValueId complex_operand() {
        return b.binary(OpCode::kAdd, b.complex(p0, p1),
                        b.binary(OpCode::kMul, b.const_real(0.2), in_complex));
    }

    ValueId operand(bool complex) { return complex ? complex_operand() : real_operand(); }

    // Finishes with root = value·p2 (a second parameter path through a product).
    ir::Program finish(ValueId value) {
        b.add_output(b.binary(OpCode::kMul, value, p2));
        return b.finish();
    }
};

const std::vector<double> kParams{0.6, 0.35, 1.3};
const std::vector<Event> kEvents{{Complex(0.8, 0.0), Complex(0.3, 0.4)},
                                 {Complex(0.6, 0.0), Complex(-0.2, 0.1)}};

struct UnaryCase {
    OpCode op;
    bool complex;
};

class UnaryRule : public ::testing::TestWithParam<UnaryCase> {};

TEST_P(UnaryRule, ForwardEqualsReverseAndFiniteDifferences) {
    Fixture f;
    const ir::Program program = f.finish(f.b.unary(GetParam().op, f.operand(GetParam().complex)));
    EXPECT_TRUE(gradients_agree(program, kParams, kEvents));
    EXPECT_TRUE(gradients_agree(program, kParams, kEvents, Component::kReal));
    EXPECT_TRUE(gradients_agree(program, kParams, kEvents, Component::kImag));
}

std::vector<UnaryCase> unary_cases() {
    std::vector<UnaryCase> cases;
    for (const OpCode op :
         {OpCode::kNeg, OpCode::kConj, OpCode::kSqrt, OpCode::kExp, OpCode::kLog, OpCode::kSin,
          OpCode::kCos, OpCode::kTan, OpCode::kAsin, OpCode::kAcos, OpCode::kAtan, OpCode::kSinh,
          OpCode::kCosh, OpCode::kTanh, OpCode::kReal, OpCode::kImag, OpCode::kAbs, OpCode::kArg,
          OpCode::kNormSqr}) {
        cases.push_back({op, false});
        cases.push_back({op, true});
    }
    return cases;
}

std::string unary_name(const ::testing::TestParamInfo<UnaryCase>& info) {
    return std::string(ir::opcode_name(info.param.op)) + (info.param.complex ? "Complex" : "Real");
}

INSTANTIATE_TEST_SUITE_P(AllUnary, UnaryRule, ::testing::ValuesIn(unary_cases()), unary_name);

struct BinaryCase {
    OpCode op;
    bool lhs_complex;
    bool rhs_complex;
};

class BinaryRule : public ::testing::TestWithParam<BinaryCase> {};

TEST_P(BinaryRule, ForwardEqualsReverseAndFiniteDifferences) {
    Fixture f;
    const BinaryCase c = GetParam();
    const ValueId a = f.operand(c.lhs_complex);
    // The second operand depends on p1 and p2 differently from the first.
    const ValueId b = c.rhs_complex
                          ? f.b.binary(OpCode::kMul, f.complex_operand(), f.b.complex(f.p2, f.p1))
                          : f.b.binary(OpCode::kAdd, f.b.binary(OpCode::kMul, f.p1, f.in_real),
                                       f.b.const_real(0.4));
    const ir::Program program = f.finish(f.b.binary(c.op, a, b));
    EXPECT_TRUE(gradients_agree(program, kParams, kEvents));
    EXPECT_TRUE(gradients_agree(program, kParams, kEvents, Component::kReal));
}

std::vector<BinaryCase> binary_cases() {
    std::vector<BinaryCase> cases;
    for (const OpCode op : {OpCode::kAdd, OpCode::kSub, OpCode::kMul, OpCode::kDiv, OpCode::kPow}) {
        for (const bool lhs : {false, true}) {
            for (const bool rhs : {false, true}) {
                cases.push_back({op, lhs, rhs});
            }
        }
    }
    cases.push_back({OpCode::kAtan2, false, false});
    cases.push_back({OpCode::kComplex, false, false});
    return cases;
}

std::string binary_name(const ::testing::TestParamInfo<BinaryCase>& info) {
    return std::string(ir::opcode_name(info.param.op)) + (info.param.lhs_complex ? "C" : "R") +
           (info.param.rhs_complex ? "C" : "R");
}

INSTANTIATE_TEST_SUITE_P(AllBinary, BinaryRule, ::testing::ValuesIn(binary_cases()), binary_name);

class PowIRule : public ::testing::TestWithParam<std::int32_t> {};

TEST_P(PowIRule, ForwardEqualsReverseAndFiniteDifferences) {
    for (const bool complex : {false, true}) {
        Fixture f;
        const ir::Program program = f.finish(f.b.pow_i(f.operand(complex), GetParam()));
        EXPECT_TRUE(gradients_agree(program, kParams, kEvents)) << "complex " << complex;
    }
}

INSTANTIATE_TEST_SUITE_P(Exponents, PowIRule, ::testing::Values(-3, -1, 0, 1, 2, 5));

TEST(PowIRule, MinimumExponentUsesNYOverXWithoutOverflow) {
    // d x^n/dx = n·y/x at x = 1: exactly n, where n - 1 would overflow int32.
    ir::Builder b;
    const ValueId p = b.param(0);
    constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
    b.add_output(b.pow_i(p, kMin));
    const ir::Program program = b.finish();
    const std::vector<double> params{1.0};
    for (const ir::Program& g : {forward(program), reverse(program)}) {
        const auto out = testing::run_reference(g, params, {});
        EXPECT_EQ(out[1], Complex(static_cast<double>(kMin), 0.0));
    }
}

TEST(NaryRules, AddNMixesKinds) {
    Fixture f;
    const std::vector<ValueId> terms{f.real_operand(), f.complex_operand(), f.p1, f.in_complex};
    EXPECT_TRUE(gradients_agree(f.finish(f.b.add_n(terms)), kParams, kEvents));
}

TEST(NaryRules, MulNMixesKinds) {
    Fixture f;
    const std::vector<ValueId> factors{f.real_operand(), f.complex_operand(), f.p1, f.in_complex,
                                       f.p0};
    EXPECT_TRUE(gradients_agree(f.finish(f.b.mul_n(factors)), kParams, kEvents));
}

TEST(NaryRules, MulNWithZeroFactorsNeedsNoDivision) {
    // p0·p1·p2·p1 at p1 = 0: d/dp1 = 2·p0·p1·p2 = 0 and d/dp0 = 0, all finite (y/v_i would be
    // 0/0); at p0 = 0 as well the gradient is exactly zero.
    ir::Builder b;
    const std::vector<ValueId> factors{b.param(0), b.param(1), b.param(2), b.param(1)};
    b.add_output(b.mul_n(factors));
    const ir::Program program = b.finish();
    const std::vector<double> params{0.7, 0.0, 1.9};
    for (const ir::Program& g : {forward(program), reverse(program)}) {
        const auto out = testing::run_reference(g, params, {});
        EXPECT_EQ(out[1], Complex(0.0));
        EXPECT_EQ(out[2], Complex(0.0));
        EXPECT_EQ(out[3], Complex(0.0));
    }
    // One zero factor: d/dp1 of p0·p1·p2 is p0·p2, exactly.
    ir::Builder c;
    const std::vector<ValueId> three{c.param(0), c.param(1), c.param(2)};
    c.add_output(c.mul_n(three));
    const ir::Program single = c.finish();
    for (const ir::Program& g : {forward(single), reverse(single)}) {
        const auto out = testing::run_reference(g, params, {});
        EXPECT_EQ(out[1], Complex(0.0));
        EXPECT_EQ(out[2], Complex(0.7 * 1.9));
        EXPECT_EQ(out[3], Complex(0.0));
    }
    EXPECT_TRUE(gradients_agree(single, params, {{}}));
}

TEST(NaryRules, DotIsBilinearWithoutConjugation) {
    Fixture f;
    const std::vector<ValueId> a{f.complex_operand(), f.p0, f.in_complex};
    const std::vector<ValueId> b{f.p1, f.complex_operand(), f.b.complex(f.p2, f.p0)};
    EXPECT_TRUE(gradients_agree(f.finish(f.b.dot(a, b)), kParams, kEvents));
}

// solve(A, B) with A = [[p0 + 2, i·p1], [c, 3]] (c an event column) and B two columns.
ir::Program solve_program(bool matrix_depends_on_params, bool rhs_depends_on_params) {
    Fixture f;
    ir::Builder& b = f.b;
    const ValueId two = b.const_real(2.0);
    const ValueId a00 = matrix_depends_on_params ? b.binary(OpCode::kAdd, f.p0, two) : two;
    const ValueId a01 = matrix_depends_on_params
                            ? b.binary(OpCode::kMul, b.const_complex(0.0, 1.0), f.p1)
                            : b.const_complex(0.0, 1.0);
    const ValueId a10 = f.in_complex;
    const ValueId a11 = b.const_real(3.0);
    const ValueId b0 = rhs_depends_on_params ? f.complex_operand() : b.const_real(1.0);
    const ValueId b1 = b.const_complex(0.5, -0.1);
    const ValueId b2 = rhs_depends_on_params ? f.p2 : f.in_real;
    const ValueId b3 = f.in_complex;
    const std::vector<ValueId> operands{a00, a01, a10, a11, b0, b1, b2, b3};
    const ValueId x = b.solve(2, 2, operands);
    const std::vector<ValueId> elements{b.extract(x, 0), b.extract(x, 1), b.extract(x, 2),
                                        b.extract(x, 3)};
    const std::vector<ValueId> weights{f.p0, b.const_complex(0.3, 0.7), f.p1, f.in_real};
    b.add_output(b.binary(OpCode::kMul, b.dot(elements, weights), f.p2));
    return b.finish();
}

std::size_t count_op(const ir::Program& program, OpCode op) {
    std::size_t n = 0;
    for (const ir::Instruction& inst : program.instructions) {
        n += inst.op == op ? 1U : 0U;
    }
    return n;
}

TEST(SolveRule, MatrixAndRhsParameters) {
    const ir::Program program = solve_program(true, true);
    EXPECT_TRUE(gradients_agree(program, kParams, kEvents));
    // One tangent kSolve for every parameter's columns; one adjoint kSolve for both sweeps.
    EXPECT_EQ(count_op(forward(program), OpCode::kSolve), 2U);
    EXPECT_EQ(count_op(reverse(program), OpCode::kSolve), 2U);
}

TEST(SolveRule, MatrixParametersOnly) {
    EXPECT_TRUE(gradients_agree(solve_program(true, false), kParams, kEvents));
}

TEST(SolveRule, RhsParametersShareThePrimalFactorisation) {
    const ir::Program program = solve_program(false, true);
    EXPECT_TRUE(gradients_agree(program, kParams, kEvents));
    EXPECT_EQ(count_op(forward(program), OpCode::kSolve), 1U);
}

TEST(SolveRule, RealComponentOfComplexSolve) {
    EXPECT_TRUE(gradients_agree(solve_program(true, true), kParams, kEvents, Component::kReal));
    EXPECT_TRUE(gradients_agree(solve_program(true, true), kParams, kEvents, Component::kImag));
}

}  // namespace
}  // namespace laddu::autodiff
