#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/likelihood/cross_section.hpp>

namespace laddu::likelihood {

namespace {

// laddu refuses integrals that are not positive rather than report a zero or infinite cross
// section; so do we, saying which integral and why it may vanish.
double positive(const std::string& term, const char* what, double value) {
    if (!(value > 0.0) || !std::isfinite(value)) {
        throw EvaluationError(fmt::format(
            "'{}': the {} integral is {}, but it must be positive and finite; the model "
            "vanishes on those events at these parameters (check the parameters, the tags and "
            "the Monte Carlo sample)",
            term, what, value));
    }
    return value;
}

double checked_luminosity(double luminosity) {
    if (!(luminosity > 0.0) || !std::isfinite(luminosity)) {
        throw ModelError(
            fmt::format("luminosity must be a positive finite number, got {}", luminosity));
    }
    return luminosity;
}

std::vector<std::string> sorted_unique(std::vector<std::string> tags) {
    std::sort(tags.begin(), tags.end());
    tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
    return tags;
}

}  // namespace

CrossSectionIntegrals::CrossSectionIntegrals(std::shared_ptr<const UnbinnedNll> term,
                                             const data::EventData& generated,
                                             std::vector<std::string> tags)
    : term_(std::move(term)), tags_(sorted_unique(std::move(tags))),
      accepted_(std::make_shared<LazyAccepted>()) {
    if (term_ == nullptr) {
        throw ModelError("CrossSectionIntegrals needs a likelihood term, got none");
    }
    generated_ = std::make_shared<const TermIntensity>(term_->intensity(tags_, &generated));
}

CrossSectionIntegrals
CrossSectionIntegrals::for_replica(std::shared_ptr<const UnbinnedNll> replica) const {
    if (replica == nullptr) {
        throw ModelError("for_replica needs a likelihood term, got none");
    }
    if (replica->parameters().size() != term_->parameters().size()) {
        throw ModelError(fmt::format(
            "'{}' is not a replica of '{}': it has {} parameters, the term {}", replica->name(),
            term_->name(), replica->parameters().size(), term_->parameters().size()));
    }
    CrossSectionIntegrals result;
    result.term_ = std::move(replica);
    result.tags_ = tags_;
    result.generated_ = generated_;
    result.accepted_ = accepted_;
    return result;
}

const std::string& CrossSectionIntegrals::name() const {
    return term_->name();
}

double CrossSectionIntegrals::data_weight_sum() const {
    return term_->data_sum_weights();
}

bool CrossSectionIntegrals::has_absolute_rate() const {
    return term_->has_absolute_rate();
}

const TermIntensity& CrossSectionIntegrals::accepted() const {
    std::call_once(accepted_->once, [&] {
        accepted_->value = term_->intensity(tags_);
        accepted_->ready.store(true, std::memory_order_release);
    });
    return *accepted_->value;
}

double CrossSectionIntegrals::accepted_integral(std::span<const double> params) const {
    if (tags_.empty()) {
        return term_->normalization_integral(params);
    }
    return positive(name(), "accepted Monte Carlo", accepted().integral(params));
}

double CrossSectionIntegrals::generated_integral(std::span<const double> params) const {
    return positive(name(), "generated Monte Carlo", generated_->integral(params));
}

double CrossSectionIntegrals::full_accepted_integral(std::span<const double> params) const {
    return term_->normalization_integral(params);
}

double CrossSectionIntegrals::acceptance(std::span<const double> params) const {
    const double generated = generated_integral(params);
    return accepted_integral(params) / generated;
}

double CrossSectionIntegrals::acceptance_corrected_yield(std::span<const double> params,
                                                         double accepted_yield) const {
    const double accepted = accepted_integral(params);
    return accepted_yield * generated_integral(params) / accepted;
}

double CrossSectionIntegrals::corrected_yield(std::span<const double> params) const {
    const double accepted_yield = tags_.empty() ? data_weight_sum()
                                                : data_weight_sum() * accepted_integral(params) /
                                                      full_accepted_integral(params);
    return acceptance_corrected_yield(params, accepted_yield);
}

double CrossSectionIntegrals::observed_cross_section(std::span<const double> params,
                                                     double luminosity) const {
    checked_luminosity(luminosity);
    const double full = full_accepted_integral(params);
    return data_weight_sum() * generated_integral(params) / full / luminosity;
}

double CrossSectionIntegrals::fitted_cross_section(std::span<const double> params,
                                                   double luminosity) const {
    if (!has_absolute_rate()) {
        throw ModelError(fmt::format(
            "'{}' is a shape-only NLL, so it has no fitted cross section: build the term as an "
            "ExtendedNLL, or use the observed cross section",
            name()));
    }
    checked_luminosity(luminosity);
    return generated_integral(params) / luminosity;
}

std::vector<double>
CrossSectionIntegrals::accepted_intensities(std::span<const double> params) const {
    return accepted().values(params);
}

std::vector<double>
CrossSectionIntegrals::generated_intensities(std::span<const double> params) const {
    return generated_->values(params);
}

std::vector<double> CrossSectionIntegrals::accepted_weights() const {
    return accepted().weights();
}

std::vector<double> CrossSectionIntegrals::generated_weights() const {
    return generated_->weights();
}

std::size_t CrossSectionIntegrals::held_bytes() const {
    std::size_t bytes = generated_->held_bytes();
    // Only read the accepted preparation once call_once has published it.
    if (accepted_->ready.load(std::memory_order_acquire)) {
        bytes += accepted_->value->held_bytes();
    }
    return bytes;
}

std::int64_t bin_index(double value, std::span<const double> edges) noexcept {
    if (edges.size() < 2 || !std::isfinite(value) || value < edges.front() ||
        value >= edges.back()) {
        return -1;
    }
    const auto upper = std::upper_bound(edges.begin(), edges.end(), value);
    return static_cast<std::int64_t>(upper - edges.begin()) - 1;
}

namespace {

void check_axes(const std::vector<std::vector<double>>& edges) {
    if (edges.empty()) {
        throw DataError("at least one differential axis is required");
    }
    for (std::size_t a = 0; a < edges.size(); ++a) {
        const std::vector<double>& e = edges[a];
        bool valid = e.size() >= 2;
        for (std::size_t k = 0; valid && k < e.size(); ++k) {
            valid = std::isfinite(e[k]) && (k == 0 || e[k - 1] < e[k]);
        }
        if (!valid) {
            throw DataError(
                fmt::format("axis {} edges must contain at least two finite increasing values", a));
        }
    }
}

}  // namespace

std::vector<std::int64_t> flat_bin_indices(const std::vector<std::vector<double>>& coordinates,
                                           const std::vector<std::vector<double>>& edges) {
    check_axes(edges);
    if (coordinates.size() != edges.size()) {
        throw DataError(fmt::format("{} coordinate lists for {} axes; give one per axis",
                                    coordinates.size(), edges.size()));
    }
    const std::size_t events = coordinates.front().size();
    std::vector<std::int64_t> flat(events, 0);
    for (std::size_t a = 0; a < edges.size(); ++a) {
        if (coordinates[a].size() != events) {
            throw DataError(fmt::format("axis {} has {} values, axis 0 {}; give one per event", a,
                                        coordinates[a].size(), events));
        }
        const auto bins = static_cast<std::int64_t>(edges[a].size() - 1);
        for (std::size_t i = 0; i < events; ++i) {
            const std::int64_t k = bin_index(coordinates[a][i], edges[a]);
            flat[i] = (flat[i] < 0 || k < 0) ? -1 : flat[i] * bins + k;
        }
    }
    return flat;
}

std::vector<double> bin_volumes(const std::vector<std::vector<double>>& edges) {
    check_axes(edges);
    std::vector<double> volumes{1.0};
    for (const std::vector<double>& e : edges) {
        std::vector<double> next;
        next.reserve(volumes.size() * (e.size() - 1));
        for (const double volume : volumes) {
            for (std::size_t k = 0; k + 1 < e.size(); ++k) {
                next.push_back(volume * (e[k + 1] - e[k]));
            }
        }
        volumes = std::move(next);
    }
    return volumes;
}

namespace {

// Σ weights[i] · factors[i] (weights alone when `factors` is empty) into bin index[i], event by
// event in order (the order laddu's loop adds them in, so the sums are its bits).
std::vector<double> bin_sum(std::span<const std::int64_t> index, std::span<const double> weights,
                            std::span<const double> factors, std::size_t bins, const char* what) {
    if (index.size() != weights.size() || (!factors.empty() && factors.size() != weights.size())) {
        throw DataError(fmt::format("the {} bin indices number {}, but there are {} events; "
                                    "give one index per event",
                                    what, index.size(), weights.size()));
    }
    std::vector<double> sums(bins, 0.0);
    for (std::size_t i = 0; i < index.size(); ++i) {
        const std::int64_t k = index[i];
        if (k < 0) {
            continue;
        }
        if (static_cast<std::uint64_t>(k) >= bins) {
            throw DataError(fmt::format("{} event {} has bin index {}, but there are {} bins", what,
                                        i, k, bins));
        }
        sums[static_cast<std::size_t>(k)] += factors.empty() ? weights[i] : weights[i] * factors[i];
    }
    return sums;
}

}  // namespace

BinnedIntegrals CrossSectionIntegrals::binned(std::span<const double> params,
                                              const DifferentialBins& bins) const {
    const std::size_t n = bins.volumes.size();
    BinnedIntegrals result;
    result.data = bin_sum(bins.data, term_->data_weights(), {}, n, "data");
    result.accepted = bin_sum(bins.accepted, accepted().weights(), accepted_intensities(params), n,
                              "accepted MC");
    result.generated = bin_sum(bins.generated, generated_->weights(), generated_intensities(params),
                               n, "generated MC");
    return result;
}

DifferentialValues differential_cross_section(
    const CrossSectionIntegrals& full, std::span<const CrossSectionIntegrals* const> components,
    const DifferentialBins& bins, std::span<const double> params, double luminosity) {
    checked_luminosity(luminosity);
    const BinnedIntegrals sums = full.binned(params, bins);
    const double total = full.data_weight_sum();
    const double full_accepted = full.full_accepted_integral(params);
    const std::size_t n = bins.volumes.size();
    DifferentialValues result;
    result.data.resize(n);
    result.model.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
        const double volume = bins.volumes[k];
        result.data[k] = sums.accepted[k] > 0.0 ? sums.data[k] * sums.generated[k] /
                                                      sums.accepted[k] / luminosity / volume
                                                : std::nan("");
        result.model[k] = total * sums.generated[k] / full_accepted / luminosity / volume;
    }
    for (const CrossSectionIntegrals* component : components) {
        const std::vector<double> generated =
            bin_sum(bins.generated, component->generated_weights(),
                    component->generated_intensities(params), n, "generated MC");
        std::vector<double> values(n);
        for (std::size_t k = 0; k < n; ++k) {
            values[k] = total * generated[k] / full_accepted / luminosity / bins.volumes[k];
        }
        result.components.push_back(std::move(values));
    }
    return result;
}

}  // namespace laddu::likelihood
