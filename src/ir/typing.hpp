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

/// The shape of an opcode's operands and result: the one classification the builder, the
/// typing rules and the validator share.
enum class OpFamily : unsigned char {
    kLeaf,         ///< constants, parameters, loads: no operands
    kUnary,        ///< one scalar operand, result of its kind (neg, sqrt, exp, sin, ...)
    kUnaryToReal,  ///< one scalar operand, Real result (real, imag, abs, arg, norm_sqr)
    kPowI,         ///< one scalar operand and an integer exponent in attr
    kBinary,       ///< two scalar operands, result of their joint kind (+ - * / pow)
    kBinaryReal,   ///< two Real operands, Real result (atan2)
    kMakeComplex,  ///< two Real operands, Complex result
    kAggregate,    ///< operand runs (add_n, mul_n, dot, solve, extract)
};

/// The family of `op`.
[[nodiscard]] OpFamily op_family(OpCode op) noexcept;

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
