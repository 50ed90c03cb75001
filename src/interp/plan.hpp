// The prepared form of a program: steps with resolved register offsets.
#pragma once

#include <cstdint>
#include <vector>

#include <laddu/interp/interpreter.hpp>
#include <laddu/ir/program.hpp>

namespace laddu::interp::detail {

/// Where an operand's lanes live.
enum class Source : std::uint8_t {
    kRegister,  ///< at `offset` in the register file (event) or invariant array (invariant)
    kInput,     ///< input column `offset`, read in place (f64 loads only)
};

/// One operand of a step. For a Vector register, `element` selects the element (kExtract).
struct Operand {
    Source source = Source::kRegister;
    ir::ValueKind kind = ir::ValueKind::kReal;
    std::uint32_t offset = 0;
    std::uint32_t element = 0;
};

/// One instruction to execute: operands are Plan::operands[first, first + count).
struct Step {
    ir::OpCode op = ir::OpCode::kConstReal;
    ir::ValueKind kind = ir::ValueKind::kReal;
    std::uint32_t attr = 0;
    std::uint32_t out = 0;    ///< register (or invariant) offset of the result
    std::uint32_t width = 1;  ///< complex elements of a Vector result, else 1
    std::uint32_t first = 0;
    std::uint32_t count = 0;
    std::uint32_t value = 0;  ///< the instruction index, for constants and diagnostics
};

/// An invariant value copied to every lane of an event register once per parameter vector.
struct Broadcast {
    ir::ValueKind kind = ir::ValueKind::kReal;
    std::uint32_t from = 0;   ///< invariant array offset
    std::uint32_t to = 0;     ///< register offset
    std::uint32_t width = 1;  ///< complex elements (Vector)
};

/// A prepared program. Offsets are in scalars: an event register of kind Real takes
/// kBlockSize scalars, Complex 2·kBlockSize (re lanes then im lanes), Vector of width w
/// 2·w·kBlockSize (element k's re lanes at 2k·B, im at (2k+1)·B). The invariant array uses the
/// same layout with one lane.
struct Plan {
    ir::Program program;
    ir::Precision precision = ir::Precision::kF64;
    std::vector<Step> invariant_steps;
    std::vector<Step> event_steps;
    std::vector<Operand> operands;  ///< operand pool of both step lists
    std::vector<Broadcast> broadcasts;
    std::vector<Operand> outputs;  ///< event-side location of each output
    std::size_t invariant_scalars = 0;
    std::size_t register_scalars = 0;
    std::size_t max_operands = 1;   ///< largest step operand count (and Vector width)
    std::size_t solve_scratch = 0;  ///< complex values kSolve needs ((n·n + n·m) · kSolveGroup)
    std::size_t solve_swaps = 0;    ///< row swaps kSolve needs (n · kSolveGroup)
    PlanStats stats;
};

/// Builds the plan for a validated program.
[[nodiscard]] Plan build_plan(const ir::Program& program, ir::Precision precision);

}  // namespace laddu::interp::detail
