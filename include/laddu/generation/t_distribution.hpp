// laddu/generation/t_distribution.hpp: the proposal density of the Mandelstam t of a 2 → 2
// vertex (laddu's TDistribution): a mixture of normalised components on the event's physical
// t interval [t₋, t₊], optionally narrowed to [t_min, t_max].
//
// Components, each normalised on the interval [a, b] in use (PDG Review of Particle Physics,
// "Kinematics", §49.5 for t and its limits):
//   uniform        q(t) = 1/(b − a)
//   exponential    q(t) = s e^{s(t−a)} / (e^{s(b−a)} − 1)   (slope s; |s| < 1e-10 is uniform)
//   pole           q(t) ∝ (M² − t)^{−p}                    (exchange mass M, power p > 0;
//                                                          M² must lie above b)
//   histogram      piecewise constant, truncated to [a, b]
// A draw picks a component with probability w_k/Σw (one variate), samples it by inverting its
// cumulative distribution (a second variate) and returns t with the mixture density
// q(t) = Σ w_k q_k(t)/Σw, which the vertex turns into the weight dΦ₂/dt / q(t).
//
// Example: laddu's t_exchange(slope=4, uniform_fraction=0.2):
//   auto t = TDistribution::mixture({{0.2, TComponent::uniform()},
//                                    {0.8, TComponent::exponential(4.0)}});
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <laddu/generation/proposal_rng.hpp>

namespace laddu::generation {

namespace detail {
class PiecewiseDensity;
struct GenerationJson;  // json.cpp
}  // namespace detail

/// One normalised component of a TDistribution.
class TComponent {
public:
    /// The kind of component.
    enum class Kind : unsigned char { kUniform, kExponential, kPole, kHistogram };

    /// Flat in t.
    [[nodiscard]] static TComponent uniform();

    /// ∝ e^{slope t}; ModelError unless the slope is finite.
    [[nodiscard]] static TComponent exponential(double slope);

    /// ∝ (exchange_mass² − t)^{−power}; ModelError unless exchange_mass ≥ 0 and power > 0
    /// (both finite).
    [[nodiscard]] static TComponent pole(double exchange_mass, double power);

    /// Piecewise constant over histogram bins; ModelError for bad edges or counts.
    [[nodiscard]] static TComponent histogram(std::vector<double> edges,
                                              std::vector<double> counts);

    /// The kind of component.
    [[nodiscard]] Kind kind() const noexcept { return kind_; }

    /// t on [low, high] from one unit variate (inverse cumulative distribution); ModelError if
    /// a pole lies in the interval or a histogram has no weight in it.
    [[nodiscard]] double sample(double low, double high, double unit) const;

    /// The normalised density on [low, high] at t.
    [[nodiscard]] double density(double low, double high, double t) const;

    /// A lower bound of density(a, b, t) over every window [a, b] ⊆ [support_low, support_high]
    /// and t ∈ [local_low, local_high] ∩ [a, b] (outward rounded); 0 when none is positive (a
    /// histogram without weight there, a pole at or below support_high).
    [[nodiscard]] double density_floor(double support_low, double support_high, double local_low,
                                       double local_high) const;

    /// The regions on which the density is analytic: the histogram bins of positive count, or 1.
    [[nodiscard]] std::size_t piecewise_regions() const;

    /// True for a pole whose M² is at most `t` (the density is unbounded up to there).
    [[nodiscard]] bool pole_at_or_below(double t) const noexcept {
        return kind_ == Kind::kPole && a_ * a_ <= t;
    }

    /// A short description.
    [[nodiscard]] std::string describe() const;

private:
    friend struct detail::GenerationJson;

    TComponent(Kind kind, double a, double b) : kind_(kind), a_(a), b_(b) {}

    Kind kind_;
    double a_;  // slope, or exchange mass
    double b_;  // power
    std::shared_ptr<const detail::PiecewiseDensity> histogram_;
};

/// A mixture of TComponents with optional t limits (see the banner).
class TDistribution {
public:
    /// Σ w_k q_k; ModelError for no component or a weight that is not finite and positive.
    [[nodiscard]] static TDistribution mixture(std::vector<std::pair<double, TComponent>> parts);

    /// One component with weight 1.
    [[nodiscard]] static TDistribution single(TComponent component);

    /// This distribution restricted to [t_min, t_max] ∩ the physical interval; ModelError for
    /// a limit that is not finite or t_min ≥ t_max.
    [[nodiscard]] TDistribution with_limits(std::optional<double> t_min,
                                            std::optional<double> t_max) const;

    /// The components and their weights.
    [[nodiscard]] const std::vector<std::pair<double, TComponent>>& components() const noexcept {
        return parts_;
    }

    /// The t limits.
    [[nodiscard]] std::optional<double> t_min() const noexcept { return t_min_; }

    [[nodiscard]] std::optional<double> t_max() const noexcept { return t_max_; }

    /// A t in the physical interval [low, high] ∩ the limits and its mixture density q(t)
    /// (two variates); ModelError if the limits miss the interval.
    [[nodiscard]] std::pair<double, double> sample(double low, double high, ProposalRng& rng) const;

    /// The mixture density q(t) on [low, high] ∩ the limits.
    [[nodiscard]] double density(double low, double high, double t) const;

    /// A lower bound of the mixture density over windows inside [support_low, support_high] and
    /// t ∈ [local_low, local_high] (TComponent::density_floor): the sum of the weighted floors
    /// of the components other than histograms when positive, else the smallest positive
    /// weighted histogram floor (a drawn t lies in a positive bin of some histogram), else 0.
    [[nodiscard]] double density_floor(double support_low, double support_high, double local_low,
                                       double local_high) const;

    /// The analytic regions of the mixture: the sum over its components (at least 1).
    [[nodiscard]] std::size_t piecewise_regions() const;

    /// True when a pole component has M² ≤ `t`.
    [[nodiscard]] bool pole_at_or_below(double t) const noexcept;

    /// A short description.
    [[nodiscard]] std::string describe() const;

private:
    [[nodiscard]] std::pair<double, double> window(double low, double high) const;

    std::vector<std::pair<double, TComponent>> parts_;
    double total_ = 0.0;
    std::optional<double> t_min_;
    std::optional<double> t_max_;
};

}  // namespace laddu::generation
