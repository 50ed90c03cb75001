#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>

#include <fmt/format.h>

#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/error.hpp>
#include <laddu/base/log_positive.hpp>
#include <laddu/interp/interpreter.hpp>
#include <laddu/runtime/reduce.hpp>
#include <laddu/runtime/thread_pool.hpp>

#include "kernel_reduce.hpp"

namespace laddu::runtime {

static_assert(kReductionChunk % interp::kBlockSize == 0, "chunks hold whole blocks");

namespace detail {

namespace {

struct ChunkResult {
    double partial = 0.0;
    std::optional<BadValue> bad;
};

std::size_t chunk_count(std::size_t events) {
    return (events + kReductionChunk - 1) / kReductionChunk;
}

// Σ w T(v) over one chunk's values, in LaneSum's lanes (a fixed function of the chunk's events).
// The first event whose value the transform cannot take is reported instead.
template <ReductionTransform kTransform>
ChunkResult reduce_values(std::span<const double> values, std::span<const double> weights,
                          std::size_t first_event, bool f32) {
    if constexpr (kTransform != ReductionTransform::kReal) {
        if (const std::optional<BadValue> bad = first_bad_value(kTransform, values, first_event)) {
            return ChunkResult{0.0, bad};
        }
    }
    LaneSum sum;
    if constexpr (kTransform != ReductionTransform::kLogPositiveReal) {
        sum.push_products(weights, values);
    } else {
        // The logs go through a small block on the stack; LaneSum's result does not depend
        // on how its terms are split into pushes.
        std::array<double, kTermBlock> logs;
        for (std::size_t begin = 0; begin < values.size(); begin += kTermBlock) {
            const std::size_t n = std::min(kTermBlock, values.size() - begin);
            if (f32) {
                // Under f32 the log is a float, as laddu's f32 value reductions take it.
                log_positive_f32(values.subspan(begin, n), logs);
            } else {
                log_positive(values.subspan(begin, n), logs);
            }
            sum.push_products(weights.subspan(begin, n), std::span<const double>(logs).first(n));
        }
    }
    const double partial = sum.finish();
    if constexpr (kTransform == ReductionTransform::kReal) {
        // Any non-finite term makes the sum non-finite (w · NaN, 0 · inf and inf - inf are
        // NaN), so only a failed chunk is scanned.
        if (!std::isfinite(partial)) {
            if (const std::optional<BadValue> bad =
                    first_bad_value(kTransform, values, first_event)) {
                return ChunkResult{0.0, bad};
            }
        }
    }
    return ChunkResult{partial, std::nullopt};
}

ChunkResult reduce_chunk_values(ReductionTransform transform, std::span<const double> values,
                                std::span<const double> weights, std::size_t first_event,
                                bool f32) {
    switch (transform) {
    case ReductionTransform::kPositiveReal:
        return reduce_values<ReductionTransform::kPositiveReal>(values, weights, first_event, f32);
    case ReductionTransform::kLogPositiveReal:
        return reduce_values<ReductionTransform::kLogPositiveReal>(values, weights, first_event,
                                                                   f32);
    case ReductionTransform::kReal:
        break;
    }
    return reduce_values<ReductionTransform::kReal>(values, weights, first_event, f32);
}

// The first event of [first_event, first_event + count) with a non-finite part of an output
// written to `out` (each column holds the range from index 0).
std::optional<BadValue> first_non_finite_output(std::span<const ir::OutputColumn> out,
                                                std::size_t count, std::size_t first_event) {
    std::optional<BadValue> first;
    for (std::size_t j = 0; j < out.size(); ++j) {
        for (const double* part : {out[j].re, out[j].im}) {
            if (part == nullptr) {
                continue;
            }
            const std::size_t end = first ? first->event - first_event : count;
            const double* const found =
                std::find_if_not(part, part + end, [](double v) { return std::isfinite(v); });
            if (found != part + end) {
                first = BadValue{first_event + static_cast<std::size_t>(found - part), j, *found};
            }
        }
    }
    return first;
}

}  // namespace

std::pair<std::size_t, std::size_t> chunk_range(std::size_t chunk, std::size_t events) noexcept {
    const std::size_t begin = chunk * kReductionChunk;
    return {begin, std::min(kReductionChunk, events - begin)};
}

ChunkWorker::Chunk ChunkWorker::evaluate(const ir::ColumnView& inputs, std::size_t chunk) {
    const auto [begin, count] = chunk_range(chunk, inputs.events);
    const std::size_t outputs = out.size();
    if (columns.size() < outputs * count) {
        columns.resize(outputs * kReductionChunk);
    }
    for (std::size_t j = 0; j < outputs; ++j) {
        out[j] = ir::OutputColumn{columns.data() + j * count, nullptr};
    }
    kernel->run(inputs, begin, count, out);
    return Chunk{begin, count, std::span<const double>(columns).first(outputs * count)};
}

ChunkWorker::Chunk ChunkWorker::evaluate_complex(const ir::ColumnView& inputs, std::size_t chunk) {
    const auto [begin, count] = chunk_range(chunk, inputs.events);
    const std::size_t outputs = out.size();
    if (columns.size() < 2 * outputs * count) {
        columns.resize(2 * outputs * kReductionChunk);
    }
    for (std::size_t j = 0; j < outputs; ++j) {
        out[j] =
            ir::OutputColumn{columns.data() + 2 * j * count, columns.data() + (2 * j + 1) * count};
    }
    kernel->run(inputs, begin, count, out);
    return Chunk{begin, count, std::span<const double>(columns).first(2 * outputs * count)};
}

void ChunkKernel::check_parameter_count(std::span<const double> params) const {
    if (params.size() != program().parameter_count) {
        throw EvaluationError(fmt::format("expected {} parameter values, got {}",
                                          program().parameter_count, params.size()));
    }
}

std::unique_ptr<BoundKernel> ChunkKernel::bind(std::span<const double> params) const {
    check_parameter_count(params);
    return bind_checked(params);
}

std::unique_ptr<ChunkWorker> ChunkKernel::acquire_worker(std::span<const double> params) const {
    std::unique_ptr<ChunkWorker> worker;
    {
        const std::lock_guard lock(idle_mutex_);
        if (!idle_.empty()) {
            worker = std::move(idle_.back());
            idle_.pop_back();
        }
    }
    if (worker) {
        check_parameter_count(params);
        worker->kernel->rebind(params);
        return worker;
    }
    worker = std::make_unique<ChunkWorker>();
    worker->kernel = bind(params);
    worker->out.resize(program().outputs.size());
    return worker;
}

void ChunkKernel::release_worker(std::unique_ptr<ChunkWorker> worker) const noexcept {
    if (!keeps_workers()) {
        return;
    }
    try {
        const std::lock_guard lock(idle_mutex_);
        idle_.push_back(std::move(worker));
    } catch (...) {  // NOLINT(bugprone-empty-catch): a worker not kept is only bound anew later
    }
}

namespace {

// The workers of one pass, given back to their kernel when the pass ends; a pass that throws
// destroys them instead (a worker interrupted mid-chunk is not reused).
class WorkerLease {
public:
    WorkerLease(const ChunkKernel& kernel, std::span<const double> params, std::size_t count)
        : kernel_(kernel) {
        workers_.reserve(count);
        for (std::size_t w = 0; w < count; ++w) {
            workers_.push_back(kernel.acquire_worker(params));
        }
    }

