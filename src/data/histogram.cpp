// Histogram follows laddu 0.21.4's laddu-physics/src/histogram.rs step for step (validation
// order, edge arithmetic, error propagation), so values agree with laddu's to the last bit.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/base/json_numbers.hpp>
#include <laddu/data/histogram.hpp>

#include <nlohmann/json.hpp>

namespace laddu::data {

namespace {

// More bins than this would need gigabytes per array; refusing them turns a typo (bins=2**40)
// into a DataError instead of an allocation that the kernel kills the process for.
constexpr std::size_t kMaxBins = std::size_t{1} << 28;

void check_bin_count(std::size_t bins) {
    if (bins > kMaxBins) {
        throw DataError(fmt::format("a histogram may have at most {} bins, got {}; use fewer bins",
                                    kMaxBins, bins));
    }
}

void check_finite(double value, std::string_view what, std::string_view fix) {
    if (!std::isfinite(value)) {
        throw DataError(fmt::format("{} must be finite, got {}; {}", what, value, fix));
    }
}

void check_error(double error, std::string_view what) {
    if (!std::isfinite(error) || error < 0.0) {
        throw DataError(fmt::format(
            "{} must be finite and nonnegative, got {}; pass an uncertainty >= 0", what, error));
    }
}

void check_edges(const std::vector<double>& edges, std::string_view what) {
    if (edges.size() < 2) {
        throw DataError(fmt::format("{} needs at least 2 edges, got {}; give the lower and "
                                    "upper edge of every bin",
                                    what, edges.size()));
    }
    for (std::size_t i = 0; i < edges.size(); ++i) {
        check_finite(edges[i], fmt::format("{} edge {}", what, i), "use finite bin edges");
    }
    for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
        if (!(edges[i + 1] > edges[i])) {
            throw DataError(fmt::format("{} edges must be strictly increasing, but edge {} ({}) "
                                        "is not above edge {} ({}); sort the edges and drop "
                                        "duplicates",
                                        what, i + 1, edges[i + 1], i, edges[i]));
        }
    }
}

void check_weights_length(std::size_t values, std::optional<std::span<const double>> weights) {
    if (weights && weights->size() != values) {
        throw DataError(fmt::format("histogram weights must have one entry per value ({}), got "
                                    "{}; pass weights of the same length as the values",
                                    values, weights->size()));
    }
}

void check_fill(double value, double weight) {
    check_finite(value, "histogram fill value",
                 "select finite values first (NaN and infinities fall in no bin)");
    check_finite(weight, "histogram fill weight", "use finite weights");
}

// The k of edges[k] <= value < edges[k+1], for a finite value inside [edges.front(),
// edges.back()). upper_bound finds the first edge above the value, so an edge equal to the value
// lands in the bin it opens, as laddu's binary search does.
std::size_t locate(const std::vector<double>& edges, double value) {
    const auto above = std::upper_bound(edges.begin(), edges.end(), value);
    return static_cast<std::size_t>(above - edges.begin()) - 1;
}

// laddu's edges: low + i * width with width = (high - low) / bins (not a linspace, whose last
// edge is exactly `high`), so edges and bin assignments match laddu's bit for bit.
std::vector<double> uniform_edges(std::size_t bins, double low, double high) {
    if (bins == 0) {
        throw DataError("histogram bins must be at least 1, got 0; ask for one or more bins");
    }
    if (!std::isfinite(low) || !std::isfinite(high)) {
        throw DataError(fmt::format(
            "histogram limits must be finite, got ({}, {}); give finite lower and upper edges", low,
            high));
    }
    if (!(high > low)) {
        throw DataError(fmt::format("histogram upper limit must be greater than the lower "
                                    "limit, got ({}, {}); swap or widen the limits",
                                    low, high));
    }
    check_bin_count(bins);
    const double width = (high - low) / static_cast<double>(bins);
    std::vector<double> edges(bins + 1);
    for (std::size_t i = 0; i <= bins; ++i) {
        edges[i] = low + static_cast<double>(i) * width;
    }
    return edges;
}

using Json = nlohmann::json;

std::vector<double> json_numbers(const Json& object, const char* key) {
    const Json& value = object.at(key);
    if (!value.is_array()) {
        throw DataError(
            fmt::format("histogram JSON field \"{}\" must be an array of numbers", key));
    }
    std::vector<double> out;
    out.reserve(value.size());
    for (const Json& item : value) {
        if (!item.is_number()) {
            throw DataError(fmt::format("histogram JSON field \"{}\" must hold only numbers, got "
                                        "{}; write it with Histogram.to_json",
                                        key, item.dump()));
        }
        out.push_back(item.get<double>());
    }
    return out;
}

double json_number(const Json& object, const char* key) {
    const Json& value = object.at(key);
    if (!value.is_number()) {
        throw DataError(
            fmt::format("histogram JSON field \"{}\" must be a number, got {}", key, value.dump()));
    }
    return value.get<double>();
}

std::string json_array(const std::vector<double>& values) {
    std::string out = "[";
    for (std::size_t i = 0; i < values.size(); ++i) {
        out += (i ? "," : "") + laddu_json_number(values[i]);
    }
    return out + "]";
}

}  // namespace

