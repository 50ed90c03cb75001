#include <array>
#include <span>
#include <string>

#include <laddu/amplitudes/barrier.hpp>
#include <laddu/base/error.hpp>

namespace laddu::amplitudes {

namespace {

// Numerator constant N_L and denominator coefficients of D_L(z), highest power first.
struct BarrierPolynomial {
    double numerator;
    std::array<double, kMaxBarrierL + 1> denominator;  // first l + 1 entries used
};

constexpr std::array<BarrierPolynomial, kMaxBarrierL + 1> kPolynomials{{
    {1.0, {1.0}},
    {2.0, {1.0, 1.0}},
    {13.0, {1.0, 3.0, 9.0}},
    {277.0, {1.0, 6.0, 45.0, 225.0}},
    {12746.0, {1.0, 10.0, 135.0, 1575.0, 11025.0}},
    {998881.0, {1.0, 15.0, 315.0, 6300.0, 99225.0, 893025.0}},
    {118394977.0, {1.0, 21.0, 630.0, 18900.0, 496125.0, 9823275.0, 108056025.0}},
    {19727003738.0,
     {1.0, 28.0, 1134.0, 47250.0, 1819125.0, 58939650.0, 1404728325.0, 18261468225.0}},
    {4392846440677.0,
     {1.0, 36.0, 1890.0, 103950.0, 5457375.0, 255405150.0, 9833098275.0, 273922023375.0,
      4108830350625.0}},
}};

void check(int l, double q_r) {
    if (l < 0 || l > kMaxBarrierL) {
        throw ModelError("blatt_weisskopf: l = " + std::to_string(l) +
                         " is not supported; use 0 <= l <= " + std::to_string(kMaxBarrierL));
    }
    if (!(q_r > 0.0)) {
        throw ModelError("blatt_weisskopf: q_r = " + std::to_string(q_r) +
                         " must be a positive scale in GeV (laddu's default is 0.1973)");
    }
}

// N_L z^L / D_L(z), for T = Expr or std::complex<double>; D_L by Horner's rule.
template <class T>
T squared_factor(const T& z, int l) {
    const BarrierPolynomial& poly = kPolynomials[static_cast<std::size_t>(l)];
    T denominator = z + poly.denominator[1];
    for (int k = 2; k <= l; ++k) {
        denominator = denominator * z + poly.denominator[static_cast<std::size_t>(k)];
    }
    T numerator = z * poly.numerator;
    for (int k = 1; k < l; ++k) {
        numerator = numerator * z;
    }
    return numerator / denominator;
}

}  // namespace

expr::Expr blatt_weisskopf(const expr::Expr& q, int l, double q_r, BarrierKind kind) {
    check(l, q_r);
    if (l == 0) {
        return 1.0;  // F_0 = 1 and q^0 = 1, so both kinds are 1
    }
    const expr::Expr z = expr::powi(q, 2) / (q_r * q_r);
    const expr::Expr full = expr::sqrt(squared_factor(z, l));
    return kind == BarrierKind::kFull ? full : full / expr::powi(q, l);
}

std::complex<double> blatt_weisskopf_value(std::complex<double> q, int l, double q_r,
                                           BarrierKind kind) {
    check(l, q_r);
    if (l == 0) {
        return 1.0;
    }
    const std::complex<double> z = q * q / (q_r * q_r);
    const std::complex<double> full = std::sqrt(squared_factor(z, l));
    return kind == BarrierKind::kFull ? full : full / std::pow(q, l);
}

}  // namespace laddu::amplitudes
