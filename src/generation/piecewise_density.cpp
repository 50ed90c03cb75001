#include "piecewise_density.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include <laddu/base/error.hpp>

namespace laddu::generation::detail {

PiecewiseDensity::PiecewiseDensity(std::vector<double> edges, std::vector<double> counts,
                                   const char* what)
    : edges_(std::move(edges)), counts_(std::move(counts)) {
    bool ok = !counts_.empty() && edges_.size() == counts_.size() + 1;
    for (std::size_t i = 0; ok && i < edges_.size(); ++i) {
        ok = std::isfinite(edges_[i]) && (i == 0 || edges_[i] > edges_[i - 1]);
    }
    for (std::size_t i = 0; ok && i < counts_.size(); ++i) {
        ok = std::isfinite(counts_[i]) && counts_[i] >= 0.0;
        total_ += counts_[i];
    }
    if (!ok || !std::isfinite(total_) || total_ <= 0.0) {
        throw ModelError(fmt::format(
            "{} needs finite increasing bin edges (one more than the counts) and finite "
            "non-negative counts with a positive total; got edges {} and counts {}",
            what, fmt::join(edges_, ", "), fmt::join(counts_, ", ")));
    }
}

PiecewiseDensity PiecewiseDensity::uniform(double low, double high, std::vector<double> counts,
                                           const char* what) {
    if (!(std::isfinite(low) && std::isfinite(high) && high > low) || counts.empty()) {
        throw ModelError(fmt::format("{} needs finite bounds low < high and at least one bin, "
                                     "got [{}, {}] with {} bins",
                                     what, low, high, counts.size()));
    }
    const double width = (high - low) / static_cast<double>(counts.size());
    std::vector<double> edges(counts.size() + 1);
    for (std::size_t i = 0; i < edges.size(); ++i) {
        edges[i] = low + static_cast<double>(i) * width;
    }
    PiecewiseDensity density(std::move(edges), std::move(counts), what);
    density.uniform_ = std::array<double, 3>{low, high, width};
    return density;
}

std::pair<double, double> PiecewiseDensity::bin(std::size_t index) const {
    if (uniform_) {
        // laddu's equal bins: the upper edge is the lower edge plus the width.
        const double bin_low = (*uniform_)[0] + static_cast<double>(index) * (*uniform_)[2];
        return {bin_low, bin_low + (*uniform_)[2]};
    }
    return {edges_[index], edges_[index + 1]};
}

std::pair<double, double> PiecewiseDensity::support() const {
    std::size_t first = 0;
    while (counts_[first] <= 0.0) {
        ++first;
    }
    std::size_t last = counts_.size() - 1;
    while (counts_[last] <= 0.0) {
        --last;
    }
    return {bin(first).first, bin(last).second};
}

std::vector<PiecewiseDensity::Segment> PiecewiseDensity::segments(double low, double high) const {
    std::vector<Segment> out;
    if (!(std::isfinite(low) && std::isfinite(high) && high > low)) {
        return out;
    }
    for (std::size_t i = 0; i < counts_.size(); ++i) {
        const auto [bin_low, bin_high] = bin(i);
        const double lo = std::max(low, bin_low);
        const double hi = std::min(high, bin_high);
        if (hi > lo && counts_[i] > 0.0) {
            out.push_back({lo, hi, counts_[i] * (hi - lo) / (bin_high - bin_low)});
        }
    }
    return out;
}

double PiecewiseDensity::truncated_total(double low, double high) const {
    double total = 0.0;
    for (const Segment& s : segments(low, high)) {
        total += s.weight;
    }
    return total;
}

double PiecewiseDensity::density(double low, double high, double value, bool inclusive) const {
    if (uniform_ && (value < (*uniform_)[0] || value > (*uniform_)[1])) {
        return 0.0;
    }
    const std::vector<Segment> parts = segments(low, high);
    double total = 0.0;
    for (const Segment& s : parts) {
        total += s.weight;
    }
    if (total <= 0.0) {
        return 0.0;
    }
    const double top = std::min(high, bin(counts_.size() - 1).second);
    for (const Segment& s : parts) {
        const bool inside = value >= s.low && (value < s.high || (inclusive && value <= s.high) ||
                                               (s.high == top && value == top));
        if (inside) {
            return s.weight / ((s.high - s.low) * total);
        }
    }
    return 0.0;
}

std::optional<double> PiecewiseDensity::sample_with_unit(double low, double high,
                                                         double unit) const {
    const std::vector<Segment> parts = segments(low, high);
    double total = 0.0;
    for (const Segment& s : parts) {
        total += s.weight;
    }
    if (parts.empty()) {
        return std::nullopt;
    }
    // One variate picks the segment and, rescaled, the position inside it.
    double threshold = unit * total;
    for (const Segment& s : parts) {
        if (threshold <= s.weight) {
            return s.low + threshold / s.weight * (s.high - s.low);
        }
        threshold -= s.weight;
    }
    return parts.back().high;
}

double PiecewiseDensity::sample(ProposalRng& rng) const {
    double threshold = rng.uniform() * total_;
    std::size_t bin = counts_.size() - 1;
    for (std::size_t i = 0; i < counts_.size(); ++i) {
        if (counts_[i] > 0.0 && threshold <= counts_[i]) {
            bin = i;
            break;
        }
        threshold -= counts_[i];
    }
    while (counts_[bin] <= 0.0) {  // round-off past the last non-empty bin
        --bin;
    }
    return edges_[bin] + rng.uniform() * (edges_[bin + 1] - edges_[bin]);
}

std::optional<double> PiecewiseDensity::sample_window(double low, double high,
                                                      ProposalRng& rng) const {
    const std::vector<Segment> parts = segments(low, high);
    double total = 0.0;
    for (const Segment& s : parts) {
        total += s.weight;
    }
    if (!(total > 0.0)) {
        return std::nullopt;
    }
    double threshold = rng.uniform() * total;
    for (const Segment& s : parts) {
        if (threshold <= s.weight) {
            return s.low + rng.uniform() * (s.high - s.low);
        }
        threshold -= s.weight;
    }
    // Round-off past the last segment: its upper end (laddu has no draw there either).
    return parts.back().high;
}

double PiecewiseDensity::sample_indexed(ProposalRng& rng) const {
    if (!uniform_) {
        throw InternalError("sample_indexed needs equal bins");
    }
    double threshold = rng.uniform() * total_;
    std::size_t selected = counts_.size() - 1;
    for (std::size_t i = 0; i < counts_.size(); ++i) {
        if (threshold <= counts_[i]) {
            selected = i;
            break;
        }
        threshold -= counts_[i];
    }
    return (*uniform_)[0] + (static_cast<double>(selected) + rng.uniform()) * (*uniform_)[2];
}

}  // namespace laddu::generation::detail
