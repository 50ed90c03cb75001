// laddu/ir/print.hpp: stable text for golden tests and LADDU_DUMP.
//
// Format (one line per item; doubles in shortest round-trip form):
//   program: 1 input, 2 parameters, 1 output
//   input 0 complex "amp0"
//   output 0 %3 "intensity"
//   %0 = param.r 0  ; invariant
//   %1 = load.c 0  ; event
//   %2 = mul.c %1, %0  ; event
//   %3 = norm_sqr.r %2  ; event
// Suffixes: .r Real, .c Complex, .v Vector. Attrs follow the operands: `powi.r %1, n=-2`,
// `dot.c %0, %1, %2, %3, n=2`, `solve.v ..., n=2, m=1`, `extract.c %4, i=0`.
#pragma once

#include <iosfwd>
#include <string>

#include <laddu/ir/program.hpp>

namespace laddu::ir {

/// The program as stable text (the format above), ending in a newline.
[[nodiscard]] std::string to_string(const Program& program);

/// Writes to_string(program) to `out`.
void print(std::ostream& out, const Program& program);

/// One instruction's line (without newline), e.g. "%2 = mul.c %1, %0  ; event".
[[nodiscard]] std::string to_string(const Program& program, ValueId id);

}  // namespace laddu::ir
