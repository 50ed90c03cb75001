// laddu/runtime/reduce_gradient.hpp: deterministic weighted reductions with exact gradients.
//
// reduce_with_gradient() computes Σ_i w_i · T(Re f_i) and its gradient
// Σ_i w_i · T'(Re f_i) · ∂Re f_i/∂θ_k by running a gradient program (autodiff::gradient with
// Component::kReal: output 0 the value, outputs 1..P the real derivatives of Re f) over an
// EventCache. Chunking and merging are those of reduce(): fixed kReductionChunk chunks, each
// summed with a LaneSum (one per output), merged in chunk order, so value and
// gradient are bit-identical for any thread count, and the value equals reduce()'s.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include <laddu/interp/interpreter.hpp>
#include <laddu/runtime/event_cache.hpp>
#include <laddu/runtime/reduce.hpp>

namespace laddu::runtime {

class ThreadPool;

/// A reduced value and its gradient with respect to the program's parameters.
struct ReductionEvaluation {
    double value = 0.0;
    std::vector<double> gradient;

    friend bool operator==(const ReductionEvaluation&, const ReductionEvaluation&) = default;
};

/// Chunk partials of a gradient reduction: `values[c]`, and `gradients[c * parameters + k]`.
struct GradientPartials {
    std::size_t parameters = 0;
    std::vector<double> values;
    std::vector<double> gradients;
};

/// The per-chunk partials of value and gradient. `gradient_interp` runs a gradient program
/// whose outputs 1..P are Real; its inputs must match the cache's slots (DataError otherwise).
/// Throws EvaluationError as reduce() does (wrong parameter count, the first non-finite value,
/// or non-positive one under kPositiveReal / kLogPositiveReal, with its event index), and for
/// the first event with a non-finite gradient component.
[[nodiscard]] GradientPartials reduce_gradient_partials(const interp::Interpreter& gradient_interp,
                                                        std::span<const double> params,
                                                        const EventCache& cache,
                                                        ReductionTransform transform,
                                                        ThreadPool* pool = nullptr);

/// Merges partials in chunk order with one AccurateSum per output.
[[nodiscard]] ReductionEvaluation merge_gradient_partials(const GradientPartials& partials);

/// merge_gradient_partials(reduce_gradient_partials(...)).
[[nodiscard]] ReductionEvaluation reduce_with_gradient(const interp::Interpreter& gradient_interp,
                                                       std::span<const double> params,
                                                       const EventCache& cache,
                                                       ReductionTransform transform,
                                                       ThreadPool* pool = nullptr);

}  // namespace laddu::runtime
