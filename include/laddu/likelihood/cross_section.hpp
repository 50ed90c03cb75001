// laddu/likelihood/cross_section.hpp: a term's accepted and generated Monte Carlo intensity
// integrals and the cross sections they give (laddu's CrossSectionIntegrals).
//
// For an NLL or ExtendedNLL term with intensity I(x; θ), data yield N_obs = Σ_data w, accepted
// MC integral I_acc = Σ_acc w I and generated MC integral I_gen = Σ_gen w I, and luminosity L:
//   acceptance                 ε = I_acc / I_gen
//   observed cross section     σ_obs = N_obs · I_gen / I_full,acc / L      (any term)
//   fitted cross section       σ_fit = I_gen / L                           (ExtendedNLL only)
// With tags, I is the model projected onto the tagged amplitudes (expr::Model::project) and the
// observed cross section keeps the full model's accepted integral I_full,acc, so a tagged
// contribution is measured on the whole model's normalisation (interference stays with the
// tags that carry it). The generated and accepted samples must describe the same thrown
// distribution with compatible weights.
//
// Example:
//   auto term = std::make_shared<likelihood::NLL>(model, data, accepted);
//   likelihood::CrossSectionIntegrals s_wave(term, generated, {"S"});
//   double sigma = s_wave.observed_cross_section(fit.values, 25.0);
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <laddu/data/event_data.hpp>
#include <laddu/likelihood/nll.hpp>

namespace laddu::likelihood {

/// Events sorted into the bins of a differential cross section (one or more axes flattened
/// row-major): a bin index per event, −1 outside every bin, for the term's data, its accepted
/// MC and the generated MC, in event order, and each bin's volume.
struct DifferentialBins {
    std::vector<std::int64_t> data;
    std::vector<std::int64_t> accepted;
    std::vector<std::int64_t> generated;
    std::vector<double> volumes;  ///< one per bin: the product of the axes' bin widths
};

/// laddu's bin of `value` among strictly increasing `edges`: k with edges[k] <= value <
/// edges[k + 1], −1 for a value outside [edges.front(), edges.back()) or not finite.
[[nodiscard]] std::int64_t bin_index(double value, std::span<const double> edges) noexcept;

/// The row-major bin of each event over several axes: `coordinates[a][i]` is event i's value on
/// axis a with edges `edges[a]`; −1 when any coordinate is outside its axis. DataError for axes
/// of unequal event counts or edges that are not at least two strictly increasing finite values.
[[nodiscard]] std::vector<std::int64_t>
flat_bin_indices(const std::vector<std::vector<double>>& coordinates,
                 const std::vector<std::vector<double>>& edges);

/// The volume of each row-major bin: the product of the axes' bin widths.
[[nodiscard]] std::vector<double> bin_volumes(const std::vector<std::vector<double>>& edges);

/// Per bin, summed event by event in event order: the data yield Σ w, and the selected model's
/// Σ w I over the accepted and over the generated MC.
struct BinnedIntegrals {
    std::vector<double> data;
    std::vector<double> accepted;
    std::vector<double> generated;
};

/// Accepted and generated Monte Carlo integrals of one term's intensity (of the amplitudes
/// tagged `tags` when any are given). Parameters are the term's, in UnbinnedNll::parameters()
/// order. Every integral must be positive and finite: EvaluationError otherwise (a model that
/// vanishes on the sample, or tags whose amplitudes are zero there).
class CrossSectionIntegrals {
public:
    /// Prepares the (projected) model on `generated` under the term's execution. ModelError for
    /// a tag the model does not carry.
    CrossSectionIntegrals(std::shared_ptr<const UnbinnedNll> term, const data::EventData& generated,
                          std::vector<std::string> tags = {});

    /// The same integrals of `replica`, a bootstrap replica of the term (the same model and
    /// accepted MC, resampled data): the generated and tagged accepted preparations are shared,
    /// the data yield and the full normalisation are the replica's.
    [[nodiscard]] CrossSectionIntegrals
    for_replica(std::shared_ptr<const UnbinnedNll> replica) const;

    /// The term's name.
    [[nodiscard]] const std::string& name() const;

    /// The selected tags, sorted (empty: the full model).
    [[nodiscard]] const std::vector<std::string>& tags() const noexcept { return tags_; }

