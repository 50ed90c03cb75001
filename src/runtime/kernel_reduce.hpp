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

namespace laddu::runtime::detail {

/// Events per block of transformed terms (logs, gradient scales) in a chunk reduction: a stack
/// buffer that stays in L1. Any size gives the same sums (a LaneSum does not depend on how its
/// terms are split into pushes).
inline constexpr std::size_t kTermBlock = 256;

/// Chunk partials of Σ w T(Re f) (see reduce_partials in reduce.hpp). `global_chunks`, when
/// not empty, gives the global chunk index of each chunk of `cache` (errors then name global
/// event indices).
[[nodiscard]] std::vector<double> reduce_partials(const ChunkKernel& kernel,
                                                  std::span<const double> params,
                                                  const EventCache& cache,
                                                  ReductionTransform transform, ThreadPool* pool,
                                                  std::span<const std::size_t> global_chunks = {});

/// Chunk partials of value and gradient (see reduce_gradient_partials); `global_chunks` as for
/// reduce_partials.
[[nodiscard]] GradientPartials
reduce_gradient_partials(const ChunkKernel& kernel, std::span<const double> params,
                         const EventCache& cache, ReductionTransform transform, ThreadPool* pool,
                         std::span<const std::size_t> global_chunks = {});

/// The global index of event `event` of a cache whose chunks are `global_chunks` (identity
/// when empty).
[[nodiscard]] std::size_t global_event(std::span<const std::size_t> global_chunks,
                                       std::size_t event) noexcept;

/// Every output of every event into `out` (see evaluate_cached).
void evaluate_cached(const ChunkKernel& kernel, std::span<const double> params,
                     const EventCache& cache, const interp::OutputView& out, ThreadPool* pool);

/// One worker's kernel, bound to the parameters once per call, and its output columns, reused
/// from chunk to chunk (a gradient chunk holds (P + 1) × kReductionChunk doubles).
struct ChunkWorker {
    std::unique_ptr<BoundKernel> kernel;
    std::vector<double> columns;
    std::vector<interp::OutputColumn> out;
    std::vector<double> lanes;  ///< a fused gradient reduction's lanes (reduce_chunk)

    /// Events [begin, begin + count) of one reduction chunk and their outputs.
    struct Chunk {
        std::size_t begin = 0;
        std::size_t count = 0;
        std::span<const double> columns;  ///< output j of event begin + i at [j · count + i]
    };

    /// Evaluates every output of reduction chunk `chunk` of `cache` into the worker's columns.
    [[nodiscard]] Chunk evaluate(const EventCache& cache, std::size_t chunk);
};

/// The events of reduction chunk `chunk` of `events`: {begin, count}.
[[nodiscard]] std::pair<std::size_t, std::size_t> chunk_range(std::size_t chunk,
                                                              std::size_t events) noexcept;

/// Runs fn(chunk, worker) for every reduction chunk of `events`, in parallel when a pool with
/// more than one worker is given; each worker binds the kernel to `params` once.
void for_each_chunk(const ChunkKernel& kernel, std::span<const double> params, std::size_t events,
                    ThreadPool* pool, const std::function<void(std::size_t, ChunkWorker&)>& fn);

/// The total of sum `sum` of a BoundKernel::reduce_chunk lane array.
[[nodiscard]] double finish_lanes(std::span<const double> lanes, std::size_t sum) noexcept;

/// An event whose value a reduction transform cannot take.
struct BadValue {
    std::size_t event = 0;
    double value = 0.0;
};

/// The first of `values` (events first_event, first_event + 1, ...) that `transform` cannot
/// take: under kPositiveReal and kLogPositiveReal, one that is not finite and positive; nullopt
/// when there is none (always, under kReal).
[[nodiscard]] std::optional<BadValue> first_bad_value(ReductionTransform transform,
                                                      std::span<const double> values,
                                                      std::size_t first_event) noexcept;

/// Throws the EvaluationError of a value `transform` cannot take, naming the event.
[[noreturn]] void throw_bad_value(ReductionTransform transform, double value, std::size_t event);

}  // namespace laddu::runtime::detail
