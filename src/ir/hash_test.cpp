#include <string>

#include <gtest/gtest.h>

#include <laddu/ir/builder.hpp>
#include <laddu/ir/hash.hpp>

namespace laddu::ir {
namespace {

Program sample(double constant, std::int32_t power, std::uint32_t param_index) {
    Builder b;
    const auto slot = b.add_input("z", ValueKind::kComplex);
    const ValueId z = b.load(slot);
    const ValueId p = b.param(param_index);
    const ValueId c = b.const_real(constant);
    const ValueId pc = b.binary(OpCode::kMul, p, c);
    b.add_output(b.pow_i(b.binary(OpCode::kAdd, z, pc), power), "out");
    return b.finish();
}

TEST(Hash, EqualProgramsHashEqual) {
    EXPECT_EQ(hash(sample(1.5, 2, 0)), hash(sample(1.5, 2, 0)));
}

TEST(Hash, NamesDoNotChangeTheHash) {
    Program a = sample(1.5, 2, 0);
    Program b = a;
    b.inputs[0].name = "other";
    b.output_names[0] = "renamed";
    EXPECT_EQ(hash(a), hash(b));
    EXPECT_TRUE(same_computation(a, b));
    EXPECT_FALSE(a == b);
}

TEST(Hash, SameComputationComparesWhatTheHashCovers) {
    const Program base = sample(1.5, 2, 0);
    EXPECT_TRUE(same_computation(base, sample(1.5, 2, 0)));
    EXPECT_FALSE(same_computation(base, sample(1.5, 3, 0)));
    EXPECT_FALSE(same_computation(base, sample(1.5000000000000002, 2, 0)));
    EXPECT_FALSE(same_computation(base, sample(1.5, 2, 1)));
    Program real_input = base;
    real_input.inputs[0].kind = ValueKind::kReal;
    EXPECT_FALSE(same_computation(base, real_input));
}

TEST(Hash, ChangesWithEveryStructuralField) {
    const Program base = sample(1.5, 2, 0);
    const auto h = hash(base);
    EXPECT_NE(h, hash(sample(1.5, 3, 0)));                 // attr (exponent)
    EXPECT_NE(h, hash(sample(1.5000000000000002, 2, 0)));  // constant, one ulp
    EXPECT_NE(h, hash(sample(1.5, 2, 1)));                 // parameter index and count
    Program swapped = base;
    std::swap(swapped.operands[0], swapped.operands[1]);
    EXPECT_NE(h, hash(swapped));
    Program more_params = base;
    more_params.parameter_count = 9;
    EXPECT_NE(h, hash(more_params));
    Program other_kind = base;
    other_kind.inputs[0].kind = ValueKind::kReal;
    EXPECT_NE(h, hash(other_kind));
    Program other_output = base;
    other_output.outputs[0] = value_id(0);
    EXPECT_NE(h, hash(other_output));
    Program opcode = base;
    opcode.instructions[3].op = OpCode::kAdd;
    EXPECT_NE(h, hash(opcode));
}

// The bytes the JIT's object cache keys on: every field lowering reads changes them (the input
// names too), an output name does not.
TEST(Describe, ChangesWithEveryFieldButOutputNames) {
    const auto small = [](double constant, const char* input, bool swap, const char* name) {
        Builder b;
        const ValueId x = b.load(b.add_input(input, ValueKind::kReal));
        const ValueId c = b.const_real(constant);
        b.add_output(swap ? b.binary(OpCode::kSub, c, x) : b.binary(OpCode::kSub, x, c), name);
        return b.finish();
    };
    const std::string base = describe(small(0.0, "x", false, "out"));
    EXPECT_EQ(describe(small(0.0, "x", false, "another name")), base);
    EXPECT_NE(describe(small(-0.0, "x", false, "out")), base);
    EXPECT_NE(describe(small(0.0, "y", false, "out")), base);
    EXPECT_NE(describe(small(0.0, "x", true, "out")), base);
    Program more_parameters = small(0.0, "x", false, "out");
    more_parameters.parameter_count = 1;
    EXPECT_NE(describe(more_parameters), base);
    // The hash walks the same fields, names aside.
    EXPECT_EQ(hash(small(0.0, "y", false, "out")), hash(small(0.0, "x", false, "out")));
    EXPECT_NE(hash(small(-0.0, "x", false, "out")), hash(small(0.0, "x", false, "out")));
}

}  // namespace
}  // namespace laddu::ir
