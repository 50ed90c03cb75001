#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/ir/builder.hpp>
#include <laddu/ir/validate.hpp>

namespace laddu::ir {
namespace {

// %0 param 0, %1 load 0 (complex), %2 load 1 (real), %3 mul %0 %1, %4 solve(1,1) %2 %0,
// %5 extract %4 0, %6 add %3 %5 -> output.
Program good_program() {
    Builder b;
    const auto z_slot = b.add_input("z", ValueKind::kComplex);
    const auto x_slot = b.add_input("x", ValueKind::kReal);
    const ValueId p = b.param(0);
    const ValueId z = b.load(z_slot);
    const ValueId x = b.load(x_slot);
    const ValueId pz = b.binary(OpCode::kMul, p, z);
    const std::vector<ValueId> system{x, p};
    const ValueId s = b.solve(1, 1, system);
    const ValueId e = b.extract(s, 0);
    b.add_output(b.binary(OpCode::kAdd, pz, e), "value");
    return b.finish();
}

void expect_invalid(const std::function<void(Program&)>& mutate,
                    const std::vector<std::string>& fragments) {
    Program program = good_program();
    mutate(program);
    const Expected<void> result = validate(program);
    ASSERT_FALSE(result.has_value()) << "mutated program unexpectedly valid";
    EXPECT_EQ(result.error().kind, ErrorKind::kCompile);
    for (const std::string& fragment : fragments) {
        EXPECT_NE(result.error().message.find(fragment), std::string::npos)
            << "message '" << result.error().message << "' lacks '" << fragment << "'";
    }
}

TEST(Validate, AcceptsBuilderOutput) {
    EXPECT_TRUE(validate(good_program()).has_value());
}

TEST(Validate, RejectsForwardReference) {
    expect_invalid([](Program& p) { p.operands[p.instructions[3].first] = value_id(6); },
                   {"%3", "operand %6", "topological"});
}

TEST(Validate, RejectsSelfReference) {
    expect_invalid([](Program& p) { p.operands[p.instructions[3].first] = value_id(3); },
                   {"%3", "operand %3"});
}

TEST(Validate, RejectsOperandRangeOutsidePool) {
    expect_invalid([](Program& p) { p.instructions[6].first = 100; }, {"%6", "operand pool"});
}

TEST(Validate, RejectsWrongOperandCount) {
    expect_invalid([](Program& p) { p.instructions[6].count = 1; }, {"%6", "kAdd", "2 operands"});
    expect_invalid([](Program& p) { p.instructions[2].count = 1; }, {"%2", "no operands"});
}

TEST(Validate, RejectsWrongOperandKind) {
    // Make the atan2 of a Complex operand.
    expect_invalid([](Program& p) { p.instructions[3].op = OpCode::kAtan2; },
                   {"%3", "kAtan2", "Real", "Complex"});
    expect_invalid([](Program& p) { p.instructions[5].op = OpCode::kNeg; },
                   {"%5", "kNeg", "Vector"});
}

TEST(Validate, RejectsWrongResultKind) {
    expect_invalid([](Program& p) { p.instructions[3].kind = ValueKind::kReal; },
                   {"%3", "kind is Real", "give Complex"});
    expect_invalid([](Program& p) { p.instructions[2].kind = ValueKind::kComplex; },
                   {"%2", "kind is Complex"});
}

TEST(Validate, RejectsWrongClass) {
    expect_invalid([](Program& p) { p.instructions[3].cls = ValueClass::kInvariant; },
                   {"%3", "class is invariant", "give event"});
    expect_invalid([](Program& p) { p.instructions[0].cls = ValueClass::kEvent; },
                   {"%0", "class is event"});
}

TEST(Validate, RejectsParameterOutOfRange) {
    expect_invalid([](Program& p) { p.parameter_count = 0; },
                   {"%0", "parameter index 0", "parameter_count = 0"});
}

TEST(Validate, RejectsMissingInputSlot) {
    expect_invalid([](Program& p) { p.instructions[1].attr = 7; }, {"%1", "slot 7"});
}

TEST(Validate, RejectsLoadKindMismatchAndVectorInput) {
    expect_invalid([](Program& p) { p.inputs[0].kind = ValueKind::kReal; },
                   {"%1", "kind is Complex", "give Real"});
    expect_invalid([](Program& p) { p.inputs[1].kind = ValueKind::kVector; },
                   {"input slot 1", "'x'", "Vector"});
}

TEST(Validate, RejectsBadSolveSizes) {
    expect_invalid([](Program& p) { p.instructions[4].attr = solve_attr(2, 1); },
                   {"%4", "kSolve", "6 operands"});
    expect_invalid([](Program& p) { p.instructions[4].attr = solve_attr(1, 0); }, {"%4", "m >= 1"});
}

TEST(Validate, RejectsExtractOutOfRange) {
    expect_invalid([](Program& p) { p.instructions[5].attr = 1; }, {"%5", "index 1", "width 1"});
}

TEST(Validate, RejectsBadDot) {
    expect_invalid(
        [](Program& p) {
            p.instructions[6].op = OpCode::kDot;
            p.instructions[6].attr = 2;
        },
        {"%6", "kDot", "n = 2"});
}

TEST(Validate, RejectsInvalidOpcode) {
    expect_invalid([](Program& p) { p.instructions[6].op = static_cast<OpCode>(200); },
                   {"%6", "invalid opcode"});
}

TEST(Validate, RejectsBadOutputs) {
    expect_invalid([](Program& p) { p.outputs.clear(); }, {"no outputs"});
    expect_invalid([](Program& p) { p.outputs[0] = value_id(42); }, {"output 0", "%42"});
    expect_invalid([](Program& p) { p.outputs[0] = value_id(4); }, {"output 0", "Vector"});
    expect_invalid([](Program& p) { p.output_names.emplace_back("extra"); },
                   {"1 outputs", "2 output names"});
}

}  // namespace
}  // namespace laddu::ir
