#include <complex>
#include <string>

#include <laddu/amplitudes/photon_sdme.hpp>
#include <laddu/base/error.hpp>

namespace laddu::amplitudes {

using expr::Expr;

Expr photon_sdme(int helicity, int helicity_prime,
                 const std::optional<LinearPolarization>& polarization) {
    for (const int h : {helicity, helicity_prime}) {
        if (h != 1 && h != -1) {
            throw ModelError("photon_sdme: helicity " + std::to_string(h) +
                             " is not a real photon's; use +1 or -1");
        }
    }
    // The result is Complex in every case, as laddu's amplitude is, so the kind of a model does
    // not depend on which element it uses.
    if (helicity == helicity_prime) {
        return Expr{std::complex<double>(0.5, 0.0)};
    }
    if (!polarization) {
        return Expr{std::complex<double>(0.0, 0.0)};
    }
    const Expr& angle = polarization->angle;
    const Expr& magnitude = polarization->magnitude;
    if (!angle.value_kind().is_real_scalar() || !magnitude.value_kind().is_real_scalar()) {
        throw ModelError("photon_sdme: the polarisation angle and magnitude must be Real scalars");
    }
    // ρ_{+-} carries e^{-2iΦ}, ρ_{-+} carries e^{+2iΦ}.
    const double sign = helicity > helicity_prime ? -1.0 : 1.0;
    return -0.5 * magnitude * expr::cis(sign * 2.0 * angle);
}

}  // namespace laddu::amplitudes
