// laddu/data/histogram.hpp: weighted histograms with explicit bin edges.
//
// Histogram is laddu 0.21.4's one-dimensional histogram (laddu-physics/src/histogram.rs): regular
// bins with per-bin uncertainties, plus explicit underflow and overflow weights. A value v falls
// in bin k when edges[k] <= v < edges[k+1]; v < edges[0] is underflow and v >= edges.back() is
// overflow (so the last edge itself is overflow, unlike numpy.histogram). Non-finite values and
// weights are rejected, never binned. HistogramNd is laddu-cpp's extension to several axes with
// the same rules per axis. Every invalid input is a DataError saying what is wrong and how to
// fix it.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace laddu::data {

/// A weighted one-dimensional histogram with explicit bin edges, per-bin uncertainties and
/// underflow/overflow weights (laddu's Histogram).
class Histogram {
public:
    /// From bin contents: counts[k] is the weight of [edges[k], edges[k+1]). Errors default to
    /// sqrt(|count|). DataError unless there is one more edge than count, the edges are finite
    /// and strictly increasing, and counts and flow weights are finite.
    Histogram(std::vector<double> counts, std::vector<double> bin_edges, double underflow = 0.0,
              double overflow = 0.0);

    /// An empty histogram with `bins` equal-width bins over [low, high).
    [[nodiscard]] static Histogram uniform(std::size_t bins, double low, double high);

    /// An empty histogram with the given edges.
    [[nodiscard]] static Histogram with_edges(std::vector<double> bin_edges);

    /// `values` binned into `bins` equal-width bins over [low, high), each with its weight (unit
    /// weights when `weights` is nullopt). DataError for a non-finite value or weight or a
    /// weights length that differs from values'.
    [[nodiscard]] static Histogram
    from_values(std::span<const double> values, std::size_t bins, double low, double high,
                std::optional<std::span<const double>> weights = std::nullopt);

    /// `values` binned with explicit edges (see from_values).
    [[nodiscard]] static Histogram
    from_values_with_edges(std::span<const double> values, std::vector<double> bin_edges,
                           std::optional<std::span<const double>> weights = std::nullopt);

    /// Adds `weight` at `value`. A regular bin's uncertainty grows in quadrature by `error`, or
    /// by |weight| when no error is given; flow bins carry no uncertainty. DataError for a
    /// non-finite value or weight or a negative or non-finite error.
    void fill(double value, double weight = 1.0, std::optional<double> error = std::nullopt);

    /// The weight in each regular bin.
    [[nodiscard]] const std::vector<double>& counts() const noexcept { return counts_; }

    /// The uncertainty of each regular bin.
    [[nodiscard]] const std::vector<double>& errors() const noexcept { return errors_; }

    /// The bin edges (bins() + 1 of them).
    [[nodiscard]] const std::vector<double>& bin_edges() const noexcept { return bin_edges_; }

    /// Weight below the first edge.
    [[nodiscard]] double underflow() const noexcept { return underflow_; }

    /// Weight at or above the last edge.
    [[nodiscard]] double overflow() const noexcept { return overflow_; }

    /// The number of regular bins.
    [[nodiscard]] std::size_t bins() const noexcept { return counts_.size(); }

    /// The first and last edges.
    [[nodiscard]] std::pair<double, double> limits() const noexcept {
        return {bin_edges_.front(), bin_edges_.back()};
    }

    /// Replaces every count (uncertainties unchanged); DataError for a wrong length or a
    /// non-finite count.
    void set_counts(std::span<const double> counts);
    /// Replaces every uncertainty; DataError for a wrong length or a negative or non-finite one.
    void set_errors(std::span<const double> errors);
    /// Sets the count and/or the uncertainty of bin `index`; on a DataError nothing changes.
    void set_bin(std::size_t index, std::optional<double> count, std::optional<double> error);

    /// The sum of the regular bins, plus underflow and overflow when `include_flow`.
    [[nodiscard]] double total_weight(bool include_flow = false) const noexcept;

    /// The regular bin holding `value`, or nullopt for flow and non-finite values.
    [[nodiscard]] std::optional<std::size_t> bin_index(double value) const noexcept;

