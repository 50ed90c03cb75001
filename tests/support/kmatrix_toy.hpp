// tests/support/kmatrix_toy.hpp (tests and benchmarks): the K-matrix closure toy shared by the
// closure test (tests/integration), the pull study (bench/pull_study.cpp) and the fit benchmark.
//
// The model is laddu's K-matrix benchmark (amplitudes::kmatrix_benchmark_model, waves tagged)
// with ten couplings free: f0(980)+ re (its im is fixed at 0 by the benchmark, fixing the
// overall phase), f0(1500)+, a0(980)+, f2(1270), f2(1525) (re and im) and f0(980)- re; the
// other 24 are fixed at 0. The intensity is quadratic in the couplings, so their overall scale is
// the yield of an ExtendedNLL. The true couplings are kmatrix_toy_couplings() times the scale
// s = √(events / Σ_acc w I(couplings)), so that the expected yield of the extended likelihood on
// the toy's accepted MC is exactly options.events.
//
// Events: accepted MC is generate_ksks() through the toy acceptance
// (generation::accepted_ksks); data are N ~ Poisson(events) events (exactly `events` with
// poisson = false) accept-rejected against the true intensity from further accepted flat MC
// (generation::generate_unweighted). Everything is deterministic in options.seed and does not
// depend on the thread count.
//
// Example:
//   const testing::KMatrixToy toy = testing::make_kmatrix_toy({.events = 2000, .mc = 20000, .seed =
//   3}); likelihood::Likelihood total;
//   total.add(std::make_shared<likelihood::ExtendedNLL>(toy.model, toy.data, toy.accepted));
//   fit::FitResult result = fit::fit(total, testing::kmatrix_toy_start(toy, 3));
//   testing::apply_kmatrix_toy_conventions(result);
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <laddu/data/dataset.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/fit/fit.hpp>
#include <laddu/runtime/execution.hpp>

namespace laddu::testing {

/// Options of make_kmatrix_toy().
struct KMatrixToyOptions {
    std::size_t events = 2000;  ///< the expected data yield (the Poisson mean)
    std::size_t mc = 20000;     ///< flat events generated for the accepted MC (before acceptance)
    std::uint64_t seed = 1;
    bool poisson = true;       ///< draw the data count from Poisson(events); false: exactly events
    double kk_mass_max = 2.0;  ///< GeV: the m(K_S K_S) window
    runtime::Execution execution = {};  ///< how the true intensity is evaluated
};

/// A generated toy: the model, the true point and the events.
struct KMatrixToy {
    expr::Model model;               ///< tagged, ten free couplings
    std::vector<std::string> names;  ///< model.parameters().free_names()
    std::vector<double> truth;       ///< one per name: the scaled couplings
    double scale = 1.0;              ///< s of the banner
    data::Dataset data;
    data::Dataset accepted;
};

/// The unscaled couplings of the toy (name, value), f0(980)+ re = 1 first.
[[nodiscard]] const std::vector<std::pair<std::string, double>>& kmatrix_toy_couplings();

/// The toy model: the tagged benchmark with every coupling outside kmatrix_toy_couplings()
/// fixed at 0.
[[nodiscard]] expr::Model kmatrix_toy_model();

/// Generates a toy (see the banner). Throws ModelError for events = 0 or mc = 0.
[[nodiscard]] KMatrixToy make_kmatrix_toy(const KMatrixToyOptions& options = {});

/// A start away from the truth, deterministic in `seed`: each coupling moved by
/// ±relative · scale (the sign drawn from the seed).
[[nodiscard]] std::vector<double> kmatrix_toy_start(const KMatrixToy& toy, std::uint64_t seed,
                                                    double relative = 0.15);

/// Applies the two exact sign symmetries of the toy's intensity to a fit of it: the sign of
/// the S- wave (f0(980)- re >= 0) and of every positive-reflectivity coupling together
/// (f0(980)+ re >= 0). Values, covariance and correlation follow. Returns what was flipped
/// ("" when nothing was). FitError when a coupling is missing from result.names.
std::string apply_kmatrix_toy_conventions(fit::FitResult& result);

}  // namespace laddu::testing
