// tests/support/toy_model.hpp: the three-wave toy model the runtime and likelihood tests share.
//
// Events carry one four-momentum "k" (momentum components uniform in [-1, 1), mass 0.5) and a
// scalar "x" uniform in [-1, 1). The intensity is
//   I = scale · |Σ_k (a_k + i b_k) exp(i k x) (k + m²(k))|² + offset,   k = 0, 1, 2,
// a coherent sum whose normalisation integral decomposes (fast normalisation applies). The
// direct per-event formula below is written with std::complex, independently of the library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <laddu/data/dataset.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/runtime/execution.hpp>

namespace laddu::testing {

/// The number of waves of the toy model (parameters a0, b0, a1, b1, a2, b2).
inline constexpr int kToyWaves = 3;

/// Random toy events as plain columns.
struct ToyEvents {
    std::vector<double> e, px, py, pz, x, w;
};

/// `n` events from `seed`: per event px, py, pz, x uniform in [-1, 1), then the weight
/// 0.5 + weight_step · (u + 1) from one more draw u in [-1, 1).
[[nodiscard]] ToyEvents toy_events(std::size_t n, std::uint64_t seed, double weight_step = 0.5);

/// The events as a Dataset: four-momentum "k", scalar "x", weights w; with `unused_column` also
/// a scalar "unused" (the weights again) that the model never reads.
[[nodiscard]] data::Dataset toy_dataset(const ToyEvents& events, bool unused_column = false);

/// Options of toy_model().
struct ToyModelOptions {
    double offset = 0.0;     ///< added to the intensity when non-zero
    double scale = 1.0;      ///< multiplies |Σ|² when not 1
    bool tag_waves = false;  ///< tag wave k "w<k>" (for projections and fit fractions)
};

/// The toy intensity as a Model; its free parameters are a0, b0, a1, b1, a2, b2 (initial 1, 0).
[[nodiscard]] expr::Model toy_model(const ToyModelOptions& options = {});

/// |Σ_k (a_k + i b_k) exp(i k x) (k + m²)|² + offset of event `i`, written directly.
[[nodiscard]] double toy_intensity(const ToyEvents& events, std::size_t i,
                                   std::span<const double> params, double offset);

/// The parameter point the tests evaluate at: a0, b0, a1, b1, a2, b2.
[[nodiscard]] std::vector<double> toy_parameters();

/// An Execution on exactly `threads` threads, with a memory budget of `budget` bytes when
/// non-zero.
[[nodiscard]] runtime::Execution with_threads(std::size_t threads, std::size_t budget = 0);

/// `execution` with its normalisation mode set to `mode`.
[[nodiscard]] runtime::Execution with_normalization(runtime::Execution execution,
                                                    runtime::NormalizationMode mode);

}  // namespace laddu::testing
