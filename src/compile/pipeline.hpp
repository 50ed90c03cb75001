// The optimisation pipeline: the ordered list of passes (pipeline.cpp is the table of contents).
#pragma once

#include <laddu/compile/compiled_model.hpp>
#include <laddu/compile/options.hpp>
#include <laddu/expr/expr.hpp>

namespace laddu::compile::detail {

/// Runs every enabled pass on `source` (a model's intensity) and returns the optimised
/// expression; appends timings to `report`.
[[nodiscard]] expr::Expr run_pipeline(const expr::Expr& source, const CompileOptions& options,
                                      CompileReport& report);

}  // namespace laddu::compile::detail
