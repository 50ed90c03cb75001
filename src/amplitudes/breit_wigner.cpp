#include <cmath>
#include <string>

#include <laddu/amplitudes/breit_wigner.hpp>
#include <laddu/amplitudes/two_body.hpp>
#include <laddu/base/error.hpp>

namespace laddu::amplitudes {

using expr::Expr;

Expr breit_wigner(const Expr& s, const Expr& mass, const Expr& width) {
    return 1.0 / expr::complex(mass * mass - s, -(mass * width));
}

Expr relativistic_breit_wigner(const Expr& s, const Expr& mass, const Expr& width,
                               const Expr& mass1, const Expr& mass2, int l,
                               const RelativisticBreitWignerOptions& options) {
    if (l < 0 || l > kMaxBarrierL) {
        throw ModelError("relativistic_breit_wigner: l = " + std::to_string(l) +
                         " is not supported; use 0 <= l <= " + std::to_string(kMaxBarrierL));
    }
    // Checked even where the barrier factors are not used (l = 0, barrier_factors = false): a
    // NaN or infinite scale is a mistake in any case.
    if (!(options.q_r > 0.0) || !std::isfinite(options.q_r)) {
        throw ModelError("relativistic_breit_wigner: q_r = " + std::to_string(options.q_r) +
                         " must be a positive, finite scale in GeV (laddu's default is 0.1973)");
    }
    const Expr m2 = mass * mass;
    const Expr q = breakup_momentum(s, mass1, mass2);
    const Expr q0 = breakup_momentum(m2, mass1, mass2);
    const Expr ratio = q / q0;
    Expr width_factor = ratio;
    if (options.barrier_factors) {
        if (l > 0) {
            const Expr barrier_ratio =
                blatt_weisskopf(q, l, options.q_r) / blatt_weisskopf(q0, l, options.q_r);
            width_factor = width_factor * barrier_ratio * barrier_ratio;
        }
    } else if (l > 0) {
        width_factor = expr::powi(ratio, 2 * l + 1);
    }
    const Expr running_width = width * (mass / expr::sqrt(s)) * width_factor;
    const Expr i{std::complex<double>(0.0, 1.0)};
    return 1.0 / (m2 - s - i * mass * running_width);
}

Expr non_relativistic_breit_wigner(const Expr& s, const Expr& mass, const Expr& width) {
    const Expr half_width = 0.5 * width;
    return half_width / expr::complex(mass - expr::sqrt(s), -half_width);
}

}  // namespace laddu::amplitudes
