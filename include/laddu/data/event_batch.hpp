// laddu/data/event_batch.hpp: a chunk of events as structure-of-arrays double columns.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include <laddu/base/aligned.hpp>
#include <laddu/data/schema.hpp>

namespace laddu::data {

/// A chunk of rows: one double column per physical batch column (see Schema for the order:
/// 4 per p4, then scalars, then the weight, which is always present and is 1 when the schema
/// has no weight). Cheap to copy: the columns are shared and immutable; slice() is zero-copy.
class EventBatch {
public:
    /// An empty batch of an empty schema.
    EventBatch();

    /// Takes ownership of `columns` (schema.n_batch_columns() of them, all of equal length);
    /// a wrong count or length is a DataError.
    EventBatch(std::shared_ptr<const Schema> schema, std::vector<AlignedVector<double>> columns);

    /// Number of events.
    [[nodiscard]] std::size_t size() const noexcept { return size_; }

    [[nodiscard]] bool empty() const noexcept { return size_ == 0; }

    [[nodiscard]] const Schema& schema() const noexcept { return *schema_; }

    /// The shared schema handle.
    [[nodiscard]] const std::shared_ptr<const Schema>& schema_ptr() const noexcept {
        return schema_;
    }

    /// Component `component` (P4Component) of p4 `p4`.
    [[nodiscard]] std::span<const double> p4_component(std::size_t p4,
                                                       std::size_t component) const {
        return column_at(4 * p4 + component);
    }

    /// Scalar column `index`.
    [[nodiscard]] std::span<const double> scalar(std::size_t index) const {
        return column_at(4 * schema_->n_p4s() + index);
    }

    /// The event weights (all 1 when the schema has no weight column).
    [[nodiscard]] std::span<const double> weights() const {
        return column_at(schema_->n_batch_columns() - 1);
    }

    /// Physical batch column `index` (0 <= index < schema().n_batch_columns()).
    [[nodiscard]] std::span<const double> column_at(std::size_t index) const;

    /// A column by name: a scalar name or alias, `weight`, a batch column name (`beam_px`) or a
    /// physical column name (`beam_Px`). A missing name is a DataError listing the available ones.
    [[nodiscard]] std::span<const double> column(std::string_view name) const;

    /// The scalar `index` of event `row`.
    [[nodiscard]] double scalar_at(std::size_t index, std::size_t row) const {
        return scalar(index)[row];
    }

    /// The four-momentum `p4` of event `row` as (E, px, py, pz).
    [[nodiscard]] std::array<double, 4> p4_at(std::size_t p4, std::size_t row) const;

    /// The weight of event `row`.
    [[nodiscard]] double weight_at(std::size_t row) const { return weights()[row]; }

    /// Rows [begin, begin + count) sharing this batch's storage; out of range is a DataError.
    [[nodiscard]] EventBatch slice(std::size_t begin, std::size_t count) const;

    /// The batch with its schema replaced by `schema` (same column layout, e.g. with aliases).
    [[nodiscard]] EventBatch with_schema(std::shared_ptr<const Schema> schema) const;

private:
    using Storage = std::vector<AlignedVector<double>>;

    std::shared_ptr<const Schema> schema_;
    std::shared_ptr<const Storage> storage_;
    std::size_t offset_ = 0;
    std::size_t size_ = 0;
};

}  // namespace laddu::data
