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
//
// generate_unweighted() repeats this in rounds over fresh candidate pools until a requested
// number of events is kept; write_events() stores a generated sample losslessly as Parquet.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
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

/// Makes the candidate pool of round `round` (0, 1, ...) with `size` events, e.g. accepted flat
/// MC from generate_ksks() with a seed derived from the round.
using CandidateSource = std::function<data::Dataset(std::uint64_t round, std::size_t size)>;

/// The intensity of every event of a pool (one finite, non-negative value per event).
using IntensityFunction = std::function<std::vector<double>(const data::Dataset&)>;

/// Options of generate_unweighted().
struct UnweightedOptions {
    std::uint64_t seed = 0;         ///< round r accepts with seed data::splitmix64(seed + r)
    std::size_t first_pool = 0;     ///< the first pool's size; 0: 8 × the requested events
    std::size_t max_pool = 200000;  ///< the largest pool (bounds the memory of one round)
    std::size_t max_rounds = 1000;  ///< ModelError when this many rounds keep too few events
};

/// Exactly `events` events, distributed as (candidate density) × intensity: round r draws a
/// pool from `source`, accept-rejects it against `intensity` with the pool's largest intensity
/// as maximum (exact within each round), and the kept events of all rounds are concatenated
/// and cut at `events`. Later pools are sized from the rate seen so far (20% to spare). The
/// result depends only on the seeds, not on how `intensity` is threaded, as long as its values
/// do not. Throws EvaluationError when no event has been kept yet and a pool's intensities are
/// all zero (the intensity is zero everywhere in the sampled phase space), ModelError after
/// options.max_rounds rounds without enough events, and what source, intensity and
/// accept_reject() throw.
[[nodiscard]] data::Dataset generate_unweighted(std::size_t events, const CandidateSource& source,
                                                const IntensityFunction& intensity,
                                                const UnweightedOptions& options = {});

/// Writes generated events as Parquet (laddu's column names, 64-bit values, the weight column
/// always present), so data::read_parquet(path) gives back the same values bit for bit. Throws
/// what data::write_parquet() throws (DataError for an unwritable path).
void write_events(const data::Dataset& events, const std::string& path);

}  // namespace laddu::generation
