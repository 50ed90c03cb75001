// src/runtime/non_finite.hpp (private): how every pass over an event cache reports the first
// event it cannot take.
//
// Kernels have no error path: NaN and inf flow through the lanes like any value. A pass checks
// its chunk results instead (a sum is not finite exactly when one of its terms is not, so a
// reduction checks one number per chunk), and only a chunk that fails is scanned for its first
// bad event. That event is then explained by re-running it alone through the interpreter
// (interp::Interpreter::diagnose_event), whatever backend ran the pass, so the interpreter and
// the JIT report the same event with the same words.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include <laddu/runtime/event_cache.hpp>
#include <laddu/runtime/reduce.hpp>

#include "chunk_kernel.hpp"

namespace laddu::runtime::detail {

/// A value a pass cannot take: the event (its index in the cache), the output and the value.
struct BadValue {
    std::size_t event = 0;
    std::size_t output = 0;
    double value = 0.0;
};

/// Where the events of a cache come from, for error messages.
struct CacheOrigin {
    /// The global chunk index of each chunk of the cache (identity when empty).
    std::span<const std::size_t> global_chunks;

    /// Why cache slot `slot` of cache row `row` is not finite, traced back to what filled the
    /// cache (PreparedModel: its precompute program on the event's data); empty when unknown.
    std::function<std::string(std::size_t row, std::uint32_t slot)> trace_slot;
};

/// The global index of event `event` of a cache whose chunks are `global_chunks` (identity
/// when empty).
[[nodiscard]] std::size_t global_event(std::span<const std::size_t> global_chunks,
                                       std::size_t event) noexcept;

/// The first of `values` (events first_event, first_event + 1, ...) that `transform` cannot
/// take: not finite, or (kPositiveReal, kLogPositiveReal) not positive. Output 0.
[[nodiscard]] std::optional<BadValue> first_bad_value(ReductionTransform transform,
                                                      std::span<const double> values,
                                                      std::size_t first_event) noexcept;

/// The first event of a chunk of `count` events (from first_event) with a non-finite value in
/// `columns`, output j of event i at [j · count + i]; among its outputs, the lowest.
[[nodiscard]] std::optional<BadValue> first_non_finite(std::span<const double> columns,
                                                       std::size_t count,
                                                       std::size_t first_event) noexcept;

/// Why output `output` of cache row `row` is not finite under `kernel` and `params`: the
/// interpreter's diagnose_event of the kernel's program, a bad cache column traced through
/// `origin`.
[[nodiscard]] std::string explain_event(const ChunkKernel& kernel, std::span<const double> params,
                                        const EventCache& cache, std::size_t row,
                                        std::size_t output, const CacheOrigin& origin);

/// Throws the EvaluationError of a reduction that met `bad` (a value `transform` cannot take;
/// output > 0: a gradient component), naming the global event and, for a non-finite value,
/// explaining it.
[[noreturn]] void throw_bad_value(const ChunkKernel& kernel, std::span<const double> params,
                                  const EventCache& cache, ReductionTransform transform,
                                  const BadValue& bad, const CacheOrigin& origin);

/// Throws the EvaluationError of an evaluation whose output `bad.output` is not finite at
/// `bad.event`, naming the global event and explaining it.
[[noreturn]] void throw_non_finite_output(const ChunkKernel& kernel, std::span<const double> params,
                                          const EventCache& cache, const BadValue& bad,
                                          const CacheOrigin& origin);

}  // namespace laddu::runtime::detail
