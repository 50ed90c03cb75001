// The strong-Wolfe line searches of L-BFGS-B (LineSearchKind::kMoreThuente, kHagerZhang),
// following ganesh's MoreThuenteLineSearch and HagerZhangLineSearch step for step, with two
// changes: the search stays on the feasible segment [0, α_max] of the direction (ganesh lets
// a trial point leave the box and clips the accepted one), and the sufficient-decrease test
// of the extrapolation phase is Armijo's f(α) <= f(0) + c1 α f'(0) (ganesh omits the α there).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "minimizer_support.hpp"

namespace laddu::fit::detail {
namespace {

// φ(α) = f(x + α d) and φ'(α) = ∇f · d; a failed evaluation is φ = +∞ with φ' = +∞.
class Line {
public:
    Line(const Counted& f, const Box& box, const std::vector<double>& x,
         const std::vector<double>& d)
        : f_(f), box_(box), x_(x), d_(d) {}

    struct Point {
        double alpha = 0.0;
        double phi = kInf;
        double slope = kInf;
        runtime::Evaluation at;
    };

    [[nodiscard]] Point at(double alpha) const {
        std::vector<double> trial(x_.size());
        for (std::size_t k = 0; k < x_.size(); ++k) {
            trial[k] = x_[k] + alpha * d_[k];
        }
        box_.project(trial);  // only rounding can take it out: α <= α_max
        Point p{alpha, kInf, kInf, f_.try_with_gradient(trial)};
        p.phi = p.at.value;
        if (p.at.gradient.size() == d_.size() && std::isfinite(p.phi)) {
            p.slope = dot(p.at.gradient, d_);
        }
        return p;
    }

    [[nodiscard]] Step step(Point p) const {
        std::vector<double> next(x_.size());
        for (std::size_t k = 0; k < x_.size(); ++k) {
            next[k] = x_[k] + p.alpha * d_[k];
        }
        box_.project(next);
        return Step{std::move(next), std::move(p.at)};
    }

private:
    const Counted& f_;
    const Box& box_;
    const std::vector<double>& x_;
    const std::vector<double>& d_;
};

using Point = Line::Point;

// Nocedal & Wright (2006) Alg. 3.6 with bisection, as ganesh's zoom: the bracket [low, high]
// holds a strong-Wolfe point; after max_zoom bisections the last trial is accepted if it
// decreased the value enough.
std::optional<Step> zoom(const Line& line, const LineSearchOptions& o, double phi0, double dphi0,
                         Point low, double high) {
    for (std::size_t iteration = 0; iteration <= o.max_zoom; ++iteration) {
        Point p = line.at(0.5 * (low.alpha + high));
        const bool valid = !(p.phi > phi0 + o.c1 * p.alpha * dphi0 || p.phi >= low.phi);
        if (!valid) {
            high = p.alpha;
        } else {
            if (std::abs(p.slope) <= -o.c2 * dphi0) {
                return line.step(std::move(p));
            }
            if (p.slope * (high - low.alpha) >= 0.0) {
                high = low.alpha;
            }
            low = p;
        }
        if (iteration == o.max_zoom) {
            return valid ? std::optional<Step>(line.step(std::move(p))) : std::nullopt;
        }
    }
    return std::nullopt;
}

// ganesh's MoreThuenteLineSearch (Nocedal & Wright Alg. 3.5 after Moré & Thuente 1994):
// extrapolate α ← α + 0.8 (α_max − α) until the value rises or the slope turns, then zoom.
std::optional<Step> more_thuente(const Line& line, const LineSearchOptions& o, double phi0,
                                 double dphi0, double alpha, double alpha_max) {
    Point previous{0.0, phi0, dphi0, {}};
    for (std::size_t iteration = 0; iteration <= o.max_iterations; ++iteration) {
        Point p = line.at(alpha);
        if (p.phi > phi0 + o.c1 * alpha * dphi0 || (iteration > 1 && p.phi >= previous.phi)) {
            return zoom(line, o, phi0, dphi0, previous, alpha);
        }
        if (std::abs(p.slope) <= o.c2 * std::abs(dphi0)) {
            return line.step(std::move(p));
        }
        if (p.slope >= 0.0) {
            const double other = previous.alpha;
            return zoom(line, o, phi0, dphi0, std::move(p), other);
        }
        if (alpha >= alpha_max) {
            return line.step(std::move(p));  // the end of the feasible segment: a bound
        }
        previous = std::move(p);
        alpha += 0.8 * (alpha_max - alpha);
    }
    return std::nullopt;
}

// Hager & Zhang (2006), "A new conjugate gradient method with guaranteed descent and an
// efficient line search", SIAM J. Optim. 16: the approximate-Wolfe conditions and the
// update / secant² / bisection steps of their bracket, as ganesh implements them.
class HagerZhang {
public:
    HagerZhang(const Line& line, const LineSearchOptions& o, double phi0, double dphi0)
        : line_(line), o_(o), phi0_(phi0), dphi0_(dphi0), eps_k_(o.epsilon * std::abs(phi0)) {}

