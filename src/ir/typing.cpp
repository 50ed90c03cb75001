#include "typing.hpp"

#include <fmt/format.h>

namespace laddu::ir::detail {

std::string value_name(ValueId id) {
    return fmt::format("%{}", to_index(id));
}

namespace {

enum class Want : unsigned char { kScalar, kReal, kVector };

Failure fail(std::string message) {
    return failure(ErrorKind::kCompile, std::move(message));
}

bool is_scalar(ValueKind kind) {
    return kind == ValueKind::kReal || kind == ValueKind::kComplex;
}

// Checks every operand exists and has the wanted kind; returns the widened scalar kind
// (Complex if any operand is Complex) and the joined class.
Expected<Typing> check_operands(OpCode op, Want want, std::span<const ValueId> operands,
                                std::span<const Instruction> defined) {
    Typing typing{ValueKind::kReal, ValueClass::kInvariant};
    for (const ValueId id : operands) {
        if (to_index(id) >= defined.size()) {
            return fail(fmt::format("{} operand {} is not defined before it (only {} values exist)",
                                    opcode_name(op), value_name(id), defined.size()));
        }
        const Instruction& operand = defined[to_index(id)];
        const bool ok = (want == Want::kScalar && is_scalar(operand.kind)) ||
                        (want == Want::kReal && operand.kind == ValueKind::kReal) ||
                        (want == Want::kVector && operand.kind == ValueKind::kVector);
        if (!ok) {
            const std::string_view wanted = want == Want::kScalar ? "Real or Complex"
                                            : want == Want::kReal ? "Real"
                                                                  : "Vector";
            return fail(fmt::format("{} needs {} operands, got {} at {}", opcode_name(op), wanted,
                                    kind_name(operand.kind), value_name(id)));
        }
        if (operand.kind == ValueKind::kComplex) {
            typing.kind = ValueKind::kComplex;
        }
        if (operand.cls == ValueClass::kEvent) {
            typing.cls = ValueClass::kEvent;
        }
    }
    return typing;
}

Expected<void> check_count(OpCode op, std::size_t got, std::size_t want) {
    if (got != want) {
        return fail(fmt::format("{} needs {} operand{}, got {}", opcode_name(op), want,
                                want == 1 ? "" : "s", got));
    }
    return {};
}

Expected<Typing> deduce_leaf(OpCode op, std::uint32_t attr, std::size_t count,
                             std::span<const InputSlot> inputs) {
    if (count != 0) {
        return fail(fmt::format("{} takes no operands, got {}", opcode_name(op), count));
    }
    switch (op) {
    case OpCode::kConstReal:
    case OpCode::kParam:
        return Typing{ValueKind::kReal, ValueClass::kInvariant};
    case OpCode::kConstComplex:
        return Typing{ValueKind::kComplex, ValueClass::kInvariant};
    default:
        break;
    }
    if (attr >= inputs.size()) {
        return fail(fmt::format("kLoad of input slot {}, but the program has {} input slots", attr,
                                inputs.size()));
    }
    if (!is_scalar(inputs[attr].kind)) {
        return fail(fmt::format("input slot {} ('{}') has kind {}; inputs must be Real or Complex",
                                attr, inputs[attr].name, kind_name(inputs[attr].kind)));
    }
    return Typing{inputs[attr].kind, ValueClass::kEvent};
}

Expected<Typing> deduce_aggregate(OpCode op, std::uint32_t attr, std::span<const ValueId> operands,
                                  std::span<const Instruction> defined) {
    switch (op) {
    case OpCode::kAddN:
    case OpCode::kMulN:
        if (operands.empty()) {
            return fail(fmt::format("{} needs at least 1 operand, got 0", opcode_name(op)));
        }
        return check_operands(op, Want::kScalar, operands, defined);
    case OpCode::kDot:
        if (attr == 0 || operands.size() != 2 * std::size_t{attr}) {
            return fail(fmt::format("kDot with n = {} needs 2n = {} operands (n >= 1), got {}",
                                    attr, 2 * std::size_t{attr}, operands.size()));
        }
        return check_operands(op, Want::kScalar, operands, defined);
    case OpCode::kSolve: {
        const std::size_t n = solve_size(attr);
        const std::size_t m = solve_rhs_count(attr);
        if (n == 0 || m == 0) {
            return fail(fmt::format("kSolve needs n >= 1 and m >= 1, got n = {} and m = {}", n, m));
        }
        if (operands.size() != n * n + n * m) {
            return fail(
                fmt::format("kSolve with n = {}, m = {} needs n*n + n*m = {} operands, got {}", n,
                            m, n * n + n * m, operands.size()));
        }
        auto typing = check_operands(op, Want::kScalar, operands, defined);
        if (!typing) {
            return typing;
        }
        return Typing{ValueKind::kVector, typing->cls};
    }
    case OpCode::kExtract: {
        if (auto ok = check_count(op, operands.size(), 1); !ok) {
            return ok.error();
        }
        auto typing = check_operands(op, Want::kVector, operands, defined);
        if (!typing) {
            return typing;
        }
        const std::uint32_t width = defined[to_index(operands[0])].width();
        if (attr >= width) {
            return fail(fmt::format("kExtract index {} is out of range for {} of width {}", attr,
                                    value_name(operands[0]), width));
        }
        return Typing{ValueKind::kComplex, typing->cls};
    }
    default:
        return fail(fmt::format("invalid opcode {}", static_cast<unsigned>(op)));
    }
}

// The operand count of the fixed-arity families (leaves and aggregates check their own).
std::size_t fixed_arity(OpFamily family) noexcept {
    switch (family) {
    case OpFamily::kUnary:
    case OpFamily::kUnaryToReal:
    case OpFamily::kPowI:
        return 1;
    default:
        return 2;
    }
}

}  // namespace

OpFamily op_family(OpCode op) noexcept {
    switch (op) {
    case OpCode::kConstReal:
    case OpCode::kConstComplex:
    case OpCode::kParam:
    case OpCode::kLoad:
        return OpFamily::kLeaf;
    case OpCode::kNeg:
    case OpCode::kConj:
    case OpCode::kSqrt:
    case OpCode::kExp:
    case OpCode::kLog:
    case OpCode::kSin:
    case OpCode::kCos:
    case OpCode::kTan:
    case OpCode::kAsin:
    case OpCode::kAcos:
    case OpCode::kAtan:
    case OpCode::kSinh:
    case OpCode::kCosh:
    case OpCode::kTanh:
        return OpFamily::kUnary;
    case OpCode::kReal:
    case OpCode::kImag:
    case OpCode::kAbs:
    case OpCode::kArg:
    case OpCode::kNormSqr:
        return OpFamily::kUnaryToReal;
    case OpCode::kPowI:
        return OpFamily::kPowI;
    case OpCode::kAdd:
    case OpCode::kSub:
    case OpCode::kMul:
    case OpCode::kDiv:
    case OpCode::kPow:
        return OpFamily::kBinary;
    case OpCode::kAtan2:
        return OpFamily::kBinaryReal;
    case OpCode::kComplex:
        return OpFamily::kMakeComplex;
    case OpCode::kAddN:
    case OpCode::kMulN:
    case OpCode::kDot:
    case OpCode::kSolve:
    case OpCode::kExtract:
        break;
    }
    return OpFamily::kAggregate;
}

Expected<Typing> deduce(OpCode op, std::uint32_t attr, std::span<const ValueId> operands,
                        std::span<const Instruction> defined, std::span<const InputSlot> inputs) {
    if (static_cast<std::size_t>(op) >= kOpCodeCount) {
        return fail(fmt::format("invalid opcode {}", static_cast<unsigned>(op)));
    }
    const OpFamily family = op_family(op);
    if (family != OpFamily::kLeaf && family != OpFamily::kAggregate) {
        if (auto ok = check_count(op, operands.size(), fixed_arity(family)); !ok) {
            return ok.error();
        }
    }
    switch (family) {
    case OpFamily::kLeaf:
        return deduce_leaf(op, attr, operands.size(), inputs);
    case OpFamily::kUnary:
    case OpFamily::kPowI:
    case OpFamily::kBinary:
        return check_operands(op, Want::kScalar, operands, defined);
    case OpFamily::kUnaryToReal: {
        auto typing = check_operands(op, Want::kScalar, operands, defined);
        if (!typing) {
            return typing;
        }
        return Typing{ValueKind::kReal, typing->cls};
    }
    case OpFamily::kBinaryReal:
        return check_operands(op, Want::kReal, operands, defined);
    case OpFamily::kMakeComplex: {
        auto typing = check_operands(op, Want::kReal, operands, defined);
        if (!typing) {
            return typing;
        }
        return Typing{ValueKind::kComplex, typing->cls};
    }
    case OpFamily::kAggregate:
        break;
    }
    return deduce_aggregate(op, attr, operands, defined);
}

}  // namespace laddu::ir::detail
