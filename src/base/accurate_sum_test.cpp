#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/accurate_sum.hpp>

namespace laddu {
namespace {

TEST(TwoSum, IsExact) {
    const TwoSumResult r = two_sum(1.0, 1e-17);
    EXPECT_EQ(r.sum, 1.0);
    EXPECT_EQ(r.error, 1e-17);
    const TwoSumResult s = two_sum(1e-17, 1.0);  // no ordering requirement, unlike Fast2Sum
    EXPECT_EQ(s.sum, 1.0);
    EXPECT_EQ(s.error, 1e-17);
}

TEST(AccurateSum, RecoversWhatANaiveSumLoses) {
    // 1 + 1e-16 (x 10^4) - 1: the naive sum returns 0, the exact value is 1e-12.
    std::vector<double> values{1.0};
    values.insert(values.end(), 10000, 1e-16);
    values.push_back(-1.0);
    const double naive = std::accumulate(values.begin(), values.end(), 0.0);
    EXPECT_EQ(naive, 0.0);
    EXPECT_NEAR(accurate_sum(values), 1e-12,
                1e-24);  // relative 1e-12: the compensation itself is a plain sum
}

TEST(AccurateSum, CancellationOfLargeTerms) {
    AccurateSum sum;
    sum.push(1e100);
    sum.push(1.0);
    sum.push(-1e100);
    EXPECT_EQ(sum.finish(), 1.0);
}

TEST(AccurateSum, ChunkedMergeMatchesLongDoubleReference) {
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> values(100000);
    for (double& v : values) {
        v = dist(rng) * std::pow(10.0, dist(rng) * 8.0);
    }
    long double reference = 0.0L;
    for (const double v : values) {
        reference += static_cast<long double>(v);
    }
    AccurateSum total;
    for (std::size_t start = 0; start < values.size(); start += 4096) {
        AccurateSum chunk;
        const std::size_t end = std::min(values.size(), start + 4096);
        chunk.push(std::span<const double>(values).subspan(start, end - start));
        total.merge(chunk);
    }
    const double ref = static_cast<double>(reference);
    EXPECT_NEAR(total.finish(), ref, std::abs(ref) * 1e-15 + 1e-15);
}

// Ill-conditioned terms with a known exact sum: pairs ±b (b up to 2^50, shuffled apart) around
// small integers, whose sum is exact in double.
struct IllConditioned {
    std::vector<double> terms;
    double exact = 0.0;
};

IllConditioned ill_conditioned(std::size_t pairs, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> mantissa(0.5, 1.0);
    std::uniform_int_distribution<int> exponent(0, 50);
    std::uniform_int_distribution<int> small(-100, 100);
    IllConditioned out;
    for (std::size_t k = 0; k < pairs; ++k) {
        const double big = std::ldexp(mantissa(rng), exponent(rng));
        const auto s = static_cast<double>(small(rng));
        out.terms.insert(out.terms.end(), {big, -big, s});
        out.exact += s;
    }
    std::shuffle(out.terms.begin(), out.terms.end(), rng);
    return out;
}

// LaneSum as its documentation says, one term at a time: term i into lane i % kSumLanes's run
// (fma for a product, + for a plain term), every lane's run into its Sum2 pair after each 64
// terms and at the end, then the lanes merged in order.
double lane_reference(std::span<const double> a, std::span<const double> b) {
    double s[kSumLanes] = {};
    double c[kSumLanes] = {};
    double p[kSumLanes] = {};
    auto close = [&] {
        for (std::size_t l = 0; l < kSumLanes; ++l) {
            const TwoSumResult r = two_sum(s[l], p[l]);
            s[l] = r.sum;
            c[l] += r.error;
            p[l] = 0.0;
        }
    };
    for (std::size_t i = 0; i < a.size(); ++i) {
        double& run = p[i % kSumLanes];
        run = b.empty() ? run + a[i] : std::fma(a[i], b[i], run);
        if ((i + 1) % (kSumLanes * kSumRun) == 0) {
            close();
        }
    }
    close();
    double sum = 0.0;
    double compensation = 0.0;
    for (std::size_t l = 0; l < kSumLanes; ++l) {
        const TwoSumResult r = two_sum(sum, s[l]);
        sum = r.sum;
        compensation += r.error;
    }
    for (std::size_t l = 0; l < kSumLanes; ++l) {
        compensation += c[l];
    }
    return sum + compensation;
}

// The documented bound: eps |S| + (kSumRun - 1) eps Σ|x|, with room for the second-order terms.
double lane_bound(double exact, double magnitude) {
    constexpr double kEps = 0x1p-53;
    return (kEps * std::abs(exact)) + (static_cast<double>(kSumRun) * kEps * magnitude);
}

TEST(LaneSum, StaysWithinItsBoundOnIllConditionedSumsWhereANaiveSumFails) {
    for (const std::uint64_t seed : {1U, 2U, 3U}) {
        const IllConditioned data = ill_conditioned(20000, seed);
        LaneSum sum;
        sum.push(data.terms);
        double magnitude = 0.0;
        for (const double x : data.terms) {
            magnitude += std::abs(x);
        }
        EXPECT_LE(std::abs(sum.finish() - data.exact), lane_bound(data.exact, magnitude))
            << "seed " << seed;
        const double naive = std::accumulate(data.terms.begin(), data.terms.end(), 0.0);
        EXPECT_GT(std::abs(naive - data.exact), 1.0) << "seed " << seed;
    }
}

TEST(LaneSum, IsExactWhenEveryRunIs) {
    // Lane 0 opens each run with ±2^60 (alternating, so they cancel only across runs) and adds
    // nothing else; the other lanes add small integers. Each run then sums exactly, and Sum2
    // carries the rest without loss, where a plain sum loses the small terms under 2^60.
    std::vector<double> terms;
    double exact = 0.0;
    std::mt19937_64 rng(17);
    std::uniform_int_distribution<int> small(-1000, 1000);
    for (std::size_t run = 0; run < 500; ++run) {
        const double big = std::ldexp(run % 2 == 0 ? 1.0 : -1.0, 60);
        for (std::size_t k = 0; k < kSumLanes * kSumRun; ++k) {
            const double x = k == 0               ? big
                             : k % kSumLanes == 0 ? 0.0
                                                  : static_cast<double>(small(rng));
            terms.push_back(x);
            exact += k == 0 ? 0.0 : x;
        }
    }
    LaneSum sum;
    sum.push(terms);
    EXPECT_EQ(sum.finish(), exact);
    EXPECT_NE(std::accumulate(terms.begin(), terms.end(), 0.0), exact);
}

TEST(LaneSum, MatchesAQuadPrecisionReferenceOnWideRangeProducts) {
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> a(100003);
    std::vector<double> b(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        a[i] = dist(rng) * std::pow(10.0, dist(rng) * 8.0);
        b[i] = 0.5 + std::abs(dist(rng));
    }
    // 113 bits: every product of two doubles is exact, and 1e5 additions lose nothing visible.
    __float128 reference = 0;
    double magnitude = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        reference += static_cast<__float128>(a[i]) * static_cast<__float128>(b[i]);
        magnitude += std::abs(a[i] * b[i]);
    }
    LaneSum sum;
    sum.push_products(a, b);
    const auto ref = static_cast<double>(reference);
    EXPECT_LE(std::abs(sum.finish() - ref), lane_bound(ref, magnitude));
}

TEST(LaneSum, HasTheDocumentedLaneLayoutBitForBit) {
    const IllConditioned data = ill_conditioned(3001, 9);
    std::vector<double> weights(data.terms.size());
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> w(0.1, 3.0);
    for (double& x : weights) {
        x = w(rng);
    }
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{8},
                                std::size_t{9}, std::size_t{4096}, data.terms.size()}) {
        const std::span<const double> terms = std::span<const double>(data.terms).first(n);
        const std::span<const double> scale = std::span<const double>(weights).first(n);
        LaneSum plain;
        plain.push(terms);
        EXPECT_EQ(std::bit_cast<std::uint64_t>(plain.finish()),
                  std::bit_cast<std::uint64_t>(lane_reference(terms, {})))
            << n << " terms";
        LaneSum products;
        products.push_products(scale, terms);
        EXPECT_EQ(std::bit_cast<std::uint64_t>(products.finish()),
                  std::bit_cast<std::uint64_t>(lane_reference(scale, terms)))
            << n << " terms";
        EXPECT_EQ(plain.next_lane(), n % kSumLanes);
    }
}

