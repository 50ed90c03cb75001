// src/runtime/kernel_reduce.hpp (private): the reductions of reduce.hpp and
// reduce_gradient.hpp over any ChunkKernel. The public Interpreter overloads and
// PreparedModel both call these.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include <laddu/runtime/event_cache.hpp>
#include <laddu/runtime/reduce.hpp>
#include <laddu/runtime/reduce_gradient.hpp>

#include "chunk_kernel.hpp"
#include "non_finite.hpp"

namespace laddu::runtime::detail {

/// Events per block of transformed terms (logs, gradient scales) in a chunk reduction: a stack
/// buffer that stays in L1. Any size gives the same sums (a LaneSum does not depend on how its
/// terms are split into pushes).
inline constexpr std::size_t kTermBlock = 256;

/// Chunk partials of Σ w T(Re f) (see reduce_partials in reduce.hpp). A value T cannot take,
/// or a non-finite one, is an EvaluationError naming the event as `origin` places it (global
/// indices) and explaining it (non_finite.hpp). `meanwhile` as for for_each_chunk.
[[nodiscard]] std::vector<double>
reduce_partials(const ChunkKernel& kernel, std::span<const double> params, const EventCache& cache,
                ReductionTransform transform, ThreadPool* pool, const CacheOrigin& origin = {},
                const std::function<void()>& meanwhile = {});

/// Chunk partials of value and gradient (see reduce_gradient_partials); a non-finite gradient
/// component is an error too. `origin` and `meanwhile` (for_each_chunk) as for
/// reduce_partials.
[[nodiscard]] GradientPartials
reduce_gradient_partials(const ChunkKernel& kernel, std::span<const double> params,
                         const EventCache& cache, ReductionTransform transform, ThreadPool* pool,
                         const CacheOrigin& origin = {},
                         const std::function<void()>& meanwhile = {});

/// Every output of every event into `out` (see evaluate_cached). Unless `keep_non_finite`, the
/// first non-finite output is an EvaluationError naming and explaining its event.
void evaluate_cached(const ChunkKernel& kernel, std::span<const double> params,
                     const EventCache& cache, const ir::OutputView& out, ThreadPool* pool,
                     const CacheOrigin& origin = {}, bool keep_non_finite = false);

/// The events of reduction chunk `chunk` of `events`: {begin, count}.
[[nodiscard]] std::pair<std::size_t, std::size_t> chunk_range(std::size_t chunk,
                                                              std::size_t events) noexcept;

/// Runs fn(chunk, worker) for every reduction chunk of `events`, in parallel when a pool with
/// more than one worker is given; each worker is bound to `params` once
/// (ChunkKernel::acquire_worker) and takes its chunks in `order`. `meanwhile` (optional) runs on
/// the calling thread while the other workers start (ThreadPool::parallel_for_chunks), or first
/// without them.
void for_each_chunk(const ChunkKernel& kernel, std::span<const double> params, std::size_t events,
                    ThreadPool* pool, const std::function<void(std::size_t, ChunkWorker&)>& fn,
                    const std::function<void()>& meanwhile = {},
                    SweepOrder order = SweepOrder::kForward);

}  // namespace laddu::runtime::detail
