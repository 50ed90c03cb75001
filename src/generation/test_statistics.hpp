// Goodness-of-fit helpers for the generation tests: the one-sample Kolmogorov-Smirnov p-value
// (asymptotic Kolmogorov distribution, Marsaglia, Tsang and Wang, J. Stat. Softw. 8 (2003)) and
// a weighted-histogram χ² against expected bin integrals.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

namespace laddu::generation::testing {

/// P(D_n ≥ d) for the KS statistic of n samples (asymptotic series in λ = d(√n + 0.12 +
/// 0.11/√n), Stephens' small-n correction).
inline double kolmogorov_p_value(double d, std::size_t n) {
    const double sqrt_n = std::sqrt(static_cast<double>(n));
    const double lambda = d * (sqrt_n + 0.12 + 0.11 / sqrt_n);
    if (lambda < 0.2) {
        return 1.0;
    }
    double sum = 0.0;
    for (int k = 1; k <= 100; ++k) {
        const double term = std::exp(-2.0 * k * k * lambda * lambda);
        sum += (k % 2 == 1 ? 2.0 : -2.0) * term;
        if (term < 1e-16) {
            break;
        }
    }
    return std::clamp(sum, 0.0, 1.0);
}

/// The KS p-value of `values` against the cumulative distribution `cdf`.
inline double ks_p_value(std::vector<double> values, const std::function<double(double)>& cdf) {
    std::sort(values.begin(), values.end());
    const double n = static_cast<double>(values.size());
    double d = 0.0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const double f = cdf(values[i]);
        d = std::max({d, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
    }
    return kolmogorov_p_value(d, values.size());
}

/// χ² per bin of a weighted histogram (Σw per bin, variance Σw²) against `expected` Σw.
struct WeightedChi2 {
    double chi2 = 0.0;
    std::size_t bins = 0;
};

inline WeightedChi2 weighted_chi2(const std::vector<double>& values,
                                  const std::vector<double>& weights, double low, double high,
                                  std::size_t bins, const std::vector<double>& expected) {
    std::vector<double> sum(bins, 0.0);
    std::vector<double> sum2(bins, 0.0);
    for (std::size_t i = 0; i < values.size(); ++i) {
        const double x = (values[i] - low) / (high - low) * static_cast<double>(bins);
        if (x >= 0.0 && x < static_cast<double>(bins)) {
            const auto b = static_cast<std::size_t>(x);
            sum[b] += weights[i];
            sum2[b] += weights[i] * weights[i];
        }
    }
    WeightedChi2 out;
    for (std::size_t b = 0; b < bins; ++b) {
        if (sum2[b] > 0.0) {
            out.chi2 += (sum[b] - expected[b]) * (sum[b] - expected[b]) / sum2[b];
            ++out.bins;
        }
    }
    return out;
}

}  // namespace laddu::generation::testing
