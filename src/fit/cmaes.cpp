// CMA-ES (Method::kCmaes): Hansen's (μ/μ_w, λ) evolution strategy with cumulative step-size
// adaptation and rank-one plus active rank-μ covariance updates (N. Hansen, "The CMA evolution
// strategy: a tutorial", arXiv:1604.00772, 2016, Table 1 and eqs. (49)-(55)), with ganesh 0.28's
// constants, weights and stopping rules (its CMAES*Terminators; names in CmaesOptions). The best
// point ever sampled is the result, as in ganesh.
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include <laddu/base/random.hpp>
#include <laddu/fit/minimizer.hpp>

#include "minimizer_support.hpp"

namespace laddu::fit::detail {
namespace {

constexpr double kEpsilon = std::numeric_limits<double>::epsilon();

// Applies the rotation G(p, q, c, s) to the columns p, q of the n × n row-major `m`.
void rotate_columns(std::vector<double>& m, std::size_t n, std::size_t p, std::size_t q, double c,
                    double s) {
    for (std::size_t k = 0; k < n; ++k) {
        const double mkp = m[k * n + p];
        const double mkq = m[k * n + q];
        m[k * n + p] = c * mkp - s * mkq;
        m[k * n + q] = s * mkp + c * mkq;
    }
}

// The same on the rows p, q.
void rotate_rows(std::vector<double>& m, std::size_t n, std::size_t p, std::size_t q, double c,
                 double s) {
    for (std::size_t k = 0; k < n; ++k) {
        const double mpk = m[p * n + k];
        const double mqk = m[q * n + k];
        m[p * n + k] = c * mpk - s * mqk;
        m[q * n + k] = s * mpk + c * mqk;
    }
}

// True when the off-diagonal part of `a` is negligible (below 1e-30 of its Frobenius norm²).
bool diagonal_enough(const std::vector<double>& a, std::size_t n) {
    double off = 0.0;
    double total = 0.0;
    for (std::size_t i = 0; i < n * n; ++i) {
        total += a[i] * a[i];
        off += i % (n + 1) == 0 ? 0.0 : a[i] * a[i];
    }
    return off <= 1e-30 * total || off == 0.0;
}

// Symmetric eigendecomposition by cyclic Jacobi rotations (Golub & Van Loan, §8.5): the n × n
// row-major `a` becomes diagonal; `vectors` holds the eigenvectors as columns. Accurate to
// rounding for the small, well-scaled covariances CMA-ES keeps.
void jacobi_eigen(std::vector<double> a, std::size_t n, std::vector<double>& values,
                  std::vector<double>& vectors) {
    vectors.assign(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        vectors[i * n + i] = 1.0;
    }
    for (int sweep = 0; sweep < 100 && !diagonal_enough(a, n); ++sweep) {
        for (std::size_t p = 0; p + 1 < n; ++p) {
            for (std::size_t q = p + 1; q < n; ++q) {
                const double apq = a[p * n + q];
                if (apq == 0.0) {
                    continue;
                }
                // The rotation that zeroes a_pq (Golub & Van Loan Alg. 8.5.1).
                const double theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
                const double t = (theta >= 0.0 ? 1.0 : -1.0) /
                                 (std::abs(theta) + std::sqrt(theta * theta + 1.0));
                const double c = 1.0 / std::sqrt(t * t + 1.0);
                rotate_columns(a, n, p, q, c, t * c);
                rotate_rows(a, n, p, q, c, t * c);
                rotate_columns(vectors, n, p, q, c, t * c);
            }
        }
    }
    values.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        values[i] = a[i * n + i];
    }
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 == 0 ? 0.5 * (values[middle - 1] + values[middle]) : values[middle];
}

struct Candidate {
    std::vector<double> x;
    std::vector<double> y;  // (x − m) / σ
    double value = 0.0;
};

class Cmaes {
public:
    Cmaes(const CmaesOptions& o, std::vector<double> mean)
        : o_(o), n_(mean.size()), mean_(std::move(mean)), random_(o.seed) {
        const double n = static_cast<double>(n_);
        lambda_ = o.population_size == 0
                      ? 4 + static_cast<std::size_t>(std::floor(3.0 * std::log(n)))
                      : o.population_size;
        covariance_.assign(n_ * n_, 0.0);
        for (std::size_t i = 0; i < n_; ++i) {
            covariance_[i * n_ + i] = 1.0;
        }
        path_c_.assign(n_, 0.0);
        path_sigma_.assign(n_, 0.0);
        sigma_ = o.initial_sigma;
        // Recombination weights ln((λ + 1) / 2) − ln i (tutorial eq. (49)); the negative ones
        // are scaled by min(α_μ⁻, α_μeff⁻, α_posdef⁻) (eqs. (50)-(53)).
        std::vector<double> raw(lambda_);
        double positive = 0.0;
        double negative = 0.0;
        for (std::size_t i = 0; i < lambda_; ++i) {
            raw[i] = std::log(0.5 * static_cast<double>(lambda_ + 1)) -
                     std::log(static_cast<double>(i + 1));
            (raw[i] > 0.0 ? positive : negative) += std::abs(raw[i]);
        }
        double sum_sq_pos = 0.0;
        double sum_sq_neg = 0.0;
        for (const double w : raw) {
            if (w > 0.0) {
                sum_sq_pos += (w / positive) * (w / positive);
            } else if (w < 0.0) {
                sum_sq_neg += (w / negative) * (w / negative);
            }
        }
        mu_eff_ = 1.0 / sum_sq_pos;
        const double mu_eff_minus = sum_sq_neg > 0.0 ? 1.0 / sum_sq_neg : 0.0;
        cc_ = (4.0 + mu_eff_ / n) / (n + 4.0 + 2.0 * mu_eff_ / n);
        cs_ = (mu_eff_ + 2.0) / (n + mu_eff_ + 5.0);
        c1_ = 2.0 / ((n + 1.3) * (n + 1.3) + mu_eff_);
        cmu_ = std::min(1.0 - c1_,
                        2.0 * (mu_eff_ - 2.0 + 1.0 / mu_eff_) / ((n + 2.0) * (n + 2.0) + mu_eff_));
        damping_ = 1.0 + 2.0 * std::max(0.0, std::sqrt((mu_eff_ - 1.0) / (n + 1.0)) - 1.0) + cs_;
        chi_ = std::sqrt(n) * (1.0 - 1.0 / (4.0 * n) + 1.0 / (21.0 * n * n));
        const double negative_scale =
            std::min({1.0 + c1_ / cmu_, 1.0 + 2.0 * mu_eff_minus / (mu_eff_ + 2.0),
                      (1.0 - c1_ - cmu_) / (n * cmu_)});
        weights_.resize(lambda_);
        for (std::size_t i = 0; i < lambda_; ++i) {
            weights_[i] = raw[i] >= 0.0 ? raw[i] / positive : negative_scale * raw[i] / negative;
        }
        weight_sum_ = std::accumulate(weights_.begin(), weights_.end(), 0.0);
        decompose();
    }

