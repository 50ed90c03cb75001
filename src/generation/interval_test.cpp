// Interval arithmetic (interval.hpp): every operation encloses its exact results at sampled
// points of its operands (long double references), the partial functions keep only their
// domain, and empty operands stay empty.
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/generation/interval.hpp>

namespace laddu::generation {
namespace {

using Unary = std::function<Interval(const Interval&)>;
using Binary = std::function<Interval(const Interval&, const Interval&)>;

Interval random_interval(std::mt19937_64& rng, double lo, double hi) {
    std::uniform_real_distribution<double> u(lo, hi);
    const double a = u(rng);
    const double b = u(rng);
    return {std::min(a, b), std::max(a, b)};
}

double inside(std::mt19937_64& rng, const Interval& i) {
    return std::uniform_real_distribution<double>(0.0, 1.0)(rng) * (i.hi() - i.lo()) + i.lo();
}

TEST(IntervalTest, BinaryOperationsEncloseEveryPointResult) {
    std::mt19937_64 rng(11);
    const std::vector<std::pair<Binary, std::function<long double(long double, long double)>>>
        cases{{[](const Interval& a, const Interval& b) { return a + b; },
               [](long double a, long double b) {
                   return a + b;
               }},
              {[](const Interval& a, const Interval& b) { return a - b; },
               [](long double a, long double b) {
                   return a - b;
               }},
              {[](const Interval& a, const Interval& b) { return a * b; },
               [](long double a, long double b) {
                   return a * b;
               }},
              {[](const Interval& a, const Interval& b) { return a / b; },
               [](long double a, long double b) {
                   return a / b;
               }}};
    for (const auto& [op, exact] : cases) {
        for (int trial = 0; trial < 2000; ++trial) {
            const Interval a = random_interval(rng, -3.0, 5.0);
            const Interval b = random_interval(rng, -3.0, 5.0);
            const Interval r = op(a, b);
            for (int k = 0; k < 8; ++k) {
                const long double x = inside(rng, a);
                const long double y = inside(rng, b);
                if (y == 0.0L) {
                    continue;
                }
                const long double z = exact(x, y);
                EXPECT_TRUE(r.lo() <= z && z <= r.hi())
                    << r.to_string() << " misses " << static_cast<double>(z);
            }
        }
    }
}

TEST(IntervalTest, FunctionsEncloseEveryPointResultOnTheirDomain) {
    std::mt19937_64 rng(12);
    const std::vector<std::pair<Unary, std::function<long double(long double)>>> cases{
        {[](const Interval& a) { return a.sqr(); },
         [](long double a) {
             return a * a;
         }},
        {[](const Interval& a) { return a.sqrt(); },
         [](long double a) {
             return std::sqrt(a);
         }},
        {[](const Interval& a) { return a.exp(); },
         [](long double a) {
             return std::exp(a);
         }},
        {[](const Interval& a) { return a.log(); },
         [](long double a) {
             return std::log(a);
         }},
        {[](const Interval& a) { return a.pow(-1.7); },
         [](long double a) {
             return std::pow(a, -1.7L);
         }},
        {[](const Interval& a) { return a.pow(0.3); },
         [](long double a) {
             return std::pow(a, 0.3L);
         }}};
    for (const auto& [op, exact] : cases) {
        for (int trial = 0; trial < 2000; ++trial) {
            const Interval a = random_interval(rng, 1e-3, 7.0);
            const Interval r = op(a);
            for (int k = 0; k < 8; ++k) {
                const long double z = exact(inside(rng, a));
                EXPECT_TRUE(r.lo() <= z && z <= r.hi())
                    << r.to_string() << " misses " << static_cast<double>(z);
            }
        }
    }
}

TEST(IntervalTest, RoundingOnlyWidens) {
    // The doubles nearest 0.1 and 0.2 sum to 0.3000000000000000166533..., which no double holds.
    const Interval sum = Interval::point(0.1) + Interval::point(0.2);
    const long double exact = static_cast<long double>(0.1) + static_cast<long double>(0.2);
    EXPECT_LT(sum.lo(), exact);
    EXPECT_GT(sum.hi(), exact);
    EXPECT_LT(sum.hi() - sum.lo(), 1e-15);
    const Interval third = 1.0 / Interval::point(3.0);
    EXPECT_LT(third.lo(), 1.0 / 3.0 + 1e-17);
    EXPECT_GT(third.hi(), 1.0 / 3.0 - 1e-17);
}

TEST(IntervalTest, PartialFunctionsKeepTheirDomainAndEmptinessPropagates) {
    EXPECT_TRUE(Interval(-2.0, -1.0).sqrt().is_empty());
    EXPECT_EQ(Interval(-2.0, 4.0).sqrt().lo(), 0.0);
    EXPECT_GE(Interval(-2.0, 4.0).sqrt().hi(), 2.0);
    EXPECT_TRUE(Interval(-2.0, 0.0).log().is_empty());
    EXPECT_EQ(Interval(0.0, 1.0).log().lo(), -std::numeric_limits<double>::infinity());
    EXPECT_TRUE(Interval(3.0, 1.0).is_empty());
    EXPECT_TRUE(Interval(std::nan(""), 1.0).is_empty());
    EXPECT_TRUE((Interval() + Interval::point(1.0)).is_empty());
    EXPECT_TRUE((Interval::point(1.0) * Interval()).is_empty());
    EXPECT_EQ((Interval::point(1.0) / Interval(-1.0, 1.0)).hi(),
              std::numeric_limits<double>::infinity());
    EXPECT_EQ(Interval(-3.0, 2.0).sqr().lo(), 0.0);
    EXPECT_TRUE(Interval::intersect(Interval(0.0, 1.0), Interval(2.0, 3.0)).is_empty());
    EXPECT_EQ(Interval::hull(Interval(), Interval(2.0, 3.0)).lo(), 2.0);
    EXPECT_EQ(Interval::max(Interval(0.0, 4.0), Interval::point(1.0)).lo(), 1.0);
    EXPECT_EQ(Interval::min(Interval(0.0, 4.0), Interval::point(1.0)).hi(), 1.0);
    EXPECT_EQ(Interval().to_string(), "empty");
}

}  // namespace
}  // namespace laddu::generation
