// The Nelder-Mead simplex minimiser (Nelder & Mead 1965, "A simplex method for function
// minimization", Comput. J. 7, 308), with ganesh's coefficients, start simplex, expansion rule
// and stopping rules (NelderMeadOptions), and laddu-cpp's own start simplex and stopping rule
// when those are not given.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include <laddu/fit/minimizer.hpp>

#include "minimizer_support.hpp"

namespace laddu::fit::detail {
namespace {

// The simplex of nelder_mead(): n + 1 vertices in the box and their values.
class Simplex {
public:
    Simplex(const Counted& f, const Box& box, const std::vector<double>& x,
            const MinimizerOptions& options)
        : f_(f), box_(box), o_(options.nelder_mead), n_(x.size()) {
        if (!o_.vertices.empty()) {
            for (std::vector<double> v : o_.vertices) {
                box.project(v);
                values_.push_back(f.try_value(v));
                vertices_.push_back(std::move(v));
            }
        } else {
            vertices_.push_back(x);
            values_.push_back(f.value(x));
            for (std::size_t k = 0; k < n_; ++k) {
                std::vector<double> v = x;
                if (o_.initial_step > 0.0) {
                    // ganesh's start: a relative step, or an absolute one from 0.
                    v[k] = x[k] == 0.0 ? o_.initial_zero_step : x[k] * (1.0 + o_.initial_step);
                } else {
                    const double h = options.initial_simplex * std::max(1.0, std::abs(x[k]));
                    v[k] = (v[k] + h <= box.upper[k]) ? v[k] + h : v[k] - h;
                }
                box.project(v);
                values_.push_back(f.try_value(v));
                vertices_.push_back(std::move(v));
            }
        }
        order_.resize(n_ + 1);
        sort();
        initial_diameter_ = distance(vertices_[order_.back()], vertices_[order_.front()]);
    }

    // Sorts the vertices by value (order_[0] the best).
    void sort() {
        std::iota(order_.begin(), order_.end(), std::size_t{0});
        std::stable_sort(order_.begin(), order_.end(),
                         [&](std::size_t a, std::size_t b) { return values_[a] < values_[b]; });
    }

    // laddu-cpp's rule: the spread of the vertices in x (∞-norm) is below x_tol and in value
    // below f_tol.
    [[nodiscard]] bool small(double x_tol, double f_tol) const {
        return spread(false) <= x_tol &&
               small_change(values_[order_.front()], values_[order_.back()], f_tol);
    }

    // The first of ganesh's rules that holds (on a sorted simplex), if any.
    [[nodiscard]] std::optional<Termination>
    met(const std::vector<SimplexTerminator>& rules) const {
        for (const SimplexTerminator& rule : rules) {
            if (holds(rule)) {
                const bool on_values = rule.criterion == SimplexCriterion::kValueStdDev ||
                                       rule.criterion == SimplexCriterion::kValueAbsolute ||
                                       rule.criterion == SimplexCriterion::kValueAmoeba;
                return on_values ? Termination::kSimplexValues : Termination::kSimplexSize;
            }
        }
        return std::nullopt;
    }

    // One reflection / expansion / contraction / shrink step (on a sorted simplex), with the
    // factor by which it scales the simplex volume (for the Singer rule).
    void step() {
        const std::size_t best = order_.front();
        const std::size_t worst = order_.back();
        std::vector<double> centroid(n_, 0.0);
        for (std::size_t i = 0; i < n_; ++i) {
            for (std::size_t k = 0; k < n_; ++k) {
                centroid[k] += vertices_[order_[i]][k] / static_cast<double>(n_);
            }
        }
        const double alpha = o_.reflection;
        // Points c + t (w − c): reflection t = −α, expansion −αβ, contraction −αγ (outside),
        // γ (inside).
        std::vector<double> reflected = towards(centroid, vertices_[worst], -alpha);
        const double fr = f_.try_value(reflected);
        if (fr < values_[best]) {
            std::vector<double> expanded =
                towards(centroid, vertices_[worst], -alpha * o_.expansion);
            const double fe = f_.try_value(expanded);
            const bool take_expanded =
                o_.expansion_method == SimplexExpansion::kGreedyExpansion || fe < fr;
            take_expanded ? replace(worst, std::move(expanded), fe)
                          : replace(worst, std::move(reflected), fr);
            volume_ *= alpha * o_.expansion;
        } else if (fr < values_[order_[n_ - 1]]) {
            replace(worst, std::move(reflected), fr);
            volume_ *= alpha;
        } else {
            const bool outside = fr < values_[worst];
            const double t = outside ? -alpha * o_.contraction : o_.contraction;
            std::vector<double> contracted = towards(centroid, vertices_[worst], t);
            const double fc = f_.try_value(contracted);
            if (fc < std::min(fr, values_[worst])) {
                replace(worst, std::move(contracted), fc);
                volume_ *= outside ? alpha * o_.contraction : o_.contraction;
            } else {
                shrink();
                volume_ *= std::pow(o_.shrink, static_cast<double>(n_));
            }
        }
    }

    // The index of the lowest vertex (the simplex need not be sorted).
    [[nodiscard]] std::size_t lowest() const {
        return static_cast<std::size_t>(std::min_element(values_.begin(), values_.end()) -
                                        values_.begin());
    }

