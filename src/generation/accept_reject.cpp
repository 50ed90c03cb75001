#include <cmath>
#include <cstddef>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
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

}  // namespace laddu::generation
