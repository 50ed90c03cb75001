#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/error.hpp>
#include <laddu/base/log_positive.hpp>
#include <laddu/runtime/reduce_gradient.hpp>

#include "kernel_reduce.hpp"

namespace laddu::runtime {

namespace detail {

namespace {

// A gradient program reads the cache of its primal: the hash differs, so compare the slots.
void check_gradient_program(const ir::Program& program, const EventCache& cache) {
    bool ok = program.inputs.size() == cache.slot_count();
    for (std::size_t slot = 0; ok && slot < program.inputs.size(); ++slot) {
        ok = program.inputs[slot].kind == cache.kind(slot);
    }
    if (!ok) {
        throw DataError(fmt::format(
            "the event cache has {} slots that do not match the {} inputs of this gradient "
            "program; prepare the dataset with the model the gradient was built from",
            cache.slot_count(), program.inputs.size()));
    }
    if (program.outputs.empty()) {
        throw CompileError("a gradient program needs at least its value output");
    }
    for (std::size_t j = 1; j < program.outputs.size(); ++j) {
        if (program.at(program.outputs[j]).kind != ir::ValueKind::kReal) {
            throw CompileError(fmt::format(
                "gradient output {} is {}, expected Real: build the gradient program with "
                "autodiff::Component::kReal",
                j, ir::kind_name(program.at(program.outputs[j]).kind)));
        }
    }
}

bool all_finite(std::span<const double> sums) noexcept {
    return std::all_of(sums.begin(), sums.end(), [](double x) { return std::isfinite(x); });
}

// Σ w T(v) and Σ w T'(v) ∂v/∂θ_k over one chunk of `count` events whose output j of event i
// is at columns[j * count + i], each sum in LaneSum's lanes, into sums[0] and sums[1 + k]; or
// the chunk's first event whose value the transform cannot take, or (the sums not finite) its
// first non-finite output.
std::optional<BadValue> sum_gradient_chunk(ReductionTransform transform,
                                           std::span<const double> columns, std::size_t count,
                                           std::span<const double> weights, std::size_t first_event,
                                           std::span<double> sums) {
    const std::size_t parameters = sums.size() - 1;
    const std::span<const double> values = columns.first(count);
    if (transform != ReductionTransform::kReal) {
        if (std::optional<BadValue> bad = first_bad_value(transform, values, first_event)) {
            return bad;
        }
    }
    LaneSum value;
    std::vector<LaneSum> gradient(parameters);
    std::array<double, kTermBlock> logs{};
    std::array<double, kTermBlock> scales{};
    // Column by column over blocks of kTermBlock events: the lane loops vectorise.
    for (std::size_t begin = 0; begin < count; begin += kTermBlock) {
        const std::size_t n = std::min(kTermBlock, count - begin);
        const std::span<const double> w = weights.subspan(begin, n);
        std::span<const double> scale = w;  // w T'(v), T' = 1 unless T is the log
        if (transform == ReductionTransform::kLogPositiveReal) {
            log_positive(values.subspan(begin, n), logs);
            for (std::size_t i = 0; i < n; ++i) {
                scales[i] = w[i] * (1.0 / values[begin + i]);
            }
            value.push_products(w, std::span<const double>(logs).first(n));
            scale = std::span<const double>(scales).first(n);
        } else {
            value.push_products(w, values.subspan(begin, n));
        }
        for (std::size_t k = 0; k < parameters; ++k) {
            gradient[k].push_products(scale, columns.subspan((k + 1) * count + begin, n));
        }
    }
    sums[0] = value.finish();
    for (std::size_t k = 0; k < parameters; ++k) {
        sums[1 + k] = gradient[k].finish();
    }
    if (!all_finite(sums)) {
        // A sum is not finite exactly when a term is: only now look for the event.
        return first_non_finite(columns.first((parameters + 1) * count), count, first_event);
    }
    return std::nullopt;
}

}  // namespace

GradientPartials reduce_gradient_partials(const ChunkKernel& kernel, std::span<const double> params,
                                          const EventCache& cache, ReductionTransform transform,
                                          ThreadPool* pool, const CacheOrigin& origin,
                                          const std::function<void()>& meanwhile) {
    const ir::Program& program = kernel.program();
    check_gradient_program(program, cache);
    const std::size_t outputs = program.outputs.size();
    const std::size_t parameters = outputs - 1;
    const std::size_t n_chunks = (cache.events() + kReductionChunk - 1) / kReductionChunk;
    // Chunk c's value and gradient at sums[c · outputs, + outputs).
    std::vector<double> sums(n_chunks * outputs);
    std::vector<std::optional<BadValue>> bad(n_chunks);
    const FusedReduction fused{transform, false, outputs, cache.unit_weights()};
    for_each_chunk(
        kernel, params, cache.events(), pool,
        [&](std::size_t chunk, ChunkWorker& worker) {
            const auto [begin, count] = chunk_range(chunk, cache.events());
            const std::span<double> chunk_sums(sums.data() + chunk * outputs, outputs);
            std::vector<double>& lanes = worker.lanes;
            lanes.assign(2 * kSumLanes * outputs, 0.0);
            if (worker.kernel->reduce_chunk(cache.view(), begin, count, cache.weights(), fused,
                                            lanes)) {
                LaneSum::finish_lanes(lanes, chunk_sums);
                if (all_finite(chunk_sums)) {
                    return;
                }
                // The fused kernel does not say which event: the unfused path finds it.
            }
            const ChunkWorker::Chunk c = worker.evaluate(cache.view(), chunk);
            bad[chunk] =
                sum_gradient_chunk(transform, c.columns, c.count,
                                   cache.weights().subspan(c.begin, c.count), c.begin, chunk_sums);
        },
        meanwhile, cache.next_sweep());
    for (const std::optional<BadValue>& first : bad) {
        if (first) {
            throw_bad_value(kernel, params, cache, transform, *first, origin);
        }
    }
    return gradient_partials_of_records(sums, parameters);
}

}  // namespace detail

GradientPartials gradient_partials_of_records(std::span<const double> records,
                                              std::size_t parameters) {
    const std::size_t width = parameters + 1;
    const std::size_t chunks = records.size() / width;
    GradientPartials partials;
    partials.parameters = parameters;
    partials.values.resize(chunks);
    partials.gradients.resize(chunks * parameters);
    for (std::size_t c = 0; c < chunks; ++c) {
        partials.values[c] = records[c * width];
        std::copy_n(records.begin() + static_cast<std::ptrdiff_t>(c * width + 1), parameters,
                    partials.gradients.begin() + static_cast<std::ptrdiff_t>(c * parameters));
    }
    return partials;
}

Evaluation merge_gradient_partials(const GradientPartials& partials) {
    Evaluation out;
    out.value = merge_partials(partials.values);
    // Chunk by chunk, every component at once: each sum sees its terms in the same order as
    // alone, and its chain of TwoSums runs beside the others instead of after them.
    std::vector<AccurateSum> sums(partials.parameters);
    for (std::size_t c = 0; c < partials.values.size(); ++c) {
        for (std::size_t k = 0; k < partials.parameters; ++k) {
            sums[k].push(partials.gradients[c * partials.parameters + k]);
        }
    }
    out.gradient.resize(partials.parameters);
    for (std::size_t k = 0; k < partials.parameters; ++k) {
        out.gradient[k] = sums[k].finish();
    }
    return out;
}

}  // namespace laddu::runtime