// ---- Histogram ----

Histogram::Histogram(std::vector<double> counts, std::vector<double> bin_edges, double underflow,
                     double overflow)
    : counts_(std::move(counts)), bin_edges_(std::move(bin_edges)), underflow_(underflow),
      overflow_(overflow) {
    errors_.reserve(counts_.size());
    for (const double count : counts_) {
        errors_.push_back(std::sqrt(std::abs(count)));
    }
    validate();
}

void Histogram::validate() const {
    check_edges(bin_edges_, "histogram");
    if (counts_.size() + 1 != bin_edges_.size()) {
        throw DataError(fmt::format("a histogram needs one more bin edge than counts, got {} "
                                    "counts and {} edges; pass len(counts) + 1 edges",
                                    counts_.size(), bin_edges_.size()));
    }
    for (std::size_t i = 0; i < counts_.size(); ++i) {
        check_finite(counts_[i], fmt::format("histogram count {}", i), "use finite counts");
    }
    for (std::size_t i = 0; i < errors_.size(); ++i) {
        check_error(errors_[i], fmt::format("histogram error {}", i));
    }
    check_finite(underflow_, "histogram underflow", "use a finite underflow weight");
    check_finite(overflow_, "histogram overflow", "use a finite overflow weight");
}

Histogram Histogram::uniform(std::size_t bins, double low, double high) {
    return with_edges(uniform_edges(bins, low, high));
}

Histogram Histogram::with_edges(std::vector<double> bin_edges) {
    std::vector<double> counts(bin_edges.empty() ? 0 : bin_edges.size() - 1, 0.0);
    return {std::move(counts), std::move(bin_edges)};
}

Histogram Histogram::from_values(std::span<const double> values, std::size_t bins, double low,
                                 double high, std::optional<std::span<const double>> weights) {
    check_weights_length(values.size(), weights);
    Histogram histogram = uniform(bins, low, high);
    for (std::size_t i = 0; i < values.size(); ++i) {
        histogram.fill(values[i], weights ? (*weights)[i] : 1.0);
    }
    return histogram;
}

Histogram Histogram::from_values_with_edges(std::span<const double> values,
                                            std::vector<double> bin_edges,
                                            std::optional<std::span<const double>> weights) {
    check_weights_length(values.size(), weights);
    Histogram histogram = with_edges(std::move(bin_edges));
    for (std::size_t i = 0; i < values.size(); ++i) {
        histogram.fill(values[i], weights ? (*weights)[i] : 1.0);
    }
    return histogram;
}

