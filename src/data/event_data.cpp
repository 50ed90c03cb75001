#include <fmt/format.h>

#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/error.hpp>
#include <laddu/data/event_data.hpp>

#include "derived_source.hpp"

namespace laddu::data {

namespace {

// Reads the weights and as little else as a projection allows: an empty column list means
// every column, so the plan names the narrowest one (a scalar, else a four-momentum).
ReadPlan weight_plan(const Schema& schema) {
    ReadPlan plan;
    if (schema.n_scalars() > 0) {
        plan.columns = {schema.scalar_names().front()};
    } else if (schema.n_p4s() > 0) {
        plan.columns = {schema.p4_names().front()};
    }
    return plan;
}

}  // namespace

MemoryPolicy parse_memory_policy(std::string_view text) {
    if (text == "fastest") {
        return MemoryPolicy::kFastest;
    }
    if (text == "resident") {
        return MemoryPolicy::kResident;
    }
    if (text == "streaming") {
        return MemoryPolicy::kStreaming;
    }
    throw ModelError(fmt::format("unknown memory policy '{}'; choose one of fastest, resident, "
                                 "streaming",
                                 text));
}

std::string_view memory_policy_name(MemoryPolicy policy) noexcept {
    switch (policy) {
    case MemoryPolicy::kFastest:
        return "fastest";
    case MemoryPolicy::kResident:
        return "resident";
    case MemoryPolicy::kStreaming:
        return "streaming";
    }
    return "invalid";
}

EventData::EventData(const Dataset& dataset, MemoryPolicy policy)
    : dataset_(std::make_shared<const Dataset>(dataset)), policy_(policy) {}

EventData EventData::from_source(std::shared_ptr<const EventSource> source, MemoryPolicy policy) {
    if (source == nullptr) {
        throw DataError("EventData::from_source needs a source, got nullptr");
    }
    EventData data;
    data.source_ = std::move(source);
    data.policy_ = policy;
    return data;
}

EventData EventData::with_policy(MemoryPolicy policy) const {
    EventData data = *this;
    data.policy_ = policy;
    return data;
}

std::uint64_t EventData::num_events() const {
    return dataset_ ? dataset_->size() : source_->num_events();
}

const Schema& EventData::schema() const {
    return dataset_ ? dataset_->schema() : source_->schema();
}

std::vector<std::size_t> EventData::fragment_sizes() const {
    return dataset_ ? std::vector<std::size_t>{dataset_->size()} : source_->fragment_sizes();
}

const Dataset* EventData::dataset() const noexcept {
    return dataset_.get();
}

std::shared_ptr<const EventSource> EventData::source() const {
    return dataset_ ? dataset_->source() : source_;
}

Dataset EventData::materialize(const ReadPlan& plan) const {
    if (dataset_ && plan.ranges.empty() && plan.columns.empty()) {
        return *dataset_;
    }
    return Dataset::from_source(*source(), plan);
}

void EventData::for_each_batch(
    const ReadPlan& plan,
    const std::function<void(const EventBatch&, std::uint64_t)>& visit) const {
    const std::unique_ptr<BatchStream> stream = source()->read(plan);
    std::uint64_t first = 0;
    while (std::optional<EventBatch> batch = stream->next()) {
        visit(*batch, first);
        first += batch->size();
    }
}

std::vector<double> EventData::weights() const {
    if (dataset_) {
        const auto w = dataset_->weights();
        return {w.begin(), w.end()};
    }
    std::vector<double> out;
    out.reserve(static_cast<std::size_t>(num_events()));
    // A projection onto no p4 or scalar reads only the weight column.
    for_each_batch(weight_plan(schema()), [&out](const EventBatch& batch, std::uint64_t) {
        const auto w = batch.weights();
        out.insert(out.end(), w.begin(), w.end());
    });
    return out;
}

double EventData::sum_weights() const {
    if (dataset_) {
        return dataset_->sum_weights();
    }
    AccurateSum sum;
    for_each_batch(weight_plan(schema()),
                   [&sum](const EventBatch& batch, std::uint64_t) { sum.push(batch.weights()); });
    return sum.finish();
}

std::uint64_t EventData::replica_index(std::uint64_t row) const {
    if (dataset_) {
        return dataset_->replica_index(static_cast<std::size_t>(row));
    }
    const auto* derived = dynamic_cast<const detail::DerivedSource*>(source_.get());
    return derived != nullptr ? derived->replica_index(row) : row;
}

EventData EventData::take(std::vector<std::uint64_t> rows) const {
    const std::uint64_t n = num_events();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i] >= n || (i > 0 && rows[i] <= rows[i - 1])) {
            throw DataError(fmt::format("EventData::take: row {} at position {} is not an "
                                        "ascending event index below {}",
                                        rows[i], i, n));
        }
    }
    if (dataset_) {
        if (!rows.empty() && rows.back() - rows.front() + 1 == rows.size()) {
            // Consecutive rows share the storage.
            return EventData(dataset_->slice(static_cast<std::size_t>(rows.front()), rows.size()),
                             policy_);
        }
        return EventData(dataset_->take(rows), policy_);
    }
    // A derived source without bootstrap weights composes with the rows taken; one with them
    // stays the base, because its multiplicities are keyed on the replica indices it had.
    const auto* derived = dynamic_cast<const detail::DerivedSource*>(source_.get());
    std::shared_ptr<const EventSource> base = source_;
    if (derived != nullptr && derived->bootstrap_seeds().empty()) {
        base = derived->base();
        if (derived->rows()) {
            for (std::uint64_t& row : rows) {
                row = (*derived->rows())[row];
            }
        }
    }
    auto taken = std::make_shared<const std::vector<std::uint64_t>>(std::move(rows));
    return from_source(std::make_shared<detail::DerivedSource>(std::move(base), std::move(taken),
                                                               nullptr,
                                                               std::vector<std::uint64_t>{}),
                       policy_);
}