    // One generation: sample λ points, rank them, move the mean, adapt the paths, C and σ.
    void generation(const Counted& f) {
        std::vector<Candidate> population = sample(f);
        record_history(population);
        if (population.front().value < best_value_) {
            best_value_ = population.front().value;
            best_x_ = population.front().x;
        }
        std::vector<double> y_w(n_, 0.0);
        for (std::size_t k = 0; k < lambda_ && weights_[k] > 0.0; ++k) {
            for (std::size_t i = 0; i < n_; ++i) {
                y_w[i] += weights_[k] * population[k].y[i];
            }
        }
        for (std::size_t i = 0; i < n_; ++i) {
            mean_[i] += sigma_ * y_w[i];
        }
        const bool h_sigma = update_paths(y_w);
        update_covariance(population, h_sigma);
        sigma_ *=
            std::exp((cs_ / damping_) * (std::sqrt(dot(path_sigma_, path_sigma_)) / chi_ - 1.0));
        ++generation_;
        // Eigenvalues below ε are raised to ε, which keeps C positive definite (as ganesh).
        decompose();
        std::fill(covariance_.begin(), covariance_.end(), 0.0);
        for (std::size_t i = 0; i < n_; ++i) {
            for (std::size_t j = 0; j < n_; ++j) {
                for (std::size_t k = 0; k < n_; ++k) {
                    covariance_[i * n_ + j] +=
                        vectors_[i * n_ + k] * values_[k] * vectors_[j * n_ + k];
                }
            }
        }
    }

