#include "non_finite.hpp"

#include <cmath>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/interp/interpreter.hpp>

namespace laddu::runtime::detail {

namespace {

// fmt prints a NaN's sign bit ("-nan"); backends may differ in it, their messages must not.
std::string number(double x) {
    return std::isnan(x) ? std::string("nan") : fmt::format("{}", x);
}

}  // namespace

std::size_t global_event(std::span<const std::size_t> global_chunks, std::size_t event) noexcept {
    if (global_chunks.empty()) {
        return event;
    }
    return global_chunks[event / kReductionChunk] * kReductionChunk + event % kReductionChunk;
}

std::optional<BadValue> first_bad_value(ReductionTransform transform,
                                        std::span<const double> values,
                                        std::size_t first_event) noexcept {
    if (transform == ReductionTransform::kReal) {
        for (std::size_t i = 0; i < values.size(); ++i) {
            if (!std::isfinite(values[i])) {
                return BadValue{first_event + i, 0, values[i]};
            }
        }
        return std::nullopt;
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (!(std::isfinite(values[i]) && values[i] > 0.0)) {
            return BadValue{first_event + i, 0, values[i]};
        }
    }
    return std::nullopt;
}

std::optional<BadValue> first_non_finite(std::span<const double> columns, std::size_t count,
                                         std::size_t first_event) noexcept {
    if (count == 0) {
        return std::nullopt;
    }
    std::optional<BadValue> first;
    for (std::size_t j = 0; j * count < columns.size(); ++j) {
        const std::size_t end = first ? first->event - first_event : count;
        for (std::size_t i = 0; i < end; ++i) {
            if (!std::isfinite(columns[j * count + i])) {
                first = BadValue{first_event + i, j, columns[j * count + i]};
                break;
            }
        }
    }
    return first;
}

std::string explain_event(const ChunkKernel& kernel, std::span<const double> params,
                          const EventCache& cache, std::size_t row, std::size_t output,
                          const CacheOrigin& origin) {
    // The interpreter explains for every backend: the JIT computes the same bits (docs/ir.md).
    const interp::Interpreter interpreter =
        interp::Interpreter::prepare(kernel.program(), kernel.precision());
    const std::optional<interp::NonFiniteOrigin> found =
        interpreter.diagnose_event(params, cache.view(), row, output);
    if (!found) {
        return fmt::format("re-run alone by the interpreter the event is finite, so the {} backend "
                           "disagrees with it; please report this",
                           kernel.backend());
    }
    if (found->input && origin.trace_slot) {
        std::string traced = origin.trace_slot(row, *found->input);
        if (!traced.empty()) {
            return traced;
        }
    }
    return found->description;
}

void throw_bad_value(const ChunkKernel& kernel, std::span<const double> params,
                     const EventCache& cache, ReductionTransform transform, const BadValue& bad,
                     const CacheOrigin& origin) {
    const std::size_t event = global_event(origin.global_chunks, bad.event);
    const std::string_view name = transform_name(transform);
    if (bad.output > 0) {
        throw EvaluationError(fmt::format(
            "{} reduction requires a finite gradient, got {} for parameter {} at event {}: {}",
            name, number(bad.value), bad.output - 1, event,
            explain_event(kernel, params, cache, bad.event, bad.output, origin)));
    }
    if (std::isfinite(bad.value)) {
        throw EvaluationError(fmt::format(
            "{} reduction requires a positive finite real value, got {} at event {}; check the "
            "model (an intensity must be positive wherever there are events)",
            name, bad.value, event));
    }
    throw EvaluationError(
        fmt::format("{} reduction requires a {}finite real value, got {} at event {}: {}", name,
                    transform == ReductionTransform::kReal ? "" : "positive ", number(bad.value),
                    event, explain_event(kernel, params, cache, bad.event, 0, origin)));
}

void throw_non_finite_output(const ChunkKernel& kernel, std::span<const double> params,
                             const EventCache& cache, const BadValue& bad,
                             const CacheOrigin& origin) {
    const std::string what =
        bad.output == 0 ? std::string("the model value") : fmt::format("output {}", bad.output);
    throw EvaluationError(
        fmt::format("{} is {} at event {}: {}", what, number(bad.value),
                    global_event(origin.global_chunks, bad.event),
                    explain_event(kernel, params, cache, bad.event, bad.output, origin)));
}

}  // namespace laddu::runtime::detail
