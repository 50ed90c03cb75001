#include <gtest/gtest.h>

#include <laddu/ir/builder.hpp>
#include <laddu/ir/fuse_dots.hpp>

namespace laddu::ir {
namespace {

std::size_t count(const Program& p, OpCode op) {
    std::size_t n = 0;
    for (const Instruction& inst : p.instructions) {
        n += inst.op == op ? 1 : 0;
    }
    return n;
}

const Instruction& output(const Program& p, std::size_t o = 0) {
    return p.at(p.outputs[o]);
}

TEST(FuseDots, ASumOfCouplingProductsBecomesOneDotInTermOrder) {
    Builder b;
    const auto x0 = b.load(b.add_input("x0", ValueKind::kComplex));
    const auto x1 = b.load(b.add_input("x1", ValueKind::kComplex));
    const auto r = b.load(b.add_input("r", ValueKind::kReal));
    const ValueId c0 = b.complex(b.param(0), b.param(1));
    const ValueId c1 = b.complex(b.param(2), b.param(3));
    const std::vector<ValueId> p0{c0, x0};
    const std::vector<ValueId> terms{b.mul_n(p0), b.binary(OpCode::kMul, c1, x1), r};
    b.add_output(b.add_n(terms), "sum");
    const Program fused = fuse_dots(b.finish());

    EXPECT_EQ(count(fused, OpCode::kAddN), 0U);
    EXPECT_EQ(count(fused, OpCode::kMul) + count(fused, OpCode::kMulN), 0U);
    const Instruction& dot = output(fused);
    ASSERT_EQ(dot.op, OpCode::kDot);
    ASSERT_EQ(dot.attr, 3U);
    const auto ops = fused.operands_of(dot);
    EXPECT_EQ(fused.at(ops[0]).op, OpCode::kComplex);  // c0 · x0
    EXPECT_EQ(fused.at(ops[3]).op, OpCode::kLoad);
    EXPECT_EQ(fused.at(ops[2]).op, OpCode::kLoad);  // r · 1
    EXPECT_EQ(fused.at(ops[5]).op, OpCode::kConstReal);
    EXPECT_EQ(fused.at(ops[5]).re, 1.0);
    EXPECT_EQ(fused.output_names, std::vector<std::string>{"sum"});
    EXPECT_EQ(fused.parameter_count, 4U);
    EXPECT_EQ(fused.inputs.size(), 3U);
}

TEST(FuseDots, ALongProductKeepsItsFoldAndFusesItsLastFactor) {
    Builder b;
    const auto x = b.load(b.add_input("x", ValueKind::kReal));
    const auto y = b.load(b.add_input("y", ValueKind::kReal));
    const std::vector<ValueId> factors{b.param(0), x, y};
    const std::vector<ValueId> terms{b.mul_n(factors), x};
    b.add_output(b.add_n(terms));
    const Program fused = fuse_dots(b.finish());

    const Instruction& dot = output(fused);
    ASSERT_EQ(dot.op, OpCode::kDot);
    const auto ops = fused.operands_of(dot);
    const Instruction& head = fused.at(ops[0]);
    ASSERT_EQ(head.op, OpCode::kMulN);  // param0 · x, then fused with y
    EXPECT_EQ(head.count, 2U);
    EXPECT_EQ(fused.at(ops[2]).op, OpCode::kLoad);
    EXPECT_EQ(fused.at(ops[2]).attr, 1U);
}

TEST(FuseDots, AProductUsedElsewhereIsNotAbsorbed) {
    Builder b;
    const auto x = b.load(b.add_input("x", ValueKind::kReal));
    const auto y = b.load(b.add_input("y", ValueKind::kReal));
    const ValueId shared = b.binary(OpCode::kMul, x, y);
    const std::vector<ValueId> terms{shared, x};
    b.add_output(b.add_n(terms));
    b.add_output(shared);
    const Program fused = fuse_dots(b.finish());

    EXPECT_EQ(output(fused).op, OpCode::kAddN);
    EXPECT_EQ(output(fused, 1).op, OpCode::kMul);
}

TEST(FuseDots, ASumWithoutProductsIsUnchanged) {
    Builder b;
    const auto x = b.load(b.add_input("x", ValueKind::kComplex));
    const std::vector<ValueId> terms{x, b.param(0), b.const_real(2.5)};
    b.add_output(b.add_n(terms));
    const Program program = b.finish();
    const Program fused = fuse_dots(program);
    EXPECT_EQ(fused.instructions, program.instructions);
    EXPECT_EQ(fused.operands, program.operands);
}

// f0(980)'s coupling: its imaginary part is fixed, so the compiler made it a constant 0.
TEST(FuseDots, AComplexFactorWithAConstantZeroImaginaryPartEntersAsItsRealPart) {
    Builder b;
    const auto f0 = b.load(b.add_input("f0", ValueKind::kComplex));
    const auto f1 = b.load(b.add_input("f1", ValueKind::kComplex));
    const ValueId real_coupling = b.complex(b.param(0), b.const_real(0.0));
    const ValueId free_coupling = b.complex(b.param(1), b.param(2));
    const std::vector<ValueId> terms{b.binary(OpCode::kMul, real_coupling, f0),
                                     b.binary(OpCode::kMul, f1, free_coupling)};
    b.add_output(b.add_n(terms), "dot");
    b.add_output(b.binary(OpCode::kMul, f1, b.const_complex(2.0, 0.0)), "scaled");
    // Both factors x + i·0: one stays Complex, so the product does.
    b.add_output(b.binary(OpCode::kMul, real_coupling, b.const_complex(3.0, 0.0)), "both");
    const Program fused = fuse_dots(b.finish());

    const Instruction& dot = output(fused, 0);
    ASSERT_EQ(dot.op, OpCode::kDot);
    const auto ops = fused.operands_of(dot);
    EXPECT_EQ(fused.at(ops[0]).op, OpCode::kParam);  // p0, not p0 + i·0
    EXPECT_EQ(fused.at(ops[1]).op, OpCode::kLoad);   // f1 · (p1 + i p2) as it was
    EXPECT_EQ(fused.at(ops[3]).op, OpCode::kComplex);
    EXPECT_EQ(dot.kind, ValueKind::kComplex);

    const Instruction& scaled = output(fused, 1);
    ASSERT_EQ(scaled.op, OpCode::kMul);
    const Instruction& two = fused.at(fused.operands_of(scaled)[1]);
    EXPECT_EQ(two.op, OpCode::kConstReal);
    EXPECT_EQ(two.re, 2.0);
    EXPECT_EQ(scaled.kind, ValueKind::kComplex);

    const Instruction& both = output(fused, 2);
    EXPECT_EQ(both.kind, ValueKind::kComplex);
    const auto both_ops = fused.operands_of(both);
    EXPECT_NE(fused.at(both_ops[0]).kind, fused.at(both_ops[1]).kind);
}

TEST(FuseDots, AZeroImaginaryPartThatIsNotAConstantStays) {
    Builder b;
    const auto f = b.load(b.add_input("f", ValueKind::kComplex));
    const ValueId coupling = b.complex(b.param(0), b.param(1));
    b.add_output(b.binary(OpCode::kMul, coupling, f));
    const Program fused = fuse_dots(b.finish());
    EXPECT_EQ(fused.at(fused.operands_of(output(fused))[0]).op, OpCode::kComplex);
}

TEST(FuseDots, DropsWhatNoOutputReadsAndCountsOnlyLiveUses) {
    Builder b;
    const auto x = b.load(b.add_input("x", ValueKind::kReal));
    const auto y = b.load(b.add_input("y", ValueKind::kReal));
    const ValueId product = b.binary(OpCode::kMul, b.param(0), x);
    // A dead chain that also reads the product: it neither survives nor keeps the product
    // out of the sum's dot.
    (void)b.unary(OpCode::kCos, b.binary(OpCode::kAdd, product, y));
    const std::vector<ValueId> terms{product, y};
    b.add_output(b.add_n(terms), "sum");
    const Program program = b.finish();
    ASSERT_EQ(count(program, OpCode::kCos), 1U);
    const Program fused = fuse_dots(program);
    EXPECT_EQ(count(fused, OpCode::kCos), 0U);
    EXPECT_EQ(count(fused, OpCode::kAdd), 0U);
    EXPECT_EQ(count(fused, OpCode::kMul), 0U);
    EXPECT_EQ(output(fused).op, OpCode::kDot);
    EXPECT_EQ(fused.inputs.size(), 2U);
    EXPECT_EQ(fused.parameter_count, 1U);
}

}  // namespace
}  // namespace laddu::ir