TEST(LaneSum, DoesNotDependOnHowTheTermsAreSplit) {
    const IllConditioned data = ill_conditioned(5000, 11);
    const std::span<const double> terms(data.terms);
    LaneSum whole;
    whole.push(terms);
    LaneSum whole_products;
    whole_products.push_products(terms, terms);
    std::mt19937_64 rng(3);
    for (int trial = 0; trial < 20; ++trial) {
        std::uniform_int_distribution<std::size_t> piece(0, trial < 10 ? 13 : 700);
        LaneSum split;
        LaneSum split_products;
        for (std::size_t begin = 0; begin < terms.size();) {
            const std::size_t n = std::min(piece(rng), terms.size() - begin);
            split.push(terms.subspan(begin, n));
            split_products.push_products(terms.subspan(begin, n), terms.subspan(begin, n));
            begin += n;
        }
        EXPECT_EQ(std::bit_cast<std::uint64_t>(split.finish()),
                  std::bit_cast<std::uint64_t>(whole.finish()))
            << "trial " << trial;
        EXPECT_EQ(std::bit_cast<std::uint64_t>(split_products.finish()),
                  std::bit_cast<std::uint64_t>(whole_products.finish()))
            << "trial " << trial;
    }
}

// The fused reductions' lanes are finished many sums at a time: each total must be finish()'s,
// whatever the group boundaries and with zeros of both signs, infinities, NaN and subnormals
// (a NaN total only as a NaN: its sign follows the operand order the compiler chose).
TEST(LaneSum, FinishLanesIsFinishBitForBit) {
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> exponent(-40.0, 40.0);
    std::uniform_int_distribution<int> pick(0, 15);
    const double special[] = {0.0,
                              -0.0,
                              std::numeric_limits<double>::infinity(),
                              -std::numeric_limits<double>::infinity(),
                              std::numeric_limits<double>::quiet_NaN(),
                              std::numeric_limits<double>::denorm_min(),
                              1e308,
                              -1e308};
    for (const std::size_t sums : {1U, 7U, 8U, 9U, 35U}) {
        std::vector<double> lanes(2 * kSumLanes * sums);
        for (double& x : lanes) {
            const int p = pick(rng);
            x = p < 8 ? special[p] : (p % 2 == 0 ? 1.0 : -1.0) * std::exp2(exponent(rng));
        }
        std::vector<double> totals(sums);
        LaneSum::finish_lanes(lanes, totals);
        for (std::size_t k = 0; k < sums; ++k) {
            const std::span<const double> at =
                std::span<const double>(lanes).subspan(2 * kSumLanes * k, 2 * kSumLanes);
            const double expected =
                LaneSum::from_lanes(at.first<kSumLanes>(), at.last<kSumLanes>()).finish();
            // Which operand's NaN an add passes on (and so its sign) is up to the compiler's
            // operand order, which C++ leaves open: a NaN need only be a NaN.
            if (std::isnan(expected)) {
                EXPECT_TRUE(std::isnan(totals[k])) << sums << " sums, sum " << k;
                continue;
            }
            EXPECT_EQ(std::bit_cast<std::uint64_t>(totals[k]),
                      std::bit_cast<std::uint64_t>(expected))
                << sums << " sums, sum " << k << ": " << totals[k] << " vs " << expected;
        }
    }
}

TEST(AccurateComplexSum, SumsBothParts) {
    AccurateComplexSum sum;
    sum.push({1e100, 2.0});
    sum.push({1.0, -1e100});
    sum.push({-1e100, 1e100});
    EXPECT_EQ(sum.finish(), std::complex<double>(1.0, 2.0));
}

}  // namespace
}  // namespace laddu
