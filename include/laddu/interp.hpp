// laddu/interp: the batch interpreter for ir::Program (docs/runtime.md).
//
// Entry point: Interpreter::prepare(program, precision), then evaluate_invariants() once per
// parameter vector and run_block() per block of kBlockSize events, one Workspace per thread.
#pragma once

#include <laddu/interp/interpreter.hpp>
#include <laddu/ir/columns.hpp>
