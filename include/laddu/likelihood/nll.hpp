// laddu/likelihood/nll.hpp: unbinned negative log-likelihoods over data and accepted Monte Carlo.
//
// With intensity I(x; θ), data weights w_i (N_w = Σ_i w_i) and accepted-MC weights w_j:
//   NLL(θ)         = N_w · ln(Σ_j w_j I_j) − Σ_i w_i ln I_i
//   ExtendedNLL(θ) =        Σ_j w_j I_j  − Σ_i w_i ln I_i
// (laddu's definitions; the accepted sum is not divided by the MC count, which only shifts the
// NLL by a constant). The data sum runs through runtime::PreparedModel (kLogPositiveReal). The
// normalisation integral Σ_j w_j I_j is computed by one of laddu's four strategies
// (compile/normalization.hpp): "general", an MC pass over the accepted events at every
// evaluation; "hermitian" and "linear_statistics", from statistics gathered once when the
// compiler split I into coherent groups Σ_g |Σ_a c_a(θ) A_a(x)|² (the quadratic form
// Re(c^T M c*) with AmpTools' matrix M_ab = Σ_j w_j A_a(x_j) conj(A_b(x_j))) and linear terms
// Re Σ_k d_k(θ) B_k(x) (Re Σ_k d_k S_k with S_k = Σ_j w_j B_k(x_j)), which cost nothing per
// event; "hybrid", those statistics plus an MC pass over the non-separable residual only.
// Execution::normalization picks: kGeneral always passes over the events; kAuto uses the
// statistics for an intensity proven non-negative whose statistics cost at most 16 general
// evaluations and fit the memory budget; kVerify uses them whenever the model has them and
// checks every evaluation against the general pass (EvaluationError when they differ).
//
// Data and accepted MC are data::EventData: a resident Dataset (converts implicitly) or a
// source read lazily, each with its MemoryPolicy; streamed and resident events give the same
// bits, and so do several processes sharing the events through Execution::collective.
//
// Example:
//   likelihood::NLL nll(model, data, accepted, {.threads = 2});
//   auto [value, gradient] = nll.value_and_gradient(nll_params);
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/likelihood/term.hpp>
#include <laddu/runtime/execution.hpp>
#include <laddu/runtime/prepared_model.hpp>

namespace laddu::likelihood {

/// How one set of a term's events was prepared: what Likelihood diagnostics report per dataset.
struct PreparedEventsInfo {
    // Accepted MC "folded into the statistics" below: a "hermitian" or "linear_statistics"
    // strategy without the kVerify pass. Under "hybrid" (without kVerify) the record is the
    // residual's prepared events, with the statistics' bytes added to resident_bytes.
    std::size_t events = 0;  ///< every process's events
    /// this process's (for accepted MC folded into the statistics: every process's)
    std::size_t local_events = 0;
    /// Σ w over every process's events; nullopt for accepted MC folded into the statistics,
    /// which keeps only them
    std::optional<double> sum_weights;
    /// PreparedModel::memory_report(); nullopt for accepted MC folded into the statistics (no
    /// event cache is kept for it)
    std::optional<runtime::MemoryReport> memory;
    std::optional<std::size_t> cache_columns;  ///< the resident cache's slots (nullopt otherwise)
    /// the resident cache's bytes (EventCache::resident_bytes), the statistics' for accepted
    /// MC folded into them, 0 when streaming (nothing is kept between passes)
    std::size_t resident_bytes = 0;
};

/// What an UnbinnedNll decided when it was built: backend, normalisation and the two event sets.
struct UnbinnedNllInfo {
    std::string backend;  ///< "interpreter" or "jit"
    /// laddu's name of the normalisation strategy in use: "hermitian", "linear_statistics",
    /// "hybrid" or "general"
    std::string normalization_strategy = "general";
    bool fast_normalization = false;          ///< true unless the strategy is "general"
    std::size_t normalization_terms = 0;      ///< the matrix's (coefficient, amplitude) terms
    std::size_t normalization_bases = 0;      ///< the linear statistics S_k
    std::size_t normalization_groups = 0;     ///< the matrix's coherent groups
    bool normalization_has_residual = false;  ///< "hybrid": a residual MC pass remains
    /// the statistics' bytes (terms² + bases complex doubles)
    std::size_t normalization_bytes = 0;
    /// the statistics were gathered from the data's event cache (the accepted MC is the data
    /// and its cache is resident): the cached factors were not computed a second time
    bool normalization_from_data_cache = false;
    PreparedEventsInfo data;
    PreparedEventsInfo accepted;
    /// wall seconds preparing the data, the accepted MC and the normalisation took (not the
    /// model's compilation)
    double prepare_seconds = 0.0;
};

/// When an NLL or ExtendedNLL prepares its model on the events.
enum class Preparation : std::uint8_t {
    kNow,  ///< in the constructor
    /// at the first evaluation, info() or projection; the constructor still compiles the model
    /// and checks that the data and accepted MC have its columns. A term that will be rebuilt
    /// with another execution (laddu's Likelihood(terms, execution=)) is then never prepared
    /// twice. With Execution::collective the term is prepared now (a collective call).
    kDeferred,
};

/// A term's model, or its projection onto some amplitude tags, prepared on a set of events (the
/// term's accepted MC, or others such as generated MC) and evaluated at the term's parameters
/// (UnbinnedNll::parameters() order). From UnbinnedNll::intensity(); cheap to copy (shared).
class TermIntensity {
public:
    /// I(x; θ) per event (the real part of the model), in event order (this process's events
    /// under a collective).
    [[nodiscard]] std::vector<double> values(std::span<const double> params) const;

