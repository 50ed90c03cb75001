// Test support: an executor of ir::Program that follows the bit-exact arithmetic contract of
// docs/ir.md (the complex formulas, kPowI's powering order, kSolve's LU steps) one event and one
// instruction at a time, in double or mirroring the f32 kernels. Its f64 results are the bits
// the interpreter and the JIT must produce; program_reference.hpp, with plain std::complex
// arithmetic, is the looser oracle for everything else. Leaves, kExtract and the complex
// elementary functions are evaluated by program_reference.hpp.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <laddu/ir/program.hpp>

#include "program_reference.hpp"

namespace laddu::testing {

/// The arithmetic contract_reference() evaluates in.
enum class ContractPrecision : std::uint8_t {
    kF64,  ///< every instruction in double
    /// The f32 kernel contract: invariants in double, event instructions in float (operands
    /// rounded to float; complex functions, complex kPow and solves evaluated in double and
    /// rounded); loads rounded to float.
    kF32,
};

/// The outputs of event `event` of `slots`, widened to complex.
[[nodiscard]] std::vector<Complex>
contract_reference(const ir::Program& program, std::span<const double> params,
                   const SlotValues& slots, std::size_t event,
                   ContractPrecision precision = ContractPrecision::kF64);

}  // namespace laddu::testing
