// Kind and class deduction shared by ir::Builder (which throws) and ir::validate (which
// returns the failure): one table of typing rules, so the two can never disagree.
#pragma once

#include <span>
#include <string>
#include <vector>

#include <laddu/base/expected.hpp>
#include <laddu/ir/program.hpp>

namespace laddu::ir::detail {

/// The result kind and class of an instruction, deduced from its operands.
struct Typing {
    ValueKind kind;
    ValueClass cls;
};

/// Deduces the kind and class of `op` with `attr` applied to `operands`, which must name values
/// in `defined`; `inputs` gives kLoad its kind. Fails with a CompileError-kind message naming
/// the opcode, the offending kinds and the value. Parameter indices are not checked here.
[[nodiscard]] Expected<Typing> deduce(OpCode op, std::uint32_t attr,
                                      std::span<const ValueId> operands,
                                      std::span<const Instruction> defined,
                                      std::span<const InputSlot> inputs);

/// "%7".
[[nodiscard]] std::string value_name(ValueId id);

}  // namespace laddu::ir::detail
