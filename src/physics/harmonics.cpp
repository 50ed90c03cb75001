#include <cmath>
#include <cstdlib>
#include <numbers>
#include <string>

#include <laddu/base/error.hpp>
#include <laddu/physics/clebsch_gordan.hpp>
#include <laddu/physics/harmonics.hpp>

namespace laddu::physics {

using expr::Expr;

namespace {

// P_l^m(x) for m >= 0 with the Condon-Shortley phase: P_m^m = (-1)^m (2m-1)!! (1-x²)^{m/2},
// P_{m+1}^m = (2m+1) x P_m^m, (l-m) P_l^m = (2l-1) x P_{l-1}^m - (l+m-1) P_{l-2}^m.
Expr associated_legendre(int l, int m, const Expr& x) {
    double start = 1.0;
    for (int k = 1; k <= m; ++k) {
        start *= -(2.0 * k - 1.0);
    }
    // |1 - x²| keeps sin θ finite when rounding puts |cos θ| just above 1.
    Expr p_mm = m == 0 ? Expr(start) : start * expr::powi(expr::sqrt(expr::abs(1.0 - x * x)), m);
    if (l == m) {
        return p_mm;
    }
    Expr previous = p_mm;
    Expr current = (2.0 * m + 1.0) * x * p_mm;
    for (int ll = m + 2; ll <= l; ++ll) {
        const Expr next =
            ((2.0 * ll - 1.0) * x * current - (ll + m - 1.0) * previous) / (ll - m * 1.0);
        previous = current;
        current = next;
    }
    return current;
}

}  // namespace

Expr spherical_harmonic(int l, int m, const Expr& costheta, const Expr& phi) {
    if (l < 0 || std::abs(m) > l) {
        throw ModelError("spherical_harmonic: invalid (l, m) = (" + std::to_string(l) + ", " +
                         std::to_string(m) + "); need l >= 0 and |m| <= l");
    }
    const int abs_m = std::abs(m);
    double norm = std::sqrt((2.0 * l + 1.0) / (4.0 * std::numbers::pi) *
                            std::exp(log_factorial(l - abs_m) - log_factorial(l + abs_m)));
    if (m < 0 && abs_m % 2 == 1) {
        norm = -norm;
    }
    const Expr radial = norm * associated_legendre(l, abs_m, costheta);
    if (m == 0) {
        return expr::as_complex(radial);
    }
    return radial * expr::cis(static_cast<double>(m) * phi);
}

Expr zlm(int l, int m, Reflectivity reflectivity, const Expr& costheta, const Expr& phi,
         const Expr& pol_angle, const Expr& pol_magnitude) {
    const Expr rot = spherical_harmonic(l, m, costheta, phi) * expr::cis(-pol_angle);
    const Expr plus = expr::sqrt(1.0 + pol_magnitude);
    const Expr minus = expr::sqrt(1.0 - pol_magnitude);
    const bool positive = reflectivity == Reflectivity::kPositive;
    return expr::complex((positive ? plus : minus) * expr::real(rot),
                         (positive ? minus : plus) * expr::imag(rot));
}

}  // namespace laddu::physics
