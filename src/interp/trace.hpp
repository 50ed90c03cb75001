// Running one event instruction by instruction, for Interpreter::diagnose_event (diagnose.cpp).
// The stepping lives in interpreter.cpp, beside the kernels it calls, so the block loop of
// run_block() stays as it is.
#pragma once

#include <complex>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include <laddu/ir/columns.hpp>

#include "plan.hpp"

namespace laddu::interp::detail {

struct WorkspaceState;

/// One executed instruction of a traced event, its values widened to complex double (a Real's
/// imaginary part 0; a Vector result has one value per element).
struct TracedStep {
    std::uint32_t value = 0;  ///< the instruction index
    bool invariant = false;   ///< run once per parameter vector, in f64
    std::span<const std::complex<double>> operands;
    std::span<const std::complex<double>> result;
};

/// Called after each instruction of a traced event, in plan order (invariants first).
using StepVisitor = std::function<void(const TracedStep&)>;

/// Runs the invariant steps of `plan`, then its event steps for event `row` of `inputs` alone
/// (one lane), handing every step to `visit`; returns the event's output values. `workspace` is
/// a fresh workspace of this plan; inputs, parameters and `row` are checked by the caller.
std::vector<std::complex<double>> trace_event(const Plan& plan, WorkspaceState& workspace,
                                              std::span<const double> params,
                                              const ir::ColumnView& inputs, std::size_t row,
                                              const StepVisitor& visit);

}  // namespace laddu::interp::detail
