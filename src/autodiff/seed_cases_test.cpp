// The seed runtime's gradient acceptance tests (seed-spec.md §9) that make sense on IR.
#include <cmath>
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
using testing::run_reference;

// Seed test 3: |sin x + i·exp y|² + cos(xy).
TEST(SeedGradients, ScalarComplexMatchesAnalyticAndFiniteDifferences) {
    ir::Builder b;
    const ValueId x = b.param(0);
    const ValueId y = b.param(1);
    const ValueId z = b.complex(b.unary(OpCode::kSin, x), b.unary(OpCode::kExp, y));
    b.add_output(b.binary(OpCode::kAdd, b.unary(OpCode::kNormSqr, z),
                          b.unary(OpCode::kCos, b.binary(OpCode::kMul, x, y))));
    const ir::Program program = b.finish();
    const std::vector<double> params{0.4, -0.3};
    EXPECT_TRUE(gradients_agree(program, params, {{}}));
    const double px = params[0];
    const double py = params[1];
    const double dx = 2.0 * std::sin(px) * std::cos(px) - py * std::sin(px * py);
    const double dy = 2.0 * std::exp(2.0 * py) - px * std::sin(px * py);
    for (const ir::Program& g : {forward(program), reverse(program)}) {
        const auto out = run_reference(g, params, {});
        EXPECT_NEAR(out[1].real(), dx, 1e-12);
        EXPECT_NEAR(out[2].real(), dy, 1e-12);
    }
}

// Seed tests 4 and 12: many complex operations, atan2 and products, including y = 0 where
// y·x is a zero product and atan2(y, x) sits on the positive axis.
ir::Program complex_operations_program() {
    ir::Builder b;
    const ValueId x = b.param(0);
    const ValueId y = b.param(1);
    const ValueId s = b.param(2);
    const ValueId w = b.complex(x, b.binary(OpCode::kAdd, y, b.const_real(0.2)));
    const std::vector<ValueId> terms{
        b.unary(OpCode::kSqrt, w),
        b.unary(OpCode::kLog, w),
        b.pow_i(w, -2),
        b.unary(OpCode::kSin, w),
        b.unary(OpCode::kCos, w),
        b.unary(OpCode::kExp, w),
        b.unary(OpCode::kConj, w),
        b.complex(b.unary(OpCode::kReal, w), b.unary(OpCode::kImag, w)),
        b.unary(OpCode::kNormSqr, w),
        b.binary(OpCode::kAtan2, y, x),
        b.binary(OpCode::kMul, y, x),
        b.mul_n(std::vector<ValueId>{x, y, s, y}),
    };
    b.add_output(b.binary(OpCode::kMul, b.add_n(terms), s));
    return b.finish();
}

TEST(SeedGradients, ComplexOperationsAgree) {
    EXPECT_TRUE(
        gradients_agree(complex_operations_program(), std::vector<double>{0.7, 0.3, 1.1}, {{}}));
}

TEST(SeedGradients, ZeroProductsAndAtan2OnTheAxisAgree) {
    const ir::Program program = complex_operations_program();
    const std::vector<double> params{0.7, 0.0, 1.1};
    EXPECT_TRUE(gradients_agree(program, params, {{}}));
    for (const ir::Program& g : {forward(program), reverse(program)}) {
        for (const Complex& out : run_reference(g, params, {})) {
            EXPECT_TRUE(std::isfinite(out.real()) && std::isfinite(out.imag()));
        }
    }
}

// Seed tests 6 and 14: solve([[a, b], [0.2, 1.7]], [r, 0.5 - 0.1i]) · c.
TEST(SeedGradients, ParameterDependentSolve) {
    ir::Builder b;
    const ValueId a = b.param(0);
    const ValueId bb = b.param(1);
    const ValueId r = b.param(2);
    const std::vector<ValueId> operands{
        a, bb, b.const_real(0.2), b.const_real(1.7), r, b.const_complex(0.5, -0.1)};
    const ValueId x = b.solve(2, 1, operands);
    const std::vector<ValueId> elements{b.extract(x, 0), b.extract(x, 1)};
    const std::vector<ValueId> c{b.const_complex(1.0, 0.5), b.const_complex(-0.3, 2.0)};
    b.add_output(b.dot(elements, c));
    const ir::Program program = b.finish();
    EXPECT_TRUE(gradients_agree(program, std::vector<double>{2.0, 0.7, 1.3}, {{}}));
}

