#include <string>

#include <laddu/amplitudes/pol_phase.hpp>
#include <laddu/base/error.hpp>

namespace laddu::amplitudes {

using expr::Expr;

Expr pol_phase(const Expr& pol_angle, const Expr& pol_magnitude) {
    if (!pol_angle.value_kind().is_real_scalar() || !pol_magnitude.value_kind().is_real_scalar()) {
        throw ModelError("pol_phase: pol_angle and pol_magnitude must be Real scalars (event "
                         "columns or parameters)");
    }
    if (expr::is_constant(pol_magnitude)) {
        const double p = expr::constant_value(pol_magnitude).real();
        if (!(p >= 0.0 && p <= 1.0)) {
            throw ModelError("pol_phase: pol_magnitude = " + std::to_string(p) +
                             " is not a degree of polarisation; use 0 <= P <= 1");
        }
    }
    return pol_magnitude * expr::cis(2.0 * pol_angle);
}

}  // namespace laddu::amplitudes
