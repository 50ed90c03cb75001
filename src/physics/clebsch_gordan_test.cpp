#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/physics/clebsch_gordan.hpp>

namespace laddu::physics {
namespace {

TEST(ClebschGordan, TextbookValues) {
    // Spin 1/2 ⊗ 1/2: <½ ½ ½ -½ | 1 0> = 1/√2, <½ ½ ½ -½ | 0 0> = 1/√2, <½ -½ ½ ½ | 0 0> = -1/√2.
    EXPECT_NEAR(clebsch_gordan(1, 1, 1, -1, 2, 0), 1.0 / std::sqrt(2.0), 1e-15);
    EXPECT_NEAR(clebsch_gordan(1, 1, 1, -1, 0, 0), 1.0 / std::sqrt(2.0), 1e-15);
    EXPECT_NEAR(clebsch_gordan(1, -1, 1, 1, 0, 0), -1.0 / std::sqrt(2.0), 1e-15);
    EXPECT_NEAR(clebsch_gordan(1, 1, 1, 1, 2, 2), 1.0, 1e-15);
    // 1 ⊗ 1 → 0: <1 m 1 -m | 0 0> = (-1)^(1-m)/√3.
    EXPECT_NEAR(clebsch_gordan(2, 2, 2, -2, 0, 0), 1.0 / std::sqrt(3.0), 1e-15);
    EXPECT_NEAR(clebsch_gordan(2, 0, 2, 0, 0, 0), -1.0 / std::sqrt(3.0), 1e-15);
    // 1 ⊗ 1 → 2: <1 1 1 -1 | 2 0> = 1/√6, <1 0 1 0 | 2 0> = √(2/3).
    EXPECT_NEAR(clebsch_gordan(2, 2, 2, -2, 4, 0), 1.0 / std::sqrt(6.0), 1e-15);
    EXPECT_NEAR(clebsch_gordan(2, 0, 2, 0, 4, 0), std::sqrt(2.0 / 3.0), 1e-15);
    // 1 ⊗ ½ → 3/2: <1 0 ½ ½ | 3/2 ½> = √(2/3).
    EXPECT_NEAR(clebsch_gordan(2, 0, 1, 1, 3, 1), std::sqrt(2.0 / 3.0), 1e-15);
}

TEST(ClebschGordan, SelectionRulesGiveZero) {
    EXPECT_EQ(clebsch_gordan(2, 2, 2, 0, 2, 0), 0.0);   // m1 + m2 != m
    EXPECT_EQ(clebsch_gordan(2, 0, 2, 0, 6, 0), 0.0);   // triangle broken
    EXPECT_EQ(clebsch_gordan(2, 4, 2, -4, 2, 0), 0.0);  // |m| > j
    EXPECT_EQ(clebsch_gordan(2, 1, 2, -1, 2, 0), 0.0);  // j - m not an integer
    EXPECT_EQ(clebsch_gordan(2, 0, 2, 0, 2, 0), 0.0);   // <1 0 1 0|1 0> vanishes by symmetry
}

// Σ_{m1,m2} <j1 m1 j2 m2|J M><j1 m1 j2 m2|J' M'> = δ_JJ' δ_MM' for every allowed pair.
TEST(ClebschGordan, OrthogonalityRelations) {
    for (int two_j1 = 0; two_j1 <= 4; ++two_j1) {
        for (int two_j2 = 0; two_j2 <= 3; ++two_j2) {
            for (int two_j = std::abs(two_j1 - two_j2); two_j <= two_j1 + two_j2; two_j += 2) {
                for (int two_jp = std::abs(two_j1 - two_j2); two_jp <= two_j1 + two_j2;
                     two_jp += 2) {
                    for (int two_m = -two_j; two_m <= two_j; two_m += 2) {
                        double sum = 0.0;
                        for (int two_m1 = -two_j1; two_m1 <= two_j1; two_m1 += 2) {
                            const int two_m2 = two_m - two_m1;
                            sum += clebsch_gordan(two_j1, two_m1, two_j2, two_m2, two_j, two_m) *
                                   clebsch_gordan(two_j1, two_m1, two_j2, two_m2, two_jp, two_m);
                        }
                        EXPECT_NEAR(sum, two_j == two_jp ? 1.0 : 0.0, 1e-13)
                            << two_j1 << " " << two_j2 << " " << two_j << " " << two_jp;
                    }
                }
            }
        }
    }
}

TEST(Wigner3j, SymmetriesAndKnownValue) {
    // (1 1 0; 0 0 0) = -1/√3 and (1 1 2; 1 -1 0) = 1/√30.
    EXPECT_NEAR(wigner_3j(2, 2, 0, 0, 0, 0), -1.0 / std::sqrt(3.0), 1e-15);
    EXPECT_NEAR(wigner_3j(2, 2, 4, 2, -2, 0), 1.0 / std::sqrt(30.0), 1e-15);
    // Even permutation invariance and sign (-1)^{j1+j2+j3} under m → -m.
    const double a = wigner_3j(4, 3, 5, 2, -1, -1);
    EXPECT_NEAR(wigner_3j(3, 5, 4, -1, -1, 2), a, 1e-15);
    EXPECT_NEAR(wigner_3j(4, 3, 5, -2, 1, 1), a * std::pow(-1.0, (4 + 3 + 5) / 2), 1e-15);
    EXPECT_NE(a, 0.0);
}

TEST(Factorial, TableAndLogAgree) {
    EXPECT_EQ(factorial(0), 1.0);
    EXPECT_EQ(factorial(5), 120.0);
    EXPECT_NEAR(log_factorial(20), std::log(2432902008176640000.0), 1e-13);
    EXPECT_NEAR(log_factorial(200), std::lgamma(201.0), 1e-10);
}

}  // namespace
}  // namespace laddu::physics
