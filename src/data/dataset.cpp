#include <cmath>
#include <type_traits>

#include <fmt/format.h>

#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/error.hpp>
#include <laddu/base/random.hpp>
#include <laddu/data/dataset.hpp>

namespace laddu::data {

namespace {

using Columns = std::vector<AlignedVector<double>>;

void check_length(std::string_view name, std::size_t got, std::size_t want) {
    if (got != want) {
        throw DataError(fmt::format("column '{}' has {} events but the first column has {}; "
                                    "all arrays must have the same length",
                                    name, got, want));
    }
}

Dataset build(std::vector<std::string> p4s, std::vector<std::string> scalars, bool has_weight,
              Columns columns) {
    auto schema = std::make_shared<const Schema>(std::move(p4s), std::move(scalars), has_weight);
    return Dataset(EventBatch(std::move(schema), std::move(columns)));
}

AlignedVector<double> to_column(std::span<const double> values) {
    return {values.begin(), values.end()};
}

/// Copies the rows `rows` of every column of `batch` into a new batch with the same schema.
EventBatch gather(const EventBatch& batch, std::span<const std::size_t> rows) {
    Columns columns(batch.schema().n_batch_columns());
    for (std::size_t c = 0; c < columns.size(); ++c) {
        const auto source = batch.column_at(c);
        columns[c].resize(rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i) {
            columns[c][i] = source[rows[i]];
        }
    }
    return EventBatch(batch.schema_ptr(), std::move(columns));
}

}  // namespace

Dataset Dataset::from_arrays(std::span<const P4Input> p4s, std::span<const ScalarInput> scalars,
                             std::span<const double> weights) {
    std::size_t n = 0;
    bool first = true;
    const auto length = [&](std::string_view name, std::size_t size) {
        if (first) {
            n = size;
            first = false;
        }
        check_length(name, size, n);
    };
    std::vector<std::string> p4_names;
    std::vector<std::string> scalar_names;
    Columns columns;
    for (const P4Input& p4 : p4s) {
        p4_names.push_back(p4.name);
        for (const auto& part : {p4.e, p4.px, p4.py, p4.pz}) {
            length(p4.name, part.size());
            columns.push_back(to_column(part));
        }
    }
    for (const ScalarInput& scalar : scalars) {
        scalar_names.push_back(scalar.name);
        length(scalar.name, scalar.values.size());
        columns.push_back(to_column(scalar.values));
    }
    const bool has_weight = !weights.empty();
    if (has_weight) {
        length("weight", weights.size());
        columns.push_back(to_column(weights));
    } else {
        columns.emplace_back(n, 1.0);
    }
    return build(std::move(p4_names), std::move(scalar_names), has_weight, std::move(columns));
}

Dataset Dataset::from_arrays(std::span<const P4ArrayInput> p4s,
                             std::span<const ScalarInput> scalars,
                             std::span<const double> weights) {
    std::vector<std::vector<double>> split;
    std::vector<P4Input> inputs;
    split.reserve(4 * p4s.size());
    for (const P4ArrayInput& p4 : p4s) {
        if (p4.values.size() % 4 != 0) {
            throw DataError(fmt::format("four-momentum '{}' must be an (N, 4) array of (E, px, "
                                        "py, pz); it has {} values, not a multiple of 4",
                                        p4.name, p4.values.size()));
        }
        const std::size_t n = p4.values.size() / 4;
        for (std::size_t c = 0; c < 4; ++c) {
            auto& column = split.emplace_back(n);
            for (std::size_t i = 0; i < n; ++i) {
                column[i] = p4.values[4 * i + c];
            }
        }
        const std::size_t base = split.size() - 4;
        inputs.push_back({p4.name, split[base], split[base + 1], split[base + 2], split[base + 3]});
    }
    return from_arrays(std::span<const P4Input>(inputs), scalars, weights);
}

Dataset Dataset::from_batches(std::span<const EventBatch> batches) {
    if (batches.empty()) {
        return Dataset();
    }
    if (batches.size() == 1) {
        return Dataset(batches.front());
    }
    const auto& schema = batches.front().schema_ptr();
    std::size_t total = 0;
    for (const EventBatch& batch : batches) {
        if (!(batch.schema() == *schema)) {
            throw DataError(fmt::format("cannot join batches with schemas {} and {}",
                                        schema->describe(), batch.schema().describe()));
        }
        total += batch.size();
    }
    Columns columns(schema->n_batch_columns());
    for (std::size_t c = 0; c < columns.size(); ++c) {
        columns[c].reserve(total);
        for (const EventBatch& batch : batches) {
            const auto values = batch.column_at(c);
            columns[c].insert(columns[c].end(), values.begin(), values.end());
        }
    }
    return Dataset(EventBatch(schema, std::move(columns)));
}

Dataset Dataset::from_source(const EventSource& source, const ReadPlan& plan) {
    const std::vector<EventBatch> batches = read_all(source, plan);
    if (batches.empty()) {
        auto schema = std::make_shared<const Schema>(source.schema().project(plan.columns));
        return Dataset(EventBatch(schema, Columns(schema->n_batch_columns())));
    }
    return from_batches(batches);
}

Dataset Dataset::concatenate(std::span<const Dataset> parts) {
    std::vector<EventBatch> batches;
    for (const Dataset& part : parts) {
        batches.push_back(part.batch_);
    }
    return from_batches(batches);
}

double Dataset::sum_weights() const {
    return accurate_sum(weights());
}

Dataset Dataset::slice(std::size_t begin, std::size_t count) const {
    return Dataset(batch_.slice(begin, count));
}

Dataset Dataset::concat(const Dataset& other) const {
    const Dataset parts[] = {*this, other};
    return concatenate(parts);
}

Dataset Dataset::select(const std::function<bool(const EventBatch&, std::size_t)>& keep) const {
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < size(); ++i) {
        if (keep(batch_, i)) {
            rows.push_back(i);
        }
    }
    return Dataset(gather(batch_, rows));
}

