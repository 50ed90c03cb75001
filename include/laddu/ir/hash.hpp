// laddu/ir/hash.hpp: a structural hash of a Program and equality up to names (the JIT and GPU
// compile-cache keys, and how an event cache checks it was built for the program it is used with).
#pragma once

#include <cstdint>
#include <string>

#include <laddu/ir/program.hpp>

namespace laddu::ir {

/// A 64-bit hash of everything that changes what a program computes: every instruction field
/// (constants by bit pattern), the operand pool, the input slot kinds, the parameter count and
/// the outputs. Names (of inputs and outputs) are not hashed. Equal programs hash equal.
[[nodiscard]] std::uint64_t hash(const Program& program) noexcept;

/// Everything hash() covers and the input names, field by field, as bytes: equal descriptions
/// are programs that compute the same thing from the same named inputs (output names are left
/// out). What the JIT's on-disk object cache keys on, where a 64-bit hash could collide.
[[nodiscard]] std::string describe(const Program& program);

/// True when `a` and `b` compute the same thing: equal in everything hash() covers (names may
/// differ). What a compile cache keyed by hash() checks on a hit.
[[nodiscard]] bool same_computation(const Program& a, const Program& b) noexcept;

}  // namespace laddu::ir
