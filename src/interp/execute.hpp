// The per-family kernels. Each runs one instruction over `n` lanes; the opcode switch happens
// once per call, the loops inside are plain contiguous loops the compiler vectorises.
// Instantiated for double and float only (execute_*.cpp).
#pragma once

#include <complex>
#include <cstdint>
#include <span>

#include <laddu/ir/program.hpp>

#include "lanes.hpp"

namespace laddu::interp::detail {

/// kNeg ... kTanh, kReal ... kNormSqr, kPowI (attr = exponent bits) on one operand.
template <typename T>
void execute_unary(ir::OpCode op, std::uint32_t attr, Lanes<T> a, OutLanes<T> out,
                   std::size_t n) noexcept;

/// kAdd, kSub, kMul, kDiv, kPow, kAtan2, kComplex.
template <typename T>
void execute_binary(ir::OpCode op, Lanes<T> a, Lanes<T> b, OutLanes<T> out, std::size_t n) noexcept;

/// kAddN, kMulN, kDot (attr = n pairs): left folds in operand order.
template <typename T>
void execute_nary(ir::OpCode op, std::uint32_t attr, std::span<const Lanes<T>> in, OutLanes<T> out,
                  std::size_t n) noexcept;

/// Lanes per group of kSolve: eight systems are factored side by side.
inline constexpr std::size_t kSolveGroup = 8;

/// kSolve (attr = n | m << 16): one LU per lane, kSolveGroup lanes side by side; `out` has n·m
/// elements; a singular lane gives NaN in every element. `scratch` holds at least
/// (n·n + n·m) · kSolveGroup values, `swaps` n · kSolveGroup.
template <typename T>
void execute_solve(std::uint32_t attr, std::span<const Lanes<T>> in,
                   std::span<const OutLanes<T>> out, std::size_t n, std::complex<T>* scratch,
                   std::size_t* swaps) noexcept;

/// Copies `a` into `out` (kExtract and f32 loads after conversion).
template <typename T>
void copy_lanes(Lanes<T> a, OutLanes<T> out, std::size_t n) noexcept;

}  // namespace laddu::interp::detail
