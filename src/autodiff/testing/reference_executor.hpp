// A deliberately plain executor of ir::Program for tests: one event, one instruction at a time,
// std::complex arithmetic, no blocks and no optimisation. It is the oracle the autodiff tests
// (and finite differences) run programs with, independent of any backend.
#pragma once

#include <complex>
#include <cstdint>
#include <span>
#include <vector>

#include <laddu/ir/program.hpp>

namespace laddu::autodiff::testing {

using Complex = std::complex<double>;

/// One value: a Real (imag part 0) or Complex scalar, or a Vector's elements.
struct RefValue {
    ir::ValueKind kind = ir::ValueKind::kReal;
    Complex scalar;
    std::vector<Complex> elements;
};

/// Evaluates instruction `index` of `program` from the earlier `values`.
[[nodiscard]] RefValue evaluate_instruction(const ir::Program& program, std::uint32_t index,
                                            std::span<const RefValue> values,
                                            std::span<const double> params,
                                            std::span<const Complex> inputs);

/// Every value of `program` for one event (`inputs[slot]` is the event's column value).
[[nodiscard]] std::vector<RefValue> evaluate_all(const ir::Program& program,
                                                 std::span<const double> params,
                                                 std::span<const Complex> inputs);

/// The outputs of `program` for one event.
[[nodiscard]] std::vector<Complex> run_reference(const ir::Program& program,
                                                 std::span<const double> params,
                                                 std::span<const Complex> inputs);

/// Solves A X = B (n×n row-major, B column by column) by LU with partial pivoting; NaN when
/// A is singular.
[[nodiscard]] std::vector<Complex> reference_solve(std::uint32_t n, std::uint32_t m,
                                                   std::vector<Complex> a, std::vector<Complex> b);

}  // namespace laddu::autodiff::testing
