#include "outputs.hpp"

#include <string>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/ir/validate.hpp>

namespace laddu::autodiff::detail {

void check_primal(const ir::Program& primal, std::string_view mode) {
    if (auto valid = ir::validate(primal); !valid) {
        throw CompileError(
            fmt::format("autodiff::{} needs a valid program: {}", mode, valid.error().message));
    }
}

void add_gradient_outputs(Emitter& emitter, const ir::Program& primal, ValueId value,
                          std::span<const ValueId> gradients) {
    const std::string root =
        primal.output_names.empty() ? std::string("value") : primal.output_names.front();
    emitter.add_output(value, root);
    for (std::size_t k = 0; k < gradients.size(); ++k) {
        emitter.add_output(gradients[k], fmt::format("d({})/d(p{})", root, k));
    }
}

}  // namespace laddu::autodiff::detail
