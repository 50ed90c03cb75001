#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include <laddu/base/error.hpp>
#include <laddu/physics/clebsch_gordan.hpp>
#include <laddu/physics/wigner.hpp>

namespace laddu::physics {

using expr::Expr;

namespace {

void check_spin(int two_j, int two_m_prime, int two_m) {
    const auto valid = [two_j](int two_mu) {
        return std::abs(two_mu) <= two_j && (two_j + two_mu) % 2 == 0;
    };
    if (two_j < 0 || !valid(two_m_prime) || !valid(two_m)) {
        throw ModelError("wigner d: invalid (2j, 2m', 2m) = (" + std::to_string(two_j) + ", " +
                         std::to_string(two_m_prime) + ", " + std::to_string(two_m) +
                         "); spins are doubled integers with |m| <= j and j - m an integer, "
                         "e.g. (1, 1, -1) for j = 1/2");
    }
}

// x^n, leaving out the factor entirely for n = 0 (so β = 0 gives exact 0^0 = 1 terms).
Expr power(const Expr& x, int n, const Expr& product) {
    return n == 0 ? product : product * expr::powi(x, n);
}

}  // namespace

Expr wigner_small_d(int two_j, int two_m_prime, int two_m, const Expr& beta) {
    check_spin(two_j, two_m_prime, two_m);
    const int jpm = (two_j + two_m) / 2;
    const int jmm = (two_j - two_m) / 2;
    const int jpmp = (two_j + two_m_prime) / 2;
    const int jmmp = (two_j - two_m_prime) / 2;
    const int shift = (two_m_prime - two_m) / 2;  // m' - m
    const double log_norm =
        0.5 * (log_factorial(jpmp) + log_factorial(jmmp) + log_factorial(jpm) + log_factorial(jmm));
    const Expr half = beta * 0.5;
    const Expr c = expr::cos(half);
    const Expr s = expr::sin(half);
    std::vector<Expr> terms;
    for (int k = std::max(0, -shift); k <= std::min(jpm, jmmp); ++k) {
        const double magnitude = std::exp(log_norm - log_factorial(jpm - k) - log_factorial(k) -
                                          log_factorial(jmmp - k) - log_factorial(k + shift));
        const double coefficient = ((k + shift) % 2 == 0) ? magnitude : -magnitude;
        const int cos_power = two_j - 2 * k - shift;
        const int sin_power = 2 * k + shift;
        terms.push_back(power(s, sin_power, power(c, cos_power, Expr(coefficient))));
    }
    return terms.size() == 1 ? terms.front() : expr::nary_add(std::move(terms));
}

Expr wigner_big_d(int two_j, int two_m_prime, int two_m, const Expr& alpha, const Expr& beta,
                  const Expr& gamma) {
    const Expr d = wigner_small_d(two_j, two_m_prime, two_m, beta);
    const Expr phase = alpha * (-0.5 * two_m_prime) + gamma * (-0.5 * two_m);
    return d * expr::cis(phase);
}

}  // namespace laddu::physics
