// Local partial derivatives of one instruction, shared by forward and reverse mode.
//
// Every scalar instruction y = h(x_0, ..., x_{n-1}) is R-linear in its operand perturbations:
// dy = Σ_j L_j(dx_j), where each L_j is one of the Forms below with a coefficient c_j (emitted
// once per instruction, so every parameter and both reverse sweeps share it). Forward mode
// applies L_j to tangents; reverse mode applies its adjoint (docs/autodiff.md).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <laddu/ir/program.hpp>

#include "emitter.hpp"

namespace laddu::autodiff::detail {

/// How an operand perturbation dx enters dy.
enum class Form : std::uint8_t {
    kZero,      ///< not at all (Real kImag, Real kArg, kPowI 0, inactive operand)
    kLinear,    ///< dy = c·dx (holomorphic; c missing means 1)
    kRealPart,  ///< dy = Re(c·dx) (Real result of a Complex operand)
    kImagPart,  ///< dy = Im(c·dx)
    kConj,      ///< dy = conj(dx)
};

struct Partial {
    Form form = Form::kZero;
    Term coefficient;  ///< missing means 1
};

/// The partials of `inst` (any opcode but constants, kParam, kLoad, kSolve and kExtract), whose
/// operands and result are `operands` and `result` in the emitter's program. Slots with
/// `active[j] == false` get kZero and cost nothing.
[[nodiscard]] std::vector<Partial> local_partials(Emitter& emitter, const ir::Instruction& inst,
                                                  std::span<const ValueId> operands, ValueId result,
                                                  const std::vector<bool>& active);

/// Forward: the tangent contribution L(t) of one operand tangent `t`.
[[nodiscard]] Term apply_forward(Emitter& emitter, const Partial& partial, Term tangent);

/// Reverse: the coefficient a with x̄ += ȳ·a for a Linear/RealPart/ImagPart partial: conj(c)
/// or i·conj(c). Missing means 1. Emitted once per (instruction, slot), shared by sweeps.
[[nodiscard]] Term adjoint_coefficient(Emitter& emitter, const Partial& partial);

/// Reverse: the contribution of `adjoint` (ȳ) to an operand of kind `operand_kind`, with
/// `coefficient` from adjoint_coefficient (Real operands take the real part).
[[nodiscard]] Term apply_reverse(Emitter& emitter, const Partial& partial, Term coefficient,
                                 ValueId adjoint, ir::ValueKind operand_kind);

}  // namespace laddu::autodiff::detail
