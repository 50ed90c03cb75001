// laddu/amplitudes/kopf.hpp: the published Kopf K-matrices as expressions.
//
// kopf_f0(s, β)[KopfF0Channel::kKKbar] and friends build F = (I + K C)⁻¹ P with the constants
// of kopf_tables.hpp (Kopf et al., Eur. Phys. J. C 81 (2021) 1056) exactly as laddu's
// kopf_{f0,f2,a0,a2,rho,pi1} do (k_matrix.hpp has the formulas). β holds one complex
// production coupling per pole, usually complex(parameter("f0(980) re"), parameter(...)).
// The result is a complex channel vector; select a channel with component(f, channel).
//
// Example:
//   Expr s = (Vec4::event("kshort1") + Vec4::event("kshort2")).m2();
//   Expr a0 = component(kopf_a0(s, {cartesian_coupling("a0(980)"),
//                                   cartesian_coupling("a0(1450)")}), KopfA0Channel::kKKbar);
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <type_traits>

#include <laddu/amplitudes/k_matrix.hpp>
#include <laddu/amplitudes/kopf_tables.hpp>
#include <laddu/expr/expr.hpp>

namespace laddu::amplitudes {

/// F for any Kopf table, closed with the Chew-Mandelstam C (laddu) or the plain -iρ.
template <std::size_t Channels, std::size_t Poles>
[[nodiscard]] expr::Expr kopf_k_matrix(const KopfTable<Channels, Poles>& table, const expr::Expr& s,
                                       const std::array<expr::Expr, Poles>& production,
                                       PhaseSpace phase_space = PhaseSpace::kChewMandelstam) {
    return f_vector(KMatrixDefinition::from_table(table), s,
                    std::span<const expr::Expr>(production), phase_space);
}

/// The f0 K-matrix F vector (5 channels, KopfF0Channel) for 5 production couplings.
[[nodiscard]] expr::Expr kopf_f0(const expr::Expr& s, const std::array<expr::Expr, 5>& production);

/// The f2 K-matrix F vector (4 channels, KopfF2Channel) for 4 production couplings.
[[nodiscard]] expr::Expr kopf_f2(const expr::Expr& s, const std::array<expr::Expr, 4>& production);

/// The a0 K-matrix F vector (2 channels, KopfA0Channel) for 2 production couplings.
[[nodiscard]] expr::Expr kopf_a0(const expr::Expr& s, const std::array<expr::Expr, 2>& production);

/// The a2 K-matrix F vector (3 channels, KopfA2Channel) for 2 production couplings.
[[nodiscard]] expr::Expr kopf_a2(const expr::Expr& s, const std::array<expr::Expr, 2>& production);

/// The ρ K-matrix F vector (3 channels, KopfRhoChannel) for 2 production couplings.
[[nodiscard]] expr::Expr kopf_rho(const expr::Expr& s, const std::array<expr::Expr, 2>& production);

/// The π1 K-matrix F vector (2 channels, KopfPi1Channel) for 1 production coupling.
[[nodiscard]] expr::Expr kopf_pi1(const expr::Expr& s, const std::array<expr::Expr, 1>& production);

/// The f0, f2, a0 and a2 tables with their couplings, background, pole masses and Adler zero
/// drawn from the published covariance of the fit (laddu's kopf_*_resampled; parameters of
/// all-zero covariance rows stay at their values). The same seed gives the same table.
[[nodiscard]] KopfTable<5, 5> kopf_f0_table_resampled(std::uint64_t seed);
[[nodiscard]] KopfTable<4, 4> kopf_f2_table_resampled(std::uint64_t seed);
[[nodiscard]] KopfTable<2, 2> kopf_a0_table_resampled(std::uint64_t seed);
[[nodiscard]] KopfTable<3, 2> kopf_a2_table_resampled(std::uint64_t seed);

/// kopf_f0 .. kopf_a2 built on the resampled tables: one variation of the K-matrix within the
/// published uncertainties per seed (for systematic studies).
[[nodiscard]] expr::Expr kopf_f0_resampled(const expr::Expr& s,
                                           const std::array<expr::Expr, 5>& production,
                                           std::uint64_t seed);
[[nodiscard]] expr::Expr kopf_f2_resampled(const expr::Expr& s,
                                           const std::array<expr::Expr, 4>& production,
                                           std::uint64_t seed);
[[nodiscard]] expr::Expr kopf_a0_resampled(const expr::Expr& s,
                                           const std::array<expr::Expr, 2>& production,
                                           std::uint64_t seed);
[[nodiscard]] expr::Expr kopf_a2_resampled(const expr::Expr& s,
                                           const std::array<expr::Expr, 2>& production,
                                           std::uint64_t seed);

/// Channel `channel` of an F vector: component(kopf_f0(s, b), KopfF0Channel::kKKbar).
template <class Channel>
    requires std::is_enum_v<Channel>
[[nodiscard]] expr::Expr component(const expr::Expr& f_vector, Channel channel) {
    return expr::component(f_vector, static_cast<std::uint32_t>(channel));
}

}  // namespace laddu::amplitudes