    /// Σ w I over the events by the runtime's deterministic compensated reduction (a collective
    /// call under Execution::collective).
    [[nodiscard]] double integral(std::span<const double> params) const;

    /// integral() and its gradient with respect to the term's parameters.
    [[nodiscard]] runtime::Evaluation integral_with_gradient(std::span<const double> params) const;

    /// The events' weights, in event order.
    [[nodiscard]] std::vector<double> weights() const;

    /// The number of events (this process's).
    [[nodiscard]] std::size_t events() const;

    /// The bytes the preparation holds while it lives (runtime::MemoryReport::held_bytes).
    [[nodiscard]] std::size_t held_bytes() const;

private:
    friend class UnbinnedNll;
    [[nodiscard]] std::vector<double> local(std::span<const double> params) const;

    std::shared_ptr<const runtime::PreparedModel> prepared_;
    std::vector<std::size_t> to_term_;  ///< the term's index of each of the model's parameters
    std::size_t term_parameters_ = 0;
};

/// The shared machinery of NLL and ExtendedNLL: the model prepared on data and accepted MC.
class UnbinnedNll : public Term {
public:
    [[nodiscard]] const std::string& name() const noexcept override;
    [[nodiscard]] const std::vector<expr::Parameter>& parameters() const noexcept override;
    [[nodiscard]] double value(std::span<const double> params) const override;
    [[nodiscard]] runtime::Evaluation
    value_and_gradient(std::span<const double> params) const override;

    /// laddu's stochastic NLL: the data term over the events data.subsample(fraction, seed)
    /// keeps (prepared for this call), divided by `fraction`; the normalisation over the whole
    /// accepted MC. ModelError unless 0 < fraction ≤ 1.
    [[nodiscard]] runtime::Evaluation
    stochastic_value_and_gradient(std::span<const double> params, double fraction,
                                  std::uint64_t seed) const override;

    /// Σ_j w_j I_j over the accepted MC. Throws EvaluationError when it is not positive and
    /// finite (the NLL's logarithm and the extended term need a positive integral).
    [[nodiscard]] double normalization_integral(std::span<const double> params) const;

    /// normalization_integral() and its gradient.
    [[nodiscard]] runtime::Evaluation
    normalization_integral_with_gradient(std::span<const double> params) const;

    /// True when the integral uses precomputed statistics (strategy "hermitian",
    /// "linear_statistics" or "hybrid"; info().normalization_strategy names it).
    [[nodiscard]] bool uses_fast_normalization() const;

    /// The backend that evaluates the model over the data: "interpreter" or "jit".
    [[nodiscard]] std::string_view backend() const;

    /// The preparation decisions (backend, normalisation path, event counts, memory reports).
    [[nodiscard]] UnbinnedNllInfo info() const;

    /// Σ_i w_i over the data.
    [[nodiscard]] double data_sum_weights() const;

    /// The data weights, in event order (this process's events; a streamed data set is read).
    [[nodiscard]] std::vector<double> data_weights() const;

