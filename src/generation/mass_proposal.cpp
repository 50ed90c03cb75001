#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/generation/mass_proposal.hpp>

namespace laddu::generation {

MassProposal MassProposal::fixed(double mass) {
    if (!(std::isfinite(mass) && mass >= 0.0)) {
        throw ModelError(
            fmt::format("a fixed mass proposal needs a finite non-negative mass, got {}", mass));
    }
    return {mass, std::nullopt};
}

MassProposal MassProposal::uniform(double low, double high) {
    if (!(std::isfinite(low) && std::isfinite(high) && high > low)) {
        throw ModelError(fmt::format(
            "a uniform mass proposal needs finite low < high, got [{}, {}]", low, high));
    }
    return {low, high};
}

std::pair<double, double> MassProposal::window(double minimum, double maximum) const {
    const double a = std::max(low_, minimum);
    const double b = std::min(*high_, maximum);
    if (!(std::isfinite(a) && std::isfinite(b) && b > a)) {
        throw ModelError(
            fmt::format("the uniform mass proposal [{}, {}] does not overlap the allowed "
                        "interval [{}, {}]",
                        low_, *high_, minimum, maximum));
    }
    return {a, b};
}

MassDraw MassProposal::propose(double minimum, double maximum, ProposalRng& rng) const {
    if (is_fixed()) {
        if (low_ < minimum || low_ > maximum) {
            throw ModelError(fmt::format("the fixed mass {} is outside the allowed interval "
                                         "[{}, {}]",
                                         low_, minimum, maximum));
        }
        return {low_, 1.0};
    }
    const auto [a, b] = window(minimum, maximum);
    return {a + rng.uniform() * (b - a), b - a};
}

std::optional<double> MassProposal::density(double minimum, double maximum, double mass) const {
    if (is_fixed()) {
        return std::nullopt;
    }
    const auto [a, b] = window(minimum, maximum);
    return mass >= a && mass <= b ? 1.0 / (b - a) : 0.0;
}

std::string MassProposal::describe() const {
    return is_fixed() ? fmt::format("fixed({})", low_)
                      : fmt::format("uniform({}, {})", low_, *high_);
}

}  // namespace laddu::generation
