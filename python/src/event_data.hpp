// ld.Dataset: events in memory or read from files when traversed, with laddu's cache policy and
// memory budget.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <pybind11/pybind11.h>

#include <laddu/data/event_data.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/data/root.hpp>
#include <laddu/runtime/execution.hpp>
#include <laddu/runtime/prepared_model.hpp>

namespace laddu::python {

/// What an ld.Dataset holds: the events (data::EventData: a resident data::Dataset or a lazily
/// read source, with the cache= policy) and the memory budget laddu attaches to a dataset,
/// which laddu-cpp keeps in runtime::Execution and applies when a term is built on the events.
struct PyDataset {
    data::EventData events;
    std::optional<runtime::MemoryPlan> memory;
    /// What the runtime last decided about memory when a model was prepared on these events
    /// (laddu's Dataset.memory_decision()); empty until then.
    std::shared_ptr<std::optional<runtime::MemoryReport>> decision =
        std::make_shared<std::optional<runtime::MemoryReport>>();
};

/// Records `report` as the last memory decision of the ld.Dataset `dataset`.
void record_decision(const pybind11::handle& dataset, const runtime::MemoryReport& report);

/// An ld.Dataset over resident events.
[[nodiscard]] PyDataset resident(data::Dataset dataset);

/// The events of an ld.Dataset argument (TypeError naming `what` otherwise); `memory` receives
/// the dataset's budget when it has one.
[[nodiscard]] data::EventData to_event_data(const pybind11::handle& value, const char* what,
                                            std::optional<runtime::MemoryPlan>& memory);

/// The events of an ld.Dataset argument in memory: a resident dataset as it is, a file-backed
/// one read whole (for the operations that need every event at once).
[[nodiscard]] data::Dataset to_resident(const pybind11::handle& value, const char* what);

/// The events of `dataset` in memory (read whole when file-backed), with the GIL released.
[[nodiscard]] data::Dataset to_resident(const PyDataset& dataset);

/// read_parquet's and from_batches' cache= (laddu's names, trimmed, any case; ValueError
/// otherwise).
[[nodiscard]] data::MemoryPolicy cache_policy(std::string_view text);

/// read_parquet's and from_batches' memory=: None, a MemoryBudget, a byte count or budget text
/// (ValueError otherwise).
[[nodiscard]] std::optional<runtime::MemoryPlan> memory_plan(const pybind11::object& memory);

/// `execution` (default: Execution{}) with the data's memory budget applied, in a memory pool
/// of its own, when the execution has no budget.
[[nodiscard]] runtime::Execution
with_data_memory(const std::optional<runtime::Execution>& execution,
                 const std::optional<runtime::MemoryPlan>& memory);

/// laddu's ParquetSink(path, precision='f64'|'f32'): where Dataset.write_to and
/// Generator.weighted_to write.
struct ParquetSink {
    std::string path;
    std::string precision = "f64";

    /// The writer options of the precision.
    [[nodiscard]] data::ParquetWriteOptions options() const {
        data::ParquetWriteOptions o;
        if (precision == "f32") {
            o.precision = data::ColumnType::kFloat32;
        }
        return o;
    }
};

/// laddu's RootSink(path, tree='tree', precision='f64'|'f32'): a flat TTree for
/// Dataset.write_to and Generator.weighted_to.
struct RootSink {
    std::string path;
    std::string tree = "tree";
    std::string precision = "f64";

    /// The writer options of the tree name and precision.
    [[nodiscard]] data::RootWriteOptions options() const {
        data::RootWriteOptions o;
        o.tree = tree;
        if (precision == "f32") {
            o.precision = data::ColumnType::kFloat32;
        }
        return o;
    }
};

}  // namespace laddu::python