void Histogram::fill(double value, double weight, std::optional<double> error) {
    check_fill(value, weight);
    if (error) {
        check_error(*error, "histogram fill error");
    }
    if (value < bin_edges_.front()) {
        underflow_ += weight;
    } else if (value >= bin_edges_.back()) {
        overflow_ += weight;
    } else {
        const std::size_t k = locate(bin_edges_, value);
        counts_[k] += weight;
        errors_[k] = std::hypot(errors_[k], error ? *error : weight);
    }
}

void Histogram::set_counts(std::span<const double> counts) {
    if (counts.size() != counts_.size()) {
        throw DataError(fmt::format("histogram counts must keep the number of bins ({}), got {} "
                                    "values; build a new Histogram to change the binning",
                                    counts_.size(), counts.size()));
    }
    for (std::size_t i = 0; i < counts.size(); ++i) {
        check_finite(counts[i], fmt::format("histogram count {}", i), "use finite counts");
    }
    std::copy(counts.begin(), counts.end(), counts_.begin());
}

void Histogram::set_errors(std::span<const double> errors) {
    if (errors.size() != counts_.size()) {
        throw DataError(fmt::format("histogram errors must have one entry per bin ({}), got {}; "
                                    "pass one uncertainty per bin",
                                    counts_.size(), errors.size()));
    }
    for (std::size_t i = 0; i < errors.size(); ++i) {
        check_error(errors[i], fmt::format("histogram error {}", i));
    }
    errors_.assign(errors.begin(), errors.end());
}

void Histogram::set_bin(std::size_t index, std::optional<double> count,
                        std::optional<double> error) {
    // laddu checks the count's value before the index and the error's value before the index.
    const auto check_index = [&] {
        if (index >= counts_.size()) {
            throw DataError(fmt::format("histogram bin index must be less than {}, got {}; bins "
                                        "are numbered from 0",
                                        counts_.size(), index));
        }
    };
    if (count) {
        check_finite(*count, "histogram bin count", "use a finite count");
        check_index();
    }
    if (error) {
        check_error(*error, "histogram bin error");
        check_index();
    }
    if (count) {
        counts_[index] = *count;
    }
    if (error) {
        errors_[index] = *error;
    }
}

double Histogram::total_weight(bool include_flow) const noexcept {
    double total = 0.0;
    for (const double count : counts_) {
        total += count;  // in order, as laddu's iter().sum()
    }
    return include_flow ? underflow_ + total + overflow_ : total;
}

std::optional<std::size_t> Histogram::bin_index(double value) const noexcept {
    if (!std::isfinite(value) || value < bin_edges_.front() || value >= bin_edges_.back()) {
        return std::nullopt;
    }
    return locate(bin_edges_, value);
}

std::optional<double> Histogram::bin_center(std::size_t index) const noexcept {
    if (index >= counts_.size()) {
        return std::nullopt;
    }
    return 0.5 * (bin_edges_[index] + bin_edges_[index + 1]);
}

Histogram Histogram::normalized(bool include_flow) const {
    const double total = total_weight(include_flow);
    if (!(total > 0.0)) {
        throw DataError(fmt::format("cannot normalize a histogram whose total weight{} is {}; "
                                    "it must be positive",
                                    include_flow ? " with flow" : "", total));
    }
    std::vector<double> counts(counts_.size());
    std::vector<double> errors(errors_.size());
    for (std::size_t i = 0; i < counts_.size(); ++i) {
        counts[i] = counts_[i] / total;
        errors[i] = errors_[i] / std::abs(total);
    }
    Histogram out(std::move(counts), bin_edges_, include_flow ? underflow_ / total : 0.0,
                  include_flow ? overflow_ / total : 0.0);
    out.set_errors(errors);
    return out;
}

