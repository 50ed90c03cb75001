// Activity analysis: which parameters each value depends on, and which values the root needs.
// Both modes use it to skip work: a value with no parameter dependence has zero derivative, and
// a value the root does not use needs none.
#pragma once

#include <cstdint>
#include <vector>

#include <laddu/ir/program.hpp>

namespace laddu::autodiff::detail {

struct Activity {
    /// For each value, the sorted parameter indices it depends on.
    std::vector<std::vector<std::uint32_t>> params;
    /// For each value, whether the root (outputs[0]) depends on it.
    std::vector<bool> needed;

    [[nodiscard]] bool is_active(ir::ValueId id) const { return !params[ir::to_index(id)].empty(); }
};

/// Analyses `program` for its root outputs[0].
[[nodiscard]] Activity analyse_activity(const ir::Program& program);

}  // namespace laddu::autodiff::detail
