#include <laddu/amplitudes/kopf.hpp>

namespace laddu::amplitudes {

using expr::Expr;

Expr kopf_f0(const Expr& s, const std::array<Expr, 5>& production) {
    return kopf_k_matrix(kKopfF0, s, production);
}

Expr kopf_f2(const Expr& s, const std::array<Expr, 4>& production) {
    return kopf_k_matrix(kKopfF2, s, production);
}

Expr kopf_a0(const Expr& s, const std::array<Expr, 2>& production) {
    return kopf_k_matrix(kKopfA0, s, production);
}

Expr kopf_a2(const Expr& s, const std::array<Expr, 2>& production) {
    return kopf_k_matrix(kKopfA2, s, production);
}

Expr kopf_rho(const Expr& s, const std::array<Expr, 2>& production) {
    return kopf_k_matrix(kKopfRho, s, production);
}

Expr kopf_pi1(const Expr& s, const std::array<Expr, 1>& production) {
    return kopf_k_matrix(kKopfPi1, s, production);
}

}  // namespace laddu::amplitudes
