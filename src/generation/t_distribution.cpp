#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/generation/interval.hpp>
#include <laddu/generation/t_distribution.hpp>

#include "piecewise_density.hpp"

namespace laddu::generation {

namespace {

// Below this |slope| (or |power − 1|) the closed forms lose precision; the limit is used.
constexpr double kFlat = 1e-10;

void check_pole_interval(double exchange_mass, double low, double high) {
    if (exchange_mass * exchange_mass - high <= 0.0) {
        throw ModelError(fmt::format("the t pole at {} lies in the physical t interval [{}, {}]",
                                     exchange_mass * exchange_mass, low, high));
    }
}

}  // namespace

TComponent TComponent::uniform() {
    return {Kind::kUniform, 0.0, 0.0};
}

TComponent TComponent::exponential(double slope) {
    if (!std::isfinite(slope)) {
        throw ModelError(fmt::format("the exponential t slope must be finite, got {}", slope));
    }
    return {Kind::kExponential, slope, 0.0};
}

TComponent TComponent::pole(double exchange_mass, double power) {
    if (!(std::isfinite(exchange_mass) && exchange_mass >= 0.0 && std::isfinite(power) &&
          power > 0.0)) {
        throw ModelError(fmt::format("a t pole needs a finite non-negative exchange_mass and a "
                                     "finite positive power, got exchange_mass={}, power={}",
                                     exchange_mass, power));
    }
    return {Kind::kPole, exchange_mass, power};
}

TComponent TComponent::histogram(std::vector<double> edges, std::vector<double> counts) {
    TComponent component(Kind::kHistogram, 0.0, 0.0);
    component.histogram_ = std::make_shared<const detail::PiecewiseDensity>(
        std::move(edges), std::move(counts), "a histogram t proposal");
    return component;
}

double TComponent::sample(double low, double high, double unit) const {
    switch (kind_) {
    case Kind::kUniform:
        return low + unit * (high - low);
    case Kind::kExponential:
        if (std::abs(a_) < kFlat) {
            return low + unit * (high - low);
        }
        return low + std::log(1.0 + unit * std::expm1(a_ * (high - low))) / a_;
    case Kind::kPole: {
        check_pole_interval(a_, low, high);
        const double m2 = a_ * a_;
        const double near = m2 - high;
        const double far = m2 - low;
        double x = 0.0;
        if (std::abs(b_ - 1.0) < kFlat) {
            x = near * std::pow(far / near, unit);
        } else {
            const double k = 1.0 - b_;
            x = std::pow(std::pow(near, k) + unit * (std::pow(far, k) - std::pow(near, k)),
                         1.0 / k);
        }
        return m2 - x;
    }
    case Kind::kHistogram:
        break;
    }
    const std::optional<double> t = histogram_->sample_with_unit(low, high, unit);
    if (!t) {
        throw ModelError(fmt::format(
            "the histogram t proposal has no weight in the physical t interval [{}, {}]", low,
            high));
    }
    return *t;
}

double TComponent::density(double low, double high, double t) const {
    switch (kind_) {
    case Kind::kUniform:
        return 1.0 / (high - low);
    case Kind::kExponential:
        if (std::abs(a_) < kFlat) {
            return 1.0 / (high - low);
        }
        return a_ * std::exp(a_ * (t - low)) / std::expm1(a_ * (high - low));
    case Kind::kPole: {
        check_pole_interval(a_, low, high);
        const double m2 = a_ * a_;
        const double near = m2 - high;
        const double far = m2 - low;
        const double norm = std::abs(b_ - 1.0) < kFlat
                                ? std::log(far / near)
                                : (std::pow(far, 1.0 - b_) - std::pow(near, 1.0 - b_)) / (1.0 - b_);
        return std::pow(m2 - t, -b_) / norm;
    }
    case Kind::kHistogram:
        break;
    }
    return histogram_->density(low, high, t, true);
}

// Each closed form is evaluated in interval arithmetic at the end of the window and the point
// where it is smallest; the directions are argued per component.
double TComponent::density_floor(double support_low, double support_high, double local_low,
                                 double local_high) const {
    const Interval low = Interval::point(support_low);
    const Interval high = Interval::point(support_high);
    const Interval width = high - low;
    switch (kind_) {
    case Kind::kUniform:
        // 1/(b − a) ≥ 1/(support_high − support_low).
        return std::max((1.0 / width).lo(), 0.0);
    case Kind::kExponential: {
        if (std::abs(a_) < kFlat) {
            return std::max((1.0 / width).lo(), 0.0);
        }
        // q = s e^{st} / (e^{sb} − e^{sa}) falls as a falls and b rises (either sign of s), and
        // in t it is smallest at the lower end for s > 0, the upper end for s < 0.
        const Interval s = Interval::point(a_);
        const double t = a_ > 0.0 ? local_low : local_high;
        const Interval q = s * (s * (Interval::point(t) - low)).exp() / ((s * width).exp() - 1.0);
        return std::max(q.lo(), 0.0);
    }
    case Kind::kPole: {
        // q = (M² − t)^{−p} / ∫_a^b (M² − t)^{−p} dt: the integral grows with the window and the
        // numerator is smallest at the smallest t.
        const Interval m2 = Interval::point(a_).sqr();
        const Interval near = m2 - high;
        const Interval far = m2 - low;
        if (near.lo() <= 0.0) {
            return 0.0;
        }
        const Interval norm =
            std::abs(b_ - 1.0) < kFlat
                ? (far / near).log()
                : (far.pow(1.0 - b_) - near.pow(1.0 - b_)) / (1.0 - Interval::point(b_));
        const Interval q = (m2 - Interval::point(local_low)).pow(-b_) / norm;
        return std::max(q.lo(), 0.0);
    }
    case Kind::kHistogram:
        break;
    }
    // count_k / (width_k · truncated total), over the positive bins that meet [local_low,
    // local_high]; the truncated total grows with the window, so the widest bounds it (its
    // pro-rata arithmetic raised by 1e-12 relative for rounding).
    const auto& edges = histogram_->edges();
    const auto& counts = histogram_->counts();
    const Interval total = Interval::point(histogram_->truncated_total(support_low, support_high)) *
                           Interval::point(1.0 + 1e-12);
    double floor = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < counts.size(); ++k) {
        if (counts[k] > 0.0 && edges[k + 1] >= local_low && edges[k] <= local_high) {
            const Interval height =
                Interval::point(counts[k]) /
                ((Interval::point(edges[k + 1]) - Interval::point(edges[k])) * total);
            floor = std::min(floor, height.lo());
        }
    }
    return std::isfinite(floor) ? std::max(floor, 0.0) : 0.0;
}