    // ganesh's message of the first CMAES*Terminator that holds, in its default order, or "".
    [[nodiscard]] std::string stop_reason() const {
        const double max_value = *std::max_element(values_.begin(), values_.end());
        // The raw eigenvalues: the clamped ones are >= ε by construction.
        const double min_value = *std::min_element(raw_values_.begin(), raw_values_.end());
        if (o_.sigma_tolerance > 0.0 && sigma_ * std::sqrt(max_value) <= o_.sigma_tolerance) {
            return "SIGMA WITHIN TOLERANCE";
        }
        if (o_.no_effect_axis && no_effect_axis()) {
            return "NO EFFECT AXIS";
        }
        if (o_.no_effect_coord) {
            for (std::size_t i = 0; i < n_; ++i) {
                const double step = 0.2 * sigma_ * std::sqrt(std::max(0.0, diagonal(i)));
                if (mean_[i] + step == mean_[i]) {
                    return "NO EFFECT COORD";
                }
            }
        }
        if (o_.max_condition > 0.0 &&
            (min_value <= kEpsilon || max_value / min_value > o_.max_condition)) {
            return "CONDITION COVARIANCE";
        }
        if (o_.equal_fun_values && equal_fun_values()) {
            return "EQUAL FUNCTION VALUES";
        }
        if (o_.stagnation && stagnated()) {
            return "STAGNATION";
        }
        if (o_.max_growth > 0.0 &&
            sigma_ * std::sqrt(max_value) > o_.max_growth * o_.initial_sigma) {
            return "TOL X UP";
        }
        if (o_.tol_fun > 0.0 && tol_fun()) {
            return "TOL FUN";
        }
        const double tol_x = o_.tol_x > 0.0 ? o_.tol_x : 1e-12 * o_.initial_sigma;
        if (o_.tol_x >= 0.0 && small_steps(tol_x)) {
            return "TOL X";
        }
        return "";
    }

    void start(std::vector<double> x, double value) {
        best_x_ = std::move(x);
        best_value_ = value;
    }

    [[nodiscard]] const std::vector<double>& best_x() const { return best_x_; }

    [[nodiscard]] double best_value() const { return best_value_; }

private:
    [[nodiscard]] double diagonal(std::size_t i) const { return covariance_[i * n_ + i]; }

    // λ points m + σ y, y = B D z, z ~ N(0, I), sorted by value (best first).
    std::vector<Candidate> sample(const Counted& f) {
        std::vector<Candidate> population(lambda_);
        std::vector<double> z(n_);
        for (Candidate& c : population) {
            for (std::size_t i = 0; i < n_; ++i) {
                z[i] = random_.normal() * std::sqrt(values_[i]);
            }
            c.y.assign(n_, 0.0);
            for (std::size_t i = 0; i < n_; ++i) {
                for (std::size_t j = 0; j < n_; ++j) {
                    c.y[i] += vectors_[i * n_ + j] * z[j];
                }
            }
            c.x.resize(n_);
            for (std::size_t i = 0; i < n_; ++i) {
                c.x[i] = mean_[i] + sigma_ * c.y[i];
            }
            c.value = f.try_value(c.x);
        }
        std::stable_sort(population.begin(), population.end(),
                         [](const Candidate& a, const Candidate& b) { return a.value < b.value; });
        return population;
    }

    // The evolution paths p_σ (with C^{-1/2} y_w = B D^{-1} Bᵀ y_w) and p_c (tutorial eqs.
    // (43)-(45)); returns h_σ, whether p_c took the step.
    bool update_paths(const std::vector<double>& y_w) {
        const std::vector<double> coords = to_eigenbasis(y_w);
        std::vector<double> whitened(n_, 0.0);
        for (std::size_t i = 0; i < n_; ++i) {
            for (std::size_t j = 0; j < n_; ++j) {
                whitened[i] += vectors_[i * n_ + j] * coords[j] / std::sqrt(values_[j]);
            }
        }
        const double ps_scale = std::sqrt(cs_ * (2.0 - cs_) * mu_eff_);
        for (std::size_t i = 0; i < n_; ++i) {
            path_sigma_[i] = (1.0 - cs_) * path_sigma_[i] + ps_scale * whitened[i];
        }
        const double ps_norm = std::sqrt(dot(path_sigma_, path_sigma_));
        const double decay = std::pow(1.0 - cs_, 2.0 * static_cast<double>(generation_ + 1));
        const bool h_sigma =
            ps_norm / std::sqrt(1.0 - decay) / chi_ < 1.4 + 2.0 / (static_cast<double>(n_) + 1.0);
        const double pc_scale = std::sqrt(cc_ * (2.0 - cc_) * mu_eff_);
        for (std::size_t i = 0; i < n_; ++i) {
            path_c_[i] = (1.0 - cc_) * path_c_[i] + (h_sigma ? pc_scale * y_w[i] : 0.0);
        }
        return h_sigma;
    }

