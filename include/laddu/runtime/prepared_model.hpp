// laddu/runtime/prepared_model.hpp: a compiled model bound to its events, ready to evaluate.
//
// prepare() resolves the model's event columns in the data, decides where the event cache
// lives (storage_plan.hpp: resident, or streamed in windows under the memory budget), and
// readies the evaluate program and its gradient program (autodiff, Component::kReal). A
// resident model runs the precompute program once per event; a streaming one re-reads the
// events window by window on every pass, builds each window's cache, reduces it and drops it.
// Windows start at multiples of kReductionChunk, so the chunk partials, merged in chunk order,
// are the same numbers either way: results are bit-identical for any thread count, resident or
// streaming, and (with Execution::collective) for any number of processes.
//
// Under a Collective each process caches or streams only the chunks it owns; reduce() and
// reduce_with_gradient() gather the chunk partials of every process (so they are collective
// calls); errors in prepare() and the reductions are raised on every process.
//
// Example:
//   const auto compiled = compile::compile_model(model);
//   const auto prepared = runtime::PreparedModel::prepare(compiled, dataset, {.threads = 2});
//   double sum_log = prepared.reduce(params, runtime::ReductionTransform::kLogPositiveReal);
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/runtime/event_cache.hpp>
#include <laddu/runtime/execution.hpp>
#include <laddu/runtime/reduce.hpp>
#include <laddu/runtime/reduce_gradient.hpp>

namespace laddu::runtime {

/// What prepare() decided about memory, as laddu's memory_report() tells it.
struct MemoryReport {
    std::string label;             ///< whose events, e.g. "the data" (prepare's `label`)
    std::size_t budget_bytes = 0;  ///< the resolved budget (SIZE_MAX: unlimited)
    /// what was left of the budget for this model: the budget less what other work prepared
    /// with the same Execution::memory_pool held when it was planned (SIZE_MAX: unlimited)
    std::size_t available_bytes = 0;
    std::size_t cache_bytes = 0;  ///< the estimate for the whole (local) cache
    std::size_t cache_bytes_per_event = 0;
    std::size_t source_bytes_per_event = 0;  ///< of the columns read (4 per p4, scalars, weight)
    /// A source read's decode buffers (EventSource::stream_buffer_bytes; 0 for a dataset)
    std::size_t read_buffer_bytes = 0;
    std::size_t scratch_bytes = 0;  ///< every worker's kernel scratch during a pass
    std::size_t events = 0;         ///< local events (this process's)
    data::MemoryPolicy requested = data::MemoryPolicy::kFastest;  ///< the data's policy
    data::MemoryPolicy policy = data::MemoryPolicy::kResident;    ///< decided: resident/streaming
    std::size_t window_events = 0;  ///< events per streaming window (or per source read)
    /// estimated peak of cache, reads, read buffers and scratch (at most available_bytes)
    std::size_t peak_bytes = 0;
    /// what the model leases from the execution's MemoryPool for as long as it lives: a
    /// resident cache and the scratch (prepare leases peak_bytes until the cache is built), or
    /// a streaming model's read buffers, scratch and window of one chunk (each pass borrows the
    /// rest of its window, up to peak_bytes in all, while it runs)
    std::size_t held_bytes = 0;
    std::string decision;  ///< what was decided and why, with the numbers
};

/// What PreparedModel::evaluate() and evaluate_row() do with a value that is not finite.
enum class NonFiniteValues : std::uint8_t {
    kError,  ///< an EvaluationError naming the first such event and what made it (the default)
    kKeep,   ///< return it (variables for selections and binning, where NaN is in no bin)
};

/// Every local event's value and its derivatives (PreparedModel::evaluate_with_gradient).
struct EventGradients {
    std::vector<std::complex<double>> values;  ///< as evaluate() gives them
    std::size_t parameters = 0;                ///< P, the free parameters
    /// df_i/dθ_k of local event i at i·P + k: ∂Re f/∂θ_k + i ∂Im f/∂θ_k (imaginary parts 0
    /// for a real model)
    std::vector<std::complex<double>> gradients;
};

/// A compiled model with its event cache (resident or streamed) over one set of events.
class PreparedModel {
public:
    /// Binds `model` to `data` (a Dataset converts implicitly, under MemoryPolicy::kFastest).
    /// Throws DataError when the data lacks a column the model reads (naming every missing
    /// column and listing what the data has), or when the cache does not fit the memory budget
    /// under the data's policy (naming the budget, the need and what other work already holds
    /// of it); BackendError when the JIT policy is kEnabled and the JIT is not built or cannot
    /// compile the model. With Execution::collective this is a collective call and every
    /// process throws if one fails. The plan uses what is available in the execution's
    /// MemoryPool (the whole budget without one) and the model leases its planned peak, under
    /// `label` ("the data", "the accepted Monte Carlo"), until it is destroyed.
    [[nodiscard]] static PreparedModel prepare(const compile::CompiledModel& model,
                                               const data::EventData& data,
                                               const Execution& execution = {},
                                               std::string_view label = "a prepared model");

