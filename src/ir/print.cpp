#include <ostream>

#include <fmt/format.h>

#include <laddu/ir/print.hpp>

namespace laddu::ir {

namespace {

char kind_suffix(ValueKind kind) {
    switch (kind) {
    case ValueKind::kReal:
        return 'r';
    case ValueKind::kComplex:
        return 'c';
    case ValueKind::kVector:
        return 'v';
    }
    return '?';
}

std::string_view lower_kind(ValueKind kind) {
    switch (kind) {
    case ValueKind::kReal:
        return "real";
    case ValueKind::kComplex:
        return "complex";
    case ValueKind::kVector:
        return "vector";
    }
    return "invalid";
}

std::string plural(std::size_t n, std::string_view word) {
    return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

// The attribute text of an instruction, or empty when its opcode has none worth printing.
std::string attr_text(const Instruction& inst) {
    switch (inst.op) {
    case OpCode::kConstReal:
        return fmt::format("{}", inst.re);
    case OpCode::kConstComplex:
        return fmt::format("({}, {})", inst.re, inst.im);
    case OpCode::kParam:
    case OpCode::kLoad:
        return fmt::format("{}", inst.attr);
    case OpCode::kPowI:
        return fmt::format("n={}", inst.exponent());
    case OpCode::kDot:
        return fmt::format("n={}", inst.attr);
    case OpCode::kSolve:
        return fmt::format("n={}, m={}", solve_size(inst.attr), solve_rhs_count(inst.attr));
    case OpCode::kExtract:
        return fmt::format("i={}", inst.attr);
    default:
        return {};
    }
}

}  // namespace

std::string to_string(const Program& program, ValueId id) {
    const Instruction& inst = program.at(id);
    std::string line =
        fmt::format("%{} = {}.{}", to_index(id), opcode_mnemonic(inst.op), kind_suffix(inst.kind));
    const char* separator = " ";
    if (std::size_t{inst.first} + inst.count <= program.operands.size()) {
        for (const ValueId operand : program.operands_of(inst)) {
            line += fmt::format("{}%{}", separator, to_index(operand));
            separator = ", ";
        }
    }
    if (const std::string attr = attr_text(inst); !attr.empty()) {
        line += separator;
        line += attr;
    }
    line += "  ; ";
    line += class_name(inst.cls);
    return line;
}

std::string to_string(const Program& program) {
    std::string text = fmt::format("program: {}, {}, {}\n", plural(program.inputs.size(), "input"),
                                   plural(program.parameter_count, "parameter"),
                                   plural(program.outputs.size(), "output"));
    for (std::size_t slot = 0; slot < program.inputs.size(); ++slot) {
        text += fmt::format("input {} {} \"{}\"\n", slot, lower_kind(program.inputs[slot].kind),
                            program.inputs[slot].name);
    }
    for (std::size_t i = 0; i < program.outputs.size(); ++i) {
        text += fmt::format("output {} %{}", i, to_index(program.outputs[i]));
        if (i < program.output_names.size()) {
            text += fmt::format(" \"{}\"", program.output_names[i]);
        }
        text += '\n';
    }
    for (std::uint32_t index = 0; index < program.instructions.size(); ++index) {
        text += to_string(program, value_id(index));
        text += '\n';
    }
    return text;
}

void print(std::ostream& out, const Program& program) {
    out << to_string(program);
}

}  // namespace laddu::ir
