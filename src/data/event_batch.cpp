#include <fmt/format.h>
#include <fmt/ranges.h>

#include <laddu/base/error.hpp>
#include <laddu/data/event_batch.hpp>

namespace laddu::data {

namespace {

std::shared_ptr<const Schema> empty_schema() {
    static const auto schema = std::make_shared<const Schema>();
    return schema;
}

}  // namespace

EventBatch::EventBatch()
    : schema_(empty_schema()), storage_(std::make_shared<const Storage>(Storage(1))) {}

EventBatch::EventBatch(std::shared_ptr<const Schema> schema,
                       std::vector<AlignedVector<double>> columns)
    : schema_(std::move(schema)) {
    if (!schema_) {
        throw DataError("EventBatch needs a schema");
    }
    if (columns.size() != schema_->n_batch_columns()) {
        throw DataError(fmt::format("EventBatch for schema {} needs {} columns (4 per p4, the "
                                    "scalars, the weight) but got {}",
                                    schema_->describe(), schema_->n_batch_columns(),
                                    columns.size()));
    }
    size_ = columns.front().size();
    const std::vector<std::string> names = schema_->batch_column_names();
    for (std::size_t i = 0; i < columns.size(); ++i) {
        if (columns[i].size() != size_) {
            throw DataError(fmt::format("EventBatch column '{}' has {} rows but '{}' has {}",
                                        names[i], columns[i].size(), names[0], size_));
        }
    }
    storage_ = std::make_shared<const Storage>(std::move(columns));
}

std::span<const double> EventBatch::column_at(std::size_t index) const {
    return std::span<const double>(storage_->at(index)).subspan(offset_, size_);
}

std::span<const double> EventBatch::column(std::string_view name) const {
    const Schema& s = *schema_;
    if (const auto index = s.scalar_index(name)) {
        return scalar(*index);
    }
    if (name == "weight" || (s.has_weight() && name == s.weight_column())) {
        return weights();
    }
    const std::vector<std::string> names = s.batch_column_names();
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (names[i] == name) {
            return column_at(i);
        }
    }
    for (std::size_t p = 0; p < s.n_p4s(); ++p) {
        for (std::size_t c = 0; c < 4; ++c) {
            if (s.p4_columns(p)[c] == name) {
                return p4_component(p, c);
            }
        }
    }
    std::vector<std::string> available = names;
    for (const auto& [alias, target] : s.aliases()) {
        if (s.scalar_index(target)) {
            available.push_back(alias);
        }
    }
    throw DataError(fmt::format("no column '{}' in the events; available columns: [{}]", name,
                                fmt::join(available, ", ")));
}

std::array<double, 4> EventBatch::p4_at(std::size_t p4, std::size_t row) const {
    return {p4_component(p4, 0)[row], p4_component(p4, 1)[row], p4_component(p4, 2)[row],
            p4_component(p4, 3)[row]};
}

EventBatch EventBatch::slice(std::size_t begin, std::size_t count) const {
    if (begin > size_ || count > size_ - begin) {
        throw DataError(fmt::format("cannot slice events [{}, {}) of a batch of {} events", begin,
                                    begin + count, size_));
    }
    EventBatch out = *this;
    out.offset_ = offset_ + begin;
    out.size_ = count;
    return out;
}

EventBatch EventBatch::with_schema(std::shared_ptr<const Schema> schema) const {
    if (!schema || schema->n_batch_columns() != schema_->n_batch_columns()) {
        throw DataError("with_schema: the new schema has a different column layout");
    }
    EventBatch out = *this;
    out.schema_ = std::move(schema);
    return out;
}

}  // namespace laddu::data
