#include <algorithm>
#include <memory>
#include <vector>

#include <laddu/base/accurate_sum.hpp>

#include "chunk_kernel.hpp"

namespace laddu::runtime::detail {

namespace {

class BoundInterpreter final : public BoundKernel {
public:
    BoundInterpreter(const interp::Interpreter& interpreter, std::span<const double> params)
        : interpreter_(interpreter), workspace_(interpreter.make_workspace()) {
        interpreter_.evaluate_invariants(params, workspace_);
    }

    void rebind(std::span<const double> params) override {
        interpreter_.evaluate_invariants(params, workspace_);
    }

    void run(const ir::ColumnView& inputs, std::size_t begin, std::size_t count,
             std::span<const ir::OutputColumn> out) override {
        shifted_.resize(out.size());
        for (std::size_t offset = 0; offset < count; offset += interp::kBlockSize) {
            for (std::size_t j = 0; j < out.size(); ++j) {
                shifted_[j].re = out[j].re + offset;
                shifted_[j].im = out[j].im != nullptr ? out[j].im + offset : nullptr;
            }
            interpreter_.run_block(inputs, begin + offset,
                                   std::min(interp::kBlockSize, count - offset), workspace_,
                                   ir::OutputView{shifted_});
        }
    }

private:
    const interp::Interpreter& interpreter_;
    interp::Workspace workspace_;
    std::vector<ir::OutputColumn> shifted_;
};

class InterpreterKernel final : public ChunkKernel {
public:
    explicit InterpreterKernel(interp::Interpreter interpreter)
        : interpreter_(std::move(interpreter)),
          bound_bytes_(interpreter_.make_workspace().bytes()) {}

    InterpreterKernel(const InterpreterKernel&) = delete;
    InterpreterKernel& operator=(const InterpreterKernel&) = delete;
    InterpreterKernel(InterpreterKernel&&) = delete;
    InterpreterKernel& operator=(InterpreterKernel&&) = delete;
    ~InterpreterKernel() override = default;

    [[nodiscard]] const ir::Program& program() const noexcept override {
        return interpreter_.program();
    }

    [[nodiscard]] std::string_view backend() const noexcept override { return "interpreter"; }

    [[nodiscard]] ir::Precision precision() const noexcept override {
        return interpreter_.precision();
    }

    [[nodiscard]] std::unique_ptr<BoundKernel>
    bind_checked(std::span<const double> params) const override {
        return std::make_unique<BoundInterpreter>(interpreter_, params);
    }

    [[nodiscard]] std::size_t bound_bytes() const noexcept override { return bound_bytes_; }

private:
    interp::Interpreter interpreter_;
    std::size_t bound_bytes_;  ///< a workspace's registers and scratch
};

}  // namespace

std::size_t worker_bytes(const ChunkKernel& kernel) noexcept {
    const std::size_t outputs = kernel.program().outputs.size();
    return kernel.bound_bytes() + outputs * (kReductionChunk + 2 * kSumLanes) * sizeof(double);
}

std::shared_ptr<const ChunkKernel> make_interpreter_kernel(const ir::Program& program,
                                                           ir::Precision precision) {
    return std::make_shared<const InterpreterKernel>(
        interp::Interpreter::prepare(program, precision));
}

}  // namespace laddu::runtime::detail