Histogram Histogram::density(bool signed_density) const {
    if (!signed_density) {
        for (std::size_t i = 0; i < counts_.size(); ++i) {
            if (counts_[i] < 0.0) {
                throw DataError(fmt::format("histogram count {} is negative ({}); a density "
                                            "needs nonnegative counts (use density(signed=True) "
                                            "for signed weights)",
                                            i, counts_[i]));
            }
        }
        if (underflow_ < 0.0 || overflow_ < 0.0) {
            throw DataError(fmt::format("histogram flow is negative (underflow {}, overflow {}); a "
                                        "density needs nonnegative weights (use "
                                        "density(signed=True) for signed weights)",
                                        underflow_, overflow_));
        }
    }
    const double total = total_weight();
    if (!(total > 0.0)) {
        throw DataError(fmt::format(
            "cannot take the density of a histogram whose total weight is {}; it must be positive",
            total));
    }
    std::vector<double> counts(counts_.size());
    std::vector<double> errors(errors_.size());
    for (std::size_t i = 0; i < counts_.size(); ++i) {
        const double scale = total * (bin_edges_[i + 1] - bin_edges_[i]);
        counts[i] = counts_[i] / scale;
        errors[i] = errors_[i] / std::abs(scale);
    }
    Histogram out(std::move(counts), bin_edges_);
    out.set_errors(errors);
    return out;
}

std::string Histogram::to_json() const {
    return fmt::format(R"({{"counts":{},"bin_edges":{},"underflow":{},"overflow":{},"errors":{}}})",
                       json_array(counts_), json_array(bin_edges_), laddu_json_number(underflow_),
                       laddu_json_number(overflow_), json_array(errors_));
}

Histogram Histogram::from_json(std::string_view json) {
    Json document;
    try {
        document = Json::parse(json);
    } catch (const Json::exception& e) {
        throw DataError(fmt::format("histogram JSON is malformed: {}", e.what()));
    }
    if (!document.is_object()) {
        throw DataError("histogram JSON must be an object with counts, bin_edges, underflow, "
                        "overflow and errors (as Histogram.to_json writes)");
    }
    for (const char* key : {"counts", "bin_edges", "underflow", "overflow", "errors"}) {
        if (!document.contains(key)) {
            throw DataError(fmt::format("histogram JSON has no field \"{}\"; write it with "
                                        "Histogram.to_json",
                                        key));
        }
    }
    Histogram histogram(json_numbers(document, "counts"), json_numbers(document, "bin_edges"),
                        json_number(document, "underflow"), json_number(document, "overflow"));
    histogram.set_errors(json_numbers(document, "errors"));
    return histogram;
}

// ---- HistogramNd ----

HistogramNd::HistogramNd(std::vector<std::vector<double>> bin_edges)
    : bin_edges_(std::move(bin_edges)) {
    if (bin_edges_.empty()) {
        throw DataError("an N-dimensional histogram needs at least one axis; pass one edge list "
                        "per axis");
    }
    std::size_t size = 1;
    for (std::size_t axis = 0; axis < bin_edges_.size(); ++axis) {
        check_edges(bin_edges_[axis], fmt::format("histogram axis {}", axis));
        const std::size_t bins = bin_edges_[axis].size() - 1;
        check_bin_count(bins);
        size *= bins;
        check_bin_count(size);  // both factors are at most 2^28, so the product cannot wrap
        shape_.push_back(bins);
    }
    counts_.assign(size, 0.0);
    sum_w2_.assign(size, 0.0);
}

HistogramNd HistogramNd::from_values(const std::vector<std::span<const double>>& columns,
                                     std::vector<std::vector<double>> bin_edges,
                                     std::optional<std::span<const double>> weights) {
    HistogramNd histogram(std::move(bin_edges));
    if (columns.size() != histogram.ndim()) {
        throw DataError(fmt::format("an N-dimensional histogram with {} axes needs {} value "
                                    "columns, got {}; pass one column per axis",
                                    histogram.ndim(), histogram.ndim(), columns.size()));
    }
    const std::size_t n = columns.front().size();
    for (std::size_t axis = 0; axis < columns.size(); ++axis) {
        if (columns[axis].size() != n) {
            throw DataError(fmt::format("histogram value columns must have equal lengths, but "
                                        "column 0 has {} and column {} has {}",
                                        n, axis, columns[axis].size()));
        }
    }
    check_weights_length(n, weights);
    std::vector<double> point(columns.size());
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t axis = 0; axis < columns.size(); ++axis) {
            point[axis] = columns[axis][i];
        }
        histogram.fill(point, weights ? (*weights)[i] : 1.0);
    }
    return histogram;
}