    /// N_obs = Σ w over the term's data.
    [[nodiscard]] double data_weight_sum() const;

    /// True for an ExtendedNLL term (fitted_cross_section() is defined).
    [[nodiscard]] bool has_absolute_rate() const;

    /// Σ_acc w I of the selected model (the term's normalisation integral for the full model).
    [[nodiscard]] double accepted_integral(std::span<const double> params) const;

    /// Σ_gen w I of the selected model.
    [[nodiscard]] double generated_integral(std::span<const double> params) const;

    /// The full model's Σ_acc w I: the term's normalisation integral.
    [[nodiscard]] double full_accepted_integral(std::span<const double> params) const;

    /// accepted_integral / generated_integral.
    [[nodiscard]] double acceptance(std::span<const double> params) const;

    /// accepted_yield · I_gen / I_acc.
    [[nodiscard]] double acceptance_corrected_yield(std::span<const double> params,
                                                    double accepted_yield) const;

    /// The acceptance-corrected observed yield: N_obs · I_gen / I_acc for the full model; with
    /// tags, the tagged share of the observed yield N_obs · I_acc / I_full,acc corrected by
    /// the tagged acceptance (laddu's CrossSection::corrected_yield).
    [[nodiscard]] double corrected_yield(std::span<const double> params) const;

    /// N_obs · I_gen / I_full,acc / L. ModelError unless L is positive and finite.
    [[nodiscard]] double observed_cross_section(std::span<const double> params,
                                                double luminosity) const;

    /// I_gen / L. ModelError for a shape-only NLL term or a luminosity that is not positive.
    [[nodiscard]] double fitted_cross_section(std::span<const double> params,
                                              double luminosity) const;

    /// The selected model's intensity per accepted MC event (this process's).
    [[nodiscard]] std::vector<double> accepted_intensities(std::span<const double> params) const;

    /// The selected model's intensity per generated MC event (this process's).
    [[nodiscard]] std::vector<double> generated_intensities(std::span<const double> params) const;

    /// The accepted MC weights, in event order.
    [[nodiscard]] std::vector<double> accepted_weights() const;

    /// The generated MC weights, in event order.
    [[nodiscard]] std::vector<double> generated_weights() const;

    /// binned sums of the data weights and of w I over the accepted and generated MC, on
    /// `bins` (DataError when an index list does not have one entry per event or an index is
    /// not below the bin count).
    [[nodiscard]] BinnedIntegrals binned(std::span<const double> params,
                                         const DifferentialBins& bins) const;

    /// The bytes the generated (and, once prepared, the selected accepted) preparations hold.
    [[nodiscard]] std::size_t held_bytes() const;

private:
    // The selected model on the accepted MC, prepared when first asked for (the full model's
    // integral is the term's own normalisation, which needs none); shared with replicas.
    struct LazyAccepted {
        std::once_flag once;
        std::optional<TermIntensity> value;
        std::atomic<bool> ready{false};
    };

    CrossSectionIntegrals() = default;
    [[nodiscard]] const TermIntensity& accepted() const;

    std::shared_ptr<const UnbinnedNll> term_;
    std::vector<std::string> tags_;
    std::shared_ptr<const TermIntensity> generated_;
    std::shared_ptr<LazyAccepted> accepted_;
};

/// One measurement's differential cross section per bin k (divided by the bin volume V_k):
/// `data` N_k · I_gen,k / I_acc,k / L / V_k (NaN where I_acc,k is 0: no acceptance), `model`
/// N_obs · I_gen,k / I_full,acc / L / V_k, and per component (each a CrossSectionIntegrals of
/// the same term with its tags) the model's formula with the component's I_gen,k.
struct DifferentialValues {
    std::vector<double> data;
    std::vector<double> model;
    std::vector<std::vector<double>> components;
};

/// The differential cross section of `full` (the term's whole model) and `components` at
/// `params` on `bins`. ModelError unless the luminosity is positive and finite.
[[nodiscard]] DifferentialValues differential_cross_section(
    const CrossSectionIntegrals& full, std::span<const CrossSectionIntegrals* const> components,
    const DifferentialBins& bins, std::span<const double> params, double luminosity);

}  // namespace laddu::likelihood
