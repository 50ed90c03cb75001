#include "activity.hpp"

#include <algorithm>
#include <iterator>

namespace laddu::autodiff::detail {

Activity analyse_activity(const ir::Program& program) {
    const std::size_t count = program.size();
    Activity activity;
    activity.params.resize(count);
    activity.needed.assign(count, false);
    for (std::uint32_t index = 0; index < count; ++index) {
        const ir::Instruction& inst = program.instructions[index];
        std::vector<std::uint32_t>& deps = activity.params[index];
        if (inst.op == ir::OpCode::kParam) {
            deps.push_back(inst.attr);
            continue;
        }
        for (const ir::ValueId operand : program.operands_of(inst)) {
            const std::vector<std::uint32_t>& other = activity.params[ir::to_index(operand)];
            if (other.empty()) {
                continue;
            }
            std::vector<std::uint32_t> merged;
            merged.reserve(deps.size() + other.size());
            std::set_union(deps.begin(), deps.end(), other.begin(), other.end(),
                           std::back_inserter(merged));
            deps = std::move(merged);
        }
    }
    activity.needed[ir::to_index(program.outputs.front())] = true;
    for (std::size_t index = count; index-- > 0;) {
        if (!activity.needed[index]) {
            continue;
        }
        for (const ir::ValueId operand : program.operands_of(program.instructions[index])) {
            activity.needed[ir::to_index(operand)] = true;
        }
    }
    return activity;
}

}  // namespace laddu::autodiff::detail
