// A normalised piecewise-constant density over histogram bins, optionally truncated to a window,
// shared by the histogram ScalarSource and the histogram t proposal. Internal to generation.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include <laddu/generation/proposal_rng.hpp>

namespace laddu::generation::detail {

class PiecewiseDensity {
public:
    /// ModelError naming `what` unless edges are finite and increasing with one more edge than
    /// counts, and counts are finite, non-negative and of positive finite total.
    PiecewiseDensity(std::vector<double> edges, std::vector<double> counts, const char* what);

    /// Equal bins on [low, high] (laddu's PiecewiseDensity::uniform): bin i is
    /// [low + i·w, low + i·w + w] with w = (high − low) / counts, and the density is 0 outside
    /// [low, high]. ModelError as above, or unless low < high are finite.
    [[nodiscard]] static PiecewiseDensity uniform(double low, double high,
                                                  std::vector<double> counts, const char* what);

    /// The smallest and largest values with positive density (first and last non-empty bins).
    [[nodiscard]] std::pair<double, double> support() const;

    /// The bin weight inside [low, high] (partial bins pro rata).
    [[nodiscard]] double truncated_total(double low, double high) const;

    /// The density at `value` normalised over [low, high]; a bin's upper edge belongs to the
    /// next bin except at the last edge of the window, which is included (`inclusive` includes
    /// every bin's upper edge).
    [[nodiscard]] double density(double low, double high, double value, bool inclusive) const;

    /// A draw from the density on [low, high] with one unit variate (bin and position); nullopt
    /// if the window holds no weight.
    [[nodiscard]] std::optional<double> sample_with_unit(double low, double high,
                                                         double unit) const;

    /// A draw over the whole histogram with two variates: the bin, then uniform in it.
    [[nodiscard]] double sample(ProposalRng& rng) const;

    /// A draw from the density on [low, high] with two variates (segment, then uniform in it);
    /// nullopt if the window holds no weight.
    [[nodiscard]] std::optional<double> sample_window(double low, double high,
                                                      ProposalRng& rng) const;

    /// laddu's indexed draw over equal bins: a bin by its count (two variates: the bin, then
    /// low + (bin + u)·w); only for uniform() densities.
    [[nodiscard]] double sample_indexed(ProposalRng& rng) const;

    [[nodiscard]] const std::vector<double>& edges() const noexcept { return edges_; }

    [[nodiscard]] const std::vector<double>& counts() const noexcept { return counts_; }

private:
    struct Segment {
        double low;
        double high;
        double weight;
    };

    [[nodiscard]] std::vector<Segment> segments(double low, double high) const;
    [[nodiscard]] std::pair<double, double> bin(std::size_t index) const;

    std::vector<double> edges_;
    std::vector<double> counts_;
    double total_ = 0.0;
    std::optional<std::array<double, 3>> uniform_{};  // low, high, width of equal bins
};

}  // namespace laddu::generation::detail
