#include <cmath>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/generation/scalar_source.hpp>

#include "piecewise_density.hpp"

namespace laddu::generation {

ScalarSource ScalarSource::fixed(double value) {
    if (!std::isfinite(value)) {
        throw ModelError(fmt::format("a fixed scalar source needs a finite value, got {}", value));
    }
    ScalarSource source;
    source.kind_ = Kind::kFixed;
    source.low_ = source.high_ = value;
    return source;
}

ScalarSource ScalarSource::uniform(double low, double high) {
    if (!(std::isfinite(low) && std::isfinite(high) && high > low)) {
        throw ModelError(fmt::format(
            "a uniform scalar source needs finite low < high, got [{}, {}]", low, high));
    }
    ScalarSource source;
    source.kind_ = Kind::kUniform;
    source.low_ = low;
    source.high_ = high;
    return source;
}

ScalarSource ScalarSource::histogram(std::vector<double> edges, std::vector<double> counts) {
    ScalarSource source;
    source.kind_ = Kind::kHistogram;
    source.histogram_ = std::make_shared<const detail::PiecewiseDensity>(
        std::move(edges), std::move(counts), "a histogram scalar source");
    std::tie(source.low_, source.high_) = source.histogram_->support();
    return source;
}

std::pair<double, double> ScalarSource::support() const {
    return {low_, high_};
}

ScalarDraw ScalarSource::sample(ProposalRng& rng) const {
    switch (kind_) {
    case Kind::kFixed:
        return {low_, 1.0};
    case Kind::kUniform:
        return {low_ + rng.uniform() * (high_ - low_), high_ - low_};
    case Kind::kHistogram:
        break;
    }
    const double value = histogram_->sample(rng);
    const auto& edges = histogram_->edges();
    return {value, 1.0 / histogram_->density(edges.front(), edges.back(), value, false)};
}

ScalarEnclosure ScalarSource::enclose() const {
    switch (kind_) {
    case Kind::kFixed:
        return {Interval::point(low_), Interval::point(1.0), 0, 1};
    case Kind::kUniform:
        return {Interval(low_, high_), Interval::point(high_) - Interval::point(low_), 1, 1};
    case Kind::kHistogram:
        break;
    }
    // A draw in bin k weighs total · width_k / count_k (the inverse density).
    const auto& edges = histogram_->edges();
    const auto& counts = histogram_->counts();
    Interval total = Interval::point(0.0);
    for (const double count : counts) {
        total = total + Interval::point(count);
    }
    Interval weight;
    std::size_t regions = 0;
    for (std::size_t k = 0; k < counts.size(); ++k) {
        if (counts[k] > 0.0) {
            weight = Interval::hull(
                weight, total * (Interval::point(edges[k + 1]) - Interval::point(edges[k])) /
                            Interval::point(counts[k]));
            ++regions;
        }
    }
    return {Interval(edges.front(), edges.back()), weight, 1, regions};
}

std::string ScalarSource::describe() const {
    switch (kind_) {
    case Kind::kFixed:
        return fmt::format("fixed({})", low_);
    case Kind::kUniform:
        return fmt::format("uniform({}, {})", low_, high_);
    case Kind::kHistogram:
        break;
    }
    return fmt::format("histogram({} bins on [{}, {}])", histogram_->counts().size(),
                       histogram_->edges().front(), histogram_->edges().back());
}

}  // namespace laddu::generation