std::size_t TComponent::piecewise_regions() const {
    if (kind_ != Kind::kHistogram) {
        return 1;
    }
    const auto& counts = histogram_->counts();
    return static_cast<std::size_t>(
        std::count_if(counts.begin(), counts.end(), [](double c) { return c > 0.0; }));
}

std::string TComponent::describe() const {
    switch (kind_) {
    case Kind::kUniform:
        return "uniform";
    case Kind::kExponential:
        return fmt::format("exponential(slope={})", a_);
    case Kind::kPole:
        return fmt::format("pole(exchange_mass={}, power={})", a_, b_);
    case Kind::kHistogram:
        break;
    }
    return fmt::format("histogram({} bins)", histogram_->counts().size());
}

TDistribution TDistribution::mixture(std::vector<std::pair<double, TComponent>> parts) {
    if (parts.empty()) {
        throw ModelError("a t distribution needs at least one component");
    }
    TDistribution out;
    for (const auto& [weight, component] : parts) {
        if (!(std::isfinite(weight) && weight > 0.0)) {
            throw ModelError(fmt::format(
                "t-distribution mixture weights must be finite and positive, got {}", weight));
        }
        out.total_ += weight;
    }
    out.parts_ = std::move(parts);
    return out;
}

TDistribution TDistribution::single(TComponent component) {
    return mixture({{1.0, std::move(component)}});
}

