// Lowering: scalarises an optimised expression into the precompute and evaluate programs
// (docs/ir.md "Programs"), building the cache plan on the way.
//
// The evaluate program is lowered first, from the root. Whenever it reaches a PerEvent node it
// reads a cache column instead, created on first use: so the cache columns are exactly the
// elements of the PerEvent frontier that parameter-dependent nodes consume. A solve(M, b) with
// a PerEvent M reached from the evaluate side uses the SolveRow specialisation: row i of M^-1
// becomes n complex inverse-row columns and element i is dot(row_i, b). The precompute program
// is lowered afterwards, one output per column; inverse rows come from one kSolve of M^T
// against the needed unit vectors per matrix.
#pragma once

#include <vector>

#include <laddu/compile/cache_plan.hpp>
#include <laddu/compile/facts.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/ir/program.hpp>

namespace laddu::compile::detail {

/// The two programs of a model and the cache plan that links them.
struct LoweredModel {
    ir::Program precompute;  ///< empty when there are no cache columns
    ir::Program evaluate;
    CachePlan cache_plan;
};

/// Lowers `root` (optimised, fixed parameters baked). Free parameters take their index in
/// `layout`'s free order. Throws CompileError if a program fails validation.
[[nodiscard]] LoweredModel lower_model(const expr::Expr& root, const GraphFacts& facts,
                                       const expr::ParamLayout& layout);

/// A program with one Complex output per expression; every expression must be parameter-free.
/// It reads the elements that `plan` caches (kValue columns) from the cache: its first input
/// slots are the plan's columns in order (an EventCache of the model), then the event columns
/// (like precompute's) of what the cache does not hold. With an empty plan it reads event
/// columns only.
[[nodiscard]] ir::Program lower_event_outputs(const std::vector<expr::Expr>& outputs,
                                              const CachePlan& plan);

/// A program of free parameters only with one Complex output per expression; every expression
/// must be event-free.
[[nodiscard]] ir::Program lower_parameter_outputs(const std::vector<expr::Expr>& outputs,
                                                  const expr::ParamLayout& layout);

}  // namespace laddu::compile::detail