// Seed test 36: the SolveRow specialisation, solve([[x + 2]], [rhs])[0], after the compiler
// caches the inverse row 1/(x + 2) as a Complex column: kDot(row, rhs) with rhs a parameter.
TEST(SeedGradients, CachedSolveRowIsExact) {
    ir::Builder b;
    const std::uint32_t slot = b.add_input("inv_row_0", ir::ValueKind::kComplex);
    const std::vector<ValueId> row{b.load(slot)};
    const std::vector<ValueId> rhs{b.param(0)};
    b.add_output(b.dot(row, rhs));
    const ir::Program program = b.finish();
    const std::vector<double> params{3.0};
    const std::vector<Event> events{{Complex(1.0 / 2.0)}, {Complex(1.0 / 3.0)}};
    for (const ir::Program& g : {forward(program), reverse(program)}) {
        EXPECT_EQ(run_reference(g, params, events[0])[0], Complex(1.5));
        EXPECT_EQ(run_reference(g, params, events[0])[1], Complex(0.5));
        EXPECT_EQ(run_reference(g, params, events[1])[0], Complex(1.0));
        EXPECT_EQ(run_reference(g, params, events[1])[1], Complex(1.0 / 3.0));
    }
    EXPECT_TRUE(gradients_agree(program, params, events));
}

// Seed tests 37 and 38: solve([[x + 2, i], [2 - i, 3]], [p², complex(q, p)])[1], once as a
// direct per-event solve and once through cached inverse rows (Mᵀ y = e_1 precomputed).
TEST(SeedGradients, CachedSolveRowsMatchTheDirectNonsymmetricSolve) {
    const auto matrix = [](ir::Builder& b, ValueId x) {
        return std::vector<ValueId>{b.binary(OpCode::kAdd, x, b.const_real(2.0)),
                                    b.const_complex(0.0, 1.0), b.const_complex(2.0, -1.0),
                                    b.const_real(3.0)};
    };
    const auto rhs = [](ir::Builder& b) {
        const ValueId p = b.param(0);
        const ValueId q = b.param(1);
        return std::vector<ValueId>{b.binary(OpCode::kMul, p, p), b.complex(q, p)};
    };
    ir::Builder direct_builder;
    const ValueId x = direct_builder.load(direct_builder.add_input("x", ir::ValueKind::kReal));
    std::vector<ValueId> operands = matrix(direct_builder, x);
    for (const ValueId v : rhs(direct_builder)) {
        operands.push_back(v);
    }
    direct_builder.add_output(direct_builder.extract(direct_builder.solve(2, 1, operands), 1));
    const ir::Program direct = direct_builder.finish();

    // Precompute: y = M⁻ᵀ e_1, so x_1 = y · b.
    ir::Builder pre;
    const ValueId px = pre.load(pre.add_input("x", ir::ValueKind::kReal));
    const std::vector<ValueId> m = matrix(pre, px);
    const std::vector<ValueId> transposed{
        m[0], m[2], m[1], m[3], pre.const_real(0.0), pre.const_real(1.0)};
    const ValueId y = pre.solve(2, 1, transposed);
    pre.add_output(pre.extract(y, 0));
    pre.add_output(pre.extract(y, 1));
    const ir::Program precompute = pre.finish();

    ir::Builder cached_builder;
    const std::vector<ValueId> row{
        cached_builder.load(cached_builder.add_input("row0", ir::ValueKind::kComplex)),
        cached_builder.load(cached_builder.add_input("row1", ir::ValueKind::kComplex))};
    cached_builder.add_output(cached_builder.dot(row, rhs(cached_builder)));
    const ir::Program cached = cached_builder.finish();

    const std::vector<double> params{0.8, -0.4};
    std::vector<Event> direct_events;
    std::vector<Event> cached_events;
    for (const double xv : {0.0, 1.0, -0.5}) {
        direct_events.push_back({Complex(xv)});
        cached_events.push_back(run_reference(precompute, {}, direct_events.back()));
    }
    EXPECT_TRUE(gradients_agree(direct, params, direct_events));
    EXPECT_TRUE(gradients_agree(cached, params, cached_events));
    for (std::size_t e = 0; e < direct_events.size(); ++e) {
        const auto d = run_reference(reverse(direct), params, direct_events[e]);
        const auto c = run_reference(forward(cached), params, cached_events[e]);
        for (std::size_t k = 0; k < d.size(); ++k) {
            EXPECT_LT(std::abs(d[k] - c[k]), 1e-12 * std::max(1.0, std::abs(d[k])))
                << "event " << e << " output " << k;
        }
    }
}

}  // namespace
}  // namespace laddu::autodiff