    // The weight of candidate k in the rank-μ update: w_k, a negative one rescaled by
    // n / ‖C^{-1/2} y_k‖² (active update, tutorial eq. (46)).
    [[nodiscard]] double covariance_weight(std::size_t k, const Candidate& c) const {
        const double w = weights_[k];
        if (w >= 0.0) {
            return w;
        }
        const std::vector<double> coords = to_eigenbasis(c.y);
        double norm_sq = 0.0;
        for (std::size_t j = 0; j < n_; ++j) {
            norm_sq += coords[j] * coords[j] / values_[j];
        }
        return norm_sq > kEpsilon ? w * static_cast<double>(n_) / norm_sq : w;
    }

    // C ← (1 − c₁ − c_μ Σ w + c₁ δ(h_σ)) C + c₁ p_c p_cᵀ + c_μ Σ w°_k y_k y_kᵀ.
    void update_covariance(const std::vector<Candidate>& population, bool h_sigma) {
        const double h_correction = h_sigma ? 0.0 : cc_ * (2.0 - cc_);
        // Hansen's eq. (47) decays C by c_μ Σ_j w_j, the negative weights included; ganesh decays
        // by c_μ alone (Σ w⁺ = 1), so its active update shrinks C generation after generation
        // until its "CONDITION COVARIANCE" rule stops a run that is still converging.
        const double keep = 1.0 - c1_ - cmu_ * weight_sum_ + c1_ * h_correction;
        for (std::size_t i = 0; i < n_; ++i) {
            for (std::size_t j = 0; j < n_; ++j) {
                covariance_[i * n_ + j] =
                    keep * covariance_[i * n_ + j] + c1_ * path_c_[i] * path_c_[j];
            }
        }
        for (std::size_t k = 0; k < lambda_; ++k) {
            const Candidate& c = population[k];
            const double w = cmu_ * covariance_weight(k, c);
            for (std::size_t i = 0; i < n_; ++i) {
                for (std::size_t j = 0; j < n_; ++j) {
                    covariance_[i * n_ + j] += w * c.y[i] * c.y[j];
                }
            }
        }
    }

    void decompose() {
        jacobi_eigen(covariance_, n_, raw_values_, vectors_);
        values_ = raw_values_;
        for (double& v : values_) {
            v = std::max(v, kEpsilon);
        }
    }

    [[nodiscard]] std::vector<double> to_eigenbasis(const std::vector<double>& v) const {
        std::vector<double> out(n_, 0.0);
        for (std::size_t j = 0; j < n_; ++j) {
            for (std::size_t i = 0; i < n_; ++i) {
                out[j] += vectors_[i * n_ + j] * v[i];
            }
        }
        return out;
    }

    [[nodiscard]] bool no_effect_axis() const {
        for (std::size_t axis = 0; axis < n_; ++axis) {
            const double scale = 0.1 * sigma_ * std::sqrt(std::max(0.0, values_[axis]));
            bool unchanged = true;
            for (std::size_t i = 0; i < n_ && unchanged; ++i) {
                unchanged = mean_[i] + scale * vectors_[i * n_ + axis] == mean_[i];
            }
            if (unchanged) {
                return true;
            }
        }
        return false;
    }

    [[nodiscard]] std::size_t equal_window() const {
        return 10 + static_cast<std::size_t>(
                        std::ceil(30.0 * static_cast<double>(n_) / static_cast<double>(lambda_)));
    }

    [[nodiscard]] std::size_t stagnation_window() const {
        const std::size_t minimum = 110 + equal_window();
        const auto proportional =
            static_cast<std::size_t>(std::ceil(0.2 * static_cast<double>(generation_)));
        return std::min<std::size_t>(std::max(proportional, minimum), 20000);
    }