TDistribution TDistribution::with_limits(std::optional<double> t_min,
                                         std::optional<double> t_max) const {
    if (t_min && !std::isfinite(*t_min)) {
        throw ModelError(fmt::format("t_min must be finite when given, got {}", *t_min));
    }
    if (t_max && !std::isfinite(*t_max)) {
        throw ModelError(fmt::format("t_max must be finite when given, got {}", *t_max));
    }
    if (t_min && t_max && *t_max <= *t_min) {
        throw ModelError(fmt::format("t limits need t_min < t_max, got [{}, {}]", *t_min, *t_max));
    }
    TDistribution out = *this;
    out.t_min_ = t_min;
    out.t_max_ = t_max;
    return out;
}

std::pair<double, double> TDistribution::window(double low, double high) const {
    if (!(std::isfinite(low) && std::isfinite(high) && high > low)) {
        throw ModelError(fmt::format(
            "the physical t interval must be finite with low < high, got [{}, {}]", low, high));
    }
    const double a = t_min_ ? std::max(low, *t_min_) : low;
    const double b = t_max_ ? std::min(high, *t_max_) : high;
    if (b <= a) {
        throw ModelError(
            fmt::format("the t limits do not overlap the physical t interval [{}, {}]", low, high));
    }
    return {a, b};
}

std::pair<double, double> TDistribution::sample(double low, double high, ProposalRng& rng) const {
    const auto [a, b] = window(low, high);
    const double choice = rng.uniform();
    double cumulative = 0.0;
    std::size_t selected = parts_.size() - 1;
    for (std::size_t k = 0; k < parts_.size(); ++k) {
        cumulative += parts_[k].first / total_;
        if (choice < cumulative) {
            selected = k;
            break;
        }
    }
    const double t = parts_[selected].second.sample(a, b, rng.uniform());
    double q = 0.0;
    for (const auto& [weight, component] : parts_) {
        q += weight / total_ * component.density(a, b, t);
    }
    if (!(std::isfinite(q) && q > 0.0)) {
        throw ModelError(fmt::format("the t proposal density at t = {} is {}, not finite and "
                                     "positive",
                                     t, q));
    }
    return {t, q};
}

double TDistribution::density(double low, double high, double t) const {
    const auto [a, b] = window(low, high);
    if (t < a || t > b) {
        return 0.0;
    }
    double q = 0.0;
    for (const auto& [weight, component] : parts_) {
        q += weight / total_ * component.density(a, b, t);
    }
    return q;
}

double TDistribution::density_floor(double support_low, double support_high, double local_low,
                                    double local_high) const {
    Interval everywhere = Interval::point(0.0);
    double histogram_floor = std::numeric_limits<double>::infinity();
    for (const auto& [weight, component] : parts_) {
        const double floor =
            component.density_floor(support_low, support_high, local_low, local_high);
        const double weighted =
            (Interval::point(weight) / Interval::point(total_) * Interval::point(floor)).lo();
        if (component.kind() == TComponent::Kind::kHistogram) {
            if (weighted > 0.0) {
                histogram_floor = std::min(histogram_floor, weighted);
            }
        } else {
            everywhere = everywhere + Interval::point(std::max(weighted, 0.0));
        }
    }
    if (everywhere.lo() > 0.0) {
        return everywhere.lo();
    }
    return std::isfinite(histogram_floor) ? histogram_floor : 0.0;
}

std::size_t TDistribution::piecewise_regions() const {
    std::size_t regions = 0;
    for (const auto& part : parts_) {
        regions += part.second.piecewise_regions();
    }
    return std::max<std::size_t>(regions, 1);
}

bool TDistribution::pole_at_or_below(double t) const noexcept {
    return std::any_of(parts_.begin(), parts_.end(),
                       [t](const auto& part) { return part.second.pole_at_or_below(t); });
}

std::string TDistribution::describe() const {
    std::string text;
    for (const auto& [weight, component] : parts_) {
        text += (text.empty() ? "" : " + ") +
                fmt::format("{}·{}", weight / total_, component.describe());
    }
    if (t_min_ || t_max_) {
        text += fmt::format(" on [{}, {}]", t_min_ ? fmt::format("{}", *t_min_) : "-inf",
                            t_max_ ? fmt::format("{}", *t_max_) : "t+");
    }
    return text;
}

}  // namespace laddu::generation
