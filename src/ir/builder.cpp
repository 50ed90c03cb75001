#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <laddu/ir/builder.hpp>
#include <laddu/ir/validate.hpp>

#include "typing.hpp"

namespace laddu::ir {

ValueId Builder::emit(OpCode op, std::uint32_t attr, std::span<const ValueId> operands) {
    auto typing = detail::deduce(op, attr, operands, program_.instructions, program_.inputs);
    if (!typing) {
        throw CompileError(
            fmt::format("{} (building %{})", typing.error().message, program_.instructions.size()));
    }
    Instruction inst;
    inst.op = op;
    inst.kind = typing->kind;
    inst.cls = typing->cls;
    inst.attr = attr;
    inst.first = static_cast<std::uint32_t>(program_.operands.size());
    inst.count = static_cast<std::uint32_t>(operands.size());
    program_.operands.insert(program_.operands.end(), operands.begin(), operands.end());
    program_.instructions.push_back(inst);
    return value_id(static_cast<std::uint32_t>(program_.instructions.size() - 1));
}

ValueId Builder::const_real(double value) {
    const ValueId id = emit(OpCode::kConstReal, 0, {});
    program_.instructions.back().re = value;
    return id;
}

ValueId Builder::const_complex(double re, double im) {
    const ValueId id = emit(OpCode::kConstComplex, 0, {});
    program_.instructions.back().re = re;
    program_.instructions.back().im = im;
    return id;
}

Builder::Builder(Program program)
    : program_(std::move(program)), max_param_used_(program_.parameter_count) {}

ValueId Builder::param(std::uint32_t index) {
    max_param_used_ = std::max(max_param_used_, index + 1);
    program_.parameter_count = std::max(program_.parameter_count, index + 1);
    return emit(OpCode::kParam, index, {});
}

ValueId Builder::load(std::uint32_t slot) {
    return emit(OpCode::kLoad, slot, {});
}

ValueId Builder::unary(OpCode op, ValueId a) {
    const detail::OpFamily family = detail::op_family(op);
    if (family != detail::OpFamily::kUnary && family != detail::OpFamily::kUnaryToReal) {
        throw CompileError(
            fmt::format("Builder::unary cannot emit {}; use the method for it", opcode_name(op)));
    }
    const std::array<ValueId, 1> operands{a};
    return emit(op, 0, operands);
}

ValueId Builder::binary(OpCode op, ValueId a, ValueId b) {
    const detail::OpFamily family = detail::op_family(op);
    if (family != detail::OpFamily::kBinary && family != detail::OpFamily::kBinaryReal &&
        family != detail::OpFamily::kMakeComplex) {
        throw CompileError(
            fmt::format("Builder::binary cannot emit {}; use the method for it", opcode_name(op)));
    }
    const std::array<ValueId, 2> operands{a, b};
    return emit(op, 0, operands);
}

ValueId Builder::add_n(std::span<const ValueId> operands) {
    return emit(OpCode::kAddN, 0, operands);
}

ValueId Builder::mul_n(std::span<const ValueId> operands) {
    return emit(OpCode::kMulN, 0, operands);
}

ValueId Builder::complex(ValueId re, ValueId im) {
    return binary(OpCode::kComplex, re, im);
}

ValueId Builder::dot(std::span<const ValueId> a, std::span<const ValueId> b) {
    if (a.size() != b.size()) {
        throw CompileError(fmt::format(
            "kDot needs two operand lists of equal length, got {} and {}", a.size(), b.size()));
    }
    std::vector<ValueId> operands(a.begin(), a.end());
    operands.insert(operands.end(), b.begin(), b.end());
    return emit(OpCode::kDot, static_cast<std::uint32_t>(a.size()), operands);
}

ValueId Builder::solve(std::uint32_t n, std::uint32_t m, std::span<const ValueId> operands) {
    if (n > 0xFFFFU || m > 0xFFFFU) {
        throw CompileError(
            fmt::format("kSolve sizes must be below 65536, got n = {} and m = {}", n, m));
    }
    return emit(OpCode::kSolve, solve_attr(n, m), operands);
}

ValueId Builder::extract(ValueId vector, std::uint32_t index) {
    const std::array<ValueId, 1> operands{vector};
    return emit(OpCode::kExtract, index, operands);
}

ValueId Builder::pow_i(ValueId a, std::int32_t n) {
    const std::array<ValueId, 1> operands{a};
    return emit(OpCode::kPowI, static_cast<std::uint32_t>(n), operands);
}

std::uint32_t Builder::add_input(std::string name, ValueKind kind) {
    if (kind == ValueKind::kVector) {
        throw CompileError(
            fmt::format("input '{}' has kind Vector; inputs must be Real or Complex", name));
    }
    program_.inputs.push_back(InputSlot{std::move(name), kind});
    return static_cast<std::uint32_t>(program_.inputs.size() - 1);
}

void Builder::set_parameter_count(std::uint32_t count) {
    if (count < max_param_used_) {
        throw CompileError(
            fmt::format("parameter count {} is too small: param({}) was already used", count,
                        max_param_used_ - 1));
    }
    program_.parameter_count = count;
}

void Builder::add_output(ValueId id, std::string name) {
    check_id(id);
    if (program_.instructions[to_index(id)].kind == ValueKind::kVector) {
        throw CompileError(fmt::format("output {} is a Vector; extract its elements instead",
                                       detail::value_name(id)));
    }
    program_.outputs.push_back(id);
    program_.output_names.push_back(std::move(name));
}

ValueId Builder::copy(const Instruction& inst, std::span<const ValueId> operands) {
    switch (inst.op) {
    case OpCode::kConstReal:
        return const_real(inst.re);
    case OpCode::kConstComplex:
        return const_complex(inst.re, inst.im);
    case OpCode::kParam:
        return param(inst.attr);
    default:
        return emit(inst.op, inst.attr, operands);
    }
}

void Builder::add_signature_of(const Program& program) {
    for (const InputSlot& slot : program.inputs) {
        add_input(slot.name, slot.kind);
    }
    set_parameter_count(program.parameter_count);
}

void Builder::add_outputs_of(const Program& program, std::span<const ValueId> mapped) {
    for (std::size_t o = 0; o < program.outputs.size(); ++o) {
        add_output(mapped[to_index(program.outputs[o])],
                   program.output_names.empty() ? std::string() : program.output_names[o]);
    }
}

ValueKind Builder::kind_of(ValueId id) const {
    check_id(id);
    return program_.instructions[to_index(id)].kind;
}

ValueClass Builder::class_of(ValueId id) const {
    check_id(id);
    return program_.instructions[to_index(id)].cls;
}

Program Builder::finish() {
    Program program = std::exchange(program_, Program{});
    max_param_used_ = 0;
    const bool all_named = std::all_of(program.output_names.begin(), program.output_names.end(),
                                       [](const std::string& name) { return !name.empty(); });
    if (!all_named) {
        program.output_names.clear();
    }
    if (auto ok = validate(program); !ok) {
        throw CompileError(ok.error().message);
    }
    return program;
}

void Builder::check_id(ValueId id) const {
    if (to_index(id) >= program_.instructions.size()) {
        throw CompileError(fmt::format("value {} does not exist (the builder has {} values)",
                                       detail::value_name(id), program_.instructions.size()));
    }
}

}  // namespace laddu::ir
