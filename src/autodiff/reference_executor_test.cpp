// The test oracle itself: the reference executor against hand-computed values.
#include <cmath>
#include <numbers>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/ir/builder.hpp>

#include "testing/gradient_check.hpp"

namespace laddu::autodiff::testing {
namespace {

using ir::OpCode;
using ir::ValueId;

TEST(ReferenceExecutor, SolvesANonsymmetricComplexSystemWithPivoting) {
    // [[0, 1], [2, i]] x = [1, 2 + i]: the zero pivot forces a row swap. x = [1, 1].
    const std::vector<Complex> a{0.0, 1.0, 2.0, Complex(0.0, 1.0)};
    const std::vector<Complex> b{1.0, Complex(2.0, 1.0)};
    const auto x = reference_solve(2, 1, a, b);
    EXPECT_NEAR(std::abs(x[0] - Complex(1.0)), 0.0, 1e-15);
    EXPECT_NEAR(std::abs(x[1] - Complex(1.0)), 0.0, 1e-15);
    const auto singular = reference_solve(2, 1, {1.0, 2.0, 2.0, 4.0}, {1.0, 1.0});
    EXPECT_TRUE(std::isnan(singular[0].real()));
}

TEST(ReferenceExecutor, EvaluatesMixedKindsPowersAndDots) {
    ir::Builder b;
    const ValueId z = b.load(b.add_input("z", ir::ValueKind::kComplex));
    const ValueId r = b.param(0);
    b.add_output(b.binary(OpCode::kMul, r, z));                                   // Real × Complex
    b.add_output(b.pow_i(r, -3));                                                 // 1/r³
    b.add_output(b.dot(std::vector<ValueId>{r, z}, std::vector<ValueId>{z, z}));  // r z + z²
    b.add_output(b.unary(OpCode::kArg, r));                                       // atan2(0, r)
    b.add_output(b.binary(OpCode::kPow, z, r));                                   // exp(r log z)
    const ir::Program program = b.finish();
    const Complex zv(0.5, -1.5);
    const auto out = run_reference(program, std::vector<double>{-2.0}, std::vector{zv});
    EXPECT_EQ(out[0], -2.0 * zv);
    EXPECT_EQ(out[1], Complex(-0.125));
    EXPECT_NEAR(std::abs(out[2] - (-2.0 * zv + zv * zv)), 0.0, 1e-15);
    EXPECT_NEAR(out[3].real(), std::numbers::pi, 1e-15);
    EXPECT_NEAR(std::abs(out[4] - std::exp(-2.0 * std::log(zv))), 0.0, 1e-15);
}

}  // namespace
}  // namespace laddu::autodiff::testing
