// laddu/runtime/reduce.hpp: the vocabulary of the runtime's deterministic reductions.
//
// Every reduction PreparedModel runs computes Σ_i w_i · T(Re f_i), f the evaluate program's
// output 0 and T a ReductionTransform (laddu's ReductionPlan). Events are split into fixed
// chunks of kReductionChunk events (independent of the thread count); each chunk is summed with
// a LaneSum (event i of the chunk in lane i % kSumLanes, lanes merged in a fixed order), and
// the chunk partials are merged in global chunk order with AccurateSum (merge_partials). The
// result is therefore bit-identical for any number of threads, windows or processes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace laddu::runtime {

/// How each event's value enters a reduction (seed ReductionTransform).
enum class ReductionTransform : std::uint8_t {
    kReal,             ///< T(v) = Re v
    kPositiveReal,     ///< T(v) = Re v, which must be positive and finite
    kLogPositiveReal,  ///< T(v) = ln Re v, Re v positive and finite
};

/// "Real", "PositiveReal", "LogPositiveReal".
[[nodiscard]] std::string_view transform_name(ReductionTransform transform) noexcept;

/// Events per reduction chunk: the unit of parallel work and of deterministic merging.
inline constexpr std::size_t kReductionChunk = 1024;

/// Merges chunk partials in order with AccurateSum (push each partial, then finish).
[[nodiscard]] double merge_partials(std::span<const double> partials) noexcept;

}  // namespace laddu::runtime