    /// The DataError prepare() would throw for an event input `data` lacks, without reading
    /// events or planning memory (only the schema and the fragment sizes are read).
    static void check_inputs(const compile::CompiledModel& model, const data::EventData& data);

    /// The number of events of every process.
    [[nodiscard]] std::size_t events() const noexcept;

    /// The number of events this process owns (events() without a collective).
    [[nodiscard]] std::size_t local_events() const noexcept;

    /// The global chunk index of each local reduction chunk, ascending (0, 1, ... without a
    /// collective): the order of reduce_partials() and reduce_gradient_partials().
    [[nodiscard]] const std::vector<std::size_t>& owned_chunks() const noexcept;

    /// The sum of the event weights of every process: per-chunk compensated sums merged in
    /// global chunk order (the same bits resident, streaming or distributed).
    [[nodiscard]] double sum_weights() const noexcept;

    /// The weights of the local events, in local order (streaming: one pass over the data).
    [[nodiscard]] std::vector<double> weights() const;

    /// Free parameter names, in the order parameter vectors use.
    [[nodiscard]] const std::vector<std::string>& parameter_names() const noexcept;

    /// Σ_i w_i · T(Re f_i) over every process's events. Throws EvaluationError for a wrong
    /// parameter count or a value T cannot take, a non-finite one under any T (naming the
    /// global event index and, for a non-finite value, the operation it comes from, e.g. "solve
    /// of a 2x2 matrix is singular"; under a collective, the first such event of the lowest
    /// failing process, on every process). Collective call.
    ///
    /// `meanwhile` (optional) is other work of the caller's, run on the calling thread while the
    /// pool's other workers start on the events (they take the caller's share of them
    /// meanwhile), or first without a pool; its exception, if any, is thrown once the events are
    /// done, ahead of theirs. It must not use this model's pool (no pass of a prepared model).
    [[nodiscard]] double reduce(std::span<const double> params, ReductionTransform transform,
                                const std::function<void()>& meanwhile = {}) const;

    /// reduce() and its exact gradient with respect to the free parameters; a non-finite
    /// gradient component is an EvaluationError as a non-finite value is. Collective call.
    /// `meanwhile` as for reduce().
    [[nodiscard]] Evaluation
    reduce_with_gradient(std::span<const double> params, ReductionTransform transform,
                         const std::function<void()>& meanwhile = {}) const;

    /// The chunk partials of this process's events, in owned_chunks() order (every chunk
    /// without a collective). Not a collective call; errors are thrown locally.
    [[nodiscard]] std::vector<double> reduce_partials(std::span<const double> params,
                                                      ReductionTransform transform) const;

    /// The chunk partials of reduce_with_gradient() for this process's events, in
    /// owned_chunks() order. Not a collective call.
    [[nodiscard]] GradientPartials reduce_gradient_partials(std::span<const double> params,
                                                            ReductionTransform transform) const;

    /// The model value of every local event, in local order (streaming: one pass). Under
    /// NonFiniteValues::kError a value that is not finite is an EvaluationError naming the
    /// first such event (global index) and what made it. Not a collective call.
    [[nodiscard]] std::vector<std::complex<double>>
    evaluate(std::span<const double> params,
             NonFiniteValues non_finite = NonFiniteValues::kError) const;

    /// The model value of local event `row` (DataError when out of range; non-finite values as
    /// for evaluate()); streaming re-reads only the chunk holding it.
    [[nodiscard]] std::complex<double>
    evaluate_row(std::span<const double> params, std::size_t row,
                 NonFiniteValues non_finite = NonFiniteValues::kError) const;

    /// evaluate() and, per local event, the derivatives of the value with respect to the free
    /// parameters: the gradient program's outputs 1..P run over the same cache passes (for a
    /// complex model, a program of ∂Re f + i ∂Im f built for the call). A value or derivative
    /// that is not finite is an EvaluationError naming the event. Not a collective call; one
    /// pass over the events (the gradient program's output 0 is the value).
    [[nodiscard]] EventGradients evaluate_with_gradient(std::span<const double> params) const;

    /// True when the event cache is held in memory (memory_report().policy is kResident).
    [[nodiscard]] bool is_resident() const noexcept;

    /// The resident event cache of the local events (cache columns and weights). DataError
    /// for a streaming model, which has none.
    [[nodiscard]] const EventCache& cache() const;

    /// The memory decisions prepare() took.
    [[nodiscard]] const MemoryReport& memory_report() const noexcept;

    /// The backend that runs the model: "interpreter" or "jit" (from Execution::jit).
    [[nodiscard]] std::string_view backend() const noexcept;

    /// The execution options this model was prepared with.
    [[nodiscard]] const Execution& execution() const noexcept;

private:
    struct State;

    explicit PreparedModel(std::shared_ptr<const State> state) : state_(std::move(state)) {}

    std::shared_ptr<const State> state_;
};

}  // namespace laddu::runtime
