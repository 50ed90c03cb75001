// Emitter: ir::Builder plus what derivative code needs: interned constants, algebraic shortcuts
// that are exact in IEEE arithmetic (x·1, x/1, conj and re of a Real, conj of a conjugate), and
// Terms (derivatives that may be exactly zero and are then never emitted).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <tuple>
#include <vector>

#include <laddu/ir/builder.hpp>
#include <laddu/ir/program.hpp>

namespace laddu::autodiff::detail {

using ir::ValueId;

/// A derivative value that may be exactly zero: nullopt is zero and costs no instruction.
using Term = std::optional<ValueId>;

class Emitter {
public:
    /// Starts a program with the inputs and parameter count of `primal`.
    explicit Emitter(const ir::Program& primal);

    /// Re-emits the primal instruction `inst` with (already mapped) `operands`.
    ValueId copy(const ir::Instruction& inst, std::span<const ValueId> operands);

    [[nodiscard]] ir::ValueKind kind(ValueId id) const { return builder_.kind_of(id); }

    [[nodiscard]] ir::ValueClass cls(ValueId id) const { return builder_.class_of(id); }

    [[nodiscard]] bool is_real(ValueId id) const { return kind(id) == ir::ValueKind::kReal; }

    /// True when `id` is a constant equal to re + i im (either constant kind).
    [[nodiscard]] bool is_constant(ValueId id, double re, double im = 0.0) const;

    ValueId real(double value);
    ValueId complex_constant(double re, double im);

    ValueId add(ValueId a, ValueId b);
    ValueId sub(ValueId a, ValueId b);
    ValueId mul(ValueId a, ValueId b);
    ValueId div(ValueId a, ValueId b);
    ValueId neg(ValueId a);
    ValueId conj(ValueId a);  ///< identity on a Real
    ValueId re(ValueId a);    ///< identity on a Real
    Term im(ValueId a);       ///< zero (nullopt) for a Real
    ValueId unary(ir::OpCode op, ValueId a);
    ValueId binary(ir::OpCode op, ValueId a, ValueId b);
    ValueId pow_i(ValueId a, std::int32_t n);
    ValueId complex(Term re, Term im);  ///< re + i im; at least one part must be present
    ValueId widen(ValueId a);           ///< a as a Complex value (a + 0i for a Real)
    ValueId extract(ValueId vector, std::uint32_t index);
    ValueId solve(std::uint32_t n, std::uint32_t m, std::span<const ValueId> operands);

    /// Σ terms in order (kAddN), or the single term; zero when `terms` is empty.
    Term sum(std::span<const ValueId> terms);

    /// Σ_j coefficients[j]·terms[j] over the present terms (a missing coefficient is 1), as one
    /// kDot (or kAddN when every coefficient is 1, or a single product).
    Term combine(std::span<const Term> coefficients, std::span<const Term> terms);

    /// Appends an output.
    void add_output(ValueId id, std::string name);

    /// Validates and returns the program.
    [[nodiscard]] ir::Program finish();

private:
    ir::Builder builder_;
    std::map<std::tuple<bool, std::uint64_t, std::uint64_t>, ValueId> constants_;
};

}  // namespace laddu::autodiff::detail
