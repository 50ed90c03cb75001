// laddu/runtime/event_windows.hpp: the events a process owns, read window by window.
//
// EventWindows resolves a program's event inputs ("p.px" is component px of four-momentum p;
// any other name is a scalar) in an EventData, works out which global reduction chunks this
// process owns (all of them, or Collective::owned_chunks()), and hands out the owned ("local")
// events as consecutive windows of whole chunks. A resident dataset's windows are views of its
// columns; a source is read once per pass through ReadPlan::ranges (only the owned events) and
// re-chunked through a staging buffer, so a window always starts at a local chunk boundary and
// its chunks are exactly the global chunks of the single-process event order.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <laddu/data/dataset.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/ir/columns.hpp>
#include <laddu/runtime/collective.hpp>

namespace laddu::runtime {

/// Consecutive local events [first_chunk · kReductionChunk, + events) and their columns.
struct EventWindow {
    std::size_t first_chunk = 0;  ///< the local chunk index of the window's first event
    std::size_t events = 0;
    std::span<const std::span<const double>> columns;  ///< one per input, `events` values each
    std::span<const double> weights;

    /// The columns as program inputs (Real columns; view them with `events`).
    [[nodiscard]] std::vector<ir::InputColumn> input_columns() const;
};

/// The owned events of an EventData for a list of event inputs.
class EventWindows {
public:
    /// Resolves `inputs` in `data`'s schema and the owned chunks (`collective` may be null:
    /// every chunk). Throws DataError naming every missing input and what `what` (e.g. "the
    /// dataset") has. Not a collective call.
    [[nodiscard]] static EventWindows open(const data::EventData& data,
                                           std::span<const std::string> inputs,
                                           const Collective* collective,
                                           std::string_view what = "the dataset");

    /// Events in the whole data set (every process).
    [[nodiscard]] std::size_t global_events() const noexcept { return global_events_; }

    /// Events this process owns.
    [[nodiscard]] std::size_t local_events() const noexcept { return local_events_; }

    /// Reduction chunks of the whole data set.
    [[nodiscard]] std::size_t global_chunks() const noexcept;

    /// The global chunk index of each local chunk, ascending.
    [[nodiscard]] const std::vector<std::size_t>& owned_chunks() const noexcept { return owned_; }

    /// The global index of local event `local`.
    [[nodiscard]] std::size_t global_event(std::size_t local) const noexcept;

    /// Bytes per event of the columns read from the source: 8 per column read (4 per
    /// four-momentum, 1 per scalar) plus 8 for the weight.
    [[nodiscard]] std::size_t source_bytes_per_event() const noexcept { return source_bpe_; }

    /// The most bytes a read of the local events holds besides its batches: the source's
    /// decode buffers (EventSource::stream_buffer_bytes for the projection and the owned
    /// ranges); 0 for a resident dataset or no local events. Computed when opened.
    [[nodiscard]] std::size_t read_buffer_bytes() const noexcept { return read_buffers_; }

    /// True when the events are a resident dataset (windows are views, nothing is read).
    [[nodiscard]] bool is_resident() const noexcept { return resident_ != nullptr; }

    /// Calls fn for consecutive windows of `window_events` local events (the last may be
    /// shorter), in order; `window_events` is rounded up to a positive multiple of
    /// kReductionChunk. A source is read once (batches of at most `window_events`). A window
    /// holding a NaN or infinite weight is a DataError naming the event (global index).
    void for_each(std::size_t window_events,
                  const std::function<void(const EventWindow&)>& visit) const;

    /// Calls `visit` once with the window holding only local chunk `local_chunk` (weights
    /// checked as for_each checks them).
    void read_chunk(std::size_t local_chunk,
                    const std::function<void(const EventWindow&)>& visit) const;

private:
    EventWindows() = default;

    // DataError naming the first event of `window` whose weight is not finite.
    void check_weights(const EventWindow& window) const;

    // The read of every owned event: the projection and the owned ranges.
    [[nodiscard]] data::ReadPlan read_plan() const;

    void stream(std::vector<data::EventRange> ranges, std::size_t first_chunk,
                std::size_t window_events, const std::function<void(const EventWindow&)>& fn) const;

    std::shared_ptr<const data::Dataset> resident_;    ///< the local events, when resident
    std::shared_ptr<const data::EventSource> source_;  ///< otherwise the source
    std::vector<std::string> projection_;              ///< the logical columns to read
    std::vector<std::string> inputs_;
    std::vector<std::size_t> resident_columns_;  ///< batch column of each input (resident)
    std::vector<std::size_t> owned_;
    std::vector<data::EventRange> ranges_;  ///< global ranges of the owned chunks, merged
    std::size_t global_events_ = 0;
    std::size_t local_events_ = 0;
    std::size_t source_bpe_ = 0;
    std::size_t read_buffers_ = 0;
};

}  // namespace laddu::runtime
