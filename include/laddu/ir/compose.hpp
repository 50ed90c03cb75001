// laddu/ir/compose.hpp: one program that runs two in turn, the second reading the first's
// outputs, instruction for instruction (so with the bits of running them one after the other).
#pragma once

#include <laddu/ir/program.hpp>

namespace laddu::ir {

/// The program that runs `first`, then `second` with second's input slot k, for
/// k < first.outputs.size(), reading first's output k. Second's other input slots, and first's,
/// become the inputs of the result, merged by name. Its outputs are second's (with their
/// names); its parameters are those of both (the same vector). Every value is computed by a
/// copy of the instruction of `first` or `second` that computes it, so each output has the
/// bits it has when `second` runs on `first`'s outputs; instructions no output needs are
/// dropped. Throws CompileError when a slot read from `first` has another kind than the output
/// it reads, or two merged slots of one name differ in kind.
[[nodiscard]] Program compose(const Program& first, const Program& second);

}  // namespace laddu::ir