    [[nodiscard]] const std::vector<double>& vertex(std::size_t i) const { return vertices_[i]; }

    [[nodiscard]] double value(std::size_t i) const { return values_[i]; }

private:
    // The largest ∞-norm (or 1-norm) distance of a vertex from the best.
    [[nodiscard]] double spread(bool one_norm) const {
        const std::vector<double>& best = vertices_[order_.front()];
        double largest = 0.0;
        for (const auto& v : vertices_) {
            double d = 0.0;
            for (std::size_t k = 0; k < n_; ++k) {
                d = one_norm ? d + std::abs(v[k] - best[k]) : std::max(d, std::abs(v[k] - best[k]));
            }
            largest = std::max(largest, d);
        }
        return largest;
    }

    [[nodiscard]] static double distance(const std::vector<double>& a,
                                         const std::vector<double>& b) {
        double sum = 0.0;
        for (std::size_t k = 0; k < a.size(); ++k) {
            sum += (a[k] - b[k]) * (a[k] - b[k]);
        }
        return std::sqrt(sum);
    }

    // ganesh's NelderMeadFTerminator and NelderMeadXTerminator tests.
    [[nodiscard]] bool holds(const SimplexTerminator& rule) const {
        const double f_best = values_[order_.front()];
        const double f_worst = values_[order_.back()];
        const std::vector<double>& best = vertices_[order_.front()];
        switch (rule.criterion) {
        case SimplexCriterion::kValueStdDev: {
            const double count = static_cast<double>(values_.size());
            const double mean = std::accumulate(values_.begin(), values_.end(), 0.0) / count;
            double variance = 0.0;
            for (const double v : values_) {
                variance += (v - mean) * (v - mean) / count;
            }
            return std::sqrt(variance) <= rule.tolerance;
        }
        case SimplexCriterion::kValueAbsolute:
            return f_worst - f_best <= rule.tolerance;
        case SimplexCriterion::kValueAmoeba:
            return 2.0 * (f_worst - f_best) / (std::abs(f_worst) + std::abs(f_best)) <=
                   rule.tolerance;
        case SimplexCriterion::kPointDiameter:
            return spread(false) <= rule.tolerance;
        case SimplexCriterion::kPointHigham: {
            double norm = 0.0;
            for (const double v : best) {
                norm += std::abs(v);
            }
            return spread(true) / std::max(1.0, norm) <= rule.tolerance;
        }
        case SimplexCriterion::kPointRowan:
            return distance(vertices_[order_.back()], best) <= rule.tolerance * initial_diameter_;
        case SimplexCriterion::kPointSinger:
            return volume_ <= std::pow(rule.tolerance, static_cast<double>(n_));
        }
        return false;
    }

    std::vector<double> towards(const std::vector<double>& centroid,
                                const std::vector<double>& worst, double t) const {
        std::vector<double> p(n_);
        for (std::size_t k = 0; k < n_; ++k) {
            p[k] = centroid[k] + t * (worst[k] - centroid[k]);
        }
        box_.project(p);
        return p;
    }

    void replace(std::size_t i, std::vector<double> v, double value) {
        vertices_[i] = std::move(v);
        values_[i] = value;
    }

    void shrink() {
        const std::vector<double>& best = vertices_[order_.front()];
        for (std::size_t i = 1; i <= n_; ++i) {
            std::vector<double>& v = vertices_[order_[i]];
            for (std::size_t k = 0; k < n_; ++k) {
                v[k] = best[k] + o_.shrink * (v[k] - best[k]);
            }
            values_[order_[i]] = f_.try_value(v);
        }
    }

    const Counted& f_;
    const Box& box_;
    const NelderMeadOptions& o_;
    std::size_t n_;
    std::vector<std::vector<double>> vertices_;
    std::vector<double> values_;
    std::vector<std::size_t> order_;
    double volume_ = 1.0;            // relative to the start simplex (Singer)
    double initial_diameter_ = 0.0;  // ‖worst − best‖₂ at the start (Rowan)
};

}  // namespace

MinimizerResult nelder_mead(const Objective& objective, std::vector<double> x,
                            const MinimizerOptions& options) {
    MinimizerResult result;
    const Counted f(objective, result);
    const Box box = box_of(objective);
    box.project(x);
    Simplex simplex(f, box, x, options);
    const std::vector<SimplexTerminator>& rules = options.nelder_mead.terminators;
    while (true) {
        simplex.sort();
        if (rules.empty()) {
            if (simplex.small(options.simplex_tolerance, options.value_tolerance) &&
                stop(result, Termination::kSimplexSize)) {
                break;
            }
        } else if (const std::optional<Termination> reason = simplex.met(rules);
                   reason && result.iterations > 0 && stop(result, *reason)) {
            break;  // ganesh tests its rules after each step, not on the start simplex
        }
        if (result.iterations >= options.max_iterations &&
            stop(result, Termination::kMaxIterations)) {
            break;
        }
        ++result.iterations;
        simplex.step();
        const std::size_t best = simplex.lowest();
        if (!report(options, result, simplex.value(best), simplex.vertex(best)) &&
            stop(result, Termination::kStopped)) {
            break;
        }
    }
    const std::size_t best = simplex.lowest();
    result.x = simplex.vertex(best);
    result.value = simplex.value(best);
    return result;
}

}  // namespace laddu::fit::detail
