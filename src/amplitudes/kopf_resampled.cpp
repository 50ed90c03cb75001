// kopf_*_resampled: the Kopf K-matrices with their parameters drawn from the published
// covariance (kopf_covariance.cpp), as laddu's kopf_{f0,f2,a0,a2}_resampled do.
//
// The parameter vector is laddu's: the couplings pole by pole (channel fastest), the background
// column by column, the pole masses, then the Adler zero s0 (f0). Rows of the covariance that are
// all zero (the f0 4π channel, fixed entries) are left at their published values; the rest are
// mean + L z with L the Cholesky factor of their covariance block and z standard normal from
// SplitMix64(seed). laddu draws z from its own generator, so a seed gives other (equally
// distributed) parameters than laddu's.
#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include <fmt/format.h>

#include <laddu/amplitudes/kopf.hpp>
#include <laddu/base/error.hpp>
#include <laddu/base/random.hpp>

#include "kopf_covariance.hpp"

namespace laddu::amplitudes {

namespace {

using expr::Expr;

// x = mean + L z over the rows of `covariance` (n × n, row-major) that are not all zero.
std::vector<double> sample_normal(const std::vector<double>& mean,
                                  std::span<const double> covariance, std::uint64_t seed,
                                  const char* name) {
    const std::size_t n = mean.size();
    std::vector<std::size_t> active;
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            if (covariance[i * n + j] != 0.0) {
                active.push_back(i);
                break;
            }
        }
    }
    const std::size_t m = active.size();
    std::vector<double> l(m * m, 0.0);  // Cholesky factor, lower triangle, row-major
    for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j <= i; ++j) {
            double sum = covariance[active[i] * n + active[j]];
            for (std::size_t k = 0; k < j; ++k) {
                sum -= l[i * m + k] * l[j * m + k];
            }
            if (i == j) {
                if (!(sum > 0.0)) {
                    throw InternalError(fmt::format("the {} covariance is not positive definite "
                                                    "(pivot {} = {})",
                                                    name, i, sum));
                }
                l[i * m + i] = std::sqrt(sum);
            } else {
                l[i * m + j] = sum / l[j * m + j];
            }
        }
    }
    SplitMix64 random(seed);
    std::vector<double> z(m);
    for (double& value : z) {
        value = random.normal();
    }
    std::vector<double> x = mean;
    for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t k = 0; k <= i; ++k) {
            x[active[i]] += l[i * m + k] * z[k];
        }
    }
    return x;
}

template <std::size_t Channels, std::size_t Poles>
KopfTable<Channels, Poles> resampled(KopfTable<Channels, Poles> table,
                                     std::span<const double> covariance, std::uint64_t seed,
                                     const char* name) {
    std::vector<double> mean;
    for (std::size_t p = 0; p < Poles; ++p) {
        for (std::size_t c = 0; c < Channels; ++c) {
            mean.push_back(table.couplings[c][p]);
        }
    }
    for (std::size_t j = 0; j < Channels; ++j) {
        for (std::size_t i = 0; i < Channels; ++i) {
            mean.push_back(table.background[i][j]);
        }
    }
    mean.insert(mean.end(), table.pole_masses.begin(), table.pole_masses.end());
    if (table.has_adler_zero) {
        mean.push_back(table.adler_s0);
    }
    if (mean.size() * mean.size() != covariance.size()) {
        throw InternalError(
            fmt::format("the {} covariance does not match its {} parameters", name, mean.size()));
    }
    const std::vector<double> x = sample_normal(mean, covariance, seed, name);
    std::size_t k = 0;
    for (std::size_t p = 0; p < Poles; ++p) {
        for (std::size_t c = 0; c < Channels; ++c) {
            table.couplings[c][p] = x[k++];
        }
    }
    for (std::size_t j = 0; j < Channels; ++j) {
        for (std::size_t i = 0; i < Channels; ++i) {
            table.background[i][j] = x[k++];
        }
    }
    for (std::size_t p = 0; p < Poles; ++p) {
        table.pole_masses[p] = x[k++];
    }
    if (table.has_adler_zero) {
        table.adler_s0 = x[k];
    }
    return table;
}

}  // namespace

KopfTable<5, 5> kopf_f0_table_resampled(std::uint64_t seed) {
    return resampled(kKopfF0, detail::kKopfF0Covariance, seed, "f0");
}

KopfTable<4, 4> kopf_f2_table_resampled(std::uint64_t seed) {
    return resampled(kKopfF2, detail::kKopfF2Covariance, seed, "f2");
}

KopfTable<2, 2> kopf_a0_table_resampled(std::uint64_t seed) {
    return resampled(kKopfA0, detail::kKopfA0Covariance, seed, "a0");
}

KopfTable<3, 2> kopf_a2_table_resampled(std::uint64_t seed) {
    return resampled(kKopfA2, detail::kKopfA2Covariance, seed, "a2");
}

Expr kopf_f0_resampled(const Expr& s, const std::array<Expr, 5>& production, std::uint64_t seed) {
    return kopf_k_matrix(kopf_f0_table_resampled(seed), s, production);
}

Expr kopf_f2_resampled(const Expr& s, const std::array<Expr, 4>& production, std::uint64_t seed) {
    return kopf_k_matrix(kopf_f2_table_resampled(seed), s, production);
}

Expr kopf_a0_resampled(const Expr& s, const std::array<Expr, 2>& production, std::uint64_t seed) {
    return kopf_k_matrix(kopf_a0_table_resampled(seed), s, production);
}

Expr kopf_a2_resampled(const Expr& s, const std::array<Expr, 2>& production, std::uint64_t seed) {
    return kopf_k_matrix(kopf_a2_table_resampled(seed), s, production);
}

}  // namespace laddu::amplitudes
