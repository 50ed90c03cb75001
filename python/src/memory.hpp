// laddu's memory vocabulary for Python: MemoryBudget (runtime::MemoryPlan, one budget),
// MemoryPlan (a host and an optional device budget), MemoryResource and MemoryState (what
// /proc/meminfo says about the host; laddu_cpp has no device of its own).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include <laddu/runtime/execution.hpp>
#include <laddu/runtime/prepared_model.hpp>

namespace laddu::python {

/// One physical memory resource, as laddu's MemoryResource.
struct MemoryResourceInfo {
    std::string id;                          ///< "host", or the id given to a device override
    std::string name;                        ///< "Host memory", or the override's name
    std::optional<std::uint64_t> total;      ///< MemTotal (None where /proc/meminfo is missing)
    std::optional<std::uint64_t> available;  ///< MemAvailable (None likewise)
    std::string capacity_source;             ///< "operating_system" (host) or "user" (override)
};

/// The host and the device resources a user declared (laddu's MemoryState).
struct MemoryStateInfo {
    MemoryResourceInfo host;
    std::vector<MemoryResourceInfo> devices;
};

/// A byte count as a Python int, or None for "no limit" (SIZE_MAX).
[[nodiscard]] pybind11::object optional_bytes(std::size_t bytes);

/// One prepared model's runtime::MemoryReport as laddu's MemoryDecision dict (its keys first,
/// then laddu-cpp's own numbers): what Execution.memory_decisions() lists and likelihood
/// diagnostics report per dataset.
[[nodiscard]] pybind11::dict memory_decision(const runtime::MemoryReport& report);

/// The host resource as /proc/meminfo describes it now.
[[nodiscard]] MemoryStateInfo discover_memory_state();

/// laddu's MemoryState.report(): {'resources': [...] sorted by id, 'process': {...} or None}.
[[nodiscard]] pybind11::dict memory_state_report(const MemoryStateInfo& state);

/// The host budget of an Execution(memory=) value: an ld.MemoryPlan (its host budget), an
/// ld.MemoryBudget, a byte count or budget text. ValueError otherwise, or for bad text.
[[nodiscard]] runtime::MemoryPlan host_budget(const pybind11::handle& value);

/// The device budget of an ld.MemoryPlan (unlimited for anything else).
[[nodiscard]] runtime::MemoryPlan device_budget(const pybind11::handle& value);

/// MemoryBudget, MemoryPlan, MemoryResource and MemoryState.
void bind_memory(pybind11::module_& module);

}  // namespace laddu::python
