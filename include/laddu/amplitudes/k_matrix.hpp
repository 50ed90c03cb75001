// laddu/amplitudes/k_matrix.hpp: K-matrix building blocks in laddu's (Kopf) form.
//
// For channels i, j, poles α with masses m_α, couplings g_iα, background c_ij, barrier
// factors B_iα = F_L(q_i(s)) / F_L(q_i(m_α²)) (q_R = 0.1973 GeV) and an optional Adler zero
// A(s) = (s - s0)/s_norm (A = 1 otherwise), laddu-architecture.md §3.4:
//   K_ij = A(s) Σ_α B_iα B_jα [g_iα g_jα / (m_α² - s) + c_ij]     (c inside the pole sum)
//   P_i  = Σ_α β_α g_iα B_iα / (m_α² - s)                        (β: production couplings)
//   F    = (I + K C)⁻¹ P,  C = diag(chew_mandelstam(s, m1_i, m2_i)) (PhaseSpace::kChewMandelstam)
//   F    = (I - i K ρ)⁻¹ P, ρ = diag(ρ_i(s))                              (PhaseSpace::kRho)
// Everything is built in laddu's cleared form, multiplied through by Π(s) = Π_α (m_α² - s):
// K' = Π K, P' = Π P and F = solve(Π I + K' C, P'), so there is no division by (m_α² - s) and F
// is finite exactly at a pole. The matrix is parameter-free and per event (it depends on s
// only), and F is linear in β: the compiler's SolveRow specialisation caches the needed
// inverse rows per event, so F_i costs one dot product per evaluation. The expression-valued
// blocks below hold the algebra; with a free pole mass or K coupling the matrix becomes
// parameter-dependent and is solved (and differentiated) per evaluation instead.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include <laddu/amplitudes/barrier.hpp>
#include <laddu/amplitudes/kopf_tables.hpp>
#include <laddu/expr/expr.hpp>

namespace laddu::amplitudes {

/// The Adler zero A(s) = (s - s0) / s_norm multiplying K.
struct AdlerZero {
    double s0;      ///< zero position (GeV²)
    double s_norm;  ///< normalisation (GeV²)
};

/// Which phase-space matrix closes the K-matrix.
enum class PhaseSpace : unsigned char {
    kChewMandelstam,  ///< F = (I + K C)⁻¹ P with the Chew-Mandelstam C (laddu's Kopf form)
    kRho,             ///< F = (I - i K ρ)⁻¹ P with the two-body ρ
};

/// The numbers of a K-matrix (fixed constants; production couplings come separately).
struct KMatrixDefinition {
    std::vector<double> pole_masses;              ///< m_α
    std::vector<std::vector<double>> couplings;   ///< g[channel][pole]
    std::vector<std::vector<double>> background;  ///< c[channel][channel]; empty for none
    std::vector<double> channel_mass_1;           ///< first daughter mass per channel
    std::vector<double> channel_mass_2;           ///< second daughter mass per channel
    int l = 0;                                    ///< orbital angular momentum (0..8)
    double q_r = kDefaultBarrierScale;            ///< barrier scale (GeV)
    std::optional<AdlerZero> adler_zero;          ///< Adler zero, if any

    /// The definition of a published Kopf table (kKopfF0, ...).
    template <std::size_t Channels, std::size_t Poles>
    [[nodiscard]] static KMatrixDefinition from_table(const KopfTable<Channels, Poles>& table);

    /// Number of channels.
    [[nodiscard]] std::size_t channels() const { return channel_mass_1.size(); }

    /// Number of poles.
    [[nodiscard]] std::size_t poles() const { return pole_masses.size(); }

