// laddu/ir/precision.hpp: the arithmetic precision every backend runs a program in.
#pragma once

#include <cstdint>

namespace laddu::ir {

/// The floating-point type event instructions compute in. Inputs are read as double (or float
/// columns, see InputColumn) and, under kF32, rounded to float; invariants are always computed
/// in double and rounded when broadcast; outputs are written as double, so callers accumulate
/// in double. Complex functions and kSolve compute in double and round under kF32.
enum class Precision : std::uint8_t {
    kF64,  ///< double arithmetic
    kF32,  ///< float arithmetic (about twice the SIMD width; ~1e-7 relative per operation)
};

/// The name of a precision ("f64", "f32").
[[nodiscard]] const char* precision_name(Precision precision) noexcept;

}  // namespace laddu::ir
