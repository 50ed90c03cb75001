// laddu/amplitudes/barrier.hpp: Blatt-Weisskopf centrifugal-barrier factors.
//
// Blatt-Weisskopf barrier factor; von Hippel & Quigg, Phys. Rev. D 5 (1972) 624. With
// z = q²/q_R², F_L(z) = √(N_L z^L / D_L(z)), normalised so that F_L(1) = 1 (the form and
// polynomials of laddu's blatt_weisskopf, L <= 8):
//   L=0: 1                 L=1: 2z/(z+1)            L=2: 13z²/(z²+3z+9)
//   L=3: 277z³/(z³+6z²+45z+225)     L=4: 12746z⁴/(z⁴+10z³+135z²+1575z+11025)   ...
// laddu's L = 6 denominator ends in 18261468225 (the L = 7 constant), which breaks F_6(1) = 1;
// laddu-cpp uses 108056025, the value that restores the normalisation (docs/physics.md).
#pragma once

#include <complex>

#include <laddu/expr/expr.hpp>

namespace laddu::amplitudes {

/// laddu's default barrier scale q_R = 0.1973 GeV (ħc / 1 fm, rounded; Rust QR_DEFAULT).
inline constexpr double kDefaultBarrierScale = 0.1973;

/// The largest supported orbital angular momentum.
inline constexpr int kMaxBarrierL = 8;

/// Full barrier F_L, or the tensor form F_L / q^L (laddu's BarrierKind).
enum class BarrierKind : unsigned char { kFull, kTensor };

/// F_L(q) for a (Real or Complex) break-up momentum q; throws ModelError for l outside 0..8
/// or a non-positive q_r.
[[nodiscard]] expr::Expr blatt_weisskopf(const expr::Expr& q, int l,
                                         double q_r = kDefaultBarrierScale,
                                         BarrierKind kind = BarrierKind::kFull);

/// The same factor evaluated numerically (complex principal square root).
[[nodiscard]] std::complex<double> blatt_weisskopf_value(std::complex<double> q, int l,
                                                         double q_r = kDefaultBarrierScale,
                                                         BarrierKind kind = BarrierKind::kFull);

}  // namespace laddu::amplitudes
