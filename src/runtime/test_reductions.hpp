// src/runtime/test_reductions.hpp (tests only): the runtime's chunk reductions and evaluations
// over an interp::Interpreter, so unit tests can drive one program over a hand-built
// EventCache without a compiled model. The library itself runs them over a ChunkKernel
// chosen by the execution (kernel_reduce.hpp).
#pragma once

#include <complex>
#include <cstddef>
#include <span>
#include <vector>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/interp/interpreter.hpp>
#include <laddu/runtime/event_cache.hpp>
#include <laddu/runtime/reduce.hpp>
#include <laddu/runtime/reduce_gradient.hpp>

#include "kernel_reduce.hpp"

namespace laddu::runtime {

/// Chunk partials of Σ w T(Re f) of `interp`'s output 0 over `cache` (detail::reduce_partials).
inline std::vector<double> reduce_partials(const interp::Interpreter& interp,
                                           std::span<const double> params, const EventCache& cache,
                                           ReductionTransform transform,
                                           ThreadPool* pool = nullptr) {
    cache.check_program(interp.program());
    return detail::reduce_partials(
        *detail::make_interpreter_kernel(interp.program(), interp.precision()), params, cache,
        transform, pool);
}

/// merge_partials(reduce_partials(...)).
inline double reduce(const interp::Interpreter& interp, std::span<const double> params,
                     const EventCache& cache, ReductionTransform transform,
                     ThreadPool* pool = nullptr) {
    return merge_partials(reduce_partials(interp, params, cache, transform, pool));
}

/// Every output of event `row` of `cache`.
inline std::vector<std::complex<double>> evaluate_cached_row(const interp::Interpreter& interp,
                                                             std::span<const double> params,
                                                             const EventCache& cache,
                                                             std::size_t row) {
    cache.check_program(interp.program());
    if (row >= cache.events()) {
        throw DataError(fmt::format("event row {} is out of range: the cache holds {} events", row,
                                    cache.events()));
    }
    return interp.evaluate_row(params, cache.view(), row);
}

/// Every output of every event of `cache` into `out` (detail::evaluate_cached).
inline void evaluate_cached(const interp::Interpreter& interp, std::span<const double> params,
                            const EventCache& cache, const ir::OutputView& out,
                            ThreadPool* pool = nullptr) {
    cache.check_program(interp.program());
    interp.check_outputs(out);
    detail::evaluate_cached(*detail::make_interpreter_kernel(interp.program(), interp.precision()),
                            params, cache, out, pool);
}

/// Chunk partials of a gradient program's value and gradient (detail::reduce_gradient_partials).
inline GradientPartials reduce_gradient_partials(const interp::Interpreter& gradient_interp,
                                                 std::span<const double> params,
                                                 const EventCache& cache,
                                                 ReductionTransform transform,
                                                 ThreadPool* pool = nullptr) {
    return detail::reduce_gradient_partials(
        *detail::make_interpreter_kernel(gradient_interp.program(), gradient_interp.precision()),
        params, cache, transform, pool);
}

/// merge_gradient_partials(reduce_gradient_partials(...)).
inline Evaluation reduce_with_gradient(const interp::Interpreter& gradient_interp,
                                       std::span<const double> params, const EventCache& cache,
                                       ReductionTransform transform, ThreadPool* pool = nullptr) {
    return merge_gradient_partials(
        reduce_gradient_partials(gradient_interp, params, cache, transform, pool));
}

}  // namespace laddu::runtime
