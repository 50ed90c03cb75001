// src/runtime/kernel_reduce.hpp (private): the reductions of reduce.hpp and
// reduce_gradient.hpp over any ChunkKernel. The public Interpreter overloads and
// PreparedModel both call these.
#pragma once

#include <functional>
#include <span>
#include <vector>

#include <laddu/runtime/event_cache.hpp>
#include <laddu/runtime/reduce.hpp>
#include <laddu/runtime/reduce_gradient.hpp>

#include "chunk_kernel.hpp"

namespace laddu::runtime::detail {

/// Chunk partials of Σ w T(Re f) (see reduce_partials in reduce.hpp).
[[nodiscard]] std::vector<double> reduce_partials(const ChunkKernel& kernel,
                                                  std::span<const double> params,
                                                  const EventCache& cache,
                                                  ReductionTransform transform, ThreadPool* pool);

/// Chunk partials of value and gradient (see reduce_gradient_partials).
[[nodiscard]] GradientPartials
reduce_gradient_partials(const ChunkKernel& kernel, std::span<const double> params,
                         const EventCache& cache, ReductionTransform transform, ThreadPool* pool);

/// Every output of every event into `out` (see evaluate_cached).
void evaluate_cached(const ChunkKernel& kernel, std::span<const double> params,
                     const EventCache& cache, const interp::OutputView& out, ThreadPool* pool);

/// Runs fn(chunk, bound_kernel) for every reduction chunk of `events`, in parallel when a pool
/// with more than one worker is given; each worker binds the kernel to `params` once.
void for_each_chunk(const ChunkKernel& kernel, std::span<const double> params, std::size_t events,
                    ThreadPool* pool, const std::function<void(std::size_t, BoundKernel&)>& fn);

}  // namespace laddu::runtime::detail
