// Helpers of the ensemble-sampler tests (AIES and ESS): a correlated 2-D Gaussian, a starting
// cloud and a check of its moments within Monte Carlo error.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/fit/ensemble_sampler.hpp>

namespace laddu::fit::testing {

// A 2-D Gaussian with means (1, −2), σ = (1, 0.5) and correlation 0.6.
constexpr double kMean[2] = {1.0, -2.0};
constexpr double kSigma[2] = {1.0, 0.5};
constexpr double kRho = 0.6;

inline double gaussian(std::span<const double> x) {
    const double a = (x[0] - kMean[0]) / kSigma[0];
    const double b = (x[1] - kMean[1]) / kSigma[1];
    return -0.5 * (a * a - 2.0 * kRho * a * b + b * b) / (1.0 - kRho * kRho);
}

inline std::vector<std::vector<double>> cloud(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::vector<double>> walkers;
    for (std::size_t k = 0; k < n; ++k) {
        walkers.push_back({static_cast<double>(rng() % 1000) * 1e-3,
                           -2.0 + static_cast<double>(rng() % 1000) * 1e-3});
    }
    return walkers;
}

inline void expect_gaussian_moments(const McmcChain& chain, std::size_t burn) {
    const std::vector<double> tau = integrated_autocorrelation_times(chain, burn);
    const double samples = static_cast<double>(chain.walkers * (chain.steps - burn));
    double m[2] = {0, 0};
    double c[3] = {0, 0, 0};
    for (std::size_t w = 0; w < chain.walkers; ++w) {
        for (std::size_t s = burn; s < chain.steps; ++s) {
            m[0] += chain.at(w, s, 0) / samples;
            m[1] += chain.at(w, s, 1) / samples;
        }
    }
    for (std::size_t w = 0; w < chain.walkers; ++w) {
        for (std::size_t s = burn; s < chain.steps; ++s) {
            const double a = chain.at(w, s, 0) - m[0];
            const double b = chain.at(w, s, 1) - m[1];
            c[0] += a * a / samples;
            c[1] += a * b / samples;
            c[2] += b * b / samples;
        }
    }
    for (int d = 0; d < 2; ++d) {
        // The Monte Carlo error of a mean: σ √(τ / N); 5 of them.
        const double error = kSigma[d] * std::sqrt(tau[static_cast<std::size_t>(d)] / samples);
        const auto index = static_cast<std::size_t>(d);
        EXPECT_NEAR(m[d], kMean[d], 5.0 * error) << "parameter " << d << ", τ " << tau[index];
        EXPECT_LT(tau[index], 100.0);
    }
    EXPECT_NEAR(c[0], 1.0, 0.1);
    EXPECT_NEAR(c[2], 0.25, 0.025);
    EXPECT_NEAR(c[1] / std::sqrt(c[0] * c[2]), kRho, 0.05);
}

}  // namespace laddu::fit::testing
