// Test support for the compiler's tests: the shared reference evaluators
// (tests/support/reference) over flat events, and random events and parameters.
//
// evaluate_reference() walks an Expr with std::complex arithmetic (Real-kinded nodes use real
// libm, as the IR does). execute_program() runs an ir::Program for one event, one instruction at
// a time. Neither shares code with the compiler.
#pragma once

#include <complex>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <laddu/compile/compiled_model.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/ir/program.hpp>

namespace laddu::compile::testing {

using Complex = std::complex<double>;

/// Event columns by name ("x", "beam.px").
using Event = std::map<std::string, double>;

/// The elements of `e` (row-major) for parameter values by name and one event.
[[nodiscard]] std::vector<Complex> evaluate_reference(const expr::Expr& e,
                                                      const std::map<std::string, double>& params,
                                                      const Event& event);

/// Outputs of `program` for one event: inputs by slot, params by index.
[[nodiscard]] std::vector<Complex> execute_program(const ir::Program& program,
                                                   const std::vector<Complex>& inputs,
                                                   const std::vector<double>& params);

/// Random values in [lo, hi) for every event column `root` reads.
[[nodiscard]] Event random_event(const expr::Expr& root, std::mt19937& rng, double lo = -1.0,
                                 double hi = 1.0);

/// Random values for every free parameter of `layout`, by name (fixed ones take their value).
[[nodiscard]] std::map<std::string, double> random_params(const expr::ParamLayout& layout,
                                                          std::mt19937& rng);

/// The compiled model's value for one event: precompute, then evaluate with `params` (by
/// name; the free ones are passed in free order).
[[nodiscard]] Complex run_compiled(const CompiledModel& model, const Event& event,
                                   const std::map<std::string, double>& params);

/// |a - b| <= tolerance * max(1, |b|).
[[nodiscard]] bool close(Complex a, Complex b, double tolerance = 1e-9);

}  // namespace laddu::compile::testing
