#include <chrono>

#include <fmt/format.h>

#include <laddu/compile/compiled_model.hpp>
#include <laddu/ir/validate.hpp>

#include "lower.hpp"
#include "pipeline.hpp"

namespace laddu::compile {

std::string CompileReport::to_string(const CachePlan& plan) const {
    std::string text = fmt::format("compiled in {:.3f} ms, {} rounds; {} -> {} nodes\n",
                                   total_milliseconds, rounds, source_nodes, optimized_nodes);
    text += fmt::format("cache: {}\n", plan.summary());
    text += fmt::format("precompute: {} instructions ({} invariant, {} event)\n",
                        precompute_stats.invariant_count + precompute_stats.event_count,
                        precompute_stats.invariant_count, precompute_stats.event_count);
    text += fmt::format("evaluate: {} instructions ({} invariant, {} event)\n",
                        evaluate_stats.invariant_count + evaluate_stats.event_count,
                        evaluate_stats.invariant_count, evaluate_stats.event_count);
    for (const PassTiming& pass : passes) {
        text += fmt::format("  {:<26} {:8.3f} ms", pass.pass, pass.milliseconds);
        text += pass.nodes_after == 0 ? "\n" : fmt::format("  {} nodes\n", pass.nodes_after);
    }
    return text;
}

CompiledModel compile_model(const expr::Model& model, const CompileOptions& options) {
    const auto start = std::chrono::steady_clock::now();
    CompiledModel compiled;
    compiled.parameters = model.parameters();
    compiled.optimized = detail::run_pipeline(model.expression(), options, compiled.report);
    compiled.facts = analyse(compiled.optimized);

    detail::LoweredModel lowered =
        detail::lower_model(compiled.optimized, compiled.facts, compiled.parameters);
    compiled.cache_plan = std::move(lowered.cache_plan);
    compiled.precompute = std::move(lowered.precompute);
    compiled.evaluate = std::move(lowered.evaluate);
    ir::validate(compiled.evaluate).value();
    if (compiled.has_precompute()) {
        ir::validate(compiled.precompute).value();
    }

    if (options.analyse_normalization) {
        compiled.normalization = decompose_intensity(compiled.optimized, compiled.facts);
        if (compiled.normalization) {
            compiled.normalization->coefficient_program = detail::lower_parameter_outputs(
                compiled.normalization->coefficients, compiled.parameters);
            compiled.normalization->amplitude_program =
                detail::lower_event_outputs(compiled.normalization->amplitudes);
        }
    }

    compiled.report.precompute_stats = ir::stats(compiled.precompute);
    compiled.report.evaluate_stats = ir::stats(compiled.evaluate);
    compiled.report.total_milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return compiled;
}

}  // namespace laddu::compile
