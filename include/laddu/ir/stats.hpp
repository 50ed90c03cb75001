// laddu/ir/stats.hpp: instruction counts by class and opcode, for reports and tests.
#pragma once

#include <array>
#include <cstddef>

#include <laddu/ir/program.hpp>

namespace laddu::ir {

/// Instruction counts by class and opcode.
struct Stats {
    std::size_t invariant_count = 0;  ///< instructions evaluated once per call
    std::size_t event_count = 0;      ///< instructions evaluated per event
    std::array<std::size_t, kOpCodeCount> invariant_by_op{};  ///< indexed by OpCode
    std::array<std::size_t, kOpCodeCount> event_by_op{};      ///< indexed by OpCode

    /// Invariant plus event count of `op`.
    [[nodiscard]] std::size_t count(OpCode op) const noexcept {
        const auto i = static_cast<std::size_t>(op);
        return invariant_by_op[i] + event_by_op[i];
    }
};

/// Counts the instructions of `program` by class and opcode.
[[nodiscard]] Stats stats(const Program& program) noexcept;

}  // namespace laddu::ir