    /// The centre of bin `index`, or nullopt when there is no such bin.
    [[nodiscard]] std::optional<double> bin_center(std::size_t index) const noexcept;

    /// A copy scaled to unit total weight: the regular bins sum to 1 and the flow is dropped, or
    /// with `include_flow` bins and flow together sum to 1. Errors scale by 1/|total|. DataError
    /// when that total is not positive.
    [[nodiscard]] Histogram normalized(bool include_flow = false) const;

    /// A copy divided by total weight times bin width (flow dropped), so it integrates to 1.
    /// Unless `signed_density`, negative counts or flow are a DataError; a non-positive in-range
    /// total always is.
    [[nodiscard]] Histogram density(bool signed_density = false) const;

    /// laddu's JSON form: {"counts":[...],"bin_edges":[...],"underflow":u,"overflow":o,
    /// "errors":[...]}, numbers written as laddu writes them.
    [[nodiscard]] std::string to_json() const;

    /// The histogram `json` describes; malformed JSON or an invalid histogram is a DataError
    /// (laddu reads an invalid one without checking).
    [[nodiscard]] static Histogram from_json(std::string_view json);

private:
    void validate() const;

    std::vector<double> counts_;
    std::vector<double> bin_edges_;
    double underflow_ = 0.0;
    double overflow_ = 0.0;
    std::vector<double> errors_;
};

/// A weighted histogram over several axes (laddu-cpp's extension of Histogram). Each axis has
/// strictly increasing finite edges and Histogram's rule per axis (lower edge inclusive, last
/// edge outside). Bins are flattened row-major (the last axis varies fastest, as numpy), each
/// bin's error is sqrt(sum of squared weights), and the weight of entries outside the grid on
/// any axis is kept as one `outside()` total.
class HistogramNd {
public:
    /// An empty histogram over `bin_edges` (one edge list per axis, at least one axis).
    explicit HistogramNd(std::vector<std::vector<double>> bin_edges);

    /// The points given as one column per axis (all of equal length), with optional weights.
    [[nodiscard]] static HistogramNd
    from_values(const std::vector<std::span<const double>>& columns,
                std::vector<std::vector<double>> bin_edges,
                std::optional<std::span<const double>> weights = std::nullopt);

    /// Adds `weight` at `point` (one coordinate per axis); DataError for a wrong number of
    /// coordinates or a non-finite coordinate or weight.
    void fill(std::span<const double> point, double weight = 1.0);

    /// The number of axes.
    [[nodiscard]] std::size_t ndim() const noexcept { return bin_edges_.size(); }

    /// Bins per axis.
    [[nodiscard]] const std::vector<std::size_t>& shape() const noexcept { return shape_; }

    /// The edges of each axis.
    [[nodiscard]] const std::vector<std::vector<double>>& bin_edges() const noexcept {
        return bin_edges_;
    }

    /// The weight in each bin, row-major.
    [[nodiscard]] const std::vector<double>& counts() const noexcept { return counts_; }

    /// sqrt(sum of squared weights) of each bin, row-major.
    [[nodiscard]] std::vector<double> errors() const;

    /// The weight of the entries outside the grid.
    [[nodiscard]] double outside() const noexcept { return outside_; }

    /// The sum of all bins, plus outside() when `include_flow`.
    [[nodiscard]] double total_weight(bool include_flow = false) const noexcept;
    /// The product of the bin widths of each bin, row-major.
    [[nodiscard]] std::vector<double> bin_volumes() const;
    /// The row-major index of the bin holding `point`, or nullopt outside the grid (or for a
    /// wrong number of coordinates or a non-finite one).
    [[nodiscard]] std::optional<std::size_t> bin_index(std::span<const double> point) const;

    /// A copy divided by total weight times bin volume, so it integrates to 1 over the grid; the
    /// outside weight is dropped. Unless `signed_density`, negative counts are a DataError; a
    /// non-positive total always is.
    [[nodiscard]] HistogramNd density(bool signed_density = false) const;

private:
    std::vector<std::vector<double>> bin_edges_;
    std::vector<std::size_t> shape_;
    std::vector<double> counts_;
    std::vector<double> sum_w2_;
    double outside_ = 0.0;
};

}  // namespace laddu::data
