// laddu/compile/normalization.hpp: the Hermitian-form decomposition of an intensity.
//
// When I(x; theta) = sum_g |sum_{a in g} c_a(theta) A_a(x)|^2 with parameter-only coefficients
// c_a and event-only amplitudes A_a, the normalisation integral sum_j w_j I(x_j) equals
// c^H M c with the precomputable matrix M_ab = sum_j w_j A_a(x_j) conj(A_b(x_j)) (for a, b in
// one group; AmpTools' normalisation-integral matrix). The analysis expands the optimised
// intensity linearly (through sums, products, conj, complex(re, im) and components of solves
// with event-only matrices) within a term budget and gives up otherwise.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <laddu/compile/facts.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/ir/program.hpp>

namespace laddu::compile {

/// I = sum_g |sum_{a : group[a] == g} coefficients[a] * amplitudes[a]|^2.
struct NormalizationDecomposition {
    std::vector<expr::Expr> coefficients;  ///< c_a: depend on parameters only (Complex)
    std::vector<expr::Expr> amplitudes;    ///< A_a: depend on events only (Complex)
    std::vector<std::uint32_t> group;      ///< the coherent group of term a
    std::uint32_t group_count = 0;

    /// Params (free order) -> one Complex output per coefficient; no inputs.
    ir::Program coefficient_program;

    /// Event columns (like the precompute program) -> one Complex output per amplitude.
    ir::Program amplitude_program;
};

/// The maximum number of (coefficient, amplitude) terms before the analysis gives up.
inline constexpr std::size_t kMaxNormalizationTerms = 4096;

/// The decomposition of `root`, or nullopt when it is not such a Hermitian form. The programs
/// are left empty; compile_model() lowers them.
[[nodiscard]] std::optional<NormalizationDecomposition>
decompose_intensity(const expr::Expr& root, const GraphFacts& facts);

}  // namespace laddu::compile
