// laddu/compile/compiled_model.hpp: the result of compiling a Model.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <laddu/compile/cache_plan.hpp>
#include <laddu/compile/facts.hpp>
#include <laddu/compile/normalization.hpp>
#include <laddu/compile/options.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/ir/program.hpp>
#include <laddu/ir/stats.hpp>

namespace laddu::compile {

/// How long one pass took and what it left.
struct PassTiming {
    std::string pass;
    double milliseconds = 0.0;
    std::size_t nodes_after = 0;  ///< counted only when dumping passes (else 0)
};

/// What the compiler did, for logs, tests and the CLI.
struct CompileReport {
    std::vector<PassTiming> passes;  ///< in run order (a pass appears once per round)
    int rounds = 0;                  ///< rounds of the fixed-point loop begun (the last may stop
                                     ///< part way, docs/compile.md)
    std::size_t source_nodes = 0;
    std::size_t optimized_nodes = 0;
    ir::Stats precompute_stats;
    ir::Stats evaluate_stats;
    double total_milliseconds = 0.0;

    /// A multi-line human-readable summary.
    [[nodiscard]] std::string to_string(const CachePlan& plan) const;
};

/// A compiled model: the optimised expression, its facts and cache plan, and the two kernel
/// programs (see docs/ir.md "Programs").
struct CompiledModel {
    expr::Expr optimized = expr::constant(0.0);  ///< after every pass
    GraphFacts facts;                            ///< of `optimized`
    CachePlan cache_plan;
    expr::ParamLayout parameters;  ///< of the source model (free order = evaluate params)

    /// Event columns -> cache columns. Has no instructions when the model reads no events
    /// (cache_plan.columns is then empty).
    ir::Program precompute;

    /// Cache columns + free parameters -> the model value (Real or Complex).
    ir::Program evaluate;

    /// Present when some additive term of the intensity is separable: coherent groups, linear
    /// terms and a residual (the strategy is then not kGeneral).
    std::optional<NormalizationDecomposition> normalization;

    CompileReport report;

    /// True when a precompute program exists (the model has cache columns).
    [[nodiscard]] bool has_precompute() const { return !cache_plan.columns.empty(); }
};

/// Compiles `model`: bake fixed parameters, optimise, analyse, plan caches, lower and validate.
/// Throws CompileError (e.g. a constant singular matrix, naming the node).
[[nodiscard]] CompiledModel compile_model(const expr::Model& model,
                                          const CompileOptions& options = {});

}  // namespace laddu::compile
