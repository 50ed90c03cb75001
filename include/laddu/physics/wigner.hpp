// laddu/physics/wigner.hpp: Wigner rotation functions as expressions.
//
// Spins are doubled integers (two_j = 2j), so half-integer j is allowed: d^{1/2}_{1/2,-1/2} is
// wigner_small_d(1, 1, -1, beta). The small d is the standard finite sum (Wigner; e.g. Rose,
// "Elementary Theory of Angular Momentum" (1957) eq. 4.13) in cos(β/2) and sin(β/2):
//   d^j_{m'm}(β) = Σ_k (-1)^{k-m+m'} √((j+m')!(j-m')!(j+m)!(j-m)!)
//                  / ((j+m-k)! k! (j-k-m')! (k-m+m')!) cos(β/2)^{2j-2k+m-m'} sin(β/2)^{2k-m+m'},
// with its coefficients computed once, when the expression is built. The big D is
// D^j_{m'm}(α, β, γ) = e^{-i m' α} d^j_{m'm}(β) e^{-i m γ}, as laddu's WignerD.
#pragma once

#include <laddu/expr/expr.hpp>

namespace laddu::physics {

/// d^j_{m'm}(β) as a Real expression; throws ModelError for an invalid (j, m', m).
[[nodiscard]] expr::Expr wigner_small_d(int two_j, int two_m_prime, int two_m,
                                        const expr::Expr& beta);

/// D^j_{m'm}(α, β, γ) = e^{-i m' α} d^j_{m'm}(β) e^{-i m γ} (Complex); ModelError as above.
[[nodiscard]] expr::Expr wigner_big_d(int two_j, int two_m_prime, int two_m,
                                      const expr::Expr& alpha, const expr::Expr& beta,
                                      const expr::Expr& gamma = 0.0);

}  // namespace laddu::physics
