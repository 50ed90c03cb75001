// Property tests on seeded random programs: forward == reverse to 1e-12 and both match finite
// differences to 1e-7, for every component.
#include <gtest/gtest.h>

#include <laddu/autodiff/gradient.hpp>
#include <laddu/ir/validate.hpp>

#include "testing/gradient_check.hpp"
#include "testing/random_program.hpp"

namespace laddu::autodiff {
namespace {

using testing::RandomProgramOptions;

TEST(RandomPrograms, GeneratorIsDeterministicAndValid) {
    const RandomProgramOptions options;
    const auto a = testing::random_program(7, options);
    const auto b = testing::random_program(7, options);
    const auto c = testing::random_program(8, options);
    EXPECT_EQ(a.program, b.program);
    EXPECT_EQ(a.params, b.params);
    EXPECT_FALSE(a.program == c.program);
    EXPECT_TRUE(ir::validate(a.program).has_value());
    EXPECT_GE(a.program.size(), 30U);
}

TEST(RandomPrograms, CoverEveryOpcode) {
    std::vector<bool> seen(ir::kOpCodeCount, false);
    for (std::uint64_t seed = 0; seed < 100; ++seed) {
        for (const ir::Instruction& inst : testing::random_program(seed, {}).program.instructions) {
            seen[static_cast<std::size_t>(inst.op)] = true;
        }
    }
    for (std::size_t op = 0; op < ir::kOpCodeCount; ++op) {
        EXPECT_TRUE(seen[op]) << ir::opcode_name(static_cast<ir::OpCode>(op));
    }
}

TEST(RandomPrograms, FiniteDifferenceFilterRedrawsFewPrograms) {
    // The stability filter must not quietly select only easy programs.
    RandomProgramOptions options;
    options.instructions = 60;
    std::uint32_t draws = 0;
    constexpr std::uint32_t kCases = 100;
    for (std::uint64_t seed = 0; seed < kCases; ++seed) {
        draws += testing::random_program(seed, options).attempts;
    }
    EXPECT_LT(draws, kCases * 5 / 4);
}

void check_seeds(std::uint64_t first, std::uint64_t count, const RandomProgramOptions& options) {
    for (std::uint64_t seed = first; seed < first + count; ++seed) {
        const auto c = testing::random_program(seed, options);
        for (const Component component : {Component::kFull, Component::kReal, Component::kImag}) {
            ASSERT_TRUE(testing::gradients_agree(c.program, c.params, c.events, component))
                << "seed " << seed << ", component " << static_cast<int>(component);
        }
    }
}

TEST(RandomPrograms, ShortProgramsAgree) {
    RandomProgramOptions options;
    options.instructions = 8;
    check_seeds(1000, 1000, options);
}

TEST(RandomPrograms, LongChainsAgree) {
    RandomProgramOptions options;
    options.instructions = 60;
    options.parameters = 6;
    check_seeds(2000, 400, options);
}

TEST(RandomPrograms, ParameterOnlyProgramsAgree) {
    RandomProgramOptions options;
    options.real_inputs = 0;
    options.complex_inputs = 0;
    options.events = 1;
    check_seeds(3000, 300, options);
}

}  // namespace
}  // namespace laddu::autodiff
