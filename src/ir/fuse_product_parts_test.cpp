#include <gtest/gtest.h>

#include <laddu/ir/builder.hpp>
#include <laddu/ir/fuse_product_parts.hpp>

namespace laddu::ir {
namespace {

std::size_t count(const Program& p, OpCode op) {
    std::size_t n = 0;
    for (const Instruction& inst : p.instructions) {
        n += inst.op == op ? 1 : 0;
    }
    return n;
}

// A coupling's adjoint as reverse mode leaves it: ȳ·conj(a) for each amplitude a, read through
// Re and Im by the coupling's two parameters.
TEST(FuseProductParts, AdjointProductsReadThroughTheirPartsBecomeRealDots) {
    Builder b;
    const ValueId a0 = b.load(b.add_input("a0", ValueKind::kComplex));
    const ValueId a1 = b.load(b.add_input("a1", ValueKind::kComplex));
    const ValueId adjoint = b.binary(OpCode::kMul, b.load(b.add_input("y", ValueKind::kComplex)),
                                     b.complex(b.param(0), b.param(1)));
    for (const ValueId a : {a0, a1}) {
        const ValueId product = b.binary(OpCode::kMul, adjoint, b.unary(OpCode::kConj, a));
        b.add_output(b.unary(OpCode::kReal, product), "re");
        b.add_output(b.unary(OpCode::kImag, product), "im");
    }
    const Program fused = fuse_product_parts(b.finish());

    EXPECT_EQ(count(fused, OpCode::kMul), 1U);  // the adjoint itself is read whole
    EXPECT_EQ(count(fused, OpCode::kConj), 0U);
    EXPECT_EQ(count(fused, OpCode::kDot), 4U);
    // conj(a) needs no sign on Re; Im's -Re(ȳ) is one kNeg, shared by both products.
    EXPECT_EQ(count(fused, OpCode::kNeg), 1U);
    for (std::size_t o = 0; o < 4; ++o) {
        const Instruction& dot = fused.at(fused.outputs[o]);
        ASSERT_EQ(dot.op, OpCode::kDot);
        EXPECT_EQ(dot.attr, 2U);
        EXPECT_EQ(dot.kind, ValueKind::kReal);
        EXPECT_EQ(dot.cls, ValueClass::kEvent);
    }
    // Re = dot([Re ȳ, Im ȳ], [Re a, Im a]); Im = dot([-Re ȳ, Im ȳ], [Im a, Re a]).
    const auto re_ops = fused.operands_of(fused.at(fused.outputs[0]));
    EXPECT_EQ(fused.at(re_ops[0]).op, OpCode::kReal);
    EXPECT_EQ(fused.at(re_ops[1]).op, OpCode::kImag);
    EXPECT_EQ(fused.at(re_ops[2]).op, OpCode::kReal);
    EXPECT_EQ(fused.at(re_ops[3]).op, OpCode::kImag);
    const auto im_ops = fused.operands_of(fused.at(fused.outputs[1]));
    EXPECT_EQ(fused.at(im_ops[0]).op, OpCode::kNeg);
    EXPECT_EQ(im_ops[1], re_ops[1]);  // Im ȳ emitted once
    EXPECT_EQ(im_ops[2], re_ops[3]);
    EXPECT_EQ(im_ops[3], re_ops[2]);
    EXPECT_EQ(fused.output_names, (std::vector<std::string>{"re", "im", "re", "im"}));
}

TEST(FuseProductParts, AProductReadWholeOrAsAnOutputStays) {
    Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kComplex));
    const ValueId y = b.load(b.add_input("y", ValueKind::kComplex));
    const ValueId z = b.load(b.add_input("z", ValueKind::kComplex));
    const ValueId read_whole = b.binary(OpCode::kMul, x, y);
    b.add_output(b.unary(OpCode::kReal, read_whole), "re");
    b.add_output(b.binary(OpCode::kAdd, read_whole, z), "sum");
    const ValueId output = b.binary(OpCode::kMul, y, z);
    b.add_output(b.unary(OpCode::kImag, output), "im");
    b.add_output(output, "product");
    const ValueId real_factor = b.binary(OpCode::kMul, x, b.unary(OpCode::kReal, z));
    b.add_output(b.unary(OpCode::kImag, real_factor), "im of complex times real");
    const Program program = b.finish();
    const Program fused = fuse_product_parts(program);
    EXPECT_EQ(fused.instructions, program.instructions);
    EXPECT_EQ(fused.outputs, program.outputs);
}

TEST(FuseProductParts, SignsFollowEachConjugatedFactorAndConstantsGiveConstantParts) {
    Builder b;
    const ValueId p = b.load(b.add_input("p", ValueKind::kComplex));
    const ValueId q = b.load(b.add_input("q", ValueKind::kComplex));
    const ValueId conj_p = b.unary(OpCode::kConj, p);
    const ValueId conj_q = b.unary(OpCode::kConj, q);
    // conj(p)·conj(q): Re = pr qr - pi qi (one -Im p), Im = -pr qi - pi qr (both negated).
    const ValueId both = b.binary(OpCode::kMul, conj_p, conj_q);
    b.add_output(b.unary(OpCode::kReal, both), "re");
    b.add_output(b.unary(OpCode::kImag, both), "im");
    // conj(p) is also read whole: it stays, and the product still reads p's parts.
    b.add_output(conj_p, "conj p");
    // A constant factor's parts are constants.
    const ValueId scaled = b.binary(OpCode::kMul, b.const_complex(2.0, -3.0), q);
    b.add_output(b.unary(OpCode::kReal, scaled), "re scaled");
    const Program fused = fuse_product_parts(b.finish());

    EXPECT_EQ(count(fused, OpCode::kMul), 0U);
    EXPECT_EQ(count(fused, OpCode::kConj), 1U);
    EXPECT_EQ(count(fused, OpCode::kNeg), 2U);  // -Re p, -Im p; -(-3) is the constant 3
    const auto re_ops = fused.operands_of(fused.at(fused.outputs[0]));
    EXPECT_EQ(fused.at(re_ops[1]).op, OpCode::kNeg);
    const auto im_ops = fused.operands_of(fused.at(fused.outputs[1]));
    EXPECT_EQ(fused.at(im_ops[0]).op, OpCode::kNeg);
    EXPECT_EQ(fused.at(im_ops[1]).op, OpCode::kNeg);
    const auto scaled_ops = fused.operands_of(fused.at(fused.outputs[3]));
    EXPECT_EQ(fused.at(scaled_ops[0]).op, OpCode::kConstReal);
    EXPECT_EQ(fused.at(scaled_ops[0]).re, 2.0);
    EXPECT_EQ(fused.at(scaled_ops[1]).op, OpCode::kConstReal);
    EXPECT_EQ(fused.at(scaled_ops[1]).re, 3.0);
}

}  // namespace
}  // namespace laddu::ir
