#include <algorithm>
#include <cmath>
#include <cstddef>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/base/random.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/generation/accept_reject.hpp>

namespace laddu::generation {

std::vector<bool> accept_reject_mask(std::span<const double> intensities, std::uint64_t seed,
                                     double max_intensity) {
    double largest = 0.0;
    for (std::size_t i = 0; i < intensities.size(); ++i) {
        const double value = intensities[i];
        if (!(value >= 0.0) || !std::isfinite(value)) {
            throw EvaluationError(fmt::format("accept-reject: the intensity of event {} is {}; "
                                              "it must be finite and non-negative",
                                              i, value));
        }
        largest = std::max(largest, value);
    }
    if (max_intensity < 0.0 || !std::isfinite(max_intensity)) {
        throw ModelError(fmt::format("accept-reject: max_intensity {} must be finite and "
                                     "non-negative (0 uses the largest intensity)",
                                     max_intensity));
    }
    if (max_intensity > 0.0 && largest > max_intensity) {
        throw ModelError(fmt::format("accept-reject: an intensity {} exceeds max_intensity {}; "
                                     "raise the maximum or pass 0 to use the largest intensity",
                                     largest, max_intensity));
    }
    const double top = max_intensity > 0.0 ? max_intensity : largest;
    std::vector<bool> keep(intensities.size(), false);
    for (std::size_t i = 0; i < intensities.size(); ++i) {
        keep[i] = data::counter_uniform(seed, i) * top < intensities[i];
    }
    return keep;
}

data::Dataset accept_reject(const data::Dataset& events, std::span<const double> intensities,
                            std::uint64_t seed, double max_intensity) {
    if (intensities.size() != events.size()) {
        throw DataError(fmt::format("accept-reject: {} intensities for {} events; pass one "
                                    "intensity per event",
                                    intensities.size(), events.size()));
    }
    const std::vector<bool> keep = accept_reject_mask(intensities, seed, max_intensity);
    // The dataset is resident, so the batch row is the event index.
    return events.select([&](const data::EventBatch&, std::size_t row) { return keep[row]; });
}

data::Dataset generate_unweighted(std::size_t events, const CandidateSource& source,
                                  const IntensityFunction& intensity,
                                  const UnweightedOptions& options) {
    if (!source || !intensity) {
        throw ModelError("generate_unweighted needs a candidate source and an intensity function");
    }
    if (events == 0) {
        throw ModelError("generate_unweighted: request at least one event");
    }
    std::vector<data::Dataset> parts;
    std::size_t kept = 0;
    std::size_t candidates = 0;
    // 8 × events, saturating (a huge request must not wrap to a tiny pool).
    const std::size_t default_pool =
        events > options.max_pool / 8 ? options.max_pool : 8 * events + 1;
    std::size_t pool =
        std::min(options.max_pool, options.first_pool > 0 ? options.first_pool : default_pool);
    for (std::uint64_t round = 0; kept < events; ++round) {
        if (round >= options.max_rounds) {
            throw ModelError(fmt::format("generate_unweighted kept {} of {} requested events in "
                                         "{} rounds of candidates; the intensity is (nearly) zero "
                                         "where the candidates are, or max_rounds is too small",
                                         kept, events, options.max_rounds));
        }
        const data::Dataset candidates_now = source(round, std::max<std::size_t>(pool, 1));
        const std::vector<double> values = intensity(candidates_now);
        parts.push_back(accept_reject(candidates_now, values, splitmix64(options.seed + round)));
        // accept_reject() has checked the values are finite and non-negative. A first pool
        // with no positive intensity means the intensity vanishes wherever the candidates go:
        // every further round would find the same, so fail now instead of after max_rounds.
        if (kept == 0 &&
            std::none_of(values.begin(), values.end(), [](double value) { return value > 0.0; })) {
            throw EvaluationError(fmt::format(
                "generate_unweighted: the intensity is zero at all {} candidate events of round "
                "{}: it is zero everywhere in the sampled phase space; check the model's "
                "couplings and parameter values (and the generator's mass window)",
                candidates_now.size(), round + 1));
        }
        kept += parts.back().size();
        candidates += candidates_now.size();
        const double rate = static_cast<double>(std::max<std::size_t>(kept, 1)) /
                            static_cast<double>(std::max<std::size_t>(candidates, 1));
        const double missing = static_cast<double>(events - std::min(kept, events));
        pool = std::min(options.max_pool, static_cast<std::size_t>(1.2 * missing / rate) + 1000);
    }
    return data::Dataset::concatenate(parts).slice(0, events);
}

void write_events(const data::Dataset& events, const std::string& path) {
    data::ParquetWriteOptions options;
    options.precision = data::ColumnType::kFloat64;
    options.always_write_weight = true;
    data::write_parquet(events, path, options);
}

}  // namespace laddu::generation
