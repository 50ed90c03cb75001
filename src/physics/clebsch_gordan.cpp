#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>

#include <laddu/physics/clebsch_gordan.hpp>

namespace laddu::physics {

namespace {

constexpr int kTableSize = 171;  // 170! is the largest factorial a double holds.

const std::array<long double, kTableSize>& factorial_table() {
    static const std::array<long double, kTableSize> table = [] {
        std::array<long double, kTableSize> t{};
        t[0] = 1.0L;
        for (std::size_t n = 1; n < t.size(); ++n) {
            t[n] = t[n - 1] * static_cast<long double>(n);
        }
        return t;
    }();
    return table;
}

long double fact(int n) {
    return factorial_table()[static_cast<std::size_t>(n)];
}

bool is_spin(int two_j, int two_m) {
    return two_j >= 0 && std::abs(two_m) <= two_j && (two_j + two_m) % 2 == 0;
}

bool is_triangle(int two_a, int two_b, int two_c) {
    return two_c >= std::abs(two_a - two_b) && two_c <= two_a + two_b &&
           (two_a + two_b + two_c) % 2 == 0;
}

}  // namespace

double log_factorial(int n) {
    if (n < kTableSize) {
        return static_cast<double>(std::log(fact(n)));
    }
    return std::lgamma(static_cast<double>(n) + 1.0);
}

double factorial(int n) {
    return static_cast<double>(fact(n));
}

double wigner_3j(int two_j1, int two_j2, int two_j3, int two_m1, int two_m2, int two_m3) {
    if (!is_spin(two_j1, two_m1) || !is_spin(two_j2, two_m2) || !is_spin(two_j3, two_m3) ||
        two_m1 + two_m2 + two_m3 != 0 || !is_triangle(two_j1, two_j2, two_j3)) {
        return 0.0;
    }
    // Racah's single-sum formula; every factorial argument below is an integer by the checks
    // above. Halved quantities are written out once to keep the sum readable.
    const int a = (two_j1 + two_j2 - two_j3) / 2;
    const int b = (two_j1 - two_j2 + two_j3) / 2;
    const int c = (-two_j1 + two_j2 + two_j3) / 2;
    const int d = (two_j1 + two_j2 + two_j3) / 2 + 1;
    if (d >= kTableSize) {
        return std::nan("");
    }
    const int j1pm1 = (two_j1 + two_m1) / 2;
    const int j1mm1 = (two_j1 - two_m1) / 2;
    const int j2pm2 = (two_j2 + two_m2) / 2;
    const int j2mm2 = (two_j2 - two_m2) / 2;
    const int j3pm3 = (two_j3 + two_m3) / 2;
    const int j3mm3 = (two_j3 - two_m3) / 2;
    const int t1 = (two_j3 - two_j2 + two_m1) / 2;  // j3 - j2 + m1
    const int t2 = (two_j3 - two_j1 - two_m2) / 2;  // j3 - j1 - m2
    const int k_min = std::max({0, -t1, -t2});
    const int k_max = std::min({a, j1mm1, j2pm2});
    long double sum = 0.0L;
    for (int k = k_min; k <= k_max; ++k) {
        const long double term = 1.0L / (fact(k) * fact(t1 + k) * fact(t2 + k) * fact(a - k) *
                                         fact(j1mm1 - k) * fact(j2pm2 - k));
        sum += (k % 2 == 0) ? term : -term;
    }
    const long double delta = fact(a) * fact(b) * fact(c) / fact(d);
    const long double norm = std::sqrt(delta * fact(j1pm1) * fact(j1mm1) * fact(j2pm2) *
                                       fact(j2mm2) * fact(j3pm3) * fact(j3mm3));
    const int phase = (two_j1 - two_j2 - two_m3) / 2;  // (-1)^(j1 - j2 - m3)
    const long double sign = (phase % 2 == 0) ? 1.0L : -1.0L;
    return static_cast<double>(sign * norm * sum);
}

double clebsch_gordan(int two_j1, int two_m1, int two_j2, int two_m2, int two_j, int two_m) {
    const double symbol = wigner_3j(two_j1, two_j2, two_j, two_m1, two_m2, -two_m);
    if (symbol == 0.0) {
        return 0.0;
    }
    const int phase = (two_j1 - two_j2 + two_m) / 2;  // (-1)^(j1 - j2 + m)
    const double sign = (phase % 2 == 0) ? 1.0 : -1.0;
    return sign * std::sqrt(static_cast<double>(two_j) + 1.0) * symbol;
}

}  // namespace laddu::physics
