// laddu/runtime/reduce.hpp: deterministic weighted reductions over an EventCache.
//
// reduce() computes Σ_i w_i · T(Re f_i), f the evaluate program's output 0 and T a
// ReductionTransform (laddu's ReductionPlan). Events are split into fixed chunks of
// kReductionChunk events (independent of the thread count); each chunk is summed with a
// LaneSum (event i of the chunk in lane i % kSumLanes, lanes merged in a fixed order), and the
// chunk partials are merged in chunk order with AccurateSum. The result is
// therefore bit-identical for any number of threads. reduce_partials() returns the chunk
// partials so a distributed layer can merge them in global chunk order.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <laddu/interp/columns.hpp>
#include <laddu/interp/interpreter.hpp>
#include <laddu/runtime/event_cache.hpp>

namespace laddu::runtime {

class ThreadPool;

/// How each event's value enters a reduction (seed ReductionTransform).
enum class ReductionTransform : std::uint8_t {
    kReal,             ///< T(v) = Re v
    kPositiveReal,     ///< T(v) = Re v, which must be positive and finite
    kLogPositiveReal,  ///< T(v) = ln Re v, Re v positive and finite
};

/// "Real", "PositiveReal", "LogPositiveReal".
[[nodiscard]] std::string_view transform_name(ReductionTransform transform) noexcept;

/// Events per reduction chunk: the unit of parallel work and of deterministic merging.
inline constexpr std::size_t kReductionChunk = 4096;

static_assert(kReductionChunk % interp::kBlockSize == 0, "chunks hold whole blocks");

/// The per-chunk partial sums Σ_{i in chunk c} w_i · T(Re f_i), chunk c covering events
/// [c · kReductionChunk, min((c + 1) · kReductionChunk, events)). Throws EvaluationError for a
/// wrong parameter count, or for the first event, in event order, whose Re f is not finite
/// (or, under kPositiveReal and kLogPositiveReal, not positive), naming its index and value
/// and, for a non-finite value, the operation it comes from (Interpreter::diagnose_event:
/// "solve of a 2x2 matrix is singular", "sqrt(-1) is nan"); DataError if `cache` was built
/// for another program. `pool` may be nullptr (serial).
[[nodiscard]] std::vector<double>
reduce_partials(const interp::Interpreter& interp, std::span<const double> params,
                const EventCache& cache, ReductionTransform transform, ThreadPool* pool = nullptr);

/// Merges chunk partials in order with AccurateSum (push each partial, then finish).
[[nodiscard]] double merge_partials(std::span<const double> partials) noexcept;

/// merge_partials(reduce_partials(...)).
[[nodiscard]] double reduce(const interp::Interpreter& interp, std::span<const double> params,
                            const EventCache& cache, ReductionTransform transform,
                            ThreadPool* pool = nullptr);

/// Every output of event `row` of `cache`, widened to complex. Throws DataError if `row` is
/// out of range or the cache belongs to another program, EvaluationError for a wrong
/// parameter count.
[[nodiscard]] std::vector<std::complex<double>>
evaluate_cached_row(const interp::Interpreter& interp, std::span<const double> params,
                    const EventCache& cache, std::size_t row);

/// Evaluates every event of `cache` into `out` (one column per output, each with
/// cache.events() entries). Same errors as evaluate_cached_row() plus DataError for a
/// malformed `out`, and EvaluationError for the first event with a non-finite output, naming
/// it and what made it (as reduce_partials()).
void evaluate_cached(const interp::Interpreter& interp, std::span<const double> params,
                     const EventCache& cache, const interp::OutputView& out,
                     ThreadPool* pool = nullptr);

}  // namespace laddu::runtime
