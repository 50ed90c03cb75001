// laddu/ir/program.hpp: the scalarised kernel IR shared by compiler, autodiff and backends.
//
// A Program is straight-line SSA over Real and Complex scalars (plus the Vector result of a
// linear solve), in topological order; docs/ir.md is the contract. Programs are plain data:
// build them with ir::Builder and check hand-made ones with ir::validate before running them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace laddu::ir {

/// Names the value defined by the instruction at the same index of Program::instructions.
enum class ValueId : std::uint32_t {};

/// The instruction index of `id`.
[[nodiscard]] constexpr std::uint32_t to_index(ValueId id) noexcept {
    return static_cast<std::uint32_t>(id);
}

/// The id of the value defined by instruction `index`.
[[nodiscard]] constexpr ValueId value_id(std::uint32_t index) noexcept {
    return static_cast<ValueId>(index);
}

/// The shape of a value: one double, two doubles, or `width` complex doubles (kSolve only).
enum class ValueKind : std::uint8_t {
    kReal,     ///< one double
    kComplex,  ///< re and im
    kVector,   ///< the result of kSolve; consumed only by kExtract
};

/// How often a value changes: once per call (broadcast to every lane) or per event.
enum class ValueClass : std::uint8_t {
    kInvariant,  ///< depends on constants and parameters only
    kEvent,      ///< depends on at least one input column
};

/// Every instruction of the IR; the table in docs/ir.md gives operands, attr and result.
enum class OpCode : std::uint8_t {
    kConstReal,     ///< Real constant `re`
    kConstComplex,  ///< Complex constant `re + i im`
    kParam,         ///< params[attr]
    kLoad,          ///< the current event's value of input slot attr
    kNeg,           ///< -a
    kConj,          ///< complex conjugate (identity on Real)
    kSqrt,          ///< square root (principal branch for Complex; NaN for a negative Real)
    kExp,           ///< exponential
    kLog,           ///< natural log (principal branch for Complex; NaN for a negative Real)
    kSin,           ///< sine
    kCos,           ///< cosine
    kTan,           ///< tangent
    kAsin,          ///< arc sine
    kAcos,          ///< arc cosine
    kAtan,          ///< arc tangent
    kSinh,          ///< hyperbolic sine
    kCosh,          ///< hyperbolic cosine
    kTanh,          ///< hyperbolic tangent
    kReal,          ///< real part (Real result)
    kImag,          ///< imaginary part (Real result)
    kAbs,           ///< modulus (Real result)
    kArg,           ///< atan2(im, re) (Real result)
    kNormSqr,       ///< re² + im² (Real result)
    kPowI,          ///< a^n for the int32 n stored in attr, by repeated squaring
    kAdd,           ///< a + b
    kSub,           ///< a - b
    kMul,           ///< a * b
    kDiv,           ///< a / b
    kPow,           ///< pow(a, b); Complex: exp(b log a)
    kAtan2,         ///< atan2(y, x) on Real operands
    kAddN,          ///< sum of n >= 1 operands in operand order
    kMulN,          ///< product of n >= 1 operands in operand order
    kComplex,       ///< a + i b from two Real operands
    kDot,           ///< Σ_k a_k b_k over attr = n pairs (operands a_0..a_{n-1}, b_0..b_{n-1})
    kSolve,         ///< A X = B; attr = n | m << 16; result Vector of width n·m
    kExtract,       ///< element attr of a Vector (Complex result)
};

/// The number of opcodes (for tables indexed by OpCode).
inline constexpr std::size_t kOpCodeCount = static_cast<std::size_t>(OpCode::kExtract) + 1;

/// The enumerator name of `op` ("kAtan2"), as diagnostics spell it.
[[nodiscard]] std::string_view opcode_name(OpCode op) noexcept;

/// The printer's mnemonic for `op` ("atan2").
[[nodiscard]] std::string_view opcode_mnemonic(OpCode op) noexcept;

