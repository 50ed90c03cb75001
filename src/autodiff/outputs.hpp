// What forward and reverse mode share at their ends: checking the primal program and laying
// out the gradient program's outputs.
#pragma once

#include <span>
#include <string_view>

#include <laddu/ir/program.hpp>

#include "emitter.hpp"

namespace laddu::autodiff::detail {

/// Throws CompileError unless `primal` validates and its output 0 is Real or Complex.
void check_primal(const ir::Program& primal, std::string_view mode);

/// Output 0 = `value`, then `gradients` (one per parameter), named after the primal root.
void add_gradient_outputs(Emitter& emitter, const ir::Program& primal, ValueId value,
                          std::span<const ValueId> gradients);

}  // namespace laddu::autodiff::detail
