#include <laddu/amplitudes/flatte.hpp>
#include <laddu/amplitudes/two_body.hpp>

namespace laddu::amplitudes {

using expr::Expr;

Expr flatte(const Expr& s, const Expr& mass, const FlatteChannel& observed,
            const FlatteChannel& alternative) {
    const Expr width =
        observed.coupling * phase_space_factor(s, observed.mass1, observed.mass2) +
        alternative.coupling * phase_space_factor(s, alternative.mass1, alternative.mass2);
    const Expr i{std::complex<double>(0.0, 1.0)};
    return 1.0 / (mass * mass - s - i * mass * width);
}

}  // namespace laddu::amplitudes
