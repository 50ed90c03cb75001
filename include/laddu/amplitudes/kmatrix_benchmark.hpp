// laddu/amplitudes/kmatrix_benchmark.hpp: laddu's K-matrix benchmark model, γ p → K_S K_S p.
//
// The intensity of crates/laddu/benches/kmatrix_benchmark.rs (laddu-architecture.md §3.3),
// built from the event four-momenta "beam", "proton", "kshort1", "kshort2" and the scalars
// "pol_magnitude", "pol_angle":
//   S± = f0±[KK̄] + a0±[KK̄],  D⁺ = f2[KK̄] + a2[KK̄]   (Kopf K-matrices at s = (k1 + k2)²)
//   I  = |S⁺ Re Z⁺₀₀ + D⁺ Re Z⁺₂₂|² + |S⁺ Im Z⁺₀₀ + D⁺ Im Z⁺₂₂|² + |S⁻ Re Z⁻₀₀|² + |S⁻ Im Z⁻₀₀|²
// with the helicity angles of kshort1 (z = -proton in the KK rest frame reached lab → CM → KK,
// y hint = -(beam × proton) in the CM). Parameter names are laddu's ("f0(980)+ re", "a2(1700)
// im", ...): 34 free, 6 fixed at 0 ("f0+ c00 re/im", "f0(980)+ im_fix" and their "-" twins).
#pragma once

#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>

namespace laddu::amplitudes {

/// The benchmark intensity expression (Real).
[[nodiscard]] expr::Expr kmatrix_benchmark_intensity();

/// The benchmark model: Model(kmatrix_benchmark_intensity()).
[[nodiscard]] expr::Model kmatrix_benchmark_model();

}  // namespace laddu::amplitudes