    /// Throws ModelError naming the mismatch when the shapes disagree or l is unsupported.
    void validate() const;
};

// ---- Expression-valued blocks (laddu.amplitudes.k_matrix, p_vector, f_vector,
// blatt_weisskopf_barriers; laddu 0.21.4 laddu-amplitudes/src/kmatrix.rs). Every argument is an
// expression, so pole masses, couplings, backgrounds and production couplings may be fixed,
// free or derived. K and P are the cleared forms K' = Π K and P' = Π P, and f_vector solves
// (Π I + K' C) F = P' with Π recomputed from its own pole_masses argument. A shape mismatch
// throws ModelError naming the function, the argument and both shapes. The double-based
// functions further down build constants and call these.

/// Π(s) = Π_α (m_α² - s) for a pole-mass vector expression.
[[nodiscard]] expr::Expr pole_product(const expr::Expr& s, const expr::Expr& pole_masses);

/// The channels × poles barrier matrix B_iα = F_L(q_i(s)) / F_L(q_i(m_α²)) from channel mass
/// vectors and a pole-mass vector (all 1 for l = 0; q_r defaults to laddu's Python default).
[[nodiscard]] expr::Expr blatt_weisskopf_barriers(const expr::Expr& s,
                                                  const expr::Expr& channel_mass_1,
                                                  const expr::Expr& channel_mass_2,
                                                  const expr::Expr& pole_masses, int l,
                                                  double q_r = 1.0);

/// The cleared K-matrix K'_ij = Σ_α g_iα g_jα B_iα B_jα Π_{β≠α}(m_β² - s) + c_ij Π(s):
/// couplings and barriers are channels × poles, background (optional) channels × channels and
/// added as given (laddu's Kopf tables put their barriers into it: see k_matrix(definition)).
[[nodiscard]] expr::Expr k_matrix(const expr::Expr& s, const expr::Expr& pole_masses,
                                  const expr::Expr& couplings, const expr::Expr& barriers,
                                  const std::optional<expr::Expr>& background = std::nullopt);

/// The cleared production vector P'_i = Σ_α β_α g_iα B_iα Π_{β≠α}(m_β² - s) + b_i Π(s):
/// production is one coupling per pole, background (optional) one entry per channel.
[[nodiscard]] expr::Expr p_vector(const expr::Expr& s, const expr::Expr& pole_masses,
                                  const expr::Expr& production, const expr::Expr& couplings,
                                  const expr::Expr& barriers,
                                  const std::optional<expr::Expr>& background = std::nullopt);

/// F = solve(Π(s) I + K' C, P') for a cleared K (channels × channels), a cleared P (channels)
/// and a phase-space matrix C (channels × channels, or a channel vector meaning diag(C)).
[[nodiscard]] expr::Expr f_vector(const expr::Expr& s, const expr::Expr& pole_masses,
                                  const expr::Expr& k, const expr::Expr& p,
                                  const expr::Expr& phase_space);

// ---- The double-based API: a KMatrixDefinition of constants fed to the blocks above.

/// Π(s) = Π_α (m_α² - s) (Real).
[[nodiscard]] expr::Expr pole_product(const KMatrixDefinition& definition, const expr::Expr& s);

/// The barrier matrix B[i][α] (channels × poles; Complex below threshold).
[[nodiscard]] expr::Expr blatt_weisskopf_barriers(const KMatrixDefinition& definition,
                                                  const expr::Expr& s);

/// The cleared K-matrix K' = Π(s) K(s) (channels × channels).
[[nodiscard]] expr::Expr k_matrix(const KMatrixDefinition& definition, const expr::Expr& s);

/// The cleared production vector P' = Π(s) P(s); one production coupling per pole.
[[nodiscard]] expr::Expr p_vector(const KMatrixDefinition& definition, const expr::Expr& s,
                                  std::span<const expr::Expr> production);

/// The diagonal phase-space matrix C (Chew-Mandelstam) or -iρ, as used in (Π I + K' ·).
[[nodiscard]] expr::Expr phase_space_matrix(const KMatrixDefinition& definition,
                                            const expr::Expr& s, PhaseSpace phase_space);

/// F = (I + K C)⁻¹ P or (I - i K ρ)⁻¹ P as a complex channel vector (see the banner).
[[nodiscard]] expr::Expr f_vector(const KMatrixDefinition& definition, const expr::Expr& s,
                                  std::span<const expr::Expr> production,
                                  PhaseSpace phase_space = PhaseSpace::kChewMandelstam);

template <std::size_t Channels, std::size_t Poles>
KMatrixDefinition KMatrixDefinition::from_table(const KopfTable<Channels, Poles>& table) {
    KMatrixDefinition definition;
    definition.pole_masses.assign(table.pole_masses.begin(), table.pole_masses.end());
    for (const auto& row : table.couplings) {
        definition.couplings.emplace_back(row.begin(), row.end());
    }
    for (const auto& row : table.background) {
        definition.background.emplace_back(row.begin(), row.end());
    }
    definition.channel_mass_1.assign(table.channel_mass_1.begin(), table.channel_mass_1.end());
    definition.channel_mass_2.assign(table.channel_mass_2.begin(), table.channel_mass_2.end());
    definition.l = table.l;
    definition.q_r = kKopfBarrierScale;
    if (table.has_adler_zero) {
        definition.adler_zero = AdlerZero{table.adler_s0, table.adler_s_norm};
    }
    return definition;
}

}  // namespace laddu::amplitudes
