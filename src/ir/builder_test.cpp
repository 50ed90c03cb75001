#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/ir/builder.hpp>
#include <laddu/ir/stats.hpp>

namespace laddu::ir {
namespace {

// Expects `fn` to throw CompileError whose message contains every fragment.
template <typename Fn>
void expect_compile_error(Fn&& fn, const std::vector<std::string>& fragments) {
    try {
        fn();
        FAIL() << "expected CompileError";
    } catch (const CompileError& error) {
        const std::string message = error.what();
        for (const std::string& fragment : fragments) {
            EXPECT_NE(message.find(fragment), std::string::npos)
                << "message '" << message << "' lacks '" << fragment << "'";
        }
    }
}

TEST(Builder, LeavesHaveFixedKindsAndClasses) {
    Builder b;
    const auto slot_r = b.add_input("x", ValueKind::kReal);
    const auto slot_c = b.add_input("z", ValueKind::kComplex);
    const ValueId c = b.const_real(2.0);
    const ValueId cc = b.const_complex(1.0, 0.0);
    const ValueId p = b.param(3);
    const ValueId x = b.load(slot_r);
    const ValueId z = b.load(slot_c);
    EXPECT_EQ(b.kind_of(c), ValueKind::kReal);
    EXPECT_EQ(b.kind_of(cc), ValueKind::kComplex);
    EXPECT_EQ(b.kind_of(p), ValueKind::kReal);
    EXPECT_EQ(b.kind_of(x), ValueKind::kReal);
    EXPECT_EQ(b.kind_of(z), ValueKind::kComplex);
    EXPECT_EQ(b.class_of(c), ValueClass::kInvariant);
    EXPECT_EQ(b.class_of(p), ValueClass::kInvariant);
    EXPECT_EQ(b.class_of(x), ValueClass::kEvent);
    EXPECT_EQ(b.class_of(z), ValueClass::kEvent);
    EXPECT_EQ(b.program().parameter_count, 4U);
    EXPECT_EQ(b.program().at(cc).im, 0.0);
}

TEST(Builder, ArithmeticWidensToComplexAndJoinsClasses) {
    Builder b;
    const auto slot = b.add_input("z", ValueKind::kComplex);
    const ValueId p = b.param(0);
    const ValueId q = b.param(1);
    const ValueId z = b.load(slot);
    const ValueId pq = b.binary(OpCode::kMul, p, q);
    EXPECT_EQ(b.kind_of(pq), ValueKind::kReal);
    EXPECT_EQ(b.class_of(pq), ValueClass::kInvariant);
    const ValueId pz = b.binary(OpCode::kAdd, p, z);
    EXPECT_EQ(b.kind_of(pz), ValueKind::kComplex);
    EXPECT_EQ(b.class_of(pz), ValueClass::kEvent);
    const ValueId g = b.complex(p, q);
    EXPECT_EQ(b.kind_of(g), ValueKind::kComplex);
    EXPECT_EQ(b.class_of(g), ValueClass::kInvariant);
    const ValueId n = b.unary(OpCode::kNormSqr, pz);
    EXPECT_EQ(b.kind_of(n), ValueKind::kReal);
    EXPECT_EQ(b.class_of(n), ValueClass::kEvent);
    EXPECT_EQ(b.kind_of(b.unary(OpCode::kExp, z)), ValueKind::kComplex);
    EXPECT_EQ(b.kind_of(b.unary(OpCode::kSqrt, p)), ValueKind::kReal);
    EXPECT_EQ(b.kind_of(b.pow_i(z, -3)), ValueKind::kComplex);
    EXPECT_EQ(b.program().instructions.back().exponent(), -3);
    const std::vector<ValueId> reals{p, q, pq};
    EXPECT_EQ(b.kind_of(b.add_n(reals)), ValueKind::kReal);
    EXPECT_EQ(b.class_of(b.add_n(reals)), ValueClass::kInvariant);
    const std::vector<ValueId> mixed{p, z};
    EXPECT_EQ(b.kind_of(b.mul_n(mixed)), ValueKind::kComplex);
    EXPECT_EQ(b.class_of(b.mul_n(mixed)), ValueClass::kEvent);
    const std::vector<ValueId> a{p, q};
    const std::vector<ValueId> bb{q, p};
    const ValueId d = b.dot(a, bb);
    EXPECT_EQ(b.kind_of(d), ValueKind::kReal);
    EXPECT_EQ(b.program().at(d).attr, 2U);
    EXPECT_EQ(b.program().operands_of(d).size(), 4U);
    EXPECT_EQ(b.kind_of(b.dot(a, mixed)), ValueKind::kComplex);
}

TEST(Builder, SolveGivesVectorAndExtractGivesComplex) {
    Builder b;
    const auto slot = b.add_input("x", ValueKind::kReal);
    const ValueId x = b.load(slot);
    const ValueId one = b.const_real(1.0);
    // A = [[x, 1], [1, x]], two right-hand sides.
    const std::vector<ValueId> operands{x, one, one, x, one, one, x, one};
    const ValueId s = b.solve(2, 2, operands);
    EXPECT_EQ(b.kind_of(s), ValueKind::kVector);
    EXPECT_EQ(b.class_of(s), ValueClass::kEvent);
    EXPECT_EQ(b.program().at(s).width(), 4U);
    const ValueId e = b.extract(s, 3);
    EXPECT_EQ(b.kind_of(e), ValueKind::kComplex);
    EXPECT_EQ(b.class_of(e), ValueClass::kEvent);
    const std::vector<ValueId> inv{one, one, one, one, one, one};
    EXPECT_EQ(b.class_of(b.solve(2, 1, inv)), ValueClass::kInvariant);
}

TEST(Builder, RejectsIllTypedOperandsNamingOpcodeKindAndValue) {
    Builder b;
    const auto slot = b.add_input("z", ValueKind::kComplex);
    const ValueId p = b.param(0);
    const ValueId z = b.load(slot);
    expect_compile_error([&] { (void)b.binary(OpCode::kAtan2, p, z); },
                         {"kAtan2", "Real", "Complex", "%1"});
    expect_compile_error([&] { (void)b.complex(z, p); }, {"kComplex", "Complex", "%1"});
    const std::vector<ValueId> operands{p, p, p, p, p, p};
    const ValueId s = b.solve(2, 1, operands);
    expect_compile_error([&] { (void)b.unary(OpCode::kExp, s); }, {"kExp", "Vector", "%2"});
    expect_compile_error([&] { (void)b.binary(OpCode::kAdd, s, p); }, {"kAdd", "Vector"});
    expect_compile_error([&] { (void)b.extract(p, 0); }, {"kExtract", "needs Vector", "Real"});
    expect_compile_error([&] { (void)b.extract(s, 2); }, {"kExtract", "index 2", "width 2"});
    expect_compile_error([&] { (void)b.unary(OpCode::kNeg, value_id(99)); },
                         {"kNeg", "%99", "not defined"});
    expect_compile_error([&] { (void)b.load(5); }, {"kLoad", "slot 5", "1 input"});
    expect_compile_error([&] { (void)b.add_n({}); }, {"kAddN", "at least 1"});
    expect_compile_error([&] { (void)b.dot({}, {}); }, {"kDot", "n >= 1"});
    const std::vector<ValueId> one{p};
    const std::vector<ValueId> two{p, p};
    expect_compile_error([&] { (void)b.dot(one, two); }, {"kDot", "equal length", "1 and 2"});
    expect_compile_error([&] { (void)b.solve(2, 1, two); }, {"kSolve", "6 operands", "got 2"});
    expect_compile_error([&] { (void)b.solve(0, 1, {}); }, {"kSolve", "n >= 1"});
    expect_compile_error([&] { (void)b.unary(OpCode::kAdd, p); }, {"unary", "kAdd"});
    expect_compile_error([&] { (void)b.binary(OpCode::kExp, p, p); }, {"binary", "kExp"});
    expect_compile_error([&] { b.add_output(s); }, {"Vector"});
    expect_compile_error([&] { b.set_parameter_count(0); }, {"param(0)"});
    expect_compile_error([&] { (void)b.add_input("v", ValueKind::kVector); }, {"'v'", "Vector"});
}

TEST(Builder, UnaryAndBinaryEmitOnlyTheirFamilies) {
    Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    EXPECT_EQ(b.program().at(b.unary(OpCode::kAbs, x)).kind, ValueKind::kReal);
    EXPECT_EQ(b.program().at(b.binary(OpCode::kComplex, x, x)).kind, ValueKind::kComplex);
    for (const OpCode op : {OpCode::kPowI, OpCode::kAdd, OpCode::kAddN, OpCode::kLoad}) {
        try {
            (void)b.unary(op, x);
            ADD_FAILURE() << opcode_name(op);
        } catch (const CompileError& error) {
            EXPECT_NE(std::string(error.what()).find("Builder::unary cannot emit"),
                      std::string::npos);
        }
    }
    for (const OpCode op : {OpCode::kNeg, OpCode::kDot, OpCode::kPowI}) {
        EXPECT_THROW((void)b.binary(op, x, x), CompileError) << opcode_name(op);
    }
}

TEST(Builder, FinishValidatesAndResets) {
    Builder b;
    (void)b.param(0);
    expect_compile_error([&] { (void)b.finish(); }, {"no outputs"});
    EXPECT_EQ(b.program().size(), 0U);
    const ValueId p = b.param(1);
    b.add_output(p, "p");
    b.set_parameter_count(5);
    const Program program = b.finish();
    EXPECT_EQ(program.parameter_count, 5U);
    ASSERT_EQ(program.outputs.size(), 1U);
    EXPECT_EQ(program.output_names, std::vector<std::string>{"p"});
    EXPECT_EQ(b.program().size(), 0U);
}

TEST(Builder, UnnamedOutputsDropAllNames) {
    Builder b;
    const ValueId p = b.param(0);
    b.add_output(p, "named");
    b.add_output(p);
    const Program program = b.finish();
    EXPECT_TRUE(program.output_names.empty());
    EXPECT_EQ(program.outputs.size(), 2U);
}

// A pass that copies every instruction of a program (copy), between add_signature_of and
// add_outputs_of, gets the program back: the same inputs, parameter count, instructions (the
// constants' values and the parameters' indices too), outputs and names.
TEST(Builder, ARewriteKeepsTheSignatureInstructionsAndNamedOutputs) {
    Builder source;
    const std::uint32_t amp = source.add_input("amp", ValueKind::kComplex);
    const std::uint32_t x = source.add_input("x", ValueKind::kReal);
    const ValueId scaled = source.binary(OpCode::kMul, source.const_real(2.5), source.load(x));
    const ValueId product =
        source.binary(OpCode::kMul, source.load(amp), source.complex(source.param(2), scaled));
    source.add_output(source.unary(OpCode::kNormSqr, product), "intensity");
    source.add_output(source.binary(OpCode::kAdd, product, source.const_complex(0.5, -1.5)),
                      "amplitude");
    source.set_parameter_count(4);
    const Program program = source.finish();

    Builder copy;
    copy.add_signature_of(program);
    std::vector<ValueId> mapped;
    for (const Instruction& inst : program.instructions) {
        std::vector<ValueId> operands;
        for (const ValueId operand : program.operands_of(inst)) {
            operands.push_back(mapped[to_index(operand)]);
        }
        mapped.push_back(copy.copy(inst, operands));
    }
    copy.add_outputs_of(program, mapped);
    const Program copied = copy.finish();
    EXPECT_EQ(copied.parameter_count, 4U);
    ASSERT_EQ(copied.inputs.size(), 2U);
    EXPECT_EQ(copied.inputs[0].name, "amp");
    EXPECT_EQ(copied.inputs[0].kind, ValueKind::kComplex);
    EXPECT_EQ(copied.inputs[1].name, "x");
    EXPECT_EQ(copied.outputs, program.outputs);
    EXPECT_EQ(copied.output_names, (std::vector<std::string>{"intensity", "amplitude"}));
    ASSERT_EQ(copied.instructions.size(), program.instructions.size());
    for (std::size_t i = 0; i < program.instructions.size(); ++i) {
        const Instruction& want = program.instructions[i];
        const Instruction& got = copied.instructions[i];
        EXPECT_EQ(got.op, want.op) << i;
        EXPECT_EQ(got.attr, want.attr) << i;
        EXPECT_EQ(got.re, want.re) << i;
        EXPECT_EQ(got.im, want.im) << i;
    }
}

TEST(Stats, CountsByClassAndOpcode) {
    Builder b;
    const auto slot = b.add_input("x", ValueKind::kReal);
    const ValueId p = b.param(0);
    const ValueId x = b.load(slot);
    const ValueId px = b.binary(OpCode::kMul, p, x);
    const ValueId pp = b.binary(OpCode::kMul, p, p);
    b.add_output(b.binary(OpCode::kAdd, px, pp));
    const Stats s = stats(b.finish());
    EXPECT_EQ(s.invariant_count, 2U);
    EXPECT_EQ(s.event_count, 3U);
    EXPECT_EQ(s.count(OpCode::kMul), 2U);
    EXPECT_EQ(s.event_by_op[static_cast<std::size_t>(OpCode::kMul)], 1U);
    EXPECT_EQ(s.invariant_by_op[static_cast<std::size_t>(OpCode::kParam)], 1U);
}

TEST(OpCode, NamesAndMnemonicsAreDistinctAndNonEmpty) {
    for (std::size_t i = 0; i < kOpCodeCount; ++i) {
        const auto op = static_cast<OpCode>(i);
        EXPECT_EQ(opcode_name(op).substr(0, 1), "k");
        EXPECT_FALSE(opcode_mnemonic(op).empty());
        for (std::size_t j = 0; j < i; ++j) {
            EXPECT_NE(opcode_name(op), opcode_name(static_cast<OpCode>(j)));
        }
    }
    EXPECT_EQ(opcode_name(OpCode::kAtan2), "kAtan2");
    EXPECT_EQ(opcode_mnemonic(OpCode::kNormSqr), "norm_sqr");
}

}  // namespace
}  // namespace laddu::ir
