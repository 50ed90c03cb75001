// Pass: collect_coefficients. Writes each scalar node that is linear in parameter-only
// coefficients as Σ_k c_k · (Σ event-only terms) + (event-only rest), so every coefficient
// multiplies one event-only sum: one cache column per coefficient instead of one per factor.
//
// The K-matrix is the case it is for: the amplitude of channel j is
//     F_j = Σ_k (I − iKρ)⁻¹_jk · P_k,   P_k = Σ_α β_α g_αk B_k / (m_α² − s),
// whose event-only parts are the inverse-row elements and every g_αk B_k / (m_α² − s): with a
// 5-channel, 5-pole K-matrix, 5 complex and up to 25 real columns, and as many multiplications
// at every evaluation. Collected by coefficient it is F_j = Σ_α β_α A_α with
// A_α = Σ_k (I − iKρ)⁻¹_jk g_αk B_k / (m_α² − s): one complex column per pole (the P-vector
// form of Aitchison, Nucl. Phys. A189 (1972) 417, evaluated the way AmpTools' normalisation
// integrals are).
//
// Linear means: a sum of linear nodes, or a product of parameter-only factors, event-only
// factors and at most one linear factor that depends on both. Event-only factors are
// distributed into that factor's terms only when it has no other use (otherwise its columns
// would stay and the distributed copies would add to them). Aggregates, and every other
// operation on a node that depends on both, end the linear region. Values are unchanged up
// to rounding (the distributive law reassociates).
#pragma once

#include <laddu/expr/expr.hpp>

namespace laddu::compile {

/// The pass described above.
[[nodiscard]] expr::Expr collect_coefficients(const expr::Expr& root);

}  // namespace laddu::compile
