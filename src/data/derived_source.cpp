#include "derived_source.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/data/dataset.hpp>

namespace laddu::data::detail {

namespace {

// Emits the derived rows of each base batch. The base is read over the base span of every
// requested derived range, and every source yields batches that stay inside one range, so the
// base position advances range by range and each batch is matched to the derived rows it holds.
class DerivedStream final : public BatchStream {
public:
    DerivedStream(std::shared_ptr<const std::vector<std::uint64_t>> rows,
                  std::shared_ptr<const std::vector<std::uint64_t>> replica,
                  std::vector<std::uint64_t> seeds, std::vector<EventRange> derived,
                  std::vector<EventRange> base_ranges, std::unique_ptr<BatchStream> base)
        : rows_(std::move(rows)), replica_(std::move(replica)), seeds_(std::move(seeds)),
          derived_(std::move(derived)), base_ranges_(std::move(base_ranges)),
          base_(std::move(base)) {
        if (!derived_.empty()) {
            next_row_ = derived_.front().first;
        }
        if (!base_ranges_.empty()) {
            position_ = base_ranges_.front().first;
        }
    }

    std::optional<EventBatch> next() override {
        while (true) {
            std::optional<EventBatch> batch = base_->next();
            if (!batch) {
                return std::nullopt;
            }
            if (position_ == base_ranges_[range_].second) {
                ++range_;
                if (range_ >= base_ranges_.size()) {
                    throw DataError("a derived source's base yielded more events than the ranges "
                                    "it was asked for");
                }
                position_ = base_ranges_[range_].first;
            }
            const std::uint64_t begin = position_;
            const std::uint64_t end = begin + batch->size();
            position_ = end;
            EventBatch out = derive(*batch, begin, end);
            if (!out.empty()) {
                return out;
            }
        }
    }

private:
    // The rows of `batch` (base events [begin, end)) that the derived source takes, with their
    // bootstrap multiplicities applied to the weights.
    EventBatch derive(const EventBatch& batch, std::uint64_t begin, std::uint64_t end) {
        match_rows(begin, end);
        if (local_.size() == batch.size() && seeds_.empty()) {
            return batch;
        }
        std::vector<AlignedVector<double>> columns(batch.schema().n_batch_columns());
        for (std::size_t c = 0; c < columns.size(); ++c) {
            const auto column = batch.column_at(c);
            columns[c].resize(local_.size());
            for (std::size_t i = 0; i < local_.size(); ++i) {
                columns[c][i] = column[local_[i]];
            }
        }
        AlignedVector<double>& weights = columns.back();
        for (const std::uint64_t seed : seeds_) {
            for (std::size_t i = 0; i < weights.size(); ++i) {
                const std::uint64_t row = derived_rows_[i];
                const std::uint64_t replica = replica_ ? (*replica_)[row] : row;
                weights[i] *= static_cast<double>(bootstrap_multiplicity(seed, replica));
            }
        }
        return EventBatch(batch.schema_ptr(), std::move(columns));
    }

    // Fills local_ (rows within the batch) and derived_rows_ (their derived rows) for the base
    // events [begin, end), walking the requested derived ranges in step with the base.
    void match_rows(std::uint64_t begin, std::uint64_t end) {
        local_.clear();
        derived_rows_.clear();
        if (!rows_) {
            for (std::uint64_t g = begin; g < end; ++g) {
                local_.push_back(static_cast<std::size_t>(g - begin));
                derived_rows_.push_back(g);
            }
            next_row_ = end;
            return;
        }
        while (derived_index_ < derived_.size()) {
            if (next_row_ == derived_[derived_index_].second) {
                if (++derived_index_ == derived_.size()) {
                    return;
                }
                next_row_ = derived_[derived_index_].first;
            }
            const std::uint64_t base_row = (*rows_)[next_row_];
            if (base_row >= end) {
                return;
            }
            if (base_row >= begin) {  // always: the base spans only the rows taken
                local_.push_back(static_cast<std::size_t>(base_row - begin));
                derived_rows_.push_back(next_row_);
            }
            ++next_row_;
        }
    }

