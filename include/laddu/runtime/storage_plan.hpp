// laddu/runtime/storage_plan.hpp: where a prepared model's event cache lives, from the memory
// budget (seed prepare_dataset and MemoryDecision::fit).
//
// Accounting, per process and in bytes: the cache is a fixed part plus cache_bpe per event
// (EventCache::memory_estimate); reading a source costs 2 × source_bpe per event in flight
// (the batch the source returns plus the staging copy it is re-chunked into: the seed's factor
// 2) and the source stream's own decode buffers, read_buffers (EventSource::
// stream_buffer_bytes: a Parquet stream's largest pages and dictionaries, whatever its row
// groups); every worker of a pass holds kernel scratch, together `scratch`. The fixed
// overhead is read_buffers + scratch.
//   resident   fits when resident_cache_plan(cache_fixed, cache_bpe, 2·source_bpe + cache_bpe,
//              events, budget - overhead) exists with room for one whole chunk of reads (a
//              window read into the cache also holds that window's cache until it is placed);
//              its source reads then use windows of whole chunks of the rest.
//   streaming  windows of W events, W the largest multiple of kReductionChunk with
//              cache_fixed + overhead + W·(2·source_bpe + cache_bpe) <= budget (at least one
//              chunk, else a DataError naming that minimum and what it is made of), at most
//              the events rounded up to whole chunks.
//   fastest    resident when it fits, else streaming.
// The plan's peak_bytes is that whole sum, so peak_bytes <= budget whenever a plan is made.
// held_bytes is what stays after prepare: a resident cache with the scratch, or a streaming
// model's fixed part with a window of one chunk; a streaming pass borrows the rest of its window
// from the memory pool while it runs (memory_pool.hpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <laddu/data/event_data.hpp>

namespace laddu::runtime {

/// The bytes a resident cache holds and the largest source batch that still fits.
struct ResidentPlan {
    std::size_t resident_bytes = 0;
    std::size_t chunk = 0;

    friend bool operator==(const ResidentPlan&, const ResidentPlan&) = default;
};

/// The seed's resident_cache_plan: a cache of `events` × `cache_per_event` bytes plus
/// `fixed_per_batch` per source batch, with one batch of `source_per_event` bytes per event in
/// flight, within `available` bytes; nullopt when even that does not fit (saturating
/// arithmetic, overflow is nullopt).
[[nodiscard]] std::optional<ResidentPlan> resident_cache_plan(std::size_t fixed_per_batch,
                                                              std::size_t cache_per_event,
                                                              std::size_t source_per_event,
                                                              std::size_t events,
                                                              std::size_t available) noexcept;

/// What a prepare needs, in bytes, for plan_storage.
struct StorageNeeds {
    std::size_t events = 0;        ///< local events
    std::size_t cache_fixed = 0;   ///< the cache's fixed part (EventCache::memory_estimate(.., 0))
    std::size_t cache_bpe = 0;     ///< cache bytes per event
    std::size_t source_bpe = 0;    ///< bytes per event of the columns read, weight included
    std::size_t read_buffers = 0;  ///< a source stream's decode buffers (stream_buffer_bytes)
    std::size_t scratch = 0;       ///< every worker's kernel scratch during a pass
};

/// What a prepare decided.
struct StoragePlan {
    data::MemoryPolicy policy = data::MemoryPolicy::kResident;  ///< kResident or kStreaming
    std::size_t window_events = 0;  ///< events per cache window (streaming) or source read
    std::size_t peak_bytes = 0;     ///< estimated peak: cache, reads, read buffers and scratch
    /// Held for the model's whole life: resident, the cache and the scratch (the reads end with
    /// prepare); streaming, the fixed part and a window of one chunk (at most the events).
    std::size_t held_bytes = 0;
    /// Streaming: the bytes of each event by which a pass's window exceeds the held one chunk
    /// (reading and cache), which a pass borrows while it runs. 0 when resident.
    std::size_t pass_bytes_per_event = 0;
    std::string decision;  ///< why, with the numbers
};

/// Decides where the cache of `needs.events` events lives under `requested` and `budget` bytes
/// (`budget_text` names it in messages, e.g. "512 MiB"). `budget` is what is available to this
/// plan: when other work already holds `held` bytes of a shared budget (MemoryPool), `budget`
/// is the rest, `budget_text` says who holds what, and the remedy asks for `held` more. Throws
/// DataError, naming the budget, the need (its parts) and the bytes per event, for kResident
/// when the cache does not fit and when not even one window of kReductionChunk events fits for
/// streaming.
[[nodiscard]] StoragePlan plan_storage(data::MemoryPolicy requested, const StorageNeeds& needs,
                                       std::size_t budget, std::string_view budget_text,
                                       std::size_t held = 0);

}  // namespace laddu::runtime
