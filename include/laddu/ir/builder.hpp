// laddu/ir/builder.hpp: appends instructions to a Program, deducing kinds and classes.
//
// Example:
//   ir::Builder b;
//   const auto slot = b.add_input("amp0", ir::ValueKind::kComplex);
//   const auto g = b.complex(b.param(0), b.param(1));
//   b.add_output(b.unary(ir::OpCode::kNormSqr, b.binary(ir::OpCode::kMul, g, b.load(slot))),
//                "intensity");
//   ir::Program program = b.finish();
#pragma once

#include <complex>
#include <cstdint>
#include <span>
#include <string>

#include <laddu/base/error.hpp>
#include <laddu/ir/program.hpp>

namespace laddu::ir {

/// Builds a Program one instruction at a time. Every method that takes operands checks their
/// kinds and throws CompileError naming the opcode, the kinds and the value when they are wrong.
class Builder {
public:
    Builder() = default;

    /// Continues `program`: its instructions, inputs, parameters and outputs stay, and new
    /// instructions are appended after them.
    explicit Builder(Program program);

    /// A Real constant.
    ValueId const_real(double value);

    /// A Complex constant (Complex even when im == 0).
    ValueId const_complex(double re, double im);

    /// A Complex constant.
    ValueId const_complex(std::complex<double> value) {
        return const_complex(value.real(), value.imag());
    }

    /// params[index]; raises parameter_count to index + 1 when needed.
    ValueId param(std::uint32_t index);

    /// The current event's value of input `slot` (from add_input); the kind is the slot's.
    ValueId load(std::uint32_t slot);

    /// A one-operand instruction (kNeg ... kTanh, kReal ... kNormSqr).
    ValueId unary(OpCode op, ValueId a);

    /// A two-operand instruction (kAdd, kSub, kMul, kDiv, kPow, kAtan2, kComplex).
    ValueId binary(OpCode op, ValueId a, ValueId b);

    /// Σ operands in order (n >= 1).
    ValueId add_n(std::span<const ValueId> operands);

    /// Π operands in order (n >= 1).
    ValueId mul_n(std::span<const ValueId> operands);

    /// re + i im from two Real values.
    ValueId complex(ValueId re, ValueId im);

    /// Σ_k a_k b_k; `a` and `b` must have the same length n >= 1.
    ValueId dot(std::span<const ValueId> a, std::span<const ValueId> b);

    /// Solves A X = B: `operands` are A (n×n, row-major) then B column by column (n·m).
    ValueId solve(std::uint32_t n, std::uint32_t m, std::span<const ValueId> operands);

    /// Element `index` of the Vector `vector`.
    ValueId extract(ValueId vector, std::uint32_t index);

    /// a^n by repeated squaring (negative n: the reciprocal of a^|n|).
    ValueId pow_i(ValueId a, std::int32_t n);

    /// Any instruction with explicit attr; the typed methods above call this.
    ValueId emit(OpCode op, std::uint32_t attr, std::span<const ValueId> operands);

    /// Declares an input column (Real or Complex) and returns its slot for load().
    std::uint32_t add_input(std::string name, ValueKind kind);

    /// Sets the parameter count; throws CompileError if a param() already used a larger index.
    void set_parameter_count(std::uint32_t count);

    /// Appends `id` to the outputs; `name` is for printing (all-or-none: names are kept only if
    /// every output has one).
    void add_output(ValueId id, std::string name = {});

    /// `inst`, an instruction of another program, with `operands` (values of this builder) in
    /// place of its own: a constant keeps its value and a parameter its index (param());
    /// anything else goes through emit() with its opcode and attr. A pass that rewrites a
    /// program copies what it leaves unchanged with this.
    ValueId copy(const Instruction& inst, std::span<const ValueId> operands);

    /// Declares `program`'s input slots, in order, and sets its parameter count: the start of
    /// a pass that rewrites `program` into this builder.
    void add_signature_of(const Program& program);

    /// Adds `program`'s outputs, in order and with their names, as the values `mapped` gives
    /// them (mapped[i]: what instruction i of `program` became here): the end of such a pass.
    void add_outputs_of(const Program& program, std::span<const ValueId> mapped);

    /// The kind of a value built so far.
    [[nodiscard]] ValueKind kind_of(ValueId id) const;

    /// The class of a value built so far.
    [[nodiscard]] ValueClass class_of(ValueId id) const;

    /// The program built so far (not yet validated).
    [[nodiscard]] const Program& program() const noexcept { return program_; }

    /// Validates and returns the program; throws CompileError if it is invalid (for example,
    /// no outputs). The builder is left empty.
    [[nodiscard]] Program finish();

private:
    void check_id(ValueId id) const;

    Program program_;
    std::uint32_t max_param_used_ = 0;  ///< 1 + the largest param() index, 0 if none
};

}  // namespace laddu::ir
