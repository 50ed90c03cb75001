#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
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

// Term i in lane i % kSumLanes, each lane a scalar AccurateSum, merged as LaneSum documents.
double lane_reference(std::span<const double> a, std::span<const double> b) {
    std::vector<AccurateSum> lanes(kSumLanes);
    for (std::size_t i = 0; i < a.size(); ++i) {
        lanes[i % kSumLanes].push(b.empty() ? a[i] : a[i] * b[i]);
    }
    AccurateSum merged;
    double compensation = 0.0;
    for (const AccurateSum& lane : lanes) {
        const TwoSumResult r = two_sum(merged.raw_sum(), lane.raw_sum());
        merged = AccurateSum{};
        merged.push(r.sum);
        compensation += r.error;
    }
    for (const AccurateSum& lane : lanes) {
        compensation += lane.compensation();
    }
    return merged.raw_sum() + compensation;
}

TEST(LaneSum, IsExactOnIllConditionedSumsWhereANaiveSumFails) {
    for (const std::uint64_t seed : {1U, 2U, 3U}) {
        const IllConditioned data = ill_conditioned(20000, seed);
        LaneSum sum;
        sum.push(data.terms);
        // Sum2's bound: eps |S| + γ_n² Σ|x|, here far below one unit of these integer sums.
        EXPECT_EQ(sum.finish(), data.exact) << "seed " << seed;
        const double naive = std::accumulate(data.terms.begin(), data.terms.end(), 0.0);
        EXPECT_GT(std::abs(naive - data.exact), 1.0) << "seed " << seed;
    }
}

TEST(LaneSum, MatchesALongDoubleReferenceOnWideRangeTerms) {
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> a(100003);
    std::vector<double> b(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        a[i] = dist(rng) * std::pow(10.0, dist(rng) * 8.0);
        b[i] = 0.5 + std::abs(dist(rng));
    }
    long double reference = 0.0L;
    for (std::size_t i = 0; i < a.size(); ++i) {
        reference += static_cast<long double>(a[i] * b[i]);
    }
    LaneSum sum;
    sum.push_products(a, b);
    const double ref = static_cast<double>(reference);
    EXPECT_NEAR(sum.finish(), ref, std::abs(ref) * 1e-15 + 1e-15);
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

TEST(AccurateComplexSum, SumsBothParts) {
    AccurateComplexSum sum;
    sum.push({1e100, 2.0});
    sum.push({1.0, -1e100});
    sum.push({-1e100, 1e100});
    EXPECT_EQ(sum.finish(), std::complex<double>(1.0, 2.0));
}

}  // namespace
}  // namespace laddu
