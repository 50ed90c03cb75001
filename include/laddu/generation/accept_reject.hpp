// laddu/generation/accept_reject.hpp: unweighting events against a model intensity.
//
// Event i is kept when u(seed, i) · I_max < I_i, with laddu's counter-based uniform
// data::counter_uniform (deterministic in the seed and independent of threading). The kept
// events are distributed as (input density) × I. The intensities usually come from
// runtime::PreparedModel::evaluate() on the same dataset.
//
// Example:
//   const auto values = prepared.evaluate(truth);           // complex; the real part is I
//   std::vector<double> intensity(values.size());
//   for (std::size_t i = 0; i < values.size(); ++i) intensity[i] = values[i].real();
//   data::Dataset data = generation::accept_reject(accepted_mc, intensity, 7);
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <laddu/data/dataset.hpp>

namespace laddu::generation {

/// The kept flags of accept-reject over `intensities` with the given maximum (0: the largest
/// intensity). Throws EvaluationError naming the first event whose intensity is negative or
/// not finite, and ModelError when max_intensity is below an intensity (say which) or negative.
[[nodiscard]] std::vector<bool> accept_reject_mask(std::span<const double> intensities,
                                                   std::uint64_t seed, double max_intensity = 0.0);

/// The events of `events` kept by accept_reject_mask(); DataError when the intensity count
/// differs from the event count.
[[nodiscard]] data::Dataset accept_reject(const data::Dataset& events,
                                          std::span<const double> intensities, std::uint64_t seed,
                                          double max_intensity = 0.0);

}  // namespace laddu::generation