EventData EventData::subsample(double fraction, std::uint64_t seed) const {
    if (!(fraction >= 0.0 && fraction <= 1.0)) {
        throw DataError(fmt::format("subsample fraction {} must lie in [0, 1]", fraction));
    }
    if (dataset_) {
        return EventData(dataset_->subsample(fraction, seed), policy_);
    }
    const auto* derived = dynamic_cast<const detail::DerivedSource*>(source_.get());
    std::vector<std::uint64_t> rows;
    std::vector<std::uint64_t> replica;
    const std::uint64_t n = num_events();
    for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint64_t index = replica_index(i);
        if (counter_uniform(seed, index) < fraction) {
            rows.push_back(derived != nullptr && derived->rows() ? (*derived->rows())[i] : i);
            replica.push_back(index);
        }
    }
    auto kept = std::make_shared<const std::vector<std::uint64_t>>(std::move(rows));
    // Rows and replica indices coincide when the base is read directly: share one vector.
    auto indices = kept->size() == replica.size() && *kept == replica
                       ? kept
                       : std::make_shared<const std::vector<std::uint64_t>>(std::move(replica));
    std::shared_ptr<const EventSource> base = derived != nullptr ? derived->base() : source_;
    std::vector<std::uint64_t> seeds =
        derived != nullptr ? derived->bootstrap_seeds() : std::vector<std::uint64_t>{};
    return from_source(std::make_shared<detail::DerivedSource>(
                           std::move(base), std::move(kept), std::move(indices), std::move(seeds)),
                       policy_);
}

EventData EventData::bootstrap(std::uint64_t seed) const {
    if (dataset_) {
        return EventData(dataset_->bootstrap(seed), policy_);
    }
    const auto* derived = dynamic_cast<const detail::DerivedSource*>(source_.get());
    if (derived == nullptr) {
        return from_source(std::make_shared<detail::DerivedSource>(
                               source_, nullptr, nullptr, std::vector<std::uint64_t>{seed}),
                           policy_);
    }
    std::vector<std::uint64_t> seeds = derived->bootstrap_seeds();
    seeds.push_back(seed);
    return from_source(std::make_shared<detail::DerivedSource>(
                           derived->base(), derived->rows(), derived->replica(), std::move(seeds)),
                       policy_);
}

}  // namespace laddu::data
