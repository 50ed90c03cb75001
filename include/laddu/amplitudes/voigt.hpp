// laddu/amplitudes/voigt.hpp: the Voigt line shape, a Breit-Wigner (Lorentzian) of width Γ
// smeared by a Gaussian resolution of standard deviation σ.
//
//   V(m; m₀, Γ, σ) = Re w(z) / (σ √(2π)),   z = (m - m₀ + iΓ/2) / (σ √2),
// the convolution of the Lorentzian (Γ/2π) / ((m - m₀)² + Γ²/4) with the normal density of
// width σ (DLMF §7.19, "Voigt functions"; B. H. Armstrong, J. Quant. Spectrosc. Radiat. Transfer
// 7 (1967) 61), normalised to ∫ V dm = 1. w is the Faddeeva function
//   w(z) = exp(-z²) erfc(-iz)   (DLMF 7.2.3),
// evaluated with J. A. C. Weideman's rational approximation (SIAM J. Numer. Anal. 31 (1994)
// 1497, with N = 40 terms)
//   w(z) ≈ 2 Σ_{k<N} a_k Z^k / (L - iz)² + 1 / (√π (L - iz)),   Z = (L + iz) / (L - iz),
// built from existing expression operations so the line shape compiles, caches and
// differentiates like any other. Against scipy.special.wofz its absolute error is below 2e-15
// in the closed upper half plane (|w| <= 1 there), and the relative error of Re w is
// below 1e-10 where Im z >= 1e-4 (python/tests/test_legacy_line_shapes.py).
//
// voigt() is laddu v0.19.6's Voigt amplitude: √V, Real, so |A|² is the normalised profile; like
// laddu it uses |Γ| and |σ| (a fit may step through negative values), which keeps Im z >= 0.
#pragma once

#include <laddu/expr/expr.hpp>

namespace laddu::amplitudes {

/// Weideman's approximation of the Faddeeva function w(z) = exp(-z²) erfc(-iz) for a scalar z
/// with Im z >= 0 (Real or Complex; the result is Complex). Outside the upper half plane the
/// approximation does not hold: use w(z) = 2 exp(-z²) - w(-z) there.
[[nodiscard]] expr::Expr faddeeva(const expr::Expr& z);

/// The normalised Voigt profile V(m) above (Real) of the invariant mass m (not s) for a
/// resonance of mass m₀, Lorentzian width Γ (FWHM) and Gaussian resolution σ. A constant Γ < 0
/// or σ <= 0 is a ModelError; parameters enter as |Γ| and |σ|.
[[nodiscard]] expr::Expr voigt_profile(const expr::Expr& m, const expr::Expr& mass,
                                       const expr::Expr& width, const expr::Expr& sigma);

/// laddu v0.19.6's Voigt amplitude √V(m; m₀, Γ, σ) (Real), with the checks of voigt_profile().
[[nodiscard]] expr::Expr voigt(const expr::Expr& m, const expr::Expr& mass, const expr::Expr& width,
                               const expr::Expr& sigma);

}  // namespace laddu::amplitudes
