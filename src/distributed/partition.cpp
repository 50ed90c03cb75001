#include <algorithm>
#include <string>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/distributed/partition.hpp>
#include <laddu/runtime/reduce.hpp>

namespace laddu::distributed {

Partitioning parse_partitioning(std::string_view text) {
    if (text == "contiguous" || text == "auto") {
        return Partitioning::kContiguous;
    }
    if (text == "rows") {
        return Partitioning::kRows;
    }
    if (text == "file_groups") {
        return Partitioning::kFileGroups;
    }
    throw ModelError(fmt::format(
        "unknown partitioning '{}'; use 'contiguous', 'rows', 'file_groups' or 'auto'", text));
}

std::pair<std::size_t, std::size_t> EventShare::chunk_range(std::size_t i,
                                                            std::size_t total) const {
    const std::size_t begin = chunks.at(i) * runtime::kReductionChunk;
    return {begin, std::min(total, begin + runtime::kReductionChunk)};
}

EventShare partition_events(std::size_t total, int rank, int size, Partitioning partitioning,
                            std::span<const std::size_t> fragments) {
    if (size <= 0 || rank < 0 || rank >= size) {
        throw ModelError(fmt::format("rank {} is not in a world of {} ranks", rank, size));
    }
    const auto ranks = static_cast<std::size_t>(size);
    const auto me = static_cast<std::size_t>(rank);
    const std::size_t n_chunks = (total + runtime::kReductionChunk - 1) / runtime::kReductionChunk;
    EventShare share;
    switch (partitioning) {
    case Partitioning::kContiguous: {
        const std::size_t base = n_chunks / ranks;
        const std::size_t extra = n_chunks % ranks;
        const std::size_t begin = me * base + std::min(me, extra);
        const std::size_t count = base + (me < extra ? 1 : 0);
        for (std::size_t c = begin; c < begin + count; ++c) {
            share.chunks.push_back(c);
        }
        break;
    }
    case Partitioning::kRows:
        for (std::size_t c = me; c < n_chunks; c += ranks) {
            share.chunks.push_back(c);
        }
        break;
    case Partitioning::kFileGroups: {
        std::size_t sum = 0;
        for (const std::size_t f : fragments) {
            sum += f;
        }
        if (sum != total) {
            throw DataError(fmt::format("file_groups partitioning needs fragment sizes that add up "
                                        "to the {} events; they add up to {}",
                                        total, sum));
        }
        // Fragment f belongs to rank f mod size; a chunk to the owner of its first event.
        std::size_t fragment = 0;
        std::size_t fragment_end = fragments.empty() ? 0 : fragments[0];
        for (std::size_t c = 0; c < n_chunks; ++c) {
            const std::size_t first = c * runtime::kReductionChunk;
            while (first >= fragment_end && fragment + 1 < fragments.size()) {
                ++fragment;
                fragment_end += fragments[fragment];
            }
            if (fragment % ranks == me) {
                share.chunks.push_back(c);
            }
        }
        break;
    }
    }
    for (std::size_t i = 0; i < share.chunks.size(); ++i) {
        const auto [begin, end] = share.chunk_range(i, total);
        share.events += end - begin;
    }
    return share;
}

}  // namespace laddu::distributed
