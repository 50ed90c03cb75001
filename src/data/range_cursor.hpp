// src/data/range_cursor.hpp (private): walks a ReadPlan's ascending event ranges across the
// consecutive fragments (batches, row groups) of a source.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <laddu/data/event_source.hpp>

namespace laddu::data::detail {

/// The pieces of each fragment that fall inside the plan's ranges, in global order.
class RangeCursor {
public:
    /// `ranges` empty means every event of [0, events).
    RangeCursor(std::vector<EventRange> ranges, std::uint64_t events)
        : ranges_(ranges.empty() ? std::vector<EventRange>{{0, events}} : std::move(ranges)) {}

    /// True when global events [begin, end) meet a range not yet passed.
    [[nodiscard]] bool overlaps(std::uint64_t begin, std::uint64_t end) {
        skip_before(begin);
        return next_ < ranges_.size() && ranges_[next_].first < end;
    }

    /// The next piece {first, count} of global events at or after `position` and before `end`,
    /// at most `max_count` long and inside one range; nullopt when there is none.
    [[nodiscard]] std::optional<EventRange> next_piece(std::uint64_t position, std::uint64_t end,
                                                       std::uint64_t max_count) {
        skip_before(position);
        if (next_ >= ranges_.size()) {
            return std::nullopt;
        }
        const std::uint64_t first = std::max(position, ranges_[next_].first);
        if (first >= end) {
            return std::nullopt;
        }
        const std::uint64_t count =
            std::min({max_count, end - first, ranges_[next_].second - first});
        return EventRange{first, count};
    }

    /// True when every range has been passed.
    [[nodiscard]] bool done(std::uint64_t position) {
        skip_before(position);
        return next_ >= ranges_.size();
    }

private:
    void skip_before(std::uint64_t position) {
        while (next_ < ranges_.size() && ranges_[next_].second <= position) {
            ++next_;
        }
    }

    std::vector<EventRange> ranges_;
    std::size_t next_ = 0;
};

}  // namespace laddu::data::detail
