// Interpreter::diagnose_event: which instruction made an event's output non-finite. Every
// backend and every runtime path explains a bad event through this one function, so the
// interpreter and the JIT (bit-compatible with it) give the same message.
#include <algorithm>
#include <cmath>
#include <complex>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/interp/interpreter.hpp>

#include "plan.hpp"
#include "trace.hpp"

namespace laddu::interp {

namespace {

using ir::OpCode;

constexpr std::size_t kShownOperands = 8;  // longer operand lists are cut short
constexpr std::uint32_t kShownMatrix = 3;  // larger singular matrices are not printed

bool finite(std::complex<double> z) noexcept {
    return std::isfinite(z.real()) && std::isfinite(z.imag());
}

// A NaN prints as "nan" whatever its sign bit: backends may differ in it, messages must not.
// Event values of an f32 program are floats, printed as such (0.1, not 0.10000000149011612).
std::string number(double x, bool f32) {
    if (std::isnan(x)) {
        return "nan";
    }
    return f32 ? fmt::format("{}", static_cast<float>(x)) : fmt::format("{}", x);
}

std::string value(std::complex<double> z, ir::ValueKind kind, bool f32) {
    if (kind == ir::ValueKind::kReal) {
        return number(z.real(), f32);
    }
    const std::string im = number(z.imag(), f32);
    return fmt::format("({}{}{}i)", number(z.real(), f32), im.front() == '-' ? "" : "+", im);
}

// What diagnose_event found at one instruction: its operand and result values.
struct Origin {
    std::vector<std::complex<double>> operands;
    std::complex<double> result;
    bool f32 = false;
};

std::string describe_solve(const ir::Program& program, const ir::Instruction& inst,
                           const Origin& origin) {
    const std::uint32_t n = ir::solve_size(inst.attr);
    std::string text = fmt::format("solve of a {}x{} matrix is singular", n, n);
    if (n > kShownMatrix) {
        return text;
    }
    const auto operands = program.operands_of(inst);
    text += ": [";
    for (std::uint32_t i = 0; i < n; ++i) {
        text += i > 0 ? ", [" : "[";
        for (std::uint32_t j = 0; j < n; ++j) {
            const std::size_t at = std::size_t{i} * n + j;
            text += (j > 0 ? ", " : "") +
                    value(origin.operands[at], program.at(operands[at]).kind, origin.f32);
        }
        text += "]";
    }
    return text + "]";
}

std::string describe(const ir::Program& program, std::uint32_t index, const Origin& origin) {
    const ir::Instruction& inst = program.instructions[index];
    const std::string result = value(origin.result, inst.kind, origin.f32);
    const auto operands = program.operands_of(inst);
    const auto operand = [&](std::size_t k) {
        return value(origin.operands[k], program.at(operands[k]).kind, origin.f32);
    };
    std::string text;
    switch (inst.op) {
    case OpCode::kLoad:
        return fmt::format("input '{}' is {}", program.inputs[inst.attr].name, result);
    case OpCode::kParam:
        return fmt::format("parameter {} is {}", inst.attr, result);
    case OpCode::kConstReal:
    case OpCode::kConstComplex:
        return fmt::format("the constant {}", result);
    case OpCode::kSolve:
        text = describe_solve(program, inst, origin);
        break;
    case OpCode::kAdd:
    case OpCode::kSub:
    case OpCode::kMul:
    case OpCode::kDiv: {
        const char* symbol = inst.op == OpCode::kAdd   ? "+"
                             : inst.op == OpCode::kSub ? "-"
                             : inst.op == OpCode::kMul ? "*"
                                                       : "/";
        text = fmt::format("{} {} {} is {}", operand(0), symbol, operand(1), result);
        break;
    }
    case OpCode::kPowI:
        text = fmt::format("powi({}, {}) is {}", operand(0), inst.exponent(), result);
        break;
    default: {
        std::string args;
        for (std::size_t k = 0; k < std::min<std::size_t>(operands.size(), kShownOperands); ++k) {
            args += (k > 0 ? ", " : "") + operand(k);
        }
        if (operands.size() > kShownOperands) {
            args += fmt::format(", ... ({} operands)", operands.size());
        }
        text = fmt::format("{}({}) is {}", ir::opcode_mnemonic(inst.op), args, result);
        break;
    }
    }
    if (inst.cls == ir::ValueClass::kInvariant) {
        // The same value at every event: the parameters, not the event, are the cause.
        text += " (at these parameter values, for every event)";
    }
    return text;
}

// Which values of one traced event are not finite, and which of those start a chain of bad
// values (their operands are finite, or they are a bad input).
class BadValues {
public:
    BadValues(const ir::Program& program, bool f32)
        : program_(program), f32_(f32), bad_(program.size(), false) {}