    void record_history(const std::vector<Candidate>& population) {
        best_history_.push_back(population.front().value);
        median_history_.push_back(population[population.size() / 2].value);
        recent_.clear();
        for (const Candidate& c : population) {
            recent_.push_back(c.value);
        }
        const std::size_t limit = std::max(equal_window(), stagnation_window());
        while (best_history_.size() > limit) {
            best_history_.pop_front();
        }
        while (median_history_.size() > stagnation_window()) {
            median_history_.pop_front();
        }
    }

    [[nodiscard]] bool equal_fun_values() const {
        const std::size_t window = equal_window();
        if (best_history_.size() < window) {
            return false;
        }
        const auto first = best_history_.end() - static_cast<std::ptrdiff_t>(window);
        const auto [low, high] = std::minmax_element(first, best_history_.end());
        return *low == *high;
    }

    [[nodiscard]] bool stagnated() const {
        const std::size_t window = stagnation_window();
        if (best_history_.size() < window || median_history_.size() < window) {
            return false;
        }
        const auto section =
            static_cast<std::ptrdiff_t>(std::ceil(0.3 * static_cast<double>(window)));
        // The newest 30 % of the window is no better than the oldest 30 %, for both series.
        const auto worse = [&](const std::deque<double>& history) {
            const auto end = history.end();
            const auto begin = end - static_cast<std::ptrdiff_t>(window);
            return median(std::vector<double>(end - section, end)) >=
                   median(std::vector<double>(begin, begin + section));
        };
        return worse(best_history_) && worse(median_history_);
    }

    [[nodiscard]] bool tol_fun() const {
        const std::size_t window = equal_window();
        if (best_history_.size() < window || recent_.empty()) {
            return false;
        }
        double low = *std::min_element(recent_.begin(), recent_.end());
        double high = *std::max_element(recent_.begin(), recent_.end());
        for (auto it = best_history_.end() - static_cast<std::ptrdiff_t>(window);
             it != best_history_.end(); ++it) {
            low = std::min(low, *it);
            high = std::max(high, *it);
        }
        return high - low < o_.tol_fun;
    }

    [[nodiscard]] bool small_steps(double tolerance) const {
        for (std::size_t i = 0; i < n_; ++i) {
            if (!(sigma_ * std::sqrt(std::max(0.0, diagonal(i))) < tolerance &&
                  sigma_ * std::abs(path_c_[i]) < tolerance)) {
                return false;
            }
        }
        return true;
    }

    const CmaesOptions& o_;
    std::size_t n_;
    std::vector<double> mean_;
    SplitMix64 random_;
    std::size_t lambda_ = 0;
    std::vector<double> weights_;
    double weight_sum_ = 1.0, mu_eff_ = 1.0, cc_ = 0.0, cs_ = 0.0, c1_ = 0.0, cmu_ = 0.0,
           damping_ = 1.0, chi_ = 1.0;
    std::vector<double> covariance_, path_c_, path_sigma_;
    std::vector<double> values_, raw_values_, vectors_;
    double sigma_ = 1.0;
    std::size_t generation_ = 0;
    std::deque<double> best_history_, median_history_;
    std::vector<double> recent_;
    std::vector<double> best_x_;
    double best_value_ = kInf;
};

}  // namespace

MinimizerResult cmaes(const Objective& objective, std::vector<double> x,
                      const MinimizerOptions& options) {
    MinimizerResult result;
    const Counted f(objective, result);
    Cmaes es(options.cmaes, x);
    const double start_value = f.value(x);
    es.start(std::move(x), start_value);
    while (true) {
        if (result.iterations >= options.max_iterations) {
            stop(result, Termination::kMaxIterations);
            break;
        }
        es.generation(f);
        ++result.iterations;
        if (!report(options, result, es.best_value(), es.best_x())) {
            stop(result, Termination::kStopped);
            break;
        }
        const std::string reason = es.stop_reason();
        if (!reason.empty()) {
            stop(result, Termination::kEvolutionStrategy);
            result.message = "CMA-ES: " + reason;
            break;
        }
    }
    result.x = es.best_x();
    result.value = es.best_value();
    return result;
}

}  // namespace laddu::fit::detail
