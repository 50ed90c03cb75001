// laddu/compile/normalization.hpp: the separable decomposition of an intensity, from which the
// normalisation integral Σ_j w_j I(x_j; θ) over the accepted Monte Carlo is computed from
// statistics gathered once instead of a pass over the events at every evaluation.
//
// The optimised intensity is split into its additive terms, and each term into one of:
//   * a coherent group |Σ_{a in g} c_a(θ) A_a(x)|² (a |.|², or a product of |.|² and positive
//     real constants): with the matrix M_ab = Σ_j w_j A_a(x_j) conj(A_b(x_j)) (a, b in one
//     group; AmpTools' normalisation-integral matrix) its integral is Re Σ_ab c_a conj(c_b) M_ab;
//   * linear terms Σ_k d_k(θ) B_k(x), parameter-only coefficients times event-only bases (real
//     products such as p · f(x), Re(c(θ) A(x)), |c(θ) A(x)|² · g(x), parameter-only terms with
//     B = 1, event-only terms with d = 1): with S_k = Σ_j w_j B_k(x_j) their integral is
//     Re Σ_k d_k S_k;
//   * the residual: every term that mixes parameters and events in another way (exp(p x),
//     1 / (p + x), a term past the term budget), integrated by a pass over the events.
// The expansion is linear through sums, products, negation, conj, Re, Im, complex(re, im),
// non-negative integer powers, |.|², division by a parameter-only or event-only factor and
// components of solves with event-only matrices.
//
// The strategy follows laddu 0.21.4: kHybrid when a residual is left beside separable terms,
// else kHermitian when there are coherent groups (linear terms may accompany them), else
// kLinearStatistics; kGeneral (no decomposition) when no term is separable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include <laddu/compile/facts.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/ir/program.hpp>

namespace laddu::compile {

struct CompiledModel;

/// How the normalisation integral of an intensity can be computed (laddu's
/// NormalizationStrategy).
enum class NormalizationStrategy : std::uint8_t {
    kHermitian,         ///< coherent groups (and linear terms), all from statistics
    kLinearStatistics,  ///< linear terms only: Re Σ_k d_k(θ) S_k
    kHybrid,            ///< statistics for the separable terms plus a residual event pass
    kGeneral,           ///< a pass over the accepted events at every evaluation
};

/// laddu's Python name of `strategy`: "hermitian", "linear_statistics", "hybrid" or "general".
[[nodiscard]] std::string_view to_string(NormalizationStrategy strategy);

/// I = Σ_g |Σ_{a : group[a] == g} coefficients[a] amplitudes[a]|²
///   + Re Σ_k linear_coefficients[k] bases[k] + residual.
struct NormalizationDecomposition {
    std::vector<expr::Expr> coefficients;  ///< c_a: depend on parameters only (Complex)
    std::vector<expr::Expr> amplitudes;    ///< A_a: depend on events only (Complex)
    std::vector<std::uint32_t> group;      ///< the coherent group of term a
    std::uint32_t group_count = 0;

    std::vector<expr::Expr> linear_coefficients;  ///< d_k: parameters only (Complex)
    std::vector<expr::Expr> bases;                ///< B_k: events only (Complex)

    /// The sum of the non-separable terms (Real); nullopt when every term is separable.
    std::optional<expr::Expr> residual;

    NormalizationStrategy strategy = NormalizationStrategy::kGeneral;

    /// True when the intensity is non-negative by construction (laddu's rule: non-negative
    /// constants, |.|², |.|, Re of such, even powers of reals, and sums and products of these).
    /// NormalizationMode::kAuto uses the statistics only then, as laddu does.
    bool proven_nonnegative = false;

    /// The per-event work of gathering the statistics once: the amplitude program's
    /// instructions plus one per accumulated statistic (matrix entries on and above the
    /// diagonal, and the bases). Set by compile_model().
    std::size_t statistics_work = 0;

    /// The per-event work of one general evaluation: the model's precompute and evaluate
    /// instructions (at least 1). Set by compile_model().
    std::size_t general_work = 1;

    /// Params (free order) -> one Complex output per coefficient, then one per linear
    /// coefficient; no inputs.
    ir::Program coefficient_program;

    /// Event columns (like the precompute program) -> one Complex output per amplitude, then
    /// one per basis.
    ir::Program amplitude_program;

    /// The amplitudes and bases read from the model's cache where it holds them: input slots
    /// the evaluate program's (the cache columns), then the event columns of what the cache
    /// does not hold. amplitude_program is then the precompute program followed by this one, so
    /// the two give the same bits. nullopt for a model without cache columns. Set by
    /// compile_model().
    std::optional<ir::Program> cached_amplitude_program;

    /// The residual compiled as a model of its own (normalisation analysis off); null without a
    /// residual. Set by compile_model().
    std::shared_ptr<const CompiledModel> residual_model;

    /// The position in the whole model's free parameters of each of residual_model's.
    std::vector<std::size_t> residual_parameters;

    /// The number of statistics gathered per pass: matrix terms plus bases.
    [[nodiscard]] std::size_t basis_count() const { return amplitudes.size() + bases.size(); }
};

/// The maximum number of (coefficient, amplitude) plus (coefficient, basis) terms before the
/// remaining terms go to the residual.
inline constexpr std::size_t kMaxNormalizationTerms = 4096;

/// The decomposition of `root`, or nullopt when no additive term of it is separable (the
/// kGeneral strategy). The programs, the residual model and the work estimates are left empty;
/// compile_model() fills them.
[[nodiscard]] std::optional<NormalizationDecomposition>
decompose_intensity(const expr::Expr& root, const GraphFacts& facts);

}  // namespace laddu::compile
