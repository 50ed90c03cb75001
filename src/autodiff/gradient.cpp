#include <laddu/autodiff/gradient.hpp>
#include <laddu/ir/fuse_dots.hpp>
#include <laddu/ir/fuse_product_parts.hpp>

namespace laddu::autodiff {

namespace {

// Invariant instructions run once per block of lanes; the interpreter's blocks are 32 wide.
constexpr double kInvariantWeight = 1.0 / 32.0;

double work(const ir::Instruction& inst) {
    switch (inst.op) {
    case ir::OpCode::kSolve: {
        const auto n = static_cast<double>(ir::solve_size(inst.attr));
        const auto m = static_cast<double>(ir::solve_rhs_count(inst.attr));
        return n * n * n / 3.0 + n * n * m;
    }
    case ir::OpCode::kDot:
    case ir::OpCode::kAddN:
    case ir::OpCode::kMulN:
        return static_cast<double>(inst.count);
    default:
        return 1.0;
    }
}

}  // namespace

double estimated_cost(const ir::Program& program) {
    double cost = 0.0;
    for (const ir::Instruction& inst : program.instructions) {
        cost += work(inst) * (inst.cls == ir::ValueClass::kEvent ? 1.0 : kInvariantWeight);
    }
    return cost;
}

AutodiffMode choose_mode(const ir::Program& primal, Component component) {
    const double forward_cost = estimated_cost(forward(primal, component));
    const double reverse_cost = estimated_cost(reverse(primal, component));
    return reverse_cost < forward_cost ? AutodiffMode::kReverse : AutodiffMode::kForward;
}

namespace {

ir::Program differentiate(const ir::Program& primal, const GradientOptions& options) {
    switch (options.mode) {
    case AutodiffMode::kForward:
        return forward(primal, options.component);
    case AutodiffMode::kReverse:
        return reverse(primal, options.component);
    case AutodiffMode::kAuto:
        break;
    }
    ir::Program forward_program = forward(primal, options.component);
    ir::Program reverse_program = reverse(primal, options.component);
    return estimated_cost(reverse_program) < estimated_cost(forward_program)
               ? std::move(reverse_program)
               : std::move(forward_program);
}

}  // namespace

// The tangent and adjoint sums are sums of products, as the primal's coupling sums are: fused
// into dots like every program the compiler lowers. A coupling's adjoint, ȳ·conj(a), is read
// only through its real and imaginary parts (the coupling's two parameters): each part a dot of
// two real pairs (fuse_product_parts), two operations instead of three. On the K-matrix
// benchmark's gradient kernel that is 36 fewer per 8 events (docs/autodiff.md).
ir::Program gradient(const ir::Program& primal, const GradientOptions& options) {
    return ir::fuse_product_parts(ir::fuse_dots(differentiate(primal, options)));
}

}  // namespace laddu::autodiff
