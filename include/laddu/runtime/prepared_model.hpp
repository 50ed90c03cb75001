// laddu/runtime/prepared_model.hpp: a compiled model bound to a dataset, ready to evaluate.
//
// prepare() resolves the model's event columns in the dataset, runs the precompute program once
// per event into an EventCache (within the Execution's memory budget), and readies the
// evaluate program and its gradient program (autodiff, Component::kReal) on the interpreter.
// Every later call touches only the cache and the parameters. Results do not depend on the
// thread count (fixed chunks, compensated sums merged in order).
//
// Example:
//   const auto compiled = compile::compile_model(model);
//   const auto prepared = runtime::PreparedModel::prepare(compiled, dataset, {.threads = 2});
//   double sum_log = prepared.reduce(params, runtime::ReductionTransform::kLogPositiveReal);
#pragma once

#include <complex>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/runtime/event_cache.hpp>
#include <laddu/runtime/execution.hpp>
#include <laddu/runtime/reduce.hpp>
#include <laddu/runtime/reduce_gradient.hpp>

namespace laddu::runtime {

/// What prepare() decided about memory, as laddu's memory_report() tells it.
struct MemoryReport {
    std::size_t budget_bytes = 0;  ///< the resolved budget (SIZE_MAX: unlimited)
    std::size_t cache_bytes = 0;   ///< the estimate for the whole cache
    std::size_t cache_bytes_per_event = 0;
    std::size_t events = 0;
    std::string decision;  ///< e.g. "resident: 71 cache columns, 896 bytes/event, 8.9 MB"
};

/// A compiled model with its event cache over one dataset.
class PreparedModel {
public:
    /// Binds `model` to `dataset`. Throws DataError when the dataset lacks a column the model
    /// reads (naming every missing column and listing what the dataset has), or when the cache
    /// does not fit the memory budget (naming the budget and the need); BackendError when the
    /// JIT policy is kEnabled and the JIT is not built or cannot compile the model.
    [[nodiscard]] static PreparedModel prepare(const compile::CompiledModel& model,
                                               const data::Dataset& dataset,
                                               const Execution& execution = {});

    /// The number of events.
    [[nodiscard]] std::size_t events() const noexcept;

    /// The compensated sum of the event weights.
    [[nodiscard]] double sum_weights() const noexcept;

    /// Free parameter names, in the order parameter vectors use.
    [[nodiscard]] const std::vector<std::string>& parameter_names() const noexcept;

    /// Σ_i w_i · T(Re f_i). Throws EvaluationError for a wrong parameter count or a value T
    /// cannot take (naming the event).
    [[nodiscard]] double reduce(std::span<const double> params, ReductionTransform transform) const;

    /// reduce() and its exact gradient with respect to the free parameters.
    [[nodiscard]] ReductionEvaluation reduce_with_gradient(std::span<const double> params,
                                                           ReductionTransform transform) const;

    /// The chunk partials of reduce() (for a distributed merge in global chunk order).
    [[nodiscard]] std::vector<double> reduce_partials(std::span<const double> params,
                                                      ReductionTransform transform) const;

    /// The chunk partials of reduce_with_gradient().
    [[nodiscard]] GradientPartials reduce_gradient_partials(std::span<const double> params,
                                                            ReductionTransform transform) const;

    /// The model value of every event.
    [[nodiscard]] std::vector<std::complex<double>> evaluate(std::span<const double> params) const;

    /// The model value of event `row` (DataError when out of range).
    [[nodiscard]] std::complex<double> evaluate_row(std::span<const double> params,
                                                    std::size_t row) const;

    /// The event cache (cache columns and weights).
    [[nodiscard]] const EventCache& cache() const noexcept;

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
