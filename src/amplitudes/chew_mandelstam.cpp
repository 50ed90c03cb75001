#include <cmath>
#include <numbers>

#include <laddu/amplitudes/chew_mandelstam.hpp>
#include <laddu/amplitudes/two_body.hpp>

namespace laddu::amplitudes {

using expr::Expr;

Expr chew_mandelstam(const Expr& s, double mass1, double mass2) {
    const double sum = mass1 + mass2;
    const Expr chi = 1.0 - (sum * sum) / s;
    const Expr rho = phase_space_factor(s, mass1, mass2);
    // ln((χ+ρ)/(χ-ρ)) with the -iπ branch above threshold, written without a ratio on the cut
    // (see the header): ln(χ+ρ) - ln(ρ-χ) - iπ.
    const Expr log_ratio = expr::log(chi + rho) - expr::log(rho - chi) -
                           expr::Expr(std::complex<double>(0.0, std::numbers::pi));
    const double constant = ((mass2 - mass1) / sum) * std::log(mass2 / mass1);
    Expr value = rho * log_ratio;
    if (constant != 0.0) {
        value = value - chi * constant;
    }
    return value / std::numbers::pi;
}

std::complex<double> chew_mandelstam_value(double s, double mass1, double mass2) {
    const double sum = mass1 + mass2;
    const double difference = mass1 - mass2;
    const double chi = 1.0 - sum * sum / s;
    const double rho_squared = (1.0 - sum * sum / s) * (1.0 - difference * difference / s);
    std::complex<double> rho_log;
    if (rho_squared >= 0.0) {
        // ρ real: ln|ratio|, plus -iπ above threshold where the ratio is negative.
        const double rho = std::sqrt(rho_squared);
        const double ratio = (chi + rho) / (chi - rho);
        rho_log = rho * std::complex<double>(std::log(std::abs(ratio)),
                                             ratio < 0.0 ? -std::numbers::pi : 0.0);
    } else {
        // ρ = i r between pseudo-threshold and threshold: the ratio is e^{2iθ},
        // θ = arg(χ + i r), and laddu takes the principal value of its logarithm.
        const double r = std::sqrt(-rho_squared);
        const double doubled = 2.0 * std::atan2(r, chi);
        const double principal = std::remainder(doubled, 2.0 * std::numbers::pi);
        rho_log = std::complex<double>(0.0, r) * std::complex<double>(0.0, principal);
    }
    const double constant = ((mass2 - mass1) / sum) * std::log(mass2 / mass1);
    return (rho_log - chi * constant) / std::numbers::pi;
}

}  // namespace laddu::amplitudes