    /// Per-event weights over the accepted MC for drawing the fitted model: w_j I_j(θ), scaled
    /// for NLL by N_w / Σ_acc w I so they sum to the data yield (an ExtendedNLL's I is the
    /// yield already). With `tags`, I is the model projected onto those amplitudes
    /// (expr::Model::project) while the scale stays the full model's, as laddu's
    /// projection(...).weights(...). ModelError for a tag the model does not use (listing
    /// them). Compiles and prepares the projected model on each call, under the accepted
    /// data's memory policy (a streamed accepted set is read again, once for the values and
    /// once for the weights; the result itself holds one double per accepted event). Under a
    /// collective: the local accepted events only (a collective call).
    [[nodiscard]] std::vector<double>
    projection_weights(std::span<const double> params,
                       const std::vector<std::string>& tags = {}) const;

    /// The model projected onto the amplitudes tagged `tags` (expr::Model::project; the whole
    /// model when `tags` is empty), prepared on `events` under this term's execution, or on the
    /// accepted MC when `events` is null (the last few of those are cached). ModelError for a
    /// tag the model does not use (listing them). What projections, fit fractions and cross
    /// sections evaluate.
    [[nodiscard]] TermIntensity intensity(const std::vector<std::string>& tags,
                                          const data::EventData* events = nullptr) const;

    /// True for an ExtendedNLL: Σ_acc w I is the expected accepted yield, so the intensity has
    /// an absolute rate (a fitted cross section); false for a shape-only NLL.
    [[nodiscard]] bool has_absolute_rate() const;

    /// The fit fraction Σ_acc w I_tags / Σ_acc w I of the amplitudes tagged `tags` and its
    /// gradient with respect to this term's parameters (for error propagation). ModelError
    /// for an empty or unknown tag list.
    [[nodiscard]] runtime::Evaluation fit_fraction(std::span<const double> params,
                                                   const std::vector<std::string>& tags) const;

protected:
    enum class Kind : std::uint8_t { kNll, kExtended };

    UnbinnedNll(Kind kind, const expr::Model& model, const data::EventData& data,
                const data::EventData& accepted, const runtime::Execution& execution,
                std::string name, Preparation preparation);

public:
    UnbinnedNll(const UnbinnedNll&) = delete;
    UnbinnedNll& operator=(const UnbinnedNll&) = delete;
    UnbinnedNll(UnbinnedNll&&) = delete;
    UnbinnedNll& operator=(UnbinnedNll&&) = delete;
    ~UnbinnedNll() override;

private:
    struct State;
    struct Pending;

    [[nodiscard]] static std::shared_ptr<const State>
    build(Kind kind, const expr::Model& model, const compile::CompiledModel& compiled,
          const data::EventData& data, const data::EventData& accepted,
          const runtime::Execution& execution, const std::string& name);

    /// The prepared state (preparing a deferred term on first use).
    [[nodiscard]] const State& state() const;

    /// True when the normalisation integral needs no pass over events (the statistics alone),
    /// so it can be computed while the data pass starts.
    [[nodiscard]] bool normalization_beside_data() const;

    std::string name_;
    std::vector<expr::Parameter> parameters_;
    std::unique_ptr<const Pending> pending_;  ///< set for a deferred term
    mutable std::once_flag prepared_;
    mutable std::shared_ptr<const State> state_;
};

/// N_w · ln(Σ_acc w_j I_j) − Σ_data w_i ln I_i over the model's free parameters.
class NLL final : public UnbinnedNll {
public:
    /// Compiles `model` and prepares it on `data` and `accepted` (Datasets convert to resident
    /// EventData under kFastest). Throws ModelError when the model is not real-valued (it
    /// suggests norm_sqr), and what compile_model() and PreparedModel::prepare() throw
    /// (CompileError, DataError for missing columns or a budget too small).
    NLL(const expr::Model& model, const data::EventData& data, const data::EventData& accepted,
        const runtime::Execution& execution = {}, std::string name = "nll",
        Preparation preparation = Preparation::kNow)
        : UnbinnedNll(Kind::kNll, model, data, accepted, execution, std::move(name), preparation) {}
};

/// Σ_acc w_j I_j − Σ_data w_i ln I_i (the extended likelihood: the yield is part of I).
class ExtendedNLL final : public UnbinnedNll {
public:
    /// As NLL's constructor.
    ExtendedNLL(const expr::Model& model, const data::EventData& data,
                const data::EventData& accepted, const runtime::Execution& execution = {},
                std::string name = "extended_nll", Preparation preparation = Preparation::kNow)
        : UnbinnedNll(Kind::kExtended, model, data, accepted, execution, std::move(name),
                      preparation) {}
};

}  // namespace laddu::likelihood
