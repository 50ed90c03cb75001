#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/error.hpp>
#include <laddu/runtime/reduce_gradient.hpp>

#include "kernel_reduce.hpp"

namespace laddu::runtime {

namespace detail {

namespace {

struct BadValue {
    std::size_t event = 0;
    double value = 0.0;
};

struct ChunkResult {
    double value = 0.0;
    std::vector<double> gradient;
    std::optional<BadValue> bad;
};

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

// Σ w T(v) and Σ w T'(v) ∂v/∂θ_k over the events of one chunk, each in LaneSum's lanes. The
// chunk's events may arrive in several ranges (the sums do not depend on how they are split).
class GradientSums {
public:
    GradientSums(std::size_t parameters, ReductionTransform transform)
        : gradient_(parameters), transform_(transform) {}

    // Adds `count` events whose output j of event i is at columns[j * count + i]. Returns the
    // first event whose value the transform cannot take, instead of adding anything.
    std::optional<BadValue> push(std::span<const double> columns, std::size_t count,
                                 std::span<const double> weights, std::size_t first_event) {
        const std::span<const double> values = columns.first(count);
        if (transform_ != ReductionTransform::kReal) {
            for (std::size_t i = 0; i < count; ++i) {
                const double v = values[i];
                if (!(std::isfinite(v) && v > 0.0)) {
                    return BadValue{first_event + i, v};
                }
            }
        }
        // Column by column over blocks of kTermBlock events: the lane loops vectorise.
        for (std::size_t begin = 0; begin < count; begin += kTermBlock) {
            const std::size_t n = std::min(kTermBlock, count - begin);
            const std::span<const double> w = weights.subspan(begin, n);
            std::span<const double> scale = w;  // w T'(v), T' = 1 unless T is the log
            if (transform_ == ReductionTransform::kLogPositiveReal) {
                for (std::size_t i = 0; i < n; ++i) {
                    const double v = values[begin + i];
                    logs_[i] = std::log(v);
                    scales_[i] = w[i] * (1.0 / v);
                }
                value_.push_products(w, std::span<const double>(logs_).first(n));
                scale = std::span<const double>(scales_).first(n);
            } else {
                value_.push_products(w, values.subspan(begin, n));
            }
            for (std::size_t k = 0; k < gradient_.size(); ++k) {
                gradient_[k].push_products(scale, columns.subspan((k + 1) * count + begin, n));
            }
        }
        return std::nullopt;
    }

    void finish(ChunkResult& result) const {
        result.value = value_.finish();
        result.gradient.resize(gradient_.size());
        for (std::size_t k = 0; k < gradient_.size(); ++k) {
            result.gradient[k] = gradient_[k].finish();
        }
    }

private:
    LaneSum value_;
    std::vector<LaneSum> gradient_;
    ReductionTransform transform_;
    std::array<double, kTermBlock> logs_{};
    std::array<double, kTermBlock> scales_{};
};

}  // namespace

GradientPartials reduce_gradient_partials(const ChunkKernel& kernel, std::span<const double> params,
                                          const EventCache& cache, ReductionTransform transform,
                                          ThreadPool* pool,
                                          std::span<const std::size_t> global_chunks) {
    const ir::Program& program = kernel.program();
    check_gradient_program(program, cache);
    const std::size_t outputs = program.outputs.size();
    const std::size_t parameters = outputs - 1;
    const std::size_t n_chunks = (cache.events() + kReductionChunk - 1) / kReductionChunk;
    std::vector<ChunkResult> results(n_chunks);
    for_each_chunk(
        kernel, params, cache.events(), pool, [&](std::size_t chunk, ChunkWorker& worker) {
            const ChunkWorker::Chunk c = worker.evaluate(cache, chunk);
            GradientSums sums(parameters, transform);
            results[chunk].bad =
                sums.push(c.columns, c.count, cache.weights().subspan(c.begin, c.count), c.begin);
            if (!results[chunk].bad) {
                sums.finish(results[chunk]);
            }
        });
    GradientPartials partials;
    partials.parameters = parameters;
    partials.values.reserve(n_chunks);
    partials.gradients.reserve(n_chunks * parameters);
    for (const ChunkResult& result : results) {
        if (result.bad) {
            throw_bad_value(transform, result.bad->value,
                            global_event(global_chunks, result.bad->event));
        }
        partials.values.push_back(result.value);
        partials.gradients.insert(partials.gradients.end(), result.gradient.begin(),
                                  result.gradient.end());
    }
    return partials;
}

}  // namespace detail

GradientPartials reduce_gradient_partials(const interp::Interpreter& gradient_interp,
                                          std::span<const double> params, const EventCache& cache,
                                          ReductionTransform transform, ThreadPool* pool) {
    return detail::reduce_gradient_partials(*detail::wrap_interpreter(gradient_interp), params,
                                            cache, transform, pool);
}

ReductionEvaluation merge_gradient_partials(const GradientPartials& partials) {
    ReductionEvaluation out;
    out.value = merge_partials(partials.values);
    out.gradient.resize(partials.parameters);
    for (std::size_t k = 0; k < partials.parameters; ++k) {
        AccurateSum sum;
        for (std::size_t c = 0; c < partials.values.size(); ++c) {
            sum.push(partials.gradients[c * partials.parameters + k]);
        }
        out.gradient[k] = sum.finish();
    }
    return out;
}

ReductionEvaluation reduce_with_gradient(const interp::Interpreter& gradient_interp,
                                         std::span<const double> params, const EventCache& cache,
                                         ReductionTransform transform, ThreadPool* pool) {
    return merge_gradient_partials(
        reduce_gradient_partials(gradient_interp, params, cache, transform, pool));
}

}  // namespace laddu::runtime
