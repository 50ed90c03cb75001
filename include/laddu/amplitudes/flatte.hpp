// laddu/amplitudes/flatte.hpp: the Flatté line shape of a resonance near a second threshold.
//
//   1 / (m₀² - s - i m₀ (g₁ ρ₁(s) + g₂ ρ₂(s))),   ρ_k = 2 q_k / √s (complex below threshold),
// S. M. Flatté, Phys. Lett. B 63 (1976) 224; the form of laddu v0.19.6's Flatte amplitude
// (which also took |m₀| and |g|; here the caller's parameters are used as given).
#pragma once

#include <laddu/expr/expr.hpp>

namespace laddu::amplitudes {

/// A two-body channel of a Flatté amplitude: its daughter masses and coupling g.
struct FlatteChannel {
    expr::Expr mass1;     ///< first daughter mass
    expr::Expr mass2;     ///< second daughter mass
    expr::Expr coupling;  ///< g (Real, GeV)
};

/// 1 / (m₀² - s - i m₀ (g₁ρ₁ + g₂ρ₂)) for the observed channel and the alternative channel.
[[nodiscard]] expr::Expr flatte(const expr::Expr& s, const expr::Expr& mass,
                                const FlatteChannel& observed, const FlatteChannel& alternative);

}  // namespace laddu::amplitudes
