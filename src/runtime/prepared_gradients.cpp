// PreparedModel::evaluate_with_gradient: per-event derivatives through the passes evaluate() uses.
#include <complex>
#include <cstddef>
#include <memory>
#include <vector>

#include <laddu/autodiff/gradient.hpp>
#include <laddu/base/error.hpp>

#include "kernel_reduce.hpp"
#include "prepared_state.hpp"

namespace laddu::runtime {

EventGradients PreparedModel::evaluate_with_gradient(std::span<const double> params) const {
    const State& s = *state_;
    if (!s.windows) {
        throw InternalError("evaluate_with_gradient: a prepared model without its event windows");
    }
    const EventWindows& windows = *s.windows;
    EventGradients result;
    const bool complex_model = s.evaluate.at(s.evaluate.outputs[0]).kind == ir::ValueKind::kComplex;
    // The prepared gradient program (Component::kReal) is what a likelihood runs; only a
    // complex model's imaginary parts need the full one, which no other pass uses.
    std::shared_ptr<const detail::ChunkKernel> kernel = s.gradient;
    if (complex_model) {
        const ir::Program full = autodiff::gradient(
            s.evaluate, autodiff::GradientOptions{.mode = s.execution.autodiff,
                                                  .component = autodiff::Component::kFull});
        kernel = detail::select_kernel(full, s.execution.precision, s.execution.jit,
                                       windows.global_events(), detail::Passes::kOnce);
    }
    const ir::Program& program = kernel->program();
    const std::size_t outputs = program.outputs.size();
    const std::size_t p = outputs - 1;
    const std::size_t n = windows.local_events();
    // Output k of local event i at k·n + i, as evaluate_all lays out output 0.
    std::vector<double> re(outputs * n);
    std::vector<double> im(outputs * n);
    s.for_each_cache([&](const EventCache& c, std::size_t first) {
        const std::size_t offset = first * kReductionChunk;
        std::vector<ir::OutputColumn> columns;
        columns.reserve(outputs);
        for (std::size_t k = 0; k < outputs; ++k) {
            const bool complex_output =
                program.at(program.outputs[k]).kind == ir::ValueKind::kComplex;
            columns.push_back(ir::OutputColumn{
                re.data() + k * n + offset, complex_output ? im.data() + k * n + offset : nullptr});
        }
        const std::size_t chunks = (c.events() + kReductionChunk - 1) / kReductionChunk;
        detail::evaluate_cached(*kernel, params, c, ir::OutputView{columns}, s.pool.get(),
                                s.cache_origin(first, chunks));
    });
    if (n == 0) {
        (void)kernel->bind(params);  // the parameter count is checked with no events too
    }
    // Output 0 is the evaluate program's own value instruction (autodiff appends the
    // derivatives after it), so the values are evaluate()'s bits without a second pass.
    result.values.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        result.values[i] = {re[i], complex_model ? im[i] : 0.0};
    }
    result.parameters = p;
    result.gradients.resize(n * p);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t k = 0; k < p; ++k) {
            const std::size_t at = (k + 1) * n + i;
            result.gradients[i * p + k] = {re[at], complex_model ? im[at] : 0.0};
        }
    }
    return result;
}

}  // namespace laddu::runtime
