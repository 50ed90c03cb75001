// laddu/data/event_source.hpp: where events come from, behind one interface.
//
// An EventSource has a schema and an exact event count and streams EventBatch chunks for a
// ReadPlan. Implementations: MemorySource (batches held in memory), ParquetSource
// (parquet.hpp) and RootSource (root.hpp); another reader can be swapped in by implementing the
// three functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <laddu/data/event_batch.hpp>
#include <laddu/data/schema.hpp>

namespace laddu::data {

/// The default number of events per batch.
inline constexpr std::size_t kDefaultChunkSize = 65536;

/// A half-open range [first, second) of global event indices.
using EventRange = std::pair<std::uint64_t, std::uint64_t>;

/// How to traverse a source: batch size, column projection and the events to read.
struct ReadPlan {
    /// Maximum events per batch (batches never span a file's row groups or a range, so some are
    /// shorter).
    std::size_t chunk_size = kDefaultChunkSize;
    /// Logical p4 and scalar names (or aliases) to read; empty reads every column. The weight is
    /// always read. Only the projected columns' bytes are read from a file.
    std::vector<std::string> columns;
    /// The global event ranges to read, ascending and disjoint, each non-empty and within the
    /// source; empty reads every event. A ParquetSource decodes only the row groups that
    /// overlap a range and trims the ones that overlap partly (how an MPI rank reads only its
    /// share of the files).
    std::vector<EventRange> ranges = {};
};

/// Throws DataError unless `plan.chunk_size` is positive and `plan.ranges` are ascending,
/// disjoint, non-empty and within [0, events).
void check_read_plan(const ReadPlan& plan, std::uint64_t events);

/// A one-pass stream of batches from a source.
class BatchStream {
public:
    BatchStream() = default;
    BatchStream(const BatchStream&) = delete;
    BatchStream& operator=(const BatchStream&) = delete;
    BatchStream(BatchStream&&) = delete;
    BatchStream& operator=(BatchStream&&) = delete;
    virtual ~BatchStream() = default;

    /// The next batch, or nullopt when the source is exhausted. Read errors are DataError.
    [[nodiscard]] virtual std::optional<EventBatch> next() = 0;
};

/// A source of events (a file set, arrays in memory, ...). Implementations are immutable and
/// may be read by several streams at once.
class EventSource {
public:
    EventSource() = default;
    EventSource(const EventSource&) = default;
    EventSource& operator=(const EventSource&) = default;
    EventSource(EventSource&&) = default;
    EventSource& operator=(EventSource&&) = default;
    virtual ~EventSource() = default;

    /// The full (unprojected) schema.
    [[nodiscard]] virtual const Schema& schema() const = 0;

    /// The exact number of events.
    [[nodiscard]] virtual std::uint64_t num_events() const = 0;

    /// Starts a pass over the events; batches have schema().project(plan.columns).
    [[nodiscard]] virtual std::unique_ptr<BatchStream> read(const ReadPlan& plan) const = 0;

    /// The sizes of the source's natural read units (a ParquetSource's row groups, in global
    /// order), summing to num_events(); the default is one fragment of every event.
    [[nodiscard]] virtual std::vector<std::size_t> fragment_sizes() const;

    /// The most bytes a stream of `plan` holds at once besides the batches it returns (at most
    /// `plan.chunk_size` events of the projected columns each): decode buffers, whatever the
    /// chunk size. A memory budget counts them (runtime/storage_plan.hpp). The default is 0: a
    /// stream that holds nothing but its batches.
    [[nodiscard]] virtual std::size_t stream_buffer_bytes(const ReadPlan& plan) const;
};

/// An EventSource over batches already in memory (all of one schema).
class MemorySource final : public EventSource {
public:
    /// The batches must all have `schema` (else DataError).
    MemorySource(std::shared_ptr<const Schema> schema, std::vector<EventBatch> batches);

    [[nodiscard]] const Schema& schema() const override { return *schema_; }

    [[nodiscard]] std::uint64_t num_events() const override { return num_events_; }

    [[nodiscard]] std::unique_ptr<BatchStream> read(const ReadPlan& plan) const override;

    /// The sizes of the batches.
    [[nodiscard]] std::vector<std::size_t> fragment_sizes() const override;

private:
    std::shared_ptr<const Schema> schema_;
    std::shared_ptr<const std::vector<EventBatch>> batches_;
    std::uint64_t num_events_ = 0;
};

/// Reads every batch of `source` with `plan`.
[[nodiscard]] std::vector<EventBatch> read_all(const EventSource& source,
                                               const ReadPlan& plan = {});

/// Copies the projected columns of `batch` into a batch of `projected` (a projection of the
/// batch's schema), sharing nothing. Used by sources that cannot project at read time.
[[nodiscard]] EventBatch project_batch(const EventBatch& batch,
                                       std::shared_ptr<const Schema> projected);

}  // namespace laddu::data