    WorkerLease(const WorkerLease&) = delete;
    WorkerLease& operator=(const WorkerLease&) = delete;
    WorkerLease(WorkerLease&&) = delete;
    WorkerLease& operator=(WorkerLease&&) = delete;

    ~WorkerLease() {
        if (std::uncaught_exceptions() > exceptions_) {
            return;
        }
        // Last first: the next pass then acquires them in this order, so worker w (one thread
        // of the pool) gets the worker whose buffers its core touched last.
        for (auto worker = workers_.rbegin(); worker != workers_.rend(); ++worker) {
            kernel_.release_worker(std::move(*worker));
        }
    }

    ChunkWorker& operator[](std::size_t w) noexcept { return *workers_[w]; }

private:
    const ChunkKernel& kernel_;
    std::vector<std::unique_ptr<ChunkWorker>> workers_;
    int exceptions_ = std::uncaught_exceptions();
};

}  // namespace

void for_each_chunk(const ChunkKernel& kernel, std::span<const double> params, std::size_t events,
                    ThreadPool* pool, const std::function<void(std::size_t, ChunkWorker&)>& fn,
                    const std::function<void()>& meanwhile, SweepOrder order) {
    const std::size_t n_chunks = chunk_count(events);
    const bool parallel = pool != nullptr && pool->size() > 1 && n_chunks > 1;
    WorkerLease workers(kernel, params, parallel ? pool->size() : 1);
    if (!parallel) {
        if (meanwhile) {
            meanwhile();
        }
        const bool backward = order == SweepOrder::kBackward;
        for (std::size_t k = 0; k < n_chunks; ++k) {
            fn(backward ? n_chunks - 1 - k : k, workers[0]);
        }
        return;
    }
    pool->parallel_for_chunks(
        n_chunks, [&](std::size_t chunk, std::size_t worker) { fn(chunk, workers[worker]); },
        meanwhile, order);
}

std::vector<double> reduce_partials(const ChunkKernel& kernel, std::span<const double> params,
                                    const EventCache& cache, ReductionTransform transform,
                                    ThreadPool* pool, const CacheOrigin& origin,
                                    const std::function<void()>& meanwhile) {
    const bool f32 = kernel.precision() == ir::Precision::kF32;
    const std::span<const double> weights = cache.weights();
    std::vector<ChunkResult> results(chunk_count(cache.events()));
    const FusedReduction fused{transform, f32, 1, cache.unit_weights()};
    for_each_chunk(
        kernel, params, cache.events(), pool,
        [&](std::size_t chunk, ChunkWorker& worker) {
            const auto [begin, count] = chunk_range(chunk, cache.events());
            std::array<double, 2 * kSumLanes> lanes{};
            if (worker.kernel->reduce_chunk(cache.view(), begin, count, weights, fused, lanes)) {
                double partial = 0.0;
                LaneSum::finish_lanes(lanes, std::span<double>(&partial, 1));
                if (std::isfinite(partial)) {
                    results[chunk] = ChunkResult{partial, std::nullopt};
                    return;
                }
                // The fused kernel does not say which event: the unfused path finds it.
            }
            // Output 0 is reduced; any other outputs are computed and ignored.
            const ChunkWorker::Chunk c = worker.evaluate(cache.view(), chunk);
            results[chunk] = reduce_chunk_values(transform, c.columns.first(c.count),
                                                 weights.subspan(c.begin, c.count), c.begin, f32);
        },
        meanwhile, cache.next_sweep());
    std::vector<double> partials;
    partials.reserve(results.size());
    for (const ChunkResult& result : results) {
        if (result.bad) {
            throw_bad_value(kernel, params, cache, transform, *result.bad, origin);
        }
        partials.push_back(result.partial);
    }
    return partials;
}

void evaluate_cached(const ChunkKernel& kernel, std::span<const double> params,
                     const EventCache& cache, const ir::OutputView& out, ThreadPool* pool,
                     const CacheOrigin& origin, bool keep_non_finite) {
    std::vector<std::optional<BadValue>> bad(chunk_count(cache.events()));
    for_each_chunk(
        kernel, params, cache.events(), pool,
        [&](std::size_t chunk, ChunkWorker& worker) {
            const auto [begin, count] = chunk_range(chunk, cache.events());
            std::vector<ir::OutputColumn> shifted(out.columns.size());
            for (std::size_t j = 0; j < shifted.size(); ++j) {
                shifted[j].re = out.columns[j].re + begin;
                shifted[j].im = out.columns[j].im != nullptr ? out.columns[j].im + begin : nullptr;
            }
            worker.kernel->run(cache.view(), begin, count, shifted);
            if (!keep_non_finite) {
                bad[chunk] = first_non_finite_output(shifted, count, begin);
            }
        },
        {}, cache.next_sweep());
    for (const std::optional<BadValue>& first : bad) {
        if (first) {
            throw_non_finite_output(kernel, params, cache, *first, origin);
        }
    }
}

}  // namespace detail

std::string_view transform_name(ReductionTransform transform) noexcept {
    switch (transform) {
    case ReductionTransform::kReal:
        return "Real";
    case ReductionTransform::kPositiveReal:
        return "PositiveReal";
    case ReductionTransform::kLogPositiveReal:
        return "LogPositiveReal";
    }
    return "Invalid";
}

double merge_partials(std::span<const double> partials) noexcept {
    return accurate_sum(partials);
}

}  // namespace laddu::runtime
