// SplitMix64 and WyRand (random.hpp): the reference streams, uniformity of uniform() and below(),
// and the moments of normal().
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/random.hpp>

namespace laddu {
namespace {

TEST(SplitMix64, GivesTheReferenceStream) {
    // Vigna's splitmix64.c seeded with 0 and 1234567.
    SplitMix64 zero(0);
    EXPECT_EQ(zero.next(), 0xE220A8397B1DCDAFULL);
    EXPECT_EQ(zero.next(), 0x6E789E6AA1B965F4ULL);
    SplitMix64 other(1234567);
    EXPECT_EQ(other.next(), 6457827717110365317ULL);
}

TEST(SplitMix64, DrawsAreUniformAndNormal) {
    SplitMix64 random(9);
    const int n = 200000;
    std::vector<int> bins(7, 0);
    double sum = 0.0;
    double sum2 = 0.0;
    double normal = 0.0;
    double normal2 = 0.0;
    for (int i = 0; i < n; ++i) {
        const double u = random.uniform();
        ASSERT_GE(u, 0.0);
        ASSERT_LT(u, 1.0);
        sum += u;
        sum2 += u * u;
        ++bins[random.below(7)];
        const double z = random.normal();
        normal += z;
        normal2 += z * z;
    }
    EXPECT_NEAR(sum / n, 0.5, 5.0 * std::sqrt(1.0 / 12.0 / n));
    EXPECT_NEAR(sum2 / n, 1.0 / 3.0, 0.005);
    double chi2 = 0.0;
    for (const int b : bins) {
        chi2 += (b - n / 7.0) * (b - n / 7.0) / (n / 7.0);
    }
    EXPECT_LT(chi2, 25.0);  // 6 degrees of freedom: p ≈ 3e-4
    EXPECT_NEAR(normal / n, 0.0, 5.0 / std::sqrt(double{n}));
    EXPECT_NEAR(normal2 / n, 1.0, 5.0 * std::sqrt(2.0 / n));
}

// fastrand 2.5's wyrand stream of seed 7, from a Python big-integer transcription of its
// gen_u64 (s += C0; t = s · (s ^ C1) in 128 bits; lo(t) ^ hi(t)).
TEST(WyRand, GivesFastrandsStream) {
    WyRand random(7);
    EXPECT_EQ(random.next(), 0xc5fc598e707e7291ULL);
    EXPECT_EQ(random.next(), 0x38f4d74b451e8c20ULL);
    EXPECT_EQ(random.next(), 0xb7e1e15867216173ULL);
    WyRand ranged(7);
    EXPECT_EQ(ranged.uniform(1.0, 3.0), 2.546763605642798);
    WyRand unit(7);
    EXPECT_EQ(unit.uniform(), 0.773381802821399);
}

}  // namespace
}  // namespace laddu
