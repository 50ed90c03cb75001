#include <gtest/gtest.h>

#include <laddu/expr/print.hpp>

namespace laddu::expr {
namespace {

TEST(Print, WritesInfixText) {
    const Expr e =
        norm_sqr(complex(scalar("x"), parameter("p")) * 2.0 + std::complex<double>(1.0, -2.0));
    EXPECT_EQ(to_string(e), "norm_sqr(((complex([x], p) * 2) + (1-2i)))");
    EXPECT_EQ(to_string(powi(p4_component("beam", P4Component::kPx), 2)), "powi([beam.px], 2)");
    EXPECT_EQ(to_string(atan2(scalar("y"), -scalar("x"))), "atan2([y], -[x])");
    EXPECT_EQ(to_string(matrix({{1.0, 2.0}, {3.0, 4.0}}).at(1, 0)), "[[1, 2], [3, 4]][1, 0]");
    EXPECT_EQ(to_string(scalar("x").tagged("A")), "tagged([x], \"A\")");
}

TEST(Print, BindsSharedSubexpressionsOnce) {
    const Expr s = sin(scalar("x"));
    EXPECT_EQ(to_string(s * s), "t1 = sin([x])\n(t1 * t1)");
}

}  // namespace
}  // namespace laddu::expr
