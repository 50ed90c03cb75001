// ChannelGenerator::phase_space_envelope: a proven upper bound of the unit-model proposal
// weight, documented at its declaration.
//
// The weight of an event is a product of non-negative factors (the generator's banner): the
// initial-energy and scalar importance weights, the width of each generated mass window, p*/(4πM)
// for each isotropic decay and 1/(16π √s p_in q(t)) for each t exchange. Each factor is
// enclosed over a box of the search coordinates in interval arithmetic, so the product of their
// upper ends bounds every weight in the box, and the largest box bound bounds them all.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numbers>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/generation/channel_generator.hpp>
#include <laddu/generation/interval.hpp>

namespace laddu::generation {

namespace {

constexpr double kGapTolerance = 1e-3;
constexpr double kDomainTolerance = 1.0 / 65536.0;
constexpr std::size_t kMaxSubdivisions = std::size_t{1} << 16;
// The generator's weight is a product of a few dozen rounded operations on the exact factors;
// 1e-12 relative is far above their accumulated rounding.
constexpr double kRoundingMargin = 1e-12;
constexpr double kInf = std::numeric_limits<double>::infinity();

// The two-body breakup momentum over boxes of masses; empty where the threshold is closed for
// every point (PDG Review of Particle Physics, "Kinematics", eq. 49.17).
Interval breakup(const Interval& parent, const Interval& first, const Interval& second) {
    const Interval p2 = parent.sqr();
    const Interval open = Interval::intersect(p2 - (first + second).sqr(), Interval(0.0, kInf));
    return (open * (p2 - (first - second).sqr())).sqrt() / (2.0 * parent);
}

// The non-negative factor [0, upper end of `factor`].
Interval upper_part(const Interval& factor) {
    return factor.is_empty() ? Interval() : Interval(0.0, std::max(factor.hi(), 0.0));
}

struct Box {
    std::vector<Interval> x;
    double bound = 0.0;
};

struct ByBound {
    bool operator()(const Box& a, const Box& b) const { return a.bound < b.bound; }
};

std::vector<Interval> centre(const std::vector<Interval>& x) {
    std::vector<Interval> c;
    c.reserve(x.size());
    for (const Interval& i : x) {
        c.push_back(Interval::point(0.5 * i.lo() + 0.5 * i.hi()));
    }
    return c;
}

}  // namespace

ProvenEnvelopeReport ChannelGenerator::phase_space_envelope() const {
    ProvenEnvelopeReport report;
    Interval fixed_weight = Interval::point(1.0);
    std::vector<InitialEnclosure> initials;
    std::vector<double> initial_masses;
    for (const std::size_t root : roots_) {
        const EdgePlan& edge = edges_[root];
        initials.push_back(edge.initial->enclose(*edge.mass));
        initial_masses.push_back(*edge.mass);
        fixed_weight = fixed_weight * initials.back().weight;
        report.continuous_dimensions += initials.back().continuous_dimensions;
        report.piecewise_regions *= initials.back().piecewise_regions;
    }
    // s = Σ m_i² + 2 Σ_{i<j} (E_i E_j − p_i · p_j)
    Interval s = Interval::point(0.0);
    for (std::size_t i = 0; i < initials.size(); ++i) {
        s = s + Interval::point(initial_masses[i]).sqr();
        for (std::size_t j = i + 1; j < initials.size(); ++j) {
            Interval dot = Interval::point(0.0);
            for (std::size_t k = 0; k < 3; ++k) {
                dot = dot + initials[i].momentum[k] * initials[j].momentum[k];
            }
            s = s + 2.0 * (initials[i].energy * initials[j].energy - dot);
        }
    }
    const Interval root_s = s.sqrt();
    if (root_s.is_empty() || !std::isfinite(root_s.hi()) || root_s.hi() <= 0.0) {
        throw ModelError(fmt::format("the initial invariant mass {} is not finite and positive; "
                                     "check the InitialMomentum of the initial edges",
                                     root_s.to_string()));
    }

    // The search coordinates: √s, then a window fraction per uniform mass and per t exchange.
    std::vector<Interval> domain{root_s};
    std::vector<std::optional<std::size_t>> mass_coordinate(edges_.size());
    for (std::size_t i = 0; i < edges_.size(); ++i) {
        const EdgePlan& edge = edges_[i];
        if (!edge.proposal) {
            continue;
        }
        if (edge.proposal->is_fixed()) {
            if (edge.proposal->low() > root_s.hi()) {
                throw ModelError(fmt::format("the fixed generated mass {} of edge `{}` exceeds "
                                             "the initial invariant mass {}",
                                             edge.proposal->low(), edge.name, root_s.hi()));
            }
            continue;
        }
        if (!(std::min(*edge.proposal->high(), root_s.hi()) >
              std::max(edge.proposal->low(), 0.0))) {
            throw ModelError(fmt::format("the uniform mass proposal of edge `{}` has no room in "
                                         "[0, {}], the initial invariant mass",
                                         edge.name, root_s.hi()));
        }
        ++report.continuous_dimensions;
        mass_coordinate[i] = domain.size();
        domain.emplace_back(0.0, 1.0);
    }
    std::vector<std::optional<std::size_t>> transfer_coordinate(vertices_.size());
    for (std::size_t v = 0; v < vertices_.size(); ++v) {
        const VertexPlan& vertex = vertices_[v];
        report.continuous_dimensions += 2;
        if (vertex.proposal.kind() == VertexProposal::Kind::kIsotropic) {
            continue;
        }
        for (const std::size_t e : vertex.incoming) {
            if (std::find(roots_.begin(), roots_.end(), e) == roots_.end()) {
                throw ModelError(fmt::format(
                    "vertex `{}`: a proven envelope needs the incoming edges of a t exchange "
                    "to be initial edges, and `{}` is not; use the pilot envelope",
                    vertex.name, edges_[e].name));
            }
        }
        report.piecewise_regions *= vertex.proposal.distribution().piecewise_regions();
        transfer_coordinate[v] = domain.size();
        domain.emplace_back(0.0, 1.0);
    }
    for (const auto& [name, source] : scalars_) {
        const ScalarEnclosure scalar = source.enclose();
        fixed_weight = fixed_weight * scalar.weight;
        report.continuous_dimensions += scalar.continuous_dimensions;
        report.piecewise_regions *= scalar.piecewise_regions;
    }

    const Interval pi = Interval::point(std::numbers::pi);
    const std::string* unbounded_at = nullptr;  // a vertex whose t pole a box may reach
    // The weight over a box; empty when no event of the box is possible.
    const auto evaluate = [&](const std::vector<Interval>& x) -> Interval {
        const Interval& rs = x[0];
        Interval weight = fixed_weight;
        std::vector<Interval> mass(edges_.size());
        for (std::size_t i = 0; i < edges_.size(); ++i) {
            const EdgePlan& edge = edges_[i];
            if (!edge.proposal) {
                mass[i] = Interval::point(*edge.mass);
                continue;
            }
            if (edge.proposal->is_fixed()) {
                mass[i] = Interval::point(edge.proposal->low());
                continue;
            }
            // The window [max(low, 0), min(high, √s)] and its width, the mass weight.
            const double high = *edge.proposal->high();
            const Interval low = Interval::point(std::max(edge.proposal->low(), 0.0));
            const double widest = (Interval::point(std::min(high, rs.hi())) - low).hi();
            if (!(widest > 0.0)) {
                return {};
            }
            const double narrowest =
                std::max((Interval::point(std::min(high, rs.lo())) - low).lo(), 0.0);
            const Interval width(narrowest, widest);
            weight = weight * width;
            mass[i] = low + x[*mass_coordinate[i]] * width;
        }
        for (std::size_t v = 0; v < vertices_.size(); ++v) {
            const VertexPlan& vertex = vertices_[v];
            if (vertex.proposal.kind() == VertexProposal::Kind::kIsotropic) {
                const Interval& parent = mass[vertex.incoming[0]];
                const Interval q =
                    breakup(parent, mass[vertex.outgoing[0]], mass[vertex.outgoing[1]]);
                if (q.is_empty()) {
                    return {};
                }
                weight = weight * upper_part(q / (4.0 * pi * parent));
                continue;
            }
            const VertexProposal& proposal = vertex.proposal;
            const bool first_in = edges_[vertex.incoming[0]].name == proposal.incoming_edge();
            const bool first_out = edges_[vertex.outgoing[0]].name == proposal.outgoing_edge();
            const Interval& m1 = mass[vertex.incoming[first_in ? 0 : 1]];
            const Interval& m2 = mass[vertex.incoming[first_in ? 1 : 0]];
            const Interval& m3 = mass[vertex.outgoing[first_out ? 0 : 1]];
            const Interval& m4 = mass[vertex.outgoing[first_out ? 1 : 0]];
            const Interval p_in = breakup(rs, m1, m2);
            const Interval p_out = breakup(rs, m3, m4);
            if (p_in.is_empty() || p_out.is_empty()) {
                return {};
            }
            // t± = m1² + m3² − 2 (E1 E3 ∓ p_in p_out) (PDG "Kinematics", eq. 49.33). E1 E3 and
            // p_in p_out nearly cancel in t₊, which would widen its enclosure by both their
            // widths; (E1 E3 − p_in p_out)(E1 E3 + p_in p_out) = m1² m3² + m1² p_out² + m3² p_in²
            // gives it without the cancellation.
            const Interval e1 = (m1.sqr() + p_in.sqr()).sqrt();
            const Interval e3 = (m3.sqr() + p_out.sqr()).sqrt();
            const Interval far = e1 * e3 + p_in * p_out;
            const Interval near =
                (m1.sqr() * m3.sqr() + m1.sqr() * p_out.sqr() + m3.sqr() * p_in.sqr()) / far;
            const TDistribution& distribution = proposal.distribution();
            Interval support_low = m1.sqr() + m3.sqr() - 2.0 * far;
            Interval support_high = m1.sqr() + m3.sqr() - 2.0 * near;
            if (distribution.t_min()) {
                support_low = Interval::max(support_low, Interval::point(*distribution.t_min()));
            }
            if (distribution.t_max()) {
                support_high = Interval::min(support_high, Interval::point(*distribution.t_max()));
            }
            const Interval width = support_high - support_low;
            if (width.is_empty() || width.hi() <= 0.0) {
                return {};
            }
            const Interval t = support_low + x[*transfer_coordinate[v]] *
                                                 Interval::intersect(width, Interval(0.0, kInf));
            const double floor =
                distribution.density_floor(support_low.lo(), support_high.hi(), t.lo(), t.hi());
            if (!(std::isfinite(floor) && floor > 0.0)) {
                if (distribution.pole_at_or_below(support_high.hi())) {
                    // The box may reach the pole: unbounded here; smaller boxes may not.
                    unbounded_at = &vertex.name;
                    return Interval::entire();
                }
                return {};  // a histogram gap: no t is drawn here
            }
            weight = weight * upper_part(1.0 / (16.0 * pi * rs * p_in * Interval::point(floor)));
        }
        return weight;
    };
    const auto bound_of = [&](const std::vector<Interval>& x) {
        const Interval w = evaluate(x);
        return w.is_empty() ? -kInf : w.hi();
    };

    std::vector<double> range;
    range.reserve(domain.size());
    for (const Interval& d : domain) {
        range.push_back(d.hi() - d.lo());
    }
    std::priority_queue<Box, std::vector<Box>, ByBound> boxes;
    const double first = bound_of(domain);
    double estimate = std::max(bound_of(centre(domain)), 0.0);
    if (first > -kInf) {
        boxes.push({domain, first});
    }
    double settled = -kInf;  // bounds of boxes too small to bisect
    while (!boxes.empty() && report.subdivisions < kMaxSubdivisions) {
        if (boxes.top().bound <= estimate * (1.0 + kGapTolerance)) {
            break;
        }
        Box box = boxes.top();
        boxes.pop();
        // Bisect along the coordinate whose halves lower the bound most (the widest, relative
        // to its range, on ties): where one factor's enclosure is loose, splitting the others
        // does not help.
        std::optional<std::pair<Box, Box>> best;
        double best_bound = kInf;
        double best_fraction = 0.0;
        for (std::size_t d = 0; d < box.x.size(); ++d) {
            const double lo = box.x[d].lo();
            const double hi = box.x[d].hi();
            const double middle = 0.5 * lo + 0.5 * hi;
            // A coordinate no double splits (a fixed √s is an interval of a few ulps) is done.
            const double fraction = middle > lo && middle < hi ? (hi - lo) / range[d] : 0.0;
            if (fraction <= kDomainTolerance) {
                continue;
            }
            std::pair<Box, Box> halves{box, box};
            halves.first.x[d] = Interval(lo, middle);
            halves.second.x[d] = Interval(middle, hi);
            halves.first.bound = bound_of(halves.first.x);
            halves.second.bound = bound_of(halves.second.x);
            const double bound = std::max(halves.first.bound, halves.second.bound);
            if (bound < best_bound || (bound == best_bound && fraction > best_fraction)) {
                best = std::move(halves);
                best_bound = bound;
                best_fraction = fraction;
            }
        }
        if (!best) {
            settled = std::max(settled, box.bound);
            continue;
        }
        for (Box* child : {&best->first, &best->second}) {
            if (child->bound > -kInf) {
                estimate = std::max(estimate, bound_of(centre(child->x)));
                boxes.push(std::move(*child));
            }
        }
        ++report.subdivisions;
    }
    const double upper = std::max(settled, boxes.empty() ? -kInf : boxes.top().bound);
    if (!(std::isfinite(upper) && upper > 0.0)) {
        if (unbounded_at != nullptr) {
            throw ModelError(fmt::format(
                "vertex `{}`: the t pole of its proposal reaches the physical t range, so no "
                "envelope bounds its weight; move the pole above t+ or narrow t_max, or use the "
                "pilot envelope",
                *unbounded_at));
        }
        throw ModelError(fmt::format(
            "the phase-space proposal weight has no finite positive bound (found {}); a t "
            "exchange at its threshold has no envelope: use the pilot envelope or max_weight",
            upper));
    }
    report.maximum_weight = (Interval::point(upper) * Interval::point(1.0 + kRoundingMargin)).hi();
    report.weight_interval = Interval(0.0, report.maximum_weight);
    return report;
}

}  // namespace laddu::generation
