// laddu/ir/hash.hpp: a structural hash of a Program (the JIT compile-cache key, and how an
// event cache checks it was built for the program it is used with).
#pragma once

#include <cstdint>

#include <laddu/ir/program.hpp>

namespace laddu::ir {

/// A 64-bit hash of everything that changes what a program computes: every instruction field
/// (constants by bit pattern), the operand pool, the input slot kinds, the parameter count and
/// the outputs. Names (of inputs and outputs) are not hashed. Equal programs hash equal.
[[nodiscard]] std::uint64_t hash(const Program& program) noexcept;

}  // namespace laddu::ir
