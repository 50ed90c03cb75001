#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/ir/builder.hpp>
#include <laddu/ir/compose.hpp>
#include <laddu/ir/print.hpp>

namespace laddu::ir {
namespace {

// first: x -> (x² + 1, sin y); second: (a, b, z) -> a · z + p0.
Program first_program() {
    Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    const ValueId y = b.load(b.add_input("y", ValueKind::kReal));
    b.add_output(b.binary(OpCode::kAdd, b.binary(OpCode::kMul, x, x), b.const_real(1.0)), "a");
    b.add_output(b.unary(OpCode::kSin, y), "b");
    b.set_parameter_count(0);
    return b.finish();
}

Program second_program() {
    Builder b;
    const ValueId a = b.load(b.add_input("a", ValueKind::kReal));
    b.add_input("b", ValueKind::kReal);
    const ValueId z = b.load(b.add_input("x", ValueKind::kReal));
    b.add_output(b.binary(OpCode::kAdd, b.binary(OpCode::kMul, a, z), b.param(0)), "out");
    return b.finish();
}

TEST(Compose, SecondReadsFirstsOutputsAndSharesInputsByName) {
    const Program composed = compose(first_program(), second_program());
    // sin y is dead: y is not an input, and the two loads of x are one slot.
    ASSERT_EQ(composed.inputs.size(), 1U);
    EXPECT_EQ(composed.inputs[0].name, "x");
    EXPECT_EQ(composed.parameter_count, 1U);
    ASSERT_EQ(composed.outputs.size(), 1U);
    EXPECT_EQ(composed.output_names, std::vector<std::string>{"out"});
    // Eight instructions, each a copy of one of the two programs': x's load, x², 1 and
    // x² + 1 from first; from second the product of first's output with x's load (the same
    // slot), p0 and the sum.
    EXPECT_EQ(composed.size(), 8U) << to_string(composed);
    const Instruction& sum = composed.at(composed.outputs[0]);
    ASSERT_EQ(sum.op, OpCode::kAdd);
    const auto terms = composed.operands_of(sum);
    ASSERT_EQ(composed.at(terms[0]).op, OpCode::kMul);
    EXPECT_EQ(composed.at(terms[1]).op, OpCode::kParam);
    const auto factors = composed.operands_of(terms[0]);
    const Instruction& a = composed.at(factors[0]);
    ASSERT_EQ(a.op, OpCode::kAdd);
    EXPECT_EQ(composed.at(composed.operands_of(a)[0]).op, OpCode::kMul);
    const Instruction& z = composed.at(factors[1]);
    EXPECT_EQ(z.op, OpCode::kLoad);
    EXPECT_EQ(z.attr, 0U);
}

TEST(Compose, ASlotOfAnotherKindThanItsOutputIsACompileError) {
    Builder b;
    const ValueId a = b.load(b.add_input("a", ValueKind::kComplex));
    b.add_output(a);
    const Program second = b.finish();
    EXPECT_THROW((void)compose(first_program(), second), CompileError);
}

TEST(Compose, MergedInputsOfDifferentKindsAreACompileError) {
    Builder b;
    const ValueId a = b.load(b.add_input("a", ValueKind::kReal));
    b.add_input("b", ValueKind::kReal);
    b.add_output(a);
    b.add_output(b.load(b.add_input("x", ValueKind::kComplex)));
    EXPECT_THROW((void)compose(first_program(), b.finish()), CompileError);
}

}  // namespace
}  // namespace laddu::ir