    std::shared_ptr<const std::vector<std::uint64_t>> rows_;
    std::shared_ptr<const std::vector<std::uint64_t>> replica_;
    std::vector<std::uint64_t> seeds_;
    std::vector<EventRange> derived_;
    std::vector<EventRange> base_ranges_;
    std::unique_ptr<BatchStream> base_;
    std::size_t range_ = 0;          ///< the base range being read
    std::uint64_t position_ = 0;     ///< the base row of the next base batch's first event
    std::size_t derived_index_ = 0;  ///< the derived range being emitted
    std::uint64_t next_row_ = 0;     ///< the next derived row to emit
    std::vector<std::size_t> local_;
    std::vector<std::uint64_t> derived_rows_;
};

}  // namespace

DerivedSource::DerivedSource(std::shared_ptr<const EventSource> base,
                             std::shared_ptr<const std::vector<std::uint64_t>> rows,
                             std::shared_ptr<const std::vector<std::uint64_t>> replica,
                             std::vector<std::uint64_t> bootstrap_seeds)
    : base_(std::move(base)), rows_(std::move(rows)), replica_(std::move(replica)),
      seeds_(std::move(bootstrap_seeds)) {
    if (base_ == nullptr) {
        throw DataError("a derived source needs a base source, got nullptr");
    }
    if (replica_ && replica_->size() != num_events()) {
        throw DataError(fmt::format("a derived source of {} events got {} replica indices",
                                    num_events(), replica_->size()));
    }
}

std::uint64_t DerivedSource::num_events() const {
    return rows_ ? rows_->size() : base_->num_events();
}

std::unique_ptr<BatchStream> DerivedSource::read(const ReadPlan& plan) const {
    check_read_plan(plan, num_events());
    std::vector<EventRange> derived = plan.ranges;
    if (derived.empty() && num_events() > 0) {
        derived.emplace_back(0, num_events());
    }
    std::vector<EventRange> base_ranges;
    for (const auto& [first, end] : derived) {
        if (rows_) {
            base_ranges.emplace_back((*rows_)[first], (*rows_)[end - 1] + 1);
        } else {
            base_ranges.emplace_back(first, end);
        }
    }
    if (base_ranges.empty()) {  // nothing to read: an empty range list would mean "all"

        class Empty final : public BatchStream {
        public:
            std::optional<EventBatch> next() override { return std::nullopt; }
        };

        return std::make_unique<Empty>();
    }
    ReadPlan base_plan = plan;
    base_plan.ranges = base_ranges;
    return std::make_unique<DerivedStream>(rows_, replica_, seeds_, std::move(derived),
                                           std::move(base_ranges), base_->read(base_plan));
}

std::vector<std::size_t> DerivedSource::fragment_sizes() const {
    std::vector<std::size_t> base = base_->fragment_sizes();
    if (!rows_) {
        return base;
    }
    std::vector<std::size_t> out;
    std::uint64_t fragment_end = 0;
    std::size_t next = 0;
    for (const std::size_t size : base) {
        fragment_end += size;
        std::size_t count = 0;
        while (next < rows_->size() && (*rows_)[next] < fragment_end) {
            ++count;
            ++next;
        }
        if (count > 0) {
            out.push_back(count);
        }
    }
    return out;
}

std::size_t DerivedSource::stream_buffer_bytes(const ReadPlan& plan) const {
    check_read_plan(plan, num_events());
    ReadPlan base_plan = plan;
    base_plan.ranges = {};
    const std::size_t columns = schema().project(plan.columns).n_batch_columns();
    return base_->stream_buffer_bytes(base_plan) + plan.chunk_size * columns * sizeof(double);
}

}  // namespace laddu::data::detail