    std::optional<Step> search(double b) {
        double a = std::numeric_limits<double>::epsilon();
        for (std::size_t iteration = 0;; ++iteration) {
            Point pa = line_.at(a);
            if (wolfe(pa)) {
                return line_.step(std::move(pa));
            }
            Point pb = line_.at(b);
            if (wolfe(pb)) {
                return line_.step(std::move(pb));
            }
            auto [next_a, next_b] = secant2(a, pa.slope, b, pb.slope);
            if (next_b - next_a > o_.gamma * (b - a)) {
                std::tie(next_a, next_b) = update(next_a, next_b, 0.5 * (next_a + next_b));
            }
            a = next_a;
            b = next_b;
            if (iteration > o_.max_iterations) {
                return std::nullopt;
            }
        }
    }

private:
    [[nodiscard]] bool wolfe(const Point& p) const {
        const bool curvature = p.slope >= o_.sigma * dphi0_ && std::isfinite(p.slope);
        const bool standard = p.phi - phi0_ <= o_.delta * p.alpha * dphi0_ && curvature;
        const bool approximate =
            (2.0 * o_.delta - 1.0) * dphi0_ >= p.slope && curvature && p.phi <= phi0_ + eps_k_;
        return standard || approximate;
    }

    static double secant(double a, double dphi_a, double b, double dphi_b) {
        return (a * dphi_b - b * dphi_a) / (dphi_b - dphi_a);
    }

    // The bracket [a, b] updated with the trial c (HZ's "update", with its bisection U3).
    std::pair<double, double> update(double a, double b, double c) const {
        if (!(c > a && c < b)) {
            return {a, b};
        }
        const Point pc = line_.at(c);
        if (pc.slope >= 0.0) {
            return {a, c};
        }
        if (pc.phi <= phi0_ + eps_k_) {
            return {c, b};
        }
        double a_hat = a;
        double b_hat = c;
        for (std::size_t iteration = 0; iteration <= o_.max_bisects; ++iteration) {
            const double d = (1.0 - o_.theta) * a_hat + o_.theta * b_hat;
            const Point pd = line_.at(d);
            if (pd.slope >= 0.0 || iteration == o_.max_bisects) {
                return {a_hat, d};
            }
            (pd.phi <= phi0_ + eps_k_ ? a_hat : b_hat) = d;
        }
        return {a_hat, b_hat};
    }

    std::pair<double, double> secant2(double a, double dphi_a, double b, double dphi_b) const {
        const double c = secant(a, dphi_a, b, dphi_b);
        const auto [a_star, b_star] = update(a, b, c);
        if (c == a_star) {
            return update(a_star, b_star, secant(a, dphi_a, a_star, line_.at(a_star).slope));
        }
        if (c == b_star) {
            return update(a_star, b_star, secant(b, dphi_b, b_star, line_.at(b_star).slope));
        }
        return {a_star, b_star};
    }

    const Line& line_;
    const LineSearchOptions& o_;
    double phi0_;
    double dphi0_;
    double eps_k_;
};

}  // namespace

std::optional<Step> wolfe_line_search(const Counted& f, const Box& box,
                                      const std::vector<double>& x,
                                      const runtime::Evaluation& current, std::vector<double> d,
                                      double step, const MinimizerOptions& options) {
    // Drop the components that would leave the box at once (a variable on a bound with the
    // direction pointing out), then find the longest feasible multiple of the direction.
    double alpha_max = options.max_step;
    for (std::size_t k = 0; k < x.size(); ++k) {
        if ((x[k] <= box.lower[k] && d[k] < 0.0) || (x[k] >= box.upper[k] && d[k] > 0.0)) {
            d[k] = 0.0;
        } else if (d[k] < 0.0) {
            alpha_max = std::min(alpha_max, (box.lower[k] - x[k]) / d[k]);
        } else if (d[k] > 0.0) {
            alpha_max = std::min(alpha_max, (box.upper[k] - x[k]) / d[k]);
        }
    }
    const double dphi0 = dot(current.gradient, d);
    if (!(dphi0 < 0.0)) {
        return std::nullopt;
    }
    if (!(alpha_max > std::numeric_limits<double>::epsilon())) {
        // A variable a rounding error from its bound blocks the segment: move along the
        // projected path instead (the bracket [ε, α_max] of Hager-Zhang would be empty).
        return projected_line_search(f, box, x, current, d, std::min(step, options.max_step));
    }
    const Line line(f, box, x, d);
    if (options.line_search.kind == LineSearchKind::kHagerZhang) {
        return HagerZhang(line, options.line_search, current.value, dphi0).search(alpha_max);
    }
    return more_thuente(line, options.line_search, current.value, dphi0, std::min(step, alpha_max),
                        alpha_max);
}

}  // namespace laddu::fit::detail
