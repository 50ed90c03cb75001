#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/data/event_source.hpp>

#include "range_cursor.hpp"

namespace laddu::data {

namespace {

class MemoryStream final : public BatchStream {
public:
    MemoryStream(std::shared_ptr<const std::vector<EventBatch>> batches,
                 std::shared_ptr<const Schema> projected, bool project, std::size_t chunk,
                 detail::RangeCursor cursor)
        : batches_(std::move(batches)), projected_(std::move(projected)), project_(project),
          chunk_(chunk), cursor_(std::move(cursor)) {}

    std::optional<EventBatch> next() override {
        while (index_ < batches_->size()) {
            const EventBatch& batch = (*batches_)[index_];
            const auto piece = cursor_.next_piece(start_ + row_, start_ + batch.size(), chunk_);
            if (!piece) {
                start_ += batch.size();
                ++index_;
                row_ = 0;
                continue;
            }
            const auto first = static_cast<std::size_t>(piece->first - start_);
            const auto count = static_cast<std::size_t>(piece->second);
            EventBatch slice = batch.slice(first, count);
            row_ = first + count;
            if (project_) {
                return project_batch(slice, projected_);
            }
            return slice;
        }
        return std::nullopt;
    }

private:
    std::shared_ptr<const std::vector<EventBatch>> batches_;
    std::shared_ptr<const Schema> projected_;
    bool project_;
    std::size_t chunk_;
    detail::RangeCursor cursor_;
    std::size_t index_ = 0;
    std::size_t row_ = 0;
    std::uint64_t start_ = 0;  ///< global index of batch index_'s first event
};

}  // namespace

void check_read_plan(const ReadPlan& plan, std::uint64_t events) {
    if (plan.chunk_size == 0) {
        throw DataError("ReadPlan::chunk_size must be positive");
    }
    std::uint64_t previous_end = 0;
    for (std::size_t i = 0; i < plan.ranges.size(); ++i) {
        const auto [first, end] = plan.ranges[i];
        if (first >= end || end > events || (i > 0 && first < previous_end)) {
            throw DataError(fmt::format(
                "ReadPlan::ranges[{}] = [{}, {}) is not valid for a source of {} events: ranges "
                "must be non-empty, ascending, disjoint and within the source",
                i, first, end, events));
        }
        previous_end = end;
    }
}

std::vector<std::size_t> EventSource::fragment_sizes() const {
    return {static_cast<std::size_t>(num_events())};
}

std::size_t EventSource::stream_buffer_bytes(const ReadPlan& plan) const {
    check_read_plan(plan, num_events());
    return 0;
}

std::vector<std::size_t> MemorySource::fragment_sizes() const {
    std::vector<std::size_t> sizes;
    for (const EventBatch& batch : *batches_) {
        sizes.push_back(batch.size());
    }
    return sizes;
}

MemorySource::MemorySource(std::shared_ptr<const Schema> schema, std::vector<EventBatch> batches)
    : schema_(std::move(schema)) {
    for (const EventBatch& batch : batches) {
        if (!(batch.schema() == *schema_)) {
            throw DataError(fmt::format("MemorySource: a batch has schema {} but the source has {}",
                                        batch.schema().describe(), schema_->describe()));
        }
        num_events_ += batch.size();
    }
    batches_ = std::make_shared<const std::vector<EventBatch>>(std::move(batches));
}

std::unique_ptr<BatchStream> MemorySource::read(const ReadPlan& plan) const {
    check_read_plan(plan, num_events_);
    auto projected = std::make_shared<const Schema>(schema_->project(plan.columns));
    return std::make_unique<MemoryStream>(batches_, projected, !plan.columns.empty(),
                                          plan.chunk_size,
                                          detail::RangeCursor(plan.ranges, num_events_));
}

std::vector<EventBatch> read_all(const EventSource& source, const ReadPlan& plan) {
    std::vector<EventBatch> out;
    const std::unique_ptr<BatchStream> stream = source.read(plan);
    while (auto batch = stream->next()) {
        out.push_back(std::move(*batch));
    }
    return out;
}

EventBatch project_batch(const EventBatch& batch, std::shared_ptr<const Schema> projected) {
    const Schema& from = batch.schema();
    std::vector<AlignedVector<double>> columns;
    const auto copy = [&](std::span<const double> values) {
        columns.emplace_back(values.begin(), values.end());
    };
    for (const std::string& p4 : projected->p4_names()) {
        const std::size_t index = from.require_p4(p4);
        for (std::size_t c = 0; c < 4; ++c) {
            copy(batch.p4_component(index, c));
        }
    }
    for (const std::string& scalar : projected->scalar_names()) {
        copy(batch.scalar(from.require_scalar(scalar)));
    }
    copy(batch.weights());
    return EventBatch(std::move(projected), std::move(columns));
}

}  // namespace laddu::data
