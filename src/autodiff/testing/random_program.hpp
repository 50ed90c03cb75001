// A seeded generator of random well-typed programs for the autodiff property tests: Real and
// Complex mixes, chains, every opcode, kSolve on diagonally dominant matrices. Each candidate
// instruction is evaluated on the sample events and kept only if it stays away from branch
// cuts, poles and overflow, so finite differences of the result are accurate.
#pragma once

#include <cstdint>
#include <vector>

#include <laddu/ir/program.hpp>

#include "gradient_check.hpp"

namespace laddu::autodiff::testing {

struct RandomProgramOptions {
    std::uint32_t parameters = 4;
    std::uint32_t real_inputs = 1;
    std::uint32_t complex_inputs = 1;
    std::uint32_t instructions = 30;  ///< random instructions before the root
    std::uint32_t events = 3;
    bool allow_solve = true;
};

/// A random program with the parameter values and events it was checked on.
struct RandomCase {
    ir::Program program;
    std::vector<double> params;
    std::vector<Event> events;
    std::uint32_t attempts = 1;  ///< programs drawn until one had stable finite differences
};

/// Generates a random case from `seed` (same seed, same case). Cases whose finite differences
/// are not stable to 1e-10 under a change of step are redrawn.
[[nodiscard]] RandomCase random_program(std::uint64_t seed, const RandomProgramOptions& options);

}  // namespace laddu::autodiff::testing
