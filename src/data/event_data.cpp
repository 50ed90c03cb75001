#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/data/event_data.hpp>

namespace laddu::data {

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

}  // namespace laddu::data
