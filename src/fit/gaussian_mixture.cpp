// The variational Dirichlet-process Gaussian mixture (see gaussian_mixture.hpp). The update
// equations are scikit-learn's BayesianGaussianMixture (covariance_type="full",
// weight_concentration_prior_type="dirichlet_process", mean_precision_prior = 1, the data's
// mean and covariance as the mean and covariance priors, degrees_of_freedom_prior = d) as
// ganesh's dpgm module transcribes them.
#include "gaussian_mixture.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace laddu::fit::detail {

namespace {

using Points = std::vector<std::vector<double>>;
using Matrix = std::vector<double>;  // d×d row-major

// Lower Cholesky factor of the symmetric `a`, or nothing if it is not positive definite.
std::optional<Matrix> cholesky(const Matrix& a, std::size_t d) {
    Matrix l(d * d, 0.0);
    for (std::size_t i = 0; i < d; ++i) {
        for (std::size_t j = 0; j <= i; ++j) {
            double sum = a[i * d + j];
            for (std::size_t k = 0; k < j; ++k) {
                sum -= l[i * d + k] * l[j * d + k];
            }
            if (i == j) {
                if (!(sum > 0.0) || !std::isfinite(sum)) {
                    return std::nullopt;
                }
                l[i * d + i] = std::sqrt(sum);
            } else {
                l[i * d + j] = sum / l[j * d + j];
            }
        }
    }
    return l;
}

// |L⁻¹ v|² by forward substitution.
double whitened_square(const Matrix& l, const std::vector<double>& v, std::size_t d) {
    std::vector<double> y(d);
    double square = 0.0;
    for (std::size_t i = 0; i < d; ++i) {
        double sum = v[i];
        for (std::size_t k = 0; k < i; ++k) {
            sum -= l[i * d + k] * y[k];
        }
        y[i] = sum / l[i * d + i];
        square += y[i] * y[i];
    }
    return square;
}

// k-means labels: centroids uniform in the bounding box, 50 Lloyd iterations (ganesh's start).
std::vector<std::size_t> kmeans(const Points& points, std::size_t components, SplitMix64& random) {
    const std::size_t d = points.front().size();
    std::vector<double> low(d, std::numeric_limits<double>::infinity());
    std::vector<double> high(d, -std::numeric_limits<double>::infinity());
    for (const auto& p : points) {
        for (std::size_t i = 0; i < d; ++i) {
            low[i] = std::min(low[i], p[i]);
            high[i] = std::max(high[i], p[i]);
        }
    }
    Points centroids(components, std::vector<double>(d));
    for (auto& c : centroids) {
        for (std::size_t i = 0; i < d; ++i) {
            c[i] = low[i] + (high[i] - low[i]) * random.uniform();
        }
    }
    std::vector<std::size_t> labels(points.size(), 0);
    for (int iteration = 0; iteration < 50; ++iteration) {
        for (std::size_t w = 0; w < points.size(); ++w) {
            double best = std::numeric_limits<double>::infinity();
            for (std::size_t c = 0; c < components; ++c) {
                double distance = 0.0;
                for (std::size_t i = 0; i < d; ++i) {
                    distance += (points[w][i] - centroids[c][i]) * (points[w][i] - centroids[c][i]);
                }
                if (distance < best) {
                    best = distance;
                    labels[w] = c;
                }
            }
        }
        for (std::size_t c = 0; c < components; ++c) {
            std::vector<double> sum(d, 0.0);
            std::size_t count = 0;
            for (std::size_t w = 0; w < points.size(); ++w) {
                if (labels[w] == c) {
                    for (std::size_t i = 0; i < d; ++i) {
                        sum[i] += points[w][i];
                    }
                    ++count;
                }
            }
            // An empty cluster keeps its centroid (ganesh moves it to the origin).
            if (count > 0) {
                for (std::size_t i = 0; i < d; ++i) {
                    centroids[c][i] = sum[i] / static_cast<double>(count);
                }
            }
        }
    }
    return labels;
}

double log_sum_exp(const std::vector<double>& values) {
    const double top = *std::max_element(values.begin(), values.end());
    if (!std::isfinite(top)) {
        return top;
    }
    double sum = 0.0;
    for (const double v : values) {
        sum += std::exp(v - top);
    }
    return top + std::log(sum);
}

}  // namespace

