#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/error.hpp>
#include <laddu/runtime/reduce.hpp>
#include <laddu/runtime/thread_pool.hpp>

namespace laddu::runtime {

namespace {

// The first failing event of a chunk.
struct BadValue {
    std::size_t event = 0;
    double value = 0.0;
};

struct ChunkResult {
    double partial = 0.0;
    std::optional<BadValue> bad;
};

std::vector<interp::Workspace> make_workspaces(const interp::Interpreter& interp,
                                               std::span<const double> params, std::size_t count) {
    std::vector<interp::Workspace> workspaces;
    workspaces.reserve(count);
    for (std::size_t w = 0; w < count; ++w) {
        workspaces.push_back(interp.make_workspace());
        interp.evaluate_invariants(params, workspaces.back());
    }
    return workspaces;
}

// Runs fn(chunk, workspace) over `n_chunks` chunks, in parallel when a pool is given.
template <typename Fn>
void for_each_chunk(const interp::Interpreter& interp, std::span<const double> params,
                    std::size_t n_chunks, ThreadPool* pool, Fn fn) {
    const bool parallel = pool != nullptr && pool->size() > 1 && n_chunks > 1;
    std::vector<interp::Workspace> workspaces =
        make_workspaces(interp, params, parallel ? pool->size() : 1);
    if (!parallel) {
        for (std::size_t chunk = 0; chunk < n_chunks; ++chunk) {
            fn(chunk, workspaces[0]);
        }
        return;
    }
    pool->parallel_for_chunks(
        n_chunks, [&](std::size_t chunk, std::size_t worker) { fn(chunk, workspaces[worker]); });
}

template <ReductionTransform kTransform>
ChunkResult reduce_chunk(const interp::Interpreter& interp, const EventCache& cache,
                         std::size_t chunk, interp::Workspace& ws) {
    const bool f32 = interp.precision() == interp::Precision::kF32;
    const std::size_t outputs = interp.program().outputs.size();
    std::array<double, interp::kBlockSize> values{};
    std::vector<double> unused(outputs > 1 ? (outputs - 1) * interp::kBlockSize : 0);
    std::vector<interp::OutputColumn> out(outputs);
    out[0] = interp::OutputColumn{values.data(), nullptr};
    for (std::size_t j = 1; j < outputs; ++j) {
        out[j] = interp::OutputColumn{unused.data() + (j - 1) * interp::kBlockSize, nullptr};
    }
    const interp::ColumnView view = cache.view();
    const std::span<const double> weights = cache.weights();
    const std::size_t end = std::min(cache.events(), (chunk + 1) * kReductionChunk);
    AccurateSum sum;
    for (std::size_t begin = chunk * kReductionChunk; begin < end; begin += interp::kBlockSize) {
        const std::size_t count = std::min(interp::kBlockSize, end - begin);
        interp.run_block(view, begin, count, ws, interp::OutputView{out});
        for (std::size_t lane = 0; lane < count; ++lane) {
            const double v = values[lane];
            double t = v;
            if constexpr (kTransform != ReductionTransform::kReal) {
                if (!(std::isfinite(v) && v > 0.0)) {
                    return ChunkResult{sum.finish(), BadValue{begin + lane, v}};
                }
            }
            if constexpr (kTransform == ReductionTransform::kLogPositiveReal) {
                // Under f32 the log is taken in float, as laddu's f32 value reductions do.
                t = f32 ? static_cast<double>(std::log(static_cast<float>(v))) : std::log(v);
            }
            sum.push(weights[begin + lane] * t);
        }
    }
    return ChunkResult{sum.finish(), std::nullopt};
}

template <ReductionTransform kTransform>
std::vector<ChunkResult> reduce_all(const interp::Interpreter& interp,
                                    std::span<const double> params, const EventCache& cache,
                                    ThreadPool* pool) {
    const std::size_t n_chunks = (cache.events() + kReductionChunk - 1) / kReductionChunk;
    std::vector<ChunkResult> results(n_chunks);
    for_each_chunk(interp, params, n_chunks, pool, [&](std::size_t chunk, interp::Workspace& ws) {
        results[chunk] = reduce_chunk<kTransform>(interp, cache, chunk, ws);
    });
    return results;
}

}  // namespace

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

std::vector<double> reduce_partials(const interp::Interpreter& interp,
                                    std::span<const double> params, const EventCache& cache,
                                    ReductionTransform transform, ThreadPool* pool) {
    cache.check_program(interp.program());
    std::vector<ChunkResult> results;
    switch (transform) {
    case ReductionTransform::kReal:
        results = reduce_all<ReductionTransform::kReal>(interp, params, cache, pool);
        break;
    case ReductionTransform::kPositiveReal:
        results = reduce_all<ReductionTransform::kPositiveReal>(interp, params, cache, pool);
        break;
    case ReductionTransform::kLogPositiveReal:
        results = reduce_all<ReductionTransform::kLogPositiveReal>(interp, params, cache, pool);
        break;
    }
    std::vector<double> partials;
    partials.reserve(results.size());
    for (const ChunkResult& result : results) {
        if (result.bad) {
            throw EvaluationError(fmt::format(
                "{} reduction requires a positive finite real value, got {} at event {}; check "
                "the model (an intensity must be positive wherever there are events)",
                transform_name(transform), result.bad->value, result.bad->event));
        }
        partials.push_back(result.partial);
    }
    return partials;
}

double merge_partials(std::span<const double> partials) noexcept {
    return accurate_sum(partials);
}

double reduce(const interp::Interpreter& interp, std::span<const double> params,
              const EventCache& cache, ReductionTransform transform, ThreadPool* pool) {
    const std::vector<double> partials = reduce_partials(interp, params, cache, transform, pool);
    return merge_partials(partials);
}

std::vector<std::complex<double>> evaluate_cached_row(const interp::Interpreter& interp,
                                                      std::span<const double> params,
                                                      const EventCache& cache, std::size_t row) {
    cache.check_program(interp.program());
    if (row >= cache.events()) {
        throw DataError(fmt::format("event row {} is out of range: the cache holds {} events", row,
                                    cache.events()));
    }
    return interp.evaluate_row(params, cache.view(), row);
}

void evaluate_cached(const interp::Interpreter& interp, std::span<const double> params,
                     const EventCache& cache, const interp::OutputView& out, ThreadPool* pool) {
    cache.check_program(interp.program());
    interp.check_outputs(out);
    const interp::ColumnView view = cache.view();
    const std::size_t n_chunks = (cache.events() + kReductionChunk - 1) / kReductionChunk;
    for_each_chunk(interp, params, n_chunks, pool, [&](std::size_t chunk, interp::Workspace& ws) {
        std::vector<interp::OutputColumn> shifted(out.columns.size());
        const std::size_t end = std::min(cache.events(), (chunk + 1) * kReductionChunk);
        for (std::size_t begin = chunk * kReductionChunk; begin < end;
             begin += interp::kBlockSize) {
            for (std::size_t j = 0; j < shifted.size(); ++j) {
                shifted[j].re = out.columns[j].re + begin;
                shifted[j].im = out.columns[j].im != nullptr ? out.columns[j].im + begin : nullptr;
            }
            interp.run_block(view, begin, std::min(interp::kBlockSize, end - begin), ws,
                             interp::OutputView{shifted});
        }
    });
}

}  // namespace laddu::runtime
