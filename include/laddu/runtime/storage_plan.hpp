// laddu/runtime/storage_plan.hpp: where a prepared model's event cache lives, from the memory
// budget (seed prepare_dataset and MemoryDecision::fit).
//
// Accounting, per process and in bytes: the cache is a fixed part plus cache_bpe per event
// (EventCache::memory_estimate); reading a source costs 2 × source_bpe per event in flight
// (the decoded batch plus the staging copy it is re-chunked into: the seed's factor 2).
//   resident   fits when resident_cache_plan(cache_fixed, cache_bpe, 2·source_bpe, events,
//              budget) exists; its source reads then use windows of the remaining budget.
//   streaming  windows of W events, W the largest multiple of kReductionChunk with
//              cache_fixed + W·(2·source_bpe + cache_bpe) <= budget (at least one chunk,
//              else a DataError), at most the events rounded up to whole chunks.
//   fastest    resident when it fits, else streaming.
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

/// What a prepare decided.
struct StoragePlan {
    data::MemoryPolicy policy = data::MemoryPolicy::kResident;  ///< kResident or kStreaming
    std::size_t window_events = 0;  ///< events per cache window (streaming) or source read
    std::size_t peak_bytes = 0;     ///< estimated peak of cache plus reads
    std::string decision;           ///< why, with the numbers
};

/// Decides where the cache of `events` events lives under `requested` and `budget` bytes
/// (`budget_text` names it in messages, e.g. "512 MiB"). Throws DataError, naming the budget,
/// the need and the bytes per event, for kResident when the cache does not fit and when not
/// even one window of kReductionChunk events fits for streaming.
[[nodiscard]] StoragePlan plan_storage(data::MemoryPolicy requested, std::size_t cache_fixed,
                                       std::size_t cache_bpe, std::size_t source_bpe,
                                       std::size_t events, std::size_t budget,
                                       std::string_view budget_text);

}  // namespace laddu::runtime