Dataset Dataset::take(std::span<const std::uint64_t> rows) const {
    for (const std::uint64_t row : rows) {
        if (row >= size()) {
            throw DataError(
                fmt::format("row {} is out of range for a dataset of {} events", row, size()));
        }
    }
    static_assert(std::is_same_v<std::uint64_t, std::size_t>, "rows index the batch directly");
    return Dataset(gather(batch_, rows));
}

Dataset Dataset::bootstrap(std::uint64_t seed) const {
    Columns columns(schema().n_batch_columns());
    for (std::size_t c = 0; c + 1 < columns.size(); ++c) {
        columns[c] = to_column(batch_.column_at(c));
    }
    const auto w = weights();
    AlignedVector<double>& out = columns.back();
    out.resize(w.size());
    for (std::size_t i = 0; i < w.size(); ++i) {
        out[i] = w[i] * static_cast<double>(bootstrap_multiplicity(seed, replica_index(i)));
    }
    return Dataset(EventBatch(batch_.schema_ptr(), std::move(columns)), replica_index_);
}

Dataset Dataset::resample(std::uint64_t seed) const {
    std::vector<std::size_t> rows(size());
    const auto n = static_cast<double>(size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto pick = static_cast<std::size_t>(std::floor(counter_uniform(seed, i) * n));
        rows[i] = std::min(pick, rows.size() - 1);
    }
    return Dataset(gather(batch_, rows));
}

Dataset Dataset::subsample(double fraction, std::uint64_t seed) const {
    if (!(fraction >= 0.0 && fraction <= 1.0)) {
        throw DataError(fmt::format("subsample fraction {} must lie in [0, 1]", fraction));
    }
    std::vector<std::size_t> rows;
    std::vector<std::uint64_t> kept;
    for (std::size_t i = 0; i < size(); ++i) {
        if (counter_uniform(seed, replica_index(i)) < fraction) {
            rows.push_back(i);
            kept.push_back(replica_index(i));
        }
    }
    return Dataset(gather(batch_, rows), std::move(kept));
}

Dataset Dataset::with_alias(const std::string& alias, const std::string& target) const {
    auto aliased = std::make_shared<Schema>(schema());
    aliased->add_alias(alias, target);
    return Dataset(batch_.with_schema(std::move(aliased)), replica_index_);
}

std::vector<EventBatch> Dataset::batches(const ReadPlan& plan) const {
    return read_all(*source(), plan);
}

std::shared_ptr<EventSource> Dataset::source() const {
    return std::make_shared<MemorySource>(batch_.schema_ptr(), std::vector<EventBatch>{batch_});
}

double counter_uniform(std::uint64_t seed, std::uint64_t index) noexcept {
    return static_cast<double>(splitmix64(seed ^ index) >> 11U) * 0x1.0p-53;
}

unsigned poisson1_quantile(double u) noexcept {
    // CDF of Poisson(1): sum_k e^-1 / k!. The terms vanish below 1e-300 by k = 170, so stop there.
    double term = std::exp(-1.0);
    double cdf = term;
    unsigned k = 0;
    while (u > cdf && k < 170) {
        ++k;
        term /= static_cast<double>(k);
        cdf += term;
    }
    return k;
}

unsigned bootstrap_multiplicity(std::uint64_t seed, std::uint64_t index) noexcept {
    // laddu hashes seed ^ index: for seeds below 2^m every replica of a 2^m-event sample then
    // draws the same multiset of multiplicities, permuted, so replica yields barely vary (their
    // variance is ~1 instead of N). Mixing the seed first makes the replicas independent.
    return poisson1_quantile(counter_uniform(splitmix64(seed), index));
}

}  // namespace laddu::data
