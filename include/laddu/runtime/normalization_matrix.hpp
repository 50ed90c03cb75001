// laddu/runtime/normalization_matrix.hpp: the matrix of a Hermitian normalisation integral,
// built in one pass over the accepted Monte Carlo, and the parameter-only programs its
// coefficients come from.
//
// For I = Σ_g |Σ_{a in g} c_a(θ) A_a(x)|², Σ_j w_j I_j = Re Σ_ab c_a conj(c_b) M_ab with
// M_ab = Σ_j w_j A_a(x_j) conj(A_b(x_j)) for a, b in one group (0 across groups).
#pragma once

#include <complex>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include <laddu/compile/normalization.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/ir/program.hpp>
#include <laddu/runtime/execution.hpp>

namespace laddu::runtime {

namespace detail {
class ChunkKernel;
}  // namespace detail

/// M (row-major, terms × terms) of `decomposition` over `accepted`: the amplitude program runs
/// on the backend the execution's JIT policy selects, reduction chunk by reduction chunk
/// (resident, or streamed window by window within the memory budget), with one compensated
/// sum per entry and chunk, the chunk partials merged in global chunk order (gathered across
/// the execution's collective). M has the same bits for any thread count, backend, memory plan
/// and number of processes. DataError when `accepted` lacks an amplitude input;
/// EvaluationError naming the first accepted event whose amplitude is not finite. A collective
/// call when the execution has a collective.
[[nodiscard]] std::vector<std::complex<double>>
normalization_matrix(const compile::NormalizationDecomposition& decomposition,
                     const data::EventData& accepted, const Execution& execution);

/// A program that reads no event columns: a function of the parameters alone (the
/// coefficients of a normalisation decomposition and their gradients), run in f64.
class ParameterFunction {
public:
    /// CompileError when `program` has inputs.
    explicit ParameterFunction(const ir::Program& program);

    /// Every output at `params` (EvaluationError for a wrong parameter count).
    [[nodiscard]] std::vector<std::complex<double>>
    operator()(std::span<const double> params) const;

private:
    std::shared_ptr<const detail::ChunkKernel> kernel_;
};

}  // namespace laddu::runtime
