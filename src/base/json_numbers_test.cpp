// laddu's JSON number notation (json_numbers.hpp): the texts laddu 0.21.4 writes, round trips of
// random doubles, and strings and integers left alone.
#include <charconv>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include <laddu/base/json_numbers.hpp>

namespace laddu {
namespace {

TEST(JsonNumbers, WritesLadduText) {
    // laddu.ScalarSource.fixed(x).to_json() of laddu 0.21.4 for each x.
    EXPECT_EQ(laddu_json_number(1e-3), "0.001");
    EXPECT_EQ(laddu_json_number(1e-4), "0.0001");
    EXPECT_EQ(laddu_json_number(1e-5), "0.00001");
    EXPECT_EQ(laddu_json_number(2.5e-7), "2.5e-7");
    EXPECT_EQ(laddu_json_number(1e15), "1000000000000000.0");
    EXPECT_EQ(laddu_json_number(1e16), "1e+16");
    EXPECT_EQ(laddu_json_number(1.5e16), "1.5e+16");
    EXPECT_EQ(laddu_json_number(123456789012345680.0), "1.2345678901234568e+17");
    EXPECT_EQ(laddu_json_number(0.1), "0.1");
    EXPECT_EQ(laddu_json_number(-3e-300), "-3e-300");
    EXPECT_EQ(laddu_json_number(5e-324), "5e-324");
    EXPECT_EQ(laddu_json_number(1.7976931348623157e308), "1.7976931348623157e+308");
    EXPECT_EQ(laddu_json_number(1.0), "1.0");
    EXPECT_EQ(laddu_json_number(-0.0), "-0.0");
    EXPECT_EQ(laddu_json_number(123.456), "123.456");
    EXPECT_EQ(laddu_json_number(6.543600411920364e-7), "6.543600411920364e-7");
}

TEST(JsonNumbers, EveryDoubleReadsBack) {
    std::mt19937_64 rng(5);
    for (int trial = 0; trial < 100000; ++trial) {
        std::uint64_t bits = rng();
        double x = 0.0;
        std::memcpy(&x, &bits, sizeof(x));
        if (!std::isfinite(x)) {
            continue;
        }
        const std::string text = laddu_json_number(x);
        double back = 0.0;
        ASSERT_EQ(std::from_chars(text.data(), text.data() + text.size(), back).ec, std::errc())
            << text;
        ASSERT_EQ(back, x) << text;
    }
}

TEST(JsonNumbers, RewritesOnlyNumbersOutsideStrings) {
    EXPECT_EQ(
        laddu_json_numbers(R"({"a":1e-05,"b e-07":"2.5e-07","c":[12,-1e+16,0.5],"d":"\"1e-05"})"),
        R"({"a":0.00001,"b e-07":"2.5e-07","c":[12,-1e+16,0.5],"d":"\"1e-05"})");
}

}  // namespace
}  // namespace laddu
