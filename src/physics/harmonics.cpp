#include <cmath>
#include <cstdlib>
#include <numbers>
#include <string>

#include <laddu/base/error.hpp>
#include <laddu/physics/harmonics.hpp>

namespace laddu::physics {

using expr::Expr;

namespace {

// The normalised associated Legendre function
//   P̄_l^m(x) = sqrt((2l+1)/(4π) (l-m)!/(l+m)!) P_l^m(x),  m >= 0, Condon-Shortley phase,
// by the recursion in l of the normalised functions (Holmes & Featherstone, J. Geodesy 76 (2002)
// 279, eqs. 11-13):
//   P̄_m^m     = (-1)^m sqrt((2m+1)/(4π) Π_{k=1..m} (2k-1)/(2k)) (1-x²)^{m/2}
//   P̄_{m+1}^m = sqrt(2m+3) x P̄_m^m
//   P̄_l^m     = a_lm (x P̄_{l-1}^m - P̄_{l-2}^m / a_{l-1,m}),  a_lm = sqrt((4l²-1)/(l²-m²)).
// Every factor stays of order one, so nothing overflows where the unnormalised recursion's
// (2m-1)!! does (m >~ 150) or its normalisation (l-m)!/(l+m)! underflows (l+m >~ 170).
Expr normalised_legendre(int l, int m, const Expr& x) {
    double start = (2.0 * m + 1.0) / (4.0 * std::numbers::pi);
    for (int k = 1; k <= m; ++k) {
        start *= (2.0 * k - 1.0) / (2.0 * k);
    }
    start = std::sqrt(start);
    if (m % 2 == 1) {
        start = -start;
    }
    // |1 - x²| keeps sin θ finite when rounding puts |cos θ| just above 1.
    Expr p_mm = m == 0 ? Expr(start) : start * expr::powi(expr::sqrt(expr::abs(1.0 - x * x)), m);
    if (l == m) {
        return p_mm;
    }
    const auto a = [m](int ll) {
        const double l2 = 1.0 * ll * ll;
        return std::sqrt((4.0 * l2 - 1.0) / (l2 - 1.0 * m * m));
    };
    Expr previous = p_mm;
    Expr current = std::sqrt(2.0 * m + 3.0) * x * p_mm;
    for (int ll = m + 2; ll <= l; ++ll) {
        const Expr next = a(ll) * (x * current - previous / a(ll - 1));
        previous = current;
        current = next;
    }
    return current;
}

}  // namespace

Expr spherical_harmonic(int l, int m, const Expr& costheta, const Expr& phi) {
    if (l < 0 || m < -l || m > l) {  // not std::abs(m): it is undefined for INT_MIN
        throw ModelError("spherical_harmonic: invalid (l, m) = (" + std::to_string(l) + ", " +
                         std::to_string(m) + "); need l >= 0 and |m| <= l");
    }
    const int abs_m = std::abs(m);
    // Y_l^{-m} = (-1)^m conj(Y_l^m).
    const double sign = m < 0 && abs_m % 2 == 1 ? -1.0 : 1.0;
    const Expr radial = sign * normalised_legendre(l, abs_m, costheta);
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
