// laddu/autodiff/gradient.hpp: gradient programs from kernel programs (IR → IR).
//
// forward() and reverse() turn an ir::Program whose output 0 is a Real or Complex value f into
// an ordinary ir::Program whose output 0 is f unchanged and whose outputs 1..P are df/dp_k for
// every parameter k < parameter_count. Any backend runs the result like any other program: the
// derivative code is plain IR, so invariant parts stay invariant and event parts run per lane.
// docs/autodiff.md has the rules table, the conjugate-adjoint convention and the Auto rule.
#pragma once

#include <cstdint>

#include <laddu/ir/program.hpp>

namespace laddu::autodiff {

/// How gradients are propagated through the program.
enum class AutodiffMode : std::uint8_t {
    kAuto,     ///< builds both and keeps the cheaper one by estimated_cost() (ties: forward)
    kForward,  ///< one tangent per (value, parameter) it depends on, shared factorisations
    kReverse,  ///< one adjoint sweep (two for the full gradient of a complex root)
};

/// Which derivative of a complex root the gradient outputs hold.
enum class Component : std::uint8_t {
    kFull,  ///< d Re f/dp + i d Im f/dp (Complex outputs for a Complex root, Real for a Real one)
    kReal,  ///< d Re f/dp as Real outputs: what a likelihood of Re f needs (one reverse sweep)
    kImag,  ///< d Im f/dp as Real outputs (zero for a Real root)
};

/// Options for gradient().
struct GradientOptions {
    AutodiffMode mode = AutodiffMode::kAuto;  ///< how to propagate
    Component component = Component::kFull;   ///< which derivative to output
};

/// The gradient program of `primal` by forward mode: output 0 is primal output 0 (unchanged),
/// outputs 1..P its derivatives. Only values on the path to the root that depend on a
/// parameter get tangents; a kSolve gets one extra kSolve holding every tangent column.
/// Throws CompileError when `primal` fails ir::validate, has no outputs, or its output 0 is
/// a Vector.
[[nodiscard]] ir::Program forward(const ir::Program& primal,
                                  Component component = Component::kFull);

/// The gradient program of `primal` by reverse mode: the adjoints are accumulated in reverse
/// instruction order with the conjugate-adjoint convention (docs/autodiff.md), contributions
/// summed by kAddN in the order they arise. Same outputs and errors as forward().
[[nodiscard]] ir::Program reverse(const ir::Program& primal,
                                  Component component = Component::kFull);

/// The gradient program in the requested mode; kAuto picks by estimated_cost().
[[nodiscard]] ir::Program gradient(const ir::Program& primal, const GradientOptions& options = {});

/// A backend-neutral cost of running a program once over a block of events: event-class
/// instructions weigh by work (kSolve n³/3 + n²m, kDot/kAddN/kMulN their operand count, other
/// 1), invariant ones 1/32 of that (they run once per block).
[[nodiscard]] double estimated_cost(const ir::Program& program);

/// The mode kAuto resolves to for `primal`: the one whose gradient program has the lower
/// estimated_cost() (forward on ties).
[[nodiscard]] AutodiffMode choose_mode(const ir::Program& primal,
                                       Component component = Component::kFull);

}  // namespace laddu::autodiff
