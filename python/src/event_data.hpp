// ld.EventData: events read lazily from Parquet with laddu's cache policy and memory budget.
#pragma once

#include <optional>

#include <pybind11/pybind11.h>

#include <laddu/data/event_data.hpp>
#include <laddu/runtime/execution.hpp>

namespace laddu::python {

/// What ld.read_parquet(path, memory=, cache=) returns: the events (data::EventData, whose
/// policy is the cache= choice) and the memory budget laddu attaches to a dataset, which
/// laddu-cpp keeps in runtime::Execution and applies when a term is built on these events.
struct LazyEvents {
    data::EventData events;
    std::optional<runtime::MemoryPlan> memory;
};

/// A term's events from a Python ld.Dataset or ld.EventData (TypeError otherwise); `memory`
/// receives an EventData's budget when it has one.
[[nodiscard]] data::EventData to_event_data(const pybind11::handle& value, const char* what,
                                            std::optional<runtime::MemoryPlan>& memory);

/// `execution` (default: Execution{}) with the data's memory budget applied, in a memory pool
/// of its own, when the execution has no budget.
[[nodiscard]] runtime::Execution
with_data_memory(const std::optional<runtime::Execution>& execution,
                 const std::optional<runtime::MemoryPlan>& memory);

}  // namespace laddu::python
