#include <cmath>

#include <laddu/amplitudes/two_body.hpp>

namespace laddu::amplitudes {

using expr::Expr;

Expr breakup_momentum(const Expr& s, const Expr& mass1, const Expr& mass2, Sheet sheet) {
    const Expr sum = mass1 + mass2;
    const Expr difference = mass1 - mass2;
    // as_complex: below threshold the radicand is negative and q is i·|q|, not NaN.
    const Expr radicand = (s - sum * sum) * (s - difference * difference);
    const Expr q = expr::sqrt(expr::as_complex(radicand)) / (2.0 * expr::sqrt(s));
    return sheet == Sheet::kPhysical ? q : -q;
}

Expr phase_space_factor(const Expr& s, const Expr& mass1, const Expr& mass2, Sheet sheet) {
    return 2.0 * breakup_momentum(s, mass1, mass2, sheet) / expr::sqrt(s);
}

std::complex<double> breakup_momentum_value(double s, double mass1, double mass2, Sheet sheet) {
    const double sum = mass1 + mass2;
    const double difference = mass1 - mass2;
    const double radicand = (s - sum * sum) * (s - difference * difference);
    const std::complex<double> root = radicand >= 0.0
                                          ? std::complex<double>(std::sqrt(radicand), 0.0)
                                          : std::complex<double>(0.0, std::sqrt(-radicand));
    const std::complex<double> q = root / (2.0 * std::sqrt(s));
    return sheet == Sheet::kPhysical ? q : -q;
}

std::complex<double> phase_space_factor_value(double s, double mass1, double mass2, Sheet sheet) {
    return 2.0 * breakup_momentum_value(s, mass1, mass2, sheet) / std::sqrt(s);
}

}  // namespace laddu::amplitudes
