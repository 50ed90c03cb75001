#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/ir/compose.hpp>

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

namespace {

std::size_t instructions(const ir::Stats& stats) {
    return stats.invariant_count + stats.event_count;
}

// The programs of `d`, its residual compiled as a model of its own, and the work estimates
// NormalizationMode::kAuto weighs (docs/likelihood.md "Normalisation strategies").
void lower_normalization(NormalizationDecomposition& d, const CompiledModel& compiled,
                         const CompileOptions& options) {
    std::vector<expr::Expr> coefficients = d.coefficients;
    coefficients.insert(coefficients.end(), d.linear_coefficients.begin(),
                        d.linear_coefficients.end());
    std::vector<expr::Expr> amplitudes = d.amplitudes;
    amplitudes.insert(amplitudes.end(), d.bases.begin(), d.bases.end());
    d.coefficient_program = detail::lower_parameter_outputs(coefficients, compiled.parameters);
    // With cache columns the amplitudes are read from them where the cache holds them, and the
    // event-column program is the precompute program followed by that one: a pass over the
    // events and a pass over a model's cache give the same bits.
    ir::Program from_cache = detail::lower_event_outputs(amplitudes, compiled.cache_plan);
    if (compiled.has_precompute()) {
        d.amplitude_program = ir::compose(compiled.precompute, from_cache);
        d.cached_amplitude_program = std::move(from_cache);
    } else {
        d.amplitude_program = std::move(from_cache);
    }

    // One accumulation per statistic: the matrix entries on and above the diagonal within each
    // group, and one per basis.
    std::vector<std::size_t> group_sizes(d.group_count, 0);
    for (const std::uint32_t g : d.group) {
        ++group_sizes[g];
    }
    std::size_t statistics = d.bases.size();
    for (const std::size_t n : group_sizes) {
        statistics += n * (n + 1) / 2;
    }
    d.statistics_work = instructions(ir::stats(d.amplitude_program)) + statistics;
    d.general_work = std::max<std::size_t>(instructions(compiled.report.precompute_stats) +
                                               instructions(compiled.report.evaluate_stats),
                                           1);

    if (d.residual) {
        CompileOptions residual_options = options;
        residual_options.analyse_normalization = false;
        auto residual = std::make_shared<CompiledModel>(
            compile_model(expr::Model(*d.residual), residual_options));
        // The residual's free parameters are a subset of the model's (fixed ones are baked).
        const std::vector<std::string> all = compiled.parameters.free_names();
        for (const std::string& name : residual->parameters.free_names()) {
            const auto it = std::find(all.begin(), all.end(), name);
            if (it == all.end()) {
                throw CompileError(fmt::format(
                    "the normalisation residual reads parameter '{}', which is not a free "
                    "parameter of the model",
                    name));
            }
            d.residual_parameters.push_back(static_cast<std::size_t>(it - all.begin()));
        }
        d.residual_model = std::move(residual);
    }
}

}  // namespace

CompiledModel compile_model(const expr::Model& model, const CompileOptions& options) {
    const auto start = std::chrono::steady_clock::now();
    CompiledModel compiled;
    compiled.parameters = model.parameters();
    compiled.optimized = detail::run_pipeline(model.expression(), options, compiled.report);
    compiled.facts = analyse(compiled.optimized);
    compiled.report.optimized_nodes = compiled.facts.size();

    detail::LoweredModel lowered =
        detail::lower_model(compiled.optimized, compiled.facts, compiled.parameters);
    compiled.cache_plan = std::move(lowered.cache_plan);
    compiled.precompute = std::move(lowered.precompute);
    compiled.evaluate = std::move(lowered.evaluate);  // validated by Builder::finish

    compiled.report.precompute_stats = ir::stats(compiled.precompute);
    compiled.report.evaluate_stats = ir::stats(compiled.evaluate);

    if (options.analyse_normalization) {
        compiled.normalization = decompose_intensity(compiled.optimized, compiled.facts);
        if (compiled.normalization) {
            lower_normalization(*compiled.normalization, compiled, options);
        }
    }
    compiled.report.total_milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return compiled;
}

}  // namespace laddu::compile