/// The name of a kind ("Real", "Complex", "Vector").
[[nodiscard]] std::string_view kind_name(ValueKind kind) noexcept;

/// The name of a class ("invariant", "event").
[[nodiscard]] std::string_view class_name(ValueClass cls) noexcept;

/// kSolve's attr packs n (low 16 bits) and m (high 16 bits).
[[nodiscard]] constexpr std::uint32_t solve_attr(std::uint32_t n, std::uint32_t m) noexcept {
    return (n & 0xFFFFU) | (m << 16U);
}

/// The system size n of a kSolve attr.
[[nodiscard]] constexpr std::uint32_t solve_size(std::uint32_t attr) noexcept {
    return attr & 0xFFFFU;
}

/// The right-hand-side count m of a kSolve attr.
[[nodiscard]] constexpr std::uint32_t solve_rhs_count(std::uint32_t attr) noexcept {
    return attr >> 16U;
}

/// One instruction; it defines the value whose ValueId is its index.
struct Instruction {
    OpCode op = OpCode::kConstReal;
    ValueKind kind = ValueKind::kReal;
    ValueClass cls = ValueClass::kInvariant;
    std::uint32_t attr = 0;   ///< opcode-specific integer (see docs/ir.md)
    std::uint32_t first = 0;  ///< operands are Program::operands[first, first + count)
    std::uint32_t count = 0;
    double re = 0.0;  ///< constant value (kConstReal, kConstComplex); 0 otherwise
    double im = 0.0;

    /// The number of complex elements of a Vector value (n·m of its kSolve), else 1.
    [[nodiscard]] std::uint32_t width() const noexcept {
        return kind == ValueKind::kVector ? solve_size(attr) * solve_rhs_count(attr) : 1U;
    }

    /// kPowI's exponent (the int32 stored in attr).
    [[nodiscard]] std::int32_t exponent() const noexcept { return static_cast<std::int32_t>(attr); }

    friend bool operator==(const Instruction&, const Instruction&) = default;
};

/// An input column the program reads with kLoad(attr): a Real or Complex per-event value.
struct InputSlot {
    std::string name;
    ValueKind kind = ValueKind::kReal;

    friend bool operator==(const InputSlot&, const InputSlot&) = default;
};

/// A straight-line program: instructions in topological order, an operand pool, its input
/// slots, its parameter count and the values the caller wants.
struct Program {
    std::vector<Instruction> instructions;
    std::vector<ValueId> operands;          ///< operand pool
    std::vector<InputSlot> inputs;          ///< what kLoad(attr) reads
    std::uint32_t parameter_count = 0;      ///< kParam attrs are < this
    std::vector<ValueId> outputs;           ///< values the caller wants, in order
    std::vector<std::string> output_names;  ///< empty, or one name per output

    /// The instruction defining `id` (unchecked index).
    [[nodiscard]] const Instruction& at(ValueId id) const { return instructions[to_index(id)]; }

    /// The operands of the instruction defining `id`.
    [[nodiscard]] std::span<const ValueId> operands_of(ValueId id) const {
        const Instruction& inst = at(id);
        return std::span<const ValueId>(operands).subspan(inst.first, inst.count);
    }

    /// The operands of `inst` (an instruction of this program).
    [[nodiscard]] std::span<const ValueId> operands_of(const Instruction& inst) const {
        return std::span<const ValueId>(operands).subspan(inst.first, inst.count);
    }

    /// The number of instructions (values).
    [[nodiscard]] std::size_t size() const noexcept { return instructions.size(); }

    friend bool operator==(const Program&, const Program&) = default;
};

/// live[i] != 0 when instruction i of `program` is one of `roots` or an operand (directly or
/// not) of one: what evaluating `roots` needs. One backward sweep (operands precede users).
[[nodiscard]] std::vector<char> live_instructions(const Program& program,
                                                  std::span<const ValueId> roots);

}  // namespace laddu::ir
