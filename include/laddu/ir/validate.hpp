// laddu/ir/validate.hpp: checks a Program against the contract in docs/ir.md.
#pragma once

#include <laddu/base/expected.hpp>
#include <laddu/ir/program.hpp>

namespace laddu::ir {

/// Checks that `program` is well formed: every operand range lies in the pool and names an
/// earlier value (topological order); operand counts, operand kinds, result kinds and classes
/// match the opcode table; attrs are in range (parameter index < parameter_count, input slot
/// exists with a matching kind, kSolve sizes, kDot n, kExtract index < width); inputs are Real
/// or Complex; there is at least one output, each in range and not a Vector; output_names is
/// empty or one per output. Fails with ErrorKind::kCompile and a message naming the instruction.
[[nodiscard]] Expected<void> validate(const Program& program);

}  // namespace laddu::ir
