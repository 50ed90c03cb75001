// laddu/amplitudes/chew_mandelstam.hpp: the Chew-Mandelstam function of a two-body channel.
//
//   C(s) = [ρ ln((χ₊+ρ)/(χ₊-ρ)) - χ₊ ((m2-m1)/(m1+m2)) ln(m2/m1)] / π,   χ₊ = 1 - (m1+m2)²/s,
// as laddu's chew_mandelstam and Kopf et al., Eur. Phys. J. C 81 (2021) 1056. Above
// threshold the logarithm is taken with imaginary part -iπ, so Im C = -ρ and (I + K C) becomes
// (I - i K ρ) on the real axis. The expression is written as
//   ρ [ln(χ₊+ρ) - ln(ρ-χ₊) - iπ]
// which equals laddu's principal-branch value everywhere on the real s axis (above threshold,
// between the pseudo-threshold and threshold where ρ is imaginary, and below the
// pseudo-threshold) without relying on the sign of a zero imaginary part.
#pragma once

#include <complex>

#include <laddu/expr/expr.hpp>

namespace laddu::amplitudes {

/// C(s; m1, m2) as a Complex expression of the Real expression s; m1, m2 > 0.
[[nodiscard]] expr::Expr chew_mandelstam(const expr::Expr& s, double mass1, double mass2);

/// C(s; m1, m2) evaluated numerically, with the branches chosen explicitly.
[[nodiscard]] std::complex<double> chew_mandelstam_value(double s, double mass1, double mass2);

}  // namespace laddu::amplitudes
