// laddu/data/dataset.hpp: events held in memory, with laddu's dataset operations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <laddu/data/event_batch.hpp>
#include <laddu/data/event_source.hpp>
#include <laddu/data/schema.hpp>

namespace laddu::data {

/// A four-momentum given as four component arrays of equal length.
struct P4Input {
    std::string name;
    std::span<const double> e;
    std::span<const double> px;
    std::span<const double> py;
    std::span<const double> pz;
};

/// A four-momentum given as an (N, 4) row-major array of (E, px, py, pz), as laddu's
/// Dataset.from_arrays takes it.
struct P4ArrayInput {
    std::string name;
    std::span<const double> values;
};

/// A scalar column.
struct ScalarInput {
    std::string name;
    std::span<const double> values;
};

/// A resident dataset: one contiguous EventBatch and its schema. Cheap to copy (shared storage);
/// every operation returns a new Dataset and leaves this one unchanged.
class Dataset {
public:
    /// An empty dataset with an empty schema.
    Dataset() = default;

    /// Wraps one batch.
    explicit Dataset(EventBatch batch) : batch_(std::move(batch)) {}

    /// From component arrays. An empty `weights` means unit weights (has_weight() false).
    /// Length mismatches and duplicate names are DataError.
    [[nodiscard]] static Dataset from_arrays(std::span<const P4Input> p4s,
                                             std::span<const ScalarInput> scalars,
                                             std::span<const double> weights = {});

    /// From (N, 4) p4 arrays, as laddu's from_arrays(p4s={"beam": (N,4)}, ...).
    [[nodiscard]] static Dataset from_arrays(std::span<const P4ArrayInput> p4s,
                                             std::span<const ScalarInput> scalars,
                                             std::span<const double> weights = {});

    /// From scalar columns only (no four-momenta).
    [[nodiscard]] static Dataset from_scalars(std::span<const ScalarInput> scalars,
                                              std::span<const double> weights = {}) {
        return from_arrays(std::span<const P4Input>{}, scalars, weights);
    }

    /// Concatenates batches of one schema (a schema mismatch is a DataError).
    [[nodiscard]] static Dataset from_batches(std::span<const EventBatch> batches);

    /// Reads every event of `source` (projected by plan.columns) into memory.
    [[nodiscard]] static Dataset from_source(const EventSource& source, const ReadPlan& plan = {});

    /// Concatenates datasets of one schema, in order.
    [[nodiscard]] static Dataset concatenate(std::span<const Dataset> parts);

    /// Number of events.
    [[nodiscard]] std::size_t size() const noexcept { return batch_.size(); }

    [[nodiscard]] bool empty() const noexcept { return batch_.empty(); }

    [[nodiscard]] const Schema& schema() const noexcept { return batch_.schema(); }

    [[nodiscard]] const std::vector<std::string>& p4_names() const noexcept {
        return schema().p4_names();
    }

    [[nodiscard]] const std::vector<std::string>& scalar_names() const noexcept {
        return schema().scalar_names();
    }

    /// All events as one batch.
    [[nodiscard]] const EventBatch& batch() const noexcept { return batch_; }

    /// The event weights (1 where the data has none).
    [[nodiscard]] std::span<const double> weights() const { return batch_.weights(); }

    /// The compensated (Sum2) sum of the weights.
    [[nodiscard]] double sum_weights() const;

    /// A column by name (see EventBatch::column); missing is a DataError listing the names.
    [[nodiscard]] std::span<const double> column(std::string_view name) const {
        return batch_.column(name);
    }

    /// Events [begin, begin + count), sharing storage; out of range is a DataError.
    [[nodiscard]] Dataset slice(std::size_t begin, std::size_t count) const;

    /// This dataset followed by `other` (same schema).
    [[nodiscard]] Dataset concat(const Dataset& other) const;

    /// The events for which `keep(batch, row)` is true, in order.
    [[nodiscard]] Dataset
    select(const std::function<bool(const EventBatch&, std::size_t)>& keep) const;

    /// The events `rows` (valid row indices, in the order given), as a new dataset.
    [[nodiscard]] Dataset take(std::span<const std::uint64_t> rows) const;

    /// The Poisson bootstrap: each weight is multiplied by k ~ Poisson(1) drawn from the
    /// counter-based generator (see bootstrap_multiplicity), i = replica_index(row).
    /// Deterministic in `seed` and independent of batching; the event count is unchanged.
    /// Replicas of different seeds are independent (laddu's are not: docs/laddu_parity.md).
    [[nodiscard]] Dataset bootstrap(std::uint64_t seed) const;

    /// Resampling with replacement: N events drawn uniformly (index = floor(u(seed, i) N)).
    [[nodiscard]] Dataset resample(std::uint64_t seed) const;

    /// Keeps the event in `row` when u(seed, replica_index(row)) < fraction, as laddu's subsample
    /// does.
    [[nodiscard]] Dataset subsample(double fraction, std::uint64_t seed) const;

    /// The counter that bootstrap() and subsample() draw with for the event in `row`. laddu
    /// applies them lazily to the events of the dataset they start from, so each draw is keyed
    /// on the event's index there: a subsample keeps the kept events' indices (a later
    /// bootstrap or subsample of it draws what it would have drawn for them on the whole
    /// dataset), and a bootstrap keeps them too. Every other operation (select, slice, concat,
    /// reading) starts a new dataset, where the index is the row.
    [[nodiscard]] std::uint64_t replica_index(std::size_t row) const noexcept {
        return replica_index_.empty() ? row : replica_index_[row];
    }

    /// The same data with `alias` as another name for the p4 or scalar `target`.
    [[nodiscard]] Dataset with_alias(const std::string& alias, const std::string& target) const;

    /// The events as batches of at most plan.chunk_size rows, projected by plan.columns.
    [[nodiscard]] std::vector<EventBatch> batches(const ReadPlan& plan = {}) const;

    /// An EventSource over this dataset (shares the storage).
    [[nodiscard]] std::shared_ptr<EventSource> source() const;

private:
    Dataset(EventBatch batch, std::vector<std::uint64_t> replica_index)
        : batch_(std::move(batch)), replica_index_(std::move(replica_index)) {}

    EventBatch batch_;
    std::vector<std::uint64_t> replica_index_;  ///< empty: the row (see replica_index())
};

/// laddu's u(seed, i) = (splitmix64(seed ^ i) >> 11) / 2^53, uniform in [0, 1).
[[nodiscard]] double counter_uniform(std::uint64_t seed, std::uint64_t index) noexcept;

/// The smallest k with u <= CDF_Poisson(1)(k).
[[nodiscard]] unsigned poisson1_quantile(double u) noexcept;

/// The bootstrap multiplicity of event `index`:
/// poisson1_quantile(counter_uniform(splitmix64(seed), index)). laddu uses counter_uniform(seed,
/// index), whose replicas for nearby seeds share one multiset of multiplicities.
[[nodiscard]] unsigned bootstrap_multiplicity(std::uint64_t seed, std::uint64_t index) noexcept;

}  // namespace laddu::data
