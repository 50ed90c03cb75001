#include <sstream>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/ir/builder.hpp>
#include <laddu/ir/print.hpp>

namespace laddu::ir {
namespace {

TEST(Print, GoldenText) {
    Builder b;
    const auto amp = b.add_input("amp0", ValueKind::kComplex);
    const auto x_slot = b.add_input("x", ValueKind::kReal);
    const ValueId re = b.param(0);
    const ValueId im = b.param(1);
    const ValueId g = b.complex(re, im);
    const ValueId a = b.load(amp);
    const ValueId x = b.load(x_slot);
    const ValueId ga = b.binary(OpCode::kMul, g, a);
    const ValueId half = b.const_real(0.5);
    const ValueId c = b.const_complex(1.0, -0.25);
    const ValueId sq = b.pow_i(x, -2);
    const std::vector<ValueId> system{x, half, half, x, c, half};
    const ValueId s = b.solve(2, 1, system);
    const ValueId e = b.extract(s, 1);
    const std::vector<ValueId> lhs{ga, e};
    const std::vector<ValueId> rhs{sq, half};
    const ValueId d = b.dot(lhs, rhs);
    b.add_output(b.unary(OpCode::kNormSqr, d), "intensity");
    const Program program = b.finish();
    const char* expected = "program: 2 inputs, 2 parameters, 1 output\n"
                           "input 0 complex \"amp0\"\n"
                           "input 1 real \"x\"\n"
                           "output 0 %12 \"intensity\"\n"
                           "%0 = param.r 0  ; invariant\n"
                           "%1 = param.r 1  ; invariant\n"
                           "%2 = complex.c %0, %1  ; invariant\n"
                           "%3 = load.c 0  ; event\n"
                           "%4 = load.r 1  ; event\n"
                           "%5 = mul.c %2, %3  ; event\n"
                           "%6 = const.r 0.5  ; invariant\n"
                           "%7 = const.c (1, -0.25)  ; invariant\n"
                           "%8 = powi.r %4, n=-2  ; event\n"
                           "%9 = solve.v %4, %6, %6, %4, %7, %6, n=2, m=1  ; event\n"
                           "%10 = extract.c %9, i=1  ; event\n"
                           "%11 = dot.c %5, %10, %8, %6, n=2  ; event\n"
                           "%12 = norm_sqr.r %11  ; event\n";
    const std::string want = expected;
    EXPECT_EQ(to_string(program), want);
    std::ostringstream out;
    print(out, program);
    EXPECT_EQ(out.str(), want);
}

TEST(Print, ConstantsRoundTripInShortestForm) {
    Builder b;
    b.add_output(b.const_real(0.1));
    b.add_output(b.const_real(1e300));
    const Program program = b.finish();
    EXPECT_EQ(to_string(program, value_id(0)), "%0 = const.r 0.1  ; invariant");
    EXPECT_EQ(to_string(program, value_id(1)), "%1 = const.r 1e+300  ; invariant");
}

}  // namespace
}  // namespace laddu::ir
