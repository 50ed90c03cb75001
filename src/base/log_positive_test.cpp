#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/log_positive.hpp>

namespace laddu {
namespace {

// The distance in units in the last place between two finite doubles (ordered bit patterns).
std::uint64_t ulps(double a, double b) {
    auto ordered = [](double x) {
        const auto bits = std::bit_cast<std::int64_t>(x);
        return bits < 0 ? std::numeric_limits<std::int64_t>::min() - bits : bits;
    };
    const std::int64_t d = ordered(a) - ordered(b);
    return static_cast<std::uint64_t>(d < 0 ? -d : d);
}

void expect_within_one_ulp(const std::vector<double>& xs) {
    std::size_t exact = 0;
    for (const double x : xs) {
        const double want = std::log(x);
        const double got = log_positive(x);
        ASSERT_LE(ulps(got, want), 1U) << "x = " << x << ": got " << got << ", libm " << want;
        exact += got == want ? 1U : 0U;
    }
    // Both round like the exact log almost always.
    EXPECT_GT(static_cast<double>(exact), 0.9 * static_cast<double>(xs.size()));
}

TEST(LogPositive, WithinOneUlpOfLibmOverTheWholeRange) {
    std::mt19937_64 random(71);
    std::vector<double> xs;
    xs.reserve(200000);
    // Uniform bit patterns of positive finite doubles: every binade, subnormals included.
    std::uniform_int_distribution<std::uint64_t> bits(1, 0x7fefffffffffffffULL);
    for (int i = 0; i < 200000; ++i) {
        xs.push_back(std::bit_cast<double>(bits(random)));
    }
    expect_within_one_ulp(xs);
}

TEST(LogPositive, WithinOneUlpNearOneAndAtTheReductionBoundaries) {
    std::mt19937_64 random(72);
    std::vector<double> xs;
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    for (const double scale : {1e-1, 1e-3, 1e-6, 1e-9, 1e-14}) {
        for (int i = 0; i < 20000; ++i) {
            xs.push_back(1.0 + scale * unit(random));
        }
    }
    // Around sqrt(2) and sqrt(2)/2, where the mantissa reduction switches, and the magnitudes
    // intensities take.
    for (const double edge : {std::sqrt(2.0), std::sqrt(0.5), 2.0, 0.5, 1e-300, 1e300}) {
        for (int i = -2000; i <= 2000; ++i) {
            xs.push_back(edge * (1.0 + 1e-12 * i));
        }
    }
    std::uniform_real_distribution<double> intensity(1e-6, 1e6);
    for (int i = 0; i < 50000; ++i) {
        xs.push_back(intensity(random));
    }
    expect_within_one_ulp(xs);
}

TEST(LogPositive, ExactPointsAndExtremes) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(log_positive(1.0)), 0U);  // +0
    for (int k = -1074; k <= 1023; ++k) {
        const double x = std::ldexp(1.0, k);
        ASSERT_LE(ulps(log_positive(x), std::log(x)), 1U) << "2^" << k;
    }
    for (const double x : {std::numeric_limits<double>::max(), std::numeric_limits<double>::min(),
                           std::numeric_limits<double>::denorm_min(), 0x1.fffffffffffffp-1023}) {
        EXPECT_LE(ulps(log_positive(x), std::log(x)), 1U) << x;
    }
}

// The error in ulps of the result against the long double log (x87: 11 more bits, an
// independent reference), as a fraction.
double error_ulps(double x) {
    const long double exact = std::log(static_cast<long double>(x));
    const double got = log_positive(x);
    const double rounded = static_cast<double>(exact);
    const double ulp = std::nextafter(std::fabs(rounded), INFINITY) - std::fabs(rounded);
    return static_cast<double>(std::fabs(static_cast<long double>(got) - exact) / ulp);
}

// Tang's bound for this table and polynomial is about 0.5 ulp plus the rounding of r = z / c - 1,
// which matters only where log c and r nearly cancel (k = 0, the rows beside 1): measured at most
// 0.60 ulp over all doubles and 0.75 ulp near 1 (5·10^7 arguments); libm's own logs are 0.5-1 ulp.
TEST(LogPositive, WithinThreeQuartersOfAnUlpOfTheLongDoubleLog) {
    std::mt19937_64 random(74);
    std::uniform_int_distribution<std::uint64_t> bits(1, 0x7fefffffffffffffULL);
    double worst = 0.0;
    for (int i = 0; i < 400000; ++i) {
        worst = std::max(worst, error_ulps(std::bit_cast<double>(bits(random))));
    }
    EXPECT_LT(worst, 0.62) << "over all positive doubles";
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    worst = 0.0;
    for (const double scale : {0.3, 0.03, 1e-2, 4e-3, 1e-6, 1e-12}) {
        for (int i = 0; i < 100000; ++i) {
            const double x = 1.0 + scale * unit(random);
            if (x != 1.0) {
                worst = std::max(worst, error_ulps(x));
            }
        }
    }
    EXPECT_LT(worst, 0.76) << "near 1";
}

