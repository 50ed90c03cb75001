// laddu/fit/bootstrap.hpp: bootstrap fits, a refit of the model per resampled data set.
//
// As laddu's bootstrap_fit, replica k refits the NLL on data.bootstrap(seed + k), the Poisson
// bootstrap that multiplies every data weight by k_i ~ Poisson(1); the accepted MC is reused
// unchanged. The spread of the replica values estimates the parameters' uncertainties without
// the Hessian's quadratic approximation. Results keep the (replica seed, fit) pairing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <laddu/data/dataset.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/fit/fit.hpp>
#include <laddu/likelihood/nll.hpp>
#include <laddu/runtime/execution.hpp>

namespace laddu::fit {

/// Options of bootstrap_fits().
struct BootstrapOptions {
    std::size_t samples = 100;          ///< the number of replicas
    std::uint64_t seed = 0;             ///< replica k uses data.bootstrap(seed + k)
    bool extended = false;              ///< fit ExtendedNLL instead of NLL
    runtime::Execution execution = {};  ///< how each replica NLL runs
    /// keep each replica's term (BootstrapResult::terms), so that results can be evaluated on
    /// the replica's own data (cross sections); each holds its prepared events
    bool keep_terms = false;
};

/// The replica fits, each beside its seed.
struct BootstrapResult {
    std::vector<std::uint64_t> seeds;
    std::vector<FitResult> fits;
    /// with BootstrapOptions::keep_terms: replica k's term, on data.bootstrap(seeds[k])
    std::vector<std::shared_ptr<const likelihood::UnbinnedNll>> terms;

    /// Per parameter: the mean over the converged replicas (NaN when none converged).
    [[nodiscard]] std::vector<double> mean() const;

    /// Per parameter: the sample standard deviation over the converged replicas (NaN when
    /// fewer than two converged).
    [[nodiscard]] std::vector<double> standard_deviation() const;
};

/// Fits `model` to options.samples bootstrap replicas of `data`, each from `start` (one value
/// per free parameter). FitOptions apply to every replica (set uncertainties = false to skip
/// the Hessians). Throws FitError for samples = 0, and what NLL's constructor throws.
[[nodiscard]] BootstrapResult bootstrap_fits(const expr::Model& model, const data::Dataset& data,
                                             const data::Dataset& accepted,
                                             std::span<const double> start,
                                             const BootstrapOptions& options,
                                             const FitOptions& fit_options = {});

}  // namespace laddu::fit
