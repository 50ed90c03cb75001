// laddu/runtime/normalization_matrix.hpp: the statistics of a separable normalisation
// integral, gathered in one pass over the accepted Monte Carlo, and the parameter-only programs
// its coefficients come from.
//
// For I = Σ_g |Σ_{a in g} c_a(θ) A_a(x)|² + Re Σ_k d_k(θ) B_k(x) (+ a residual integrated
// elsewhere), Σ_j w_j I_j = Re Σ_ab c_a conj(c_b) M_ab + Re Σ_k d_k S_k with
// M_ab = Σ_j w_j A_a(x_j) conj(A_b(x_j)) for a, b in one group (0 across groups) and
// S_k = Σ_j w_j B_k(x_j).
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

class EventCache;

/// The statistics of a decomposition over the accepted Monte Carlo.
struct NormalizationStatistics {
    std::vector<std::complex<double>> matrix;  ///< M, row-major, amplitudes × amplitudes
    std::vector<std::complex<double>> linear;  ///< S_k, one per basis
    bool from_cache = false;                   ///< the pass read the given cache (accepted_cache)
};

/// M and S of `decomposition` over `accepted`, in one pass: the amplitude program (amplitudes,
/// then bases) runs on the backend the execution's JIT policy selects, reduction chunk by
/// reduction chunk (resident, or streamed window by window within the memory budget), with one
/// compensated sum per statistic and chunk, the chunk partials merged in global chunk order
/// (gathered across the execution's collective). The statistics have the same bits for any
/// thread count, backend, memory plan and number of processes. DataError when `accepted` lacks
/// an amplitude input; EvaluationError naming the first accepted event whose amplitude or basis
/// is not finite. A collective call when the execution has a collective.
///
/// `accepted_cache` (optional) is the model's f64 event cache of this process's events of
/// `accepted` (a prepared model's resident cache over the same events, e.g. the data's when the
/// accepted Monte Carlo is the data): the pass then reads the cached factors of the amplitudes
/// (cached_amplitude_program) instead of computing them again from the events, with the same
/// bits. A float cache is not used.
[[nodiscard]] NormalizationStatistics
normalization_statistics(const compile::NormalizationDecomposition& decomposition,
                         const data::EventData& accepted, const Execution& execution,
                         const EventCache* accepted_cache = nullptr);

/// A program that reads no event columns: a function of the parameters alone (the
/// coefficients of a normalisation decomposition and their gradients), run in f64. It is
/// called once or twice per likelihood evaluation, like the likelihood's own kernels, so it
/// takes the backend they take: the JIT when `jit` asks for it for a program run once per
/// evaluation of a likelihood over `events` events (kAuto: from the same event count on as
/// the likelihood's kernels), else the interpreter, through the runtime's one kernel interface
/// (one event of no columns). What a call needs besides its result (the bound kernel) is kept
/// between calls, one per caller running at once. Both backends give the same bits; the JIT
/// runs the K-matrix benchmark's 363-instruction normalisation gradient in a fraction of the
/// interpreter's ~6 µs.
class ParameterFunction {
public:
    /// CompileError when `program` has inputs; BackendError when `jit` is kEnabled and the JIT
    /// cannot compile it.
    explicit ParameterFunction(const ir::Program& program, JitPolicy jit = JitPolicy::kDisabled,
                               std::size_t events = 0);

    /// Every output at `params` (EvaluationError for a wrong parameter count).
    [[nodiscard]] std::vector<std::complex<double>>
    operator()(std::span<const double> params) const;

private:
    std::shared_ptr<const detail::ChunkKernel> kernel_;
};

}  // namespace laddu::runtime
