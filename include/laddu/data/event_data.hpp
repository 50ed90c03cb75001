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
#include <functional>
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

    /// True when `other` holds these very events: it shares this one's dataset storage or
    /// source (a copy, or with_policy()). Equal events in separate storage are not the same.
    [[nodiscard]] bool same_events(const EventData& other) const noexcept {
        return dataset_ != nullptr ? dataset_ == other.dataset_ : source_ == other.source_;
    }

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

    /// Calls `visit(batch, first)` for every batch of `plan`, in order; `first` is the index of
    /// the batch's first event among the events read (its row when plan.ranges is empty).
    void for_each_batch(const ReadPlan& plan,
                        const std::function<void(const EventBatch&, std::uint64_t)>& visit) const;

    /// The event weights, in order (read batch by batch from a source).
    [[nodiscard]] std::vector<double> weights() const;

    /// The compensated sum of the weights, the same bits as Dataset::sum_weights.
    [[nodiscard]] double sum_weights() const;

    /// The counter that bootstrap() and subsample() draw with for event `row` (see
    /// Dataset::replica_index): subsample and bootstrap keep an event's index, take() starts
    /// a new dataset whose index is the row.
    [[nodiscard]] std::uint64_t replica_index(std::uint64_t row) const;

    /// The events `rows` (ascending, each below num_events()), in order, as a new dataset under
    /// the same policy. Resident events are copied; for a source only the row numbers are kept
    /// (8 bytes per event) and the events are read when the result is traversed.
    [[nodiscard]] EventData take(std::vector<std::uint64_t> rows) const;

    /// laddu's subsample: keeps event i when counter_uniform(seed, replica_index(i)) < fraction
    /// (a DataError unless 0 <= fraction <= 1). A source is not read: the kept row numbers are
    /// computed from the counter alone.
    [[nodiscard]] EventData subsample(double fraction, std::uint64_t seed) const;

    /// laddu's Poisson bootstrap (Dataset::bootstrap); for a source the multiplicities are
    /// applied as the events are read.
    [[nodiscard]] EventData bootstrap(std::uint64_t seed) const;

private:
    EventData() = default;

    std::shared_ptr<const Dataset> dataset_;     ///< set for resident data
    std::shared_ptr<const EventSource> source_;  ///< set for lazily read data
    MemoryPolicy policy_ = MemoryPolicy::kFastest;
};

}  // namespace laddu::data