    // One executed instruction (detail::StepVisitor).
    void visit(const detail::TracedStep& step) {
        const auto operands = program_.operands_of(ir::value_id(step.value));
        bool operands_finite = true;
        for (std::size_t k = 0; k < operands.size(); ++k) {
            if (!finite(step.operands[k])) {
                operands_finite = false;
                mark_input(ir::to_index(operands[k]), step.operands[k]);
            }
        }
        const auto bad = std::find_if_not(step.result.begin(), step.result.end(), finite);
        if (bad == step.result.end()) {
            return;
        }
        bad_[step.value] = true;
        if (operands_finite) {
            origins_.emplace(step.value, Origin{{step.operands.begin(), step.operands.end()},
                                                *bad,
                                                f32_ && !step.invariant});
        }
    }

    // f64 plans read inputs in place, with no step of their own: a bad input is met as an
    // operand, or as an output.
    void mark_input(std::uint32_t index, std::complex<double> read) {
        if (program_.instructions[index].op == OpCode::kLoad && !bad_[index]) {
            bad_[index] = true;
            origins_.emplace(index, Origin{{}, read, false});
        }
    }

    // The earliest origin reached walking back from `roots` through bad values (an unrelated
    // overflow elsewhere in the event is not reported), or nullopt.
    [[nodiscard]] std::optional<std::uint32_t>
    first_origin(std::vector<std::uint32_t> roots) const {
        std::vector<bool> seen(program_.size(), false);
        std::optional<std::uint32_t> first;
        while (!roots.empty()) {
            const std::uint32_t index = roots.back();
            roots.pop_back();
            if (seen[index] || !bad_[index]) {
                continue;
            }
            seen[index] = true;
            if (origins_.contains(index)) {
                first = std::min(first.value_or(index), index);
                continue;
            }
            for (const ir::ValueId operand : program_.operands_of(ir::value_id(index))) {
                roots.push_back(ir::to_index(operand));
            }
        }
        return first;
    }

    [[nodiscard]] const Origin& origin(std::uint32_t index) const { return origins_.at(index); }

private:
    const ir::Program& program_;
    bool f32_;
    std::vector<bool> bad_;
    std::map<std::uint32_t, Origin> origins_;
};

}  // namespace

std::optional<NonFiniteOrigin>
Interpreter::diagnose_event(std::span<const double> params, const ir::ColumnView& inputs,
                            std::size_t row, std::optional<std::size_t> output) const {
    ir::check_inputs(plan_->program, plan_->precision, inputs);
    if (row >= inputs.events) {
        throw DataError(
            fmt::format("event row {} is out of range for {} events", row, inputs.events));
    }
    const ir::Program& program = plan_->program;
    if (params.size() != program.parameter_count) {
        throw EvaluationError(fmt::format("expected {} parameter values, got {}",
                                          program.parameter_count, params.size()));
    }
    if (output && *output >= program.outputs.size()) {
        throw DataError(
            fmt::format("the program has {} outputs, not {}", program.outputs.size(), *output + 1));
    }
    BadValues bad(program, plan_->precision == ir::Precision::kF32);
    Workspace workspace = make_workspace();
    const std::vector<std::complex<double>> values =
        detail::trace_event(*plan_, *workspace.state_, params, inputs, row,
                            [&](const detail::TracedStep& step) { bad.visit(step); });
    std::vector<std::uint32_t> roots;
    for (std::size_t j = 0; j < values.size(); ++j) {
        if ((!output || *output == j) && !finite(values[j])) {
            roots.push_back(ir::to_index(program.outputs[j]));
            bad.mark_input(roots.back(), values[j]);
        }
    }
    const std::optional<std::uint32_t> first = bad.first_origin(std::move(roots));
    if (!first) {
        return std::nullopt;
    }
    NonFiniteOrigin found;
    found.value = ir::value_id(*first);
    if (program.instructions[*first].op == OpCode::kLoad) {
        found.input = program.instructions[*first].attr;
    }
    found.description = describe(program, *first, bad.origin(*first));
    return found;
}

}  // namespace laddu::interp
