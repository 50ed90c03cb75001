// Test support: a deliberately plain executor of ir::Program: one event, one instruction at a
// time, std::complex arithmetic, no blocks and no optimisation, written from docs/ir.md. It is
// the oracle the compiler, autodiff and interpreter tests (and finite differences) run programs
// with, and shares no code with any backend.
#pragma once

#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <laddu/ir/program.hpp>

namespace laddu::testing {

using Complex = std::complex<double>;

/// One value: a Real (imag part 0) or Complex scalar, or a Vector's elements.
struct RefValue {
    ir::ValueKind kind = ir::ValueKind::kReal;
    Complex scalar;
    std::vector<Complex> elements;
};

/// Elementary function `op` (sqrt, exp, log, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh)
/// of `v` as docs/ir.md defines it: the real libm function for T = double or float, the
/// std::complex one for T = std::complex<double>. Nothing for any other `op`.
template <typename T>
[[nodiscard]] std::optional<T> elementary_function(ir::OpCode op, T v) {
    switch (op) {
    case ir::OpCode::kSqrt:
        return std::sqrt(v);
    case ir::OpCode::kExp:
        return std::exp(v);
    case ir::OpCode::kLog:
        return std::log(v);
    case ir::OpCode::kSin:
        return std::sin(v);
    case ir::OpCode::kCos:
        return std::cos(v);
    case ir::OpCode::kTan:
        return std::tan(v);
    case ir::OpCode::kAsin:
        return std::asin(v);
    case ir::OpCode::kAcos:
        return std::acos(v);
    case ir::OpCode::kAtan:
        return std::atan(v);
    case ir::OpCode::kSinh:
        return std::sinh(v);
    case ir::OpCode::kCosh:
        return std::cosh(v);
    case ir::OpCode::kTanh:
        return std::tanh(v);
    default:
        return std::nullopt;
    }
}

/// Evaluates instruction `index` of `program` from the earlier `values`.
[[nodiscard]] RefValue evaluate_instruction(const ir::Program& program, std::uint32_t index,
                                            std::span<const RefValue> values,
                                            std::span<const double> params,
                                            std::span<const Complex> inputs);

/// Every value of `program` for one event (`inputs[slot]` is the event's column value).
[[nodiscard]] std::vector<RefValue> program_values(const ir::Program& program,
                                                   std::span<const double> params,
                                                   std::span<const Complex> inputs);

/// The outputs of `program` for one event.
[[nodiscard]] std::vector<Complex> run_reference(const ir::Program& program,
                                                 std::span<const double> params,
                                                 std::span<const Complex> inputs);

/// Event values of every input slot: slots[s][event] (a Real slot's imaginary parts are ignored).
using SlotValues = std::vector<std::vector<Complex>>;

/// The outputs of `program` for event `event` of `slots`.
[[nodiscard]] std::vector<Complex> run_reference(const ir::Program& program,
                                                 std::span<const double> params,
                                                 const SlotValues& slots, std::size_t event);

/// Solves A X = B (n×n row-major, B column by column) by LU with partial pivoting; NaN when
/// A is singular.
[[nodiscard]] std::vector<Complex> reference_solve(std::uint32_t n, std::uint32_t m,
                                                   std::vector<Complex> a, std::vector<Complex> b);

}  // namespace laddu::testing
