#include <fmt/format.h>

#include <laddu/ir/validate.hpp>

#include "typing.hpp"

namespace laddu::ir {

namespace {

Failure fail(std::string message) {
    return failure(ErrorKind::kCompile, std::move(message));
}

Expected<void> validate_instruction(const Program& program, std::uint32_t index) {
    const Instruction& inst = program.instructions[index];
    if (static_cast<std::size_t>(inst.op) >= kOpCodeCount) {
        return fail(fmt::format("instruction %{} has invalid opcode {}", index,
                                static_cast<unsigned>(inst.op)));
    }
    // Formatted only for a message: every compile validates each program it builds, and
    // formatting this for every instruction took most of the validation's time.
    const auto where = [&] {
        return fmt::format("instruction %{} ({})", index, opcode_name(inst.op));
    };
    if (std::size_t{inst.first} + inst.count > program.operands.size()) {
        return fail(fmt::format(
            "{}: operand range [{}, {}) lies outside the operand pool of size {}", where(),
            inst.first, std::size_t{inst.first} + inst.count, program.operands.size()));
    }
    const auto operands = program.operands_of(inst);
    for (const ValueId id : operands) {
        if (to_index(id) >= index) {
            return fail(fmt::format("{}: operand {} is not defined before it (programs must be "
                                    "in topological order)",
                                    where(), detail::value_name(id)));
        }
    }
    const std::span<const Instruction> defined(program.instructions.data(), index);
    auto typing = detail::deduce(inst.op, inst.attr, operands, defined, program.inputs);
    if (!typing) {
        return fail(fmt::format("{}: {}", where(), typing.error().message));
    }
    if (inst.op == OpCode::kParam && inst.attr >= program.parameter_count) {
        return fail(fmt::format("{}: parameter index {} is out of range (parameter_count = {})",
                                where(), inst.attr, program.parameter_count));
    }
    if (typing->kind != inst.kind) {
        return fail(fmt::format("{}: kind is {} but its operands give {}", where(),
                                kind_name(inst.kind), kind_name(typing->kind)));
    }
    if (typing->cls != inst.cls) {
        return fail(fmt::format("{}: class is {} but its operands give {}", where(),
                                class_name(inst.cls), class_name(typing->cls)));
    }
    return {};
}

}  // namespace

Expected<void> validate(const Program& program) {
    for (std::size_t slot = 0; slot < program.inputs.size(); ++slot) {
        const ValueKind kind = program.inputs[slot].kind;
        if (kind != ValueKind::kReal && kind != ValueKind::kComplex) {
            return fail(fmt::format("input slot {} ('{}') has kind {}; inputs must be Real or "
                                    "Complex",
                                    slot, program.inputs[slot].name, kind_name(kind)));
        }
    }
    if (program.instructions.size() >= 0xFFFFFFFFU) {
        return fail("program has too many instructions for 32-bit value ids");
    }
    const auto size = static_cast<std::uint32_t>(program.instructions.size());
    for (std::uint32_t index = 0; index < size; ++index) {
        if (auto ok = validate_instruction(program, index); !ok) {
            return ok;
        }
    }
    if (program.outputs.empty()) {
        return fail("program has no outputs");
    }
    for (std::size_t i = 0; i < program.outputs.size(); ++i) {
        const ValueId id = program.outputs[i];
        if (to_index(id) >= size) {
            return fail(fmt::format("output {} names {}, but the program has {} values", i,
                                    detail::value_name(id), size));
        }
        if (program.at(id).kind == ValueKind::kVector) {
            return fail(fmt::format("output {} ({}) is a Vector; outputs must be Real or Complex",
                                    i, detail::value_name(id)));
        }
    }
    if (!program.output_names.empty() && program.output_names.size() != program.outputs.size()) {
        return fail(fmt::format("program has {} outputs but {} output names (give none or one "
                                "per output)",
                                program.outputs.size(), program.output_names.size()));
    }
    return {};
}

}  // namespace laddu::ir