void HistogramNd::fill(std::span<const double> point, double weight) {
    if (point.size() != ndim()) {
        throw DataError(fmt::format("a point of an N-dimensional histogram with {} axes needs {} "
                                    "coordinates, got {}",
                                    ndim(), ndim(), point.size()));
    }
    for (const double x : point) {
        check_fill(x, weight);
    }
    const std::optional<std::size_t> k = bin_index(point);
    if (!k) {
        outside_ += weight;
        return;
    }
    counts_[*k] += weight;
    sum_w2_[*k] += weight * weight;
}

std::vector<double> HistogramNd::errors() const {
    std::vector<double> out(sum_w2_.size());
    std::transform(sum_w2_.begin(), sum_w2_.end(), out.begin(),
                   [](double w2) { return std::sqrt(w2); });
    return out;
}

double HistogramNd::total_weight(bool include_flow) const noexcept {
    double total = 0.0;
    for (const double count : counts_) {
        total += count;
    }
    return include_flow ? total + outside_ : total;
}

std::vector<double> HistogramNd::bin_volumes() const {
    std::vector<double> volumes(counts_.size(), 1.0);
    // The stride of an axis is the product of the bin counts of the axes after it (row-major).
    std::size_t stride = counts_.size();
    for (std::size_t axis = 0; axis < ndim(); ++axis) {
        stride /= shape_[axis];
        const std::vector<double>& edges = bin_edges_[axis];
        for (std::size_t flat = 0; flat < volumes.size(); ++flat) {
            const std::size_t k = (flat / stride) % shape_[axis];
            volumes[flat] *= edges[k + 1] - edges[k];
        }
    }
    return volumes;
}

std::optional<std::size_t> HistogramNd::bin_index(std::span<const double> point) const {
    if (point.size() != ndim()) {
        return std::nullopt;
    }
    std::size_t flat = 0;
    for (std::size_t axis = 0; axis < ndim(); ++axis) {
        const std::vector<double>& edges = bin_edges_[axis];
        const double x = point[axis];
        if (!std::isfinite(x) || x < edges.front() || x >= edges.back()) {
            return std::nullopt;
        }
        flat = flat * shape_[axis] + locate(edges, x);
    }
    return flat;
}

HistogramNd HistogramNd::density(bool signed_density) const {
    if (!signed_density) {
        for (std::size_t i = 0; i < counts_.size(); ++i) {
            if (counts_[i] < 0.0) {
                throw DataError(fmt::format("histogram bin {} is negative ({}); a density needs "
                                            "nonnegative counts (use density(signed=True) for "
                                            "signed weights)",
                                            i, counts_[i]));
            }
        }
    }
    const double total = total_weight();
    if (!(total > 0.0)) {
        throw DataError(fmt::format(
            "cannot take the density of a histogram whose total weight is {}; it must be positive",
            total));
    }
    HistogramNd out = *this;
    const std::vector<double> volumes = bin_volumes();
    for (std::size_t i = 0; i < counts_.size(); ++i) {
        const double scale = total * volumes[i];
        out.counts_[i] = counts_[i] / scale;
        const double error = std::sqrt(sum_w2_[i]) / std::abs(scale);
        out.sum_w2_[i] = error * error;
        check_finite(out.counts_[i], fmt::format("histogram density bin {}", i),
                     "the bins are too narrow for the total weight");
    }
    out.outside_ = 0.0;
    return out;
}

}  // namespace laddu::data
