// laddu/base/log_positive.hpp: the natural logarithm the likelihood reductions take of every
// event's intensity.
//
// A data NLL takes one log per event per call, and libm's scalar log was about a sixth of a JIT
// value+gradient pass. log_positive is fdlibm's e_log.c algorithm (Sun Microsystems, 1993:
// argument reduction to x = 2^k (1 + f) with sqrt(2)/2 <= 1 + f < sqrt(2), then
// log(1 + f) = 2s + s R(s²) with s = f / (2 + f) and a degree-14 minimax R; error below 1 ulp)
// written without branches, so that loops over it vectorise. The JIT's fused reductions emit the
// same operations in vector IR (src/jit/lower_reduction.cpp), so both backends get the same
// bits, on every x86-64 host.
#pragma once

#include <cstdint>
#include <span>

namespace laddu {

/// The constants of log_positive (fdlibm e_log.c), as IEEE bit patterns.
namespace log_positive_constants {
inline constexpr std::uint64_t kLn2Hi = 0x3fe62e42fee00000ULL;  ///< ln 2, top 32 bits
inline constexpr std::uint64_t kLn2Lo = 0x3dea39ef35793c76ULL;  ///< ln 2 - kLn2Hi
inline constexpr std::uint64_t kTwo54 = 0x4350000000000000ULL;  ///< 2^54 (scales subnormals)
inline constexpr std::uint64_t kLg[7] = {
    0x3fe5555555555593ULL, 0x3fd999999997fa04ULL, 0x3fd2492494229359ULL, 0x3fcc71c51d8e78afULL,
    0x3fc7466496cb03deULL, 0x3fc39a09d078c69fULL, 0x3fc2f112df3e5244ULL};
}  // namespace log_positive_constants

/// The natural logarithm of a finite positive x (subnormals included), within 1 ulp. Other
/// inputs (zero, negative, infinite, NaN) give an unspecified finite or NaN value: callers check
/// their values first, as the reductions do.
[[nodiscard]] double log_positive(double x) noexcept;

/// out[i] = log_positive(x[i]) for every i (out.size() >= x.size()), vectorised: compiled for
/// AVX-512, AVX2 and baseline x86-64, the one the CPU has chosen when the program loads; every
/// version gives the same bits.
void log_positive(std::span<const double> x, std::span<double> out) noexcept;

/// The log an f32 value reduction takes: out[i] = float(log_positive(float(x[i]))), widened
/// back to double. The double log rounded once to float is within 0.5 ulp + 2^-29 ulp of the
/// exact one (libm's logf is allowed more, and differs between libm builds), and every backend
/// computes it with these operations, the GPU included. Vectorised like log_positive.
void log_positive_f32(std::span<const double> x, std::span<double> out) noexcept;

}  // namespace laddu