double digamma(double x) {
    // Recurrence ψ(x) = ψ(x + 1) − 1/x up to x ≥ 10, then the asymptotic series (Abramowitz &
    // Stegun 6.3.18), whose next term is below 1e-13 there.
    double result = 0.0;
    while (x < 10.0) {
        result -= 1.0 / x;
        x += 1.0;
    }
    const double f = 1.0 / (x * x);
    return result + std::log(x) - 0.5 / x -
           f * (1.0 / 12.0 -
                f * (1.0 / 120.0 - f * (1.0 / 252.0 - f * (1.0 / 240.0 - f * (1.0 / 132.0)))));
}

std::optional<GaussianMixture> fit_gaussian_mixture(const Points& points, std::size_t components,
                                                    SplitMix64& random) {
    const std::size_t n = points.size();
    if (n < components || components == 0 || points.front().empty()) {
        return std::nullopt;
    }
    const std::size_t d = points.front().size();
    const auto dd = static_cast<double>(d);
    // Priors: the points' mean and covariance (denominator n − 1).
    std::vector<double> mean_prior(d, 0.0);
    for (const auto& p : points) {
        for (std::size_t i = 0; i < d; ++i) {
            mean_prior[i] += p[i] / static_cast<double>(n);
        }
    }
    Matrix covariance_prior(d * d, 0.0);
    for (const auto& p : points) {
        for (std::size_t i = 0; i < d; ++i) {
            for (std::size_t j = 0; j < d; ++j) {
                covariance_prior[i * d + j] += (p[i] - mean_prior[i]) * (p[j] - mean_prior[j]) /
                                               static_cast<double>(std::max<std::size_t>(n - 1, 1));
            }
        }
    }
    Points responsibilities(n, std::vector<double>(components, 0.0));
    const std::vector<std::size_t> start = kmeans(points, components, random);
    for (std::size_t w = 0; w < n; ++w) {
        responsibilities[w][start[w]] = 1.0;
    }
    const double concentration_prior = 1.0 / static_cast<double>(components);
    double lower_bound = -std::numeric_limits<double>::infinity();
    GaussianMixture mixture;
    Points log_responsibilities(n, std::vector<double>(components, 0.0));
    for (int iteration = 0; iteration < 100; ++iteration) {
        // M step: the empirical statistics, then the variational posterior.
        std::vector<double> counts(components);
        Points empirical_means(components, std::vector<double>(d, 0.0));
        std::vector<Matrix> empirical_covariances(components, Matrix(d * d, 0.0));
        for (std::size_t c = 0; c < components; ++c) {
            counts[c] = 10.0 * std::numeric_limits<double>::epsilon();
            for (std::size_t w = 0; w < n; ++w) {
                counts[c] += responsibilities[w][c];
                for (std::size_t i = 0; i < d; ++i) {
                    empirical_means[c][i] += responsibilities[w][c] * points[w][i];
                }
            }
            for (double& m : empirical_means[c]) {
                m /= counts[c];
            }
            Matrix& s = empirical_covariances[c];
            for (std::size_t w = 0; w < n; ++w) {
                for (std::size_t i = 0; i < d; ++i) {
                    for (std::size_t j = 0; j < d; ++j) {
                        s[i * d + j] += responsibilities[w][c] *
                                        (points[w][i] - empirical_means[c][i]) *
                                        (points[w][j] - empirical_means[c][j]);
                    }
                }
            }
            for (std::size_t i = 0; i < d * d; ++i) {
                s[i] /= counts[c];
            }
            for (std::size_t i = 0; i < d; ++i) {
                s[i * d + i] += 1e-6;
            }
        }
        // Stick-breaking Beta(a_c, b_c) posteriors of the weights.
        std::vector<double> a(components);
        std::vector<double> b(components);
        double tail = 0.0;
        for (std::size_t c = components; c-- > 0;) {
            a[c] = counts[c] + 1.0;
            b[c] = tail + concentration_prior;
            tail += counts[c];
        }
        std::vector<double> mean_precision(components);
        std::vector<double> degrees(components);
        mixture.means.assign(components, std::vector<double>(d));
        mixture.cholesky.assign(components, Matrix());
        for (std::size_t c = 0; c < components; ++c) {
            mean_precision[c] = counts[c] + 1.0;
            degrees[c] = counts[c] + dd;
            Matrix covariance(d * d);
            for (std::size_t i = 0; i < d; ++i) {
                mixture.means[c][i] =
                    (counts[c] * empirical_means[c][i] + mean_prior[i]) / mean_precision[c];
            }
            for (std::size_t i = 0; i < d; ++i) {
                for (std::size_t j = 0; j < d; ++j) {
                    const double di = empirical_means[c][i] - mean_prior[i];
                    const double dj = empirical_means[c][j] - mean_prior[j];
                    covariance[i * d + j] = (covariance_prior[i * d + j] +
                                             empirical_covariances[c][i * d + j] * counts[c] +
                                             di * dj * counts[c] / mean_precision[c]) /
                                            degrees[c];
                }
            }
            std::optional<Matrix> l = cholesky(covariance, d);
            if (!l) {
                return std::nullopt;
            }
            mixture.cholesky[c] = std::move(*l);
        }
        // E step: log responsibilities, normalised per point.
        double log_norm_sum = 0.0;
        double stick = 0.0;
        std::vector<double> expected_log_weight(components);
        for (std::size_t c = 0; c < components; ++c) {
            const double total = digamma(a[c] + b[c]);
            expected_log_weight[c] = digamma(a[c]) - total + stick;
            stick += digamma(b[c]) - total;
        }
        std::vector<double> centered(d);
        for (std::size_t w = 0; w < n; ++w) {
            for (std::size_t c = 0; c < components; ++c) {
                const Matrix& l = mixture.cholesky[c];
                double log_det_precision = 0.0;
                double log_lambda = dd * std::numbers::ln2;
                for (std::size_t i = 0; i < d; ++i) {
                    log_det_precision -= std::log(l[i * d + i]);
                    log_lambda += digamma(0.5 * (degrees[c] - static_cast<double>(i)));
                }
                for (std::size_t i = 0; i < d; ++i) {
                    centered[i] = points[w][i] - mixture.means[c][i];
                }
                // The covariance here is the posterior scale / ν, hence the ln ν term.
                log_responsibilities[w][c] =
                    log_det_precision -
                    0.5 *
                        (dd * std::log(2.0 * std::numbers::pi) + whitened_square(l, centered, d)) -
                    0.5 * dd * std::log(degrees[c]) + 0.5 * (log_lambda - dd / mean_precision[c]) +
                    expected_log_weight[c];
            }
            const double norm = log_sum_exp(log_responsibilities[w]);
            log_norm_sum += norm;
            for (std::size_t c = 0; c < components; ++c) {
                log_responsibilities[w][c] -= norm;
                responsibilities[w][c] = std::exp(log_responsibilities[w][c]);
            }
        }
        const double bound = log_norm_sum / static_cast<double>(n);
        if (!std::isfinite(bound)) {
            return std::nullopt;
        }
        if (std::abs(bound - lower_bound) < 1e-3) {
            break;
        }
        lower_bound = bound;
    }
    mixture.labels.resize(n);
    for (std::size_t w = 0; w < n; ++w) {
        mixture.labels[w] = static_cast<std::size_t>(
            std::max_element(log_responsibilities[w].begin(), log_responsibilities[w].end()) -
            log_responsibilities[w].begin());
    }
    return mixture;
}

}  // namespace laddu::fit::detail
