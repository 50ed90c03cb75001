// laddu/data/event_data.hpp: the events a model is prepared on, and how they may be held.
//
// EventData is either a resident Dataset or an EventSource read lazily (a set of Parquet
// files), together with a MemoryPolicy saying whether the runtime keeps the model's event
// cache in memory (kResident), rebuilds it window by window on every pass (kStreaming), or
// picks whichever fits the memory budget (kFastest). A Dataset converts implicitly, so every
// function taking EventData also takes a Dataset.
//
// Example:
//   auto source =
//   std::make_shared<data::ParquetSource>(std::vector<std::string>{"data/*.parquet"}); auto events
//   = data::EventData::from_source(source, data::MemoryPolicy::kStreaming);
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include <laddu/data/dataset.hpp>
#include <laddu/data/event_source.hpp>
#include <laddu/data/schema.hpp>

namespace laddu::data {

/// Where a prepared model keeps its event cache (laddu's MemoryPolicy).
enum class MemoryPolicy : std::uint8_t {
    kFastest,    ///< resident when the cache fits the memory budget, else streaming
    kResident,   ///< the whole cache in memory; a DataError when it does not fit
    kStreaming,  ///< re-read and re-cache the events window by window on every pass
};

/// Parses "fastest", "resident" or "streaming" (ModelError naming the text and the choices).
[[nodiscard]] MemoryPolicy parse_memory_policy(std::string_view text);

/// "fastest", "resident" or "streaming".
[[nodiscard]] std::string_view memory_policy_name(MemoryPolicy policy) noexcept;

/// The events a model is prepared on: a resident Dataset or a lazily read EventSource, with a
/// MemoryPolicy. Cheap to copy (shares the dataset storage or the source).
class EventData {
public:
    /// A resident dataset under kFastest (its events are already in memory).
    EventData(const Dataset& dataset)  // NOLINT(google-explicit-constructor): keeps Dataset callers
        : EventData(dataset, MemoryPolicy::kFastest) {}

    /// A resident dataset under `policy`.
    EventData(const Dataset& dataset, MemoryPolicy policy);

    /// Events read from `source` when needed (DataError for a null source).
    [[nodiscard]] static EventData from_source(std::shared_ptr<const EventSource> source,
                                               MemoryPolicy policy = MemoryPolicy::kFastest);

    /// The same events under another policy.
    [[nodiscard]] EventData with_policy(MemoryPolicy policy) const;

    /// The memory policy.
    [[nodiscard]] MemoryPolicy policy() const noexcept { return policy_; }

    /// The number of events.
    [[nodiscard]] std::uint64_t num_events() const;

    /// The full schema.
    [[nodiscard]] const Schema& schema() const;

    /// The sizes of the natural read units (row groups of a ParquetSource; one fragment of a
    /// resident dataset), in global order, summing to num_events().
    [[nodiscard]] std::vector<std::size_t> fragment_sizes() const;

    /// The resident dataset, or nullptr when the events come from a source.
    [[nodiscard]] const Dataset* dataset() const noexcept;

    /// The source: the one given, or a MemorySource over the resident dataset.
    [[nodiscard]] std::shared_ptr<const EventSource> source() const;

    /// Every event (or those of plan.ranges, projected by plan.columns) as a resident dataset.
    [[nodiscard]] Dataset materialize(const ReadPlan& plan = {}) const;

private:
    EventData() = default;

    std::shared_ptr<const Dataset> dataset_;     ///< set for resident data
    std::shared_ptr<const EventSource> source_;  ///< set for lazily read data
    MemoryPolicy policy_ = MemoryPolicy::kFastest;
};

}  // namespace laddu::data