// What is wrong with row `row` of the table, or "": each row is 1 / c and log c for a point c of
// its interval of z, log c within 2^-8 of an ulp (tools/gen_log_table.py); the rows that touch 1
// are exactly {1, 0}.
std::string row_problem(std::uint64_t row) {
    namespace c = log_positive_constants;
    const double invc = std::bit_cast<double>(c::kTable[row].invc);
    const double logc = std::bit_cast<double>(c::kTable[row].logc);
    const double lo = std::bit_cast<double>(c::kReductionStart + (row << c::kTableShift));
    const double hi = std::bit_cast<double>(c::kReductionStart + ((row + 1) << c::kTableShift));
    const long double point = 1.0L / static_cast<long double>(invc);
    if (point < lo || point > hi) {
        return "its point is outside its interval";
    }
    if (lo <= 1.0 && 1.0 <= hi) {
        return invc == 1.0 && logc == 0.0 ? "" : "a row beside 1 is not {1, 0}";
    }
    const long double exact = -std::log(static_cast<long double>(invc));
    const double ulp = std::nextafter(std::fabs(logc), INFINITY) - std::fabs(logc);
    return std::fabs(static_cast<long double>(logc) - exact) / ulp <= 1.0L / 128
               ? ""
               : "log c is off by more than 1/128 ulp";
}

TEST(LogPositive, TableRowsHoldPointsOfTheirIntervalsAndTheirLogs) {
    for (std::uint64_t row = 0; row < std::size(log_positive_constants::kTable); ++row) {
        EXPECT_EQ(row_problem(row), "") << "row " << row;
    }
}

// The vectorised block version gives the scalar version's bits for every length and alignment.
TEST(LogPositive, BlocksGiveTheScalarBits) {
    std::mt19937_64 random(73);
    std::uniform_real_distribution<double> exponent(-700.0, 700.0);
    std::vector<double> xs(1100);
    for (double& x : xs) {
        x = std::exp(exponent(random));
    }
    xs[5] = std::numeric_limits<double>::denorm_min();
    for (const std::size_t offset : {0U, 1U, 3U}) {
        for (const std::size_t n : {0U, 1U, 7U, 8U, 9U, 33U, 1000U}) {
            std::vector<double> out(n, -1.0);
            log_positive(std::span<const double>(xs).subspan(offset, n), out);
            for (std::size_t i = 0; i < n; ++i) {
                ASSERT_EQ(std::bit_cast<std::uint64_t>(out[i]),
                          std::bit_cast<std::uint64_t>(log_positive(xs[offset + i])))
                    << "offset " << offset << ", n " << n << ", i " << i;
            }
        }
    }
}

// The f32 log against the long double log rounded to float (x87's 64-bit mantissa: an
// independent, more precise reference) and against libm's logf, over floats spread over the
// whole range (subnormals included) and dense near 1.
// Floats spread over the whole range (subnormals included) and dense near 1, as doubles.
std::vector<double> float_arguments() {
    std::mt19937_64 random(79);
    std::uniform_real_distribution<double> exponent(-103.0, 88.0);
    std::uniform_real_distribution<double> near_one(0.9, 1.1);
    std::vector<double> xs;
    for (int i = 0; i < 20000; ++i) {
        xs.push_back(static_cast<double>(static_cast<float>(std::exp(exponent(random)))));
        xs.push_back(static_cast<double>(static_cast<float>(near_one(random))));
    }
    xs.push_back(static_cast<double>(std::numeric_limits<float>::denorm_min()));
    xs.push_back(static_cast<double>(std::numeric_limits<float>::max()));
    xs.push_back(1.0);
    xs.push_back(2.0);
    return xs;
}

int float_ulps(float a, float b) {
    const auto ia = std::bit_cast<std::int32_t>(a);
    const auto ib = std::bit_cast<std::int32_t>(b);
    return ia > ib ? ia - ib : ib - ia;
}

// What is wrong with `got` as the f32 log of float `x`, or "": a float, within 1 ulp of the
// long double log rounded to float and of logf.
std::string f32_log_problem(float x, double got) {
    const auto g = static_cast<float>(got);
    if (static_cast<double>(g) != got) {
        return "not a float widened";
    }
    const auto want = static_cast<float>(std::log(static_cast<long double>(x)));
    if (float_ulps(g, want) > 1) {
        return "more than 1 ulp from the rounded long double log";
    }
    return float_ulps(g, std::log(x)) > 1 ? "more than 1 ulp from logf" : "";
}

TEST(LogPositiveF32, IsTheRoundedLongDoubleLogAlmostAlwaysAndWithinOneUlpOfLogf) {
    const std::vector<double> xs = float_arguments();
    std::vector<double> got(xs.size());
    log_positive_f32(xs, got);
    std::size_t rounded = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        const auto x = static_cast<float>(xs[i]);
        ASSERT_EQ(f32_log_problem(x, got[i]), "") << "x = " << x << ": " << got[i];
        rounded +=
            got[i] == static_cast<double>(static_cast<float>(std::log(static_cast<long double>(x))))
                ? 1U
                : 0U;
    }
    EXPECT_GT(static_cast<double>(rounded), 0.9999 * static_cast<double>(xs.size()));
    // A double that is not a float is rounded to float first.
    const double between = 1.0 + std::ldexp(1.0, -30);
    std::vector<double> one(1);
    log_positive_f32(std::span<const double>(&between, 1), one);
    EXPECT_EQ(one[0], 0.0);
}

}  // namespace
}  // namespace laddu
