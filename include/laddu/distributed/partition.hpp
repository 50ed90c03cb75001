// laddu/distributed/partition.hpp: which events each rank owns.
//
// Reductions are bit-identical to a single process only if every reduction chunk
// (runtime::kReductionChunk events of the global event order) is summed whole by one rank, so
// partitions are made of whole chunks:
//   kContiguous  contiguous runs of chunks, as equal as possible (laddu's "contiguous");
//   kRows        chunks dealt round-robin, chunk c to rank c mod size (laddu's "rows", strided
//                in units of a chunk);
//   kFileGroups  fragments (Parquet row groups or files, given by their sizes) dealt
//                round-robin; a chunk goes to the rank owning the fragment that holds its
//                first event, so a rank reads its own fragments plus boundary pieces.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace laddu::distributed {

/// How events are split across ranks.
enum class Partitioning : unsigned char { kContiguous, kRows, kFileGroups };

/// Parses "contiguous", "rows" or "file_groups" (ModelError otherwise, listing them).
[[nodiscard]] Partitioning parse_partitioning(std::string_view text);

/// A rank's share: the global chunk indices it owns, ascending, and their event ranges.
struct EventShare {
    std::vector<std::size_t> chunks;  ///< global chunk indices, ascending
    std::size_t events = 0;           ///< events in those chunks

    /// The global [begin, end) event range of the i-th owned chunk.
    [[nodiscard]] std::pair<std::size_t, std::size_t> chunk_range(std::size_t i,
                                                                  std::size_t total) const;
};

/// The share of `rank` among `size` ranks of `total` events. `fragments` (event counts that sum
/// to `total`) is required for kFileGroups and ignored otherwise.
[[nodiscard]] EventShare partition_events(std::size_t total, int rank, int size,
                                          Partitioning partitioning,
                                          std::span<const std::size_t> fragments = {});

}  // namespace laddu::distributed
