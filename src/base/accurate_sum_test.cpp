#include <cmath>
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

TEST(AccurateComplexSum, SumsBothParts) {
    AccurateComplexSum sum;
    sum.push({1e100, 2.0});
    sum.push({1.0, -1e100});
    sum.push({-1e100, 1e100});
    EXPECT_EQ(sum.finish(), std::complex<double>(1.0, 2.0));
}

}  // namespace
}  // namespace laddu
