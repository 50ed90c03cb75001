// laddu/generation/scalar_source.hpp: the distribution of a generated scalar (laddu's
// ScalarSource): a fixed value, a uniform interval or a piecewise-constant histogram.
//
// A draw returns the value and its importance weight 1/q(value), q the source's normalised
// density: 1 for a fixed value, (high − low) for a uniform interval, Σcounts·width/count for a
// histogram bin. The generator multiplies these into the event weight, so weighted events
// integrate over the scalar as over the kinematics. Scalar sources also give the beam energy of
// InitialMomentum::energy_source.
//
// Example:
//   auto pol = ScalarSource::uniform(0.2, 0.3);
//   ProposalRng rng(derive_seed(seed, 0, index, 20000));
//   ScalarDraw draw = pol.sample(rng);  // draw.value in [0.2, 0.3), draw.weight == 0.1
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <laddu/generation/interval.hpp>
#include <laddu/generation/proposal_rng.hpp>

namespace laddu::generation {

namespace detail {
class PiecewiseDensity;
struct GenerationJson;  // json.cpp
}  // namespace detail

/// A drawn value and its importance weight 1/q(value).
struct ScalarDraw {
    double value = 0.0;
    double weight = 1.0;
};

/// What every draw of a source can be (for ChannelGenerator::phase_space_envelope): each value
/// lies in `value`, each weight in `weight`; the draw has `continuous_dimensions` continuous
/// coordinates and its weight is analytic on each of `piecewise_regions` regions.
struct ScalarEnclosure {
    Interval value;
    Interval weight;
    std::size_t continuous_dimensions = 0;
    std::size_t piecewise_regions = 1;
};

/// A fixed, uniform or histogram distribution of one scalar (see the banner).
class ScalarSource {
public:
    /// The kind of distribution.
    enum class Kind : unsigned char { kFixed, kUniform, kHistogram };

    /// Always `value`; ModelError unless finite.
    [[nodiscard]] static ScalarSource fixed(double value);

    /// Uniform on [low, high); ModelError unless both are finite and low < high.
    [[nodiscard]] static ScalarSource uniform(double low, double high);

    /// Piecewise constant: bin i of [edges[i], edges[i+1]) holds weight counts[i]; ModelError
    /// for bad edges or counts (increasing finite edges, one more than the counts; non-negative
    /// finite counts with a positive total).
    [[nodiscard]] static ScalarSource histogram(std::vector<double> edges,
                                                std::vector<double> counts);

    /// The kind of distribution.
    [[nodiscard]] Kind kind() const noexcept { return kind_; }

    /// The smallest and largest values the source can draw.
    [[nodiscard]] std::pair<double, double> support() const;

    /// The enclosure of every draw (outward rounded; a histogram's bins of positive count).
    [[nodiscard]] ScalarEnclosure enclose() const;

    /// One draw from `rng` (a fixed source draws nothing; uniform draws one variate; a histogram
    /// draws two: the bin, then the position in it).
    [[nodiscard]] ScalarDraw sample(ProposalRng& rng) const;

    /// A short description, e.g. "uniform(0.2, 0.3)".
    [[nodiscard]] std::string describe() const;

private:
    friend struct detail::GenerationJson;
    ScalarSource() = default;

    Kind kind_ = Kind::kFixed;
    double low_ = 0.0;   // the fixed value, or the uniform lower edge
    double high_ = 0.0;  // the uniform upper edge
    std::shared_ptr<const detail::PiecewiseDensity> histogram_;
};

}  // namespace laddu::generation
