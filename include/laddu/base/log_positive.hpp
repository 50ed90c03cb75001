// laddu/base/log_positive.hpp: the natural logarithm the likelihood reductions take of every
// event's intensity.
//
// A data NLL takes one log per event per call: with libm's scalar log that was about a sixth of
// a JIT value+gradient pass. log_positive is Tang's table-driven method (P. T. P. Tang,
// "Table-driven implementation of the logarithm function in IEEE floating-point arithmetic",
// ACM TOMS 16(4), 1990), in the form of Arm's optimized-routines log: x = 2^k z with z in
// [0.6875, 1.375); the top 7 mantissa bits of z pick a row {1 / c, log c} of a 128-row table
// (log_table.inc, written by tools/gen_log_table.py); r = z / c - 1 by one fused multiply-add;
// log x = k ln 2 + log c + r + r² P(r), P of degree 6 (log1p's Taylor coefficients, |r| < 2^-7),
// with k ln 2 + log c + r summed exactly (two Fast2Sums). The rows touching 1 have c = 1, so
// near 1 nothing cancels. Error (against long double logl, 5·10^7 arguments): at most 0.60 ulp
// over all positive doubles, 0.75 ulp near 1 (fdlibm's branch-free e_log.c: 1 ulp, with a
// division and twice the operations). Branch-free apart from selects, so loops over it
// vectorise (the table reads become gathers). The JIT's fused reductions
// (src/jit/lower_reduction.cpp) and the OpenCL reduction (src/gpu/reduction_source.cpp) emit the
// same operations, so every backend gets the same bits on every host (the fused multiply-adds
// are exact operations, not contractions).
#pragma once

#include <cstdint>
#include <span>

namespace laddu {

/// The constants of log_positive.
namespace log_positive_constants {
inline constexpr std::uint64_t kLn2Hi = 0x3fe62e42fee00000ULL;  ///< ln 2, top 32 bits
inline constexpr std::uint64_t kLn2Lo = 0x3dea39ef35793c76ULL;  ///< ln 2 - kLn2Hi
inline constexpr std::uint64_t kTwo54 = 0x4350000000000000ULL;  ///< 2^54 (scales subnormals)
/// The bit pattern of 0.6875, where the reduced argument z's range starts.
inline constexpr std::uint64_t kReductionStart = 0x3fe6000000000000ULL;
/// log2 of the table's rows: the mantissa bits that pick a row.
inline constexpr unsigned kTableBits = 7;
/// Where those bits start in (bits of x) - kReductionStart.
inline constexpr unsigned kTableShift = 52 - kTableBits;

/// One row of the table: 1 / c and log c as IEEE bit patterns.
struct LogRow {
    std::uint64_t invc;
    std::uint64_t logc;
};

inline constexpr LogRow kTable[std::size_t{1} << kTableBits] = {
#include "log_table.inc"
};
/// log1p(r) - r ≈ r² (kPoly[0] + kPoly[1] r + ... + kPoly[6] r^6): the Taylor coefficients,
/// rounded (truncation below 2^-59 of log1p(r) for |r| < 2^-7).
inline constexpr double kPoly[7] = {-0.5, 1.0 / 3, -0.25, 0.2, -1.0 / 6, 1.0 / 7, -0.125};
}  // namespace log_positive_constants

/// The natural logarithm of a finite positive x (subnormals included), within 0.76 ulp. Other
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
