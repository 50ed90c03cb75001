// gaussian_mixture.hpp (private): the variational Dirichlet-process Gaussian mixture the ESS
// global move fits to the walkers (ganesh's dpgm module, itself scikit-learn's
// BayesianGaussianMixture with full covariances, k-means responsibilities to start and the
// dirichlet_process weight prior: D. M. Blei, M. I. Jordan, "Variational inference for
// Dirichlet process mixtures", Bayesian Analysis 1 (2006) 121; C. M. Bishop, "Pattern
// Recognition and Machine Learning" (2006) §10.2).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include <laddu/base/random.hpp>

namespace laddu::fit::detail {

/// A fitted mixture: each point's most responsible component and every component's posterior
/// mean and the lower Cholesky factor of its posterior covariance.
struct GaussianMixture {
    std::vector<std::size_t> labels;            ///< per point
    std::vector<std::vector<double>> means;     ///< per component
    std::vector<std::vector<double>> cholesky;  ///< per component, d×d row-major, lower
};

/// Fits `components` components to `points` (n points of dimension d ≥ 1): k-means (centroids
/// drawn uniformly in the points' bounding box, 50 iterations) for the first responsibilities,
/// then at most 100 variational updates until the mean log normaliser changes by < 1e-3.
/// Nothing when there are fewer points than components or a covariance is not positive
/// definite.
[[nodiscard]] std::optional<GaussianMixture>
fit_gaussian_mixture(const std::vector<std::vector<double>>& points, std::size_t components,
                     SplitMix64& random);

/// ψ(x), the digamma function, for x > 0.
[[nodiscard]] double digamma(double x);

}  // namespace laddu::fit::detail
