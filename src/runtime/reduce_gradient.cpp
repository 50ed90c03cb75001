#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/error.hpp>
#include <laddu/runtime/reduce_gradient.hpp>
#include <laddu/runtime/thread_pool.hpp>

namespace laddu::runtime {

namespace {

struct BadValue {
    std::size_t event = 0;
    double value = 0.0;
};

// A gradient program reads the cache of its primal: the hash differs, so compare the slots.
void check_slots(const ir::Program& program, const EventCache& cache) {
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
    for (std::size_t j = 1; j < program.outputs.size(); ++j) {
        if (program.at(program.outputs[j]).kind != ir::ValueKind::kReal) {
            throw CompileError(fmt::format(
                "gradient output {} is {}, expected Real: build the gradient program with "
                "autodiff::Component::kReal",
                j, ir::kind_name(program.at(program.outputs[j]).kind)));
        }
    }
}

struct ChunkResult {
    AccurateSum value;
    std::vector<AccurateSum> gradient;
    std::optional<BadValue> bad;
};

void reduce_chunk(const interp::Interpreter& interp, const EventCache& cache,
                  ReductionTransform transform, std::size_t chunk, interp::Workspace& ws,
                  ChunkResult& result) {
    const std::size_t outputs = interp.program().outputs.size();
    const std::size_t parameters = outputs - 1;
    std::vector<double> lanes(outputs * interp::kBlockSize);
    std::vector<interp::OutputColumn> out(outputs);
    for (std::size_t j = 0; j < outputs; ++j) {
        out[j] = interp::OutputColumn{lanes.data() + j * interp::kBlockSize, nullptr};
    }
    const interp::ColumnView view = cache.view();
    const std::span<const double> weights = cache.weights();
    const std::size_t end = std::min(cache.events(), (chunk + 1) * kReductionChunk);
    result.gradient.assign(parameters, AccurateSum{});
    for (std::size_t begin = chunk * kReductionChunk; begin < end; begin += interp::kBlockSize) {
        const std::size_t count = std::min(interp::kBlockSize, end - begin);
        interp.run_block(view, begin, count, ws, interp::OutputView{out});
        for (std::size_t lane = 0; lane < count; ++lane) {
            const double v = lanes[lane];
            const double w = weights[begin + lane];
            double t = v;
            double dt = 1.0;
            if (transform != ReductionTransform::kReal && !(std::isfinite(v) && v > 0.0)) {
                result.bad = BadValue{begin + lane, v};
                return;
            }
            if (transform == ReductionTransform::kLogPositiveReal) {
                t = std::log(v);
                dt = 1.0 / v;
            }
            result.value.push(w * t);
            const double scale = w * dt;
            for (std::size_t k = 0; k < parameters; ++k) {
                result.gradient[k].push(scale * lanes[(k + 1) * interp::kBlockSize + lane]);
            }
        }
    }
}

}  // namespace

GradientPartials reduce_gradient_partials(const interp::Interpreter& gradient_interp,
                                          std::span<const double> params, const EventCache& cache,
                                          ReductionTransform transform, ThreadPool* pool) {
    const ir::Program& program = gradient_interp.program();
    check_slots(program, cache);
    if (program.outputs.empty()) {
        throw CompileError("a gradient program needs at least its value output");
    }
    const std::size_t n_chunks = (cache.events() + kReductionChunk - 1) / kReductionChunk;
    std::vector<ChunkResult> results(n_chunks);
    const bool parallel = pool != nullptr && pool->size() > 1 && n_chunks > 1;
    std::vector<interp::Workspace> workspaces;
    for (std::size_t w = 0; w < (parallel ? pool->size() : 1); ++w) {
        workspaces.push_back(gradient_interp.make_workspace());
        gradient_interp.evaluate_invariants(params, workspaces.back());
    }
    if (parallel) {
        pool->parallel_for_chunks(n_chunks, [&](std::size_t chunk, std::size_t worker) {
            reduce_chunk(gradient_interp, cache, transform, chunk, workspaces[worker],
                         results[chunk]);
        });
    } else {
        for (std::size_t chunk = 0; chunk < n_chunks; ++chunk) {
            reduce_chunk(gradient_interp, cache, transform, chunk, workspaces[0], results[chunk]);
        }
    }
    GradientPartials partials;
    partials.parameters = program.outputs.size() - 1;
    partials.values.reserve(n_chunks);
    partials.gradients.reserve(n_chunks * partials.parameters);
    for (const ChunkResult& result : results) {
        if (result.bad) {
            throw EvaluationError(fmt::format(
                "{} reduction requires a positive finite real value, got {} at event {}; check "
                "the model (an intensity must be positive wherever there are events)",
                transform_name(transform), result.bad->value, result.bad->event));
        }
        partials.values.push_back(result.value.finish());
        for (const AccurateSum& g : result.gradient) {
            partials.gradients.push_back(g.finish());
        }
    }
    return partials;
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
