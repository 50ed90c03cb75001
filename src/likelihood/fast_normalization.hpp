// fast_normalization.hpp (private): the separable part of the normalisation integral from
// statistics gathered once.
//
// For I = Σ_g |Σ_{a in g} c_a(θ) A_a(x)|² + Re Σ_k d_k(θ) B_k(x) + residual, the separable part
// of Σ_j w_j I_j is Re Σ_ab c_a conj(c_b) M_ab + Re Σ_k d_k S_k with M_ab = Σ_j w_j A_a(x_j)
// conj(A_b(x_j)) for a, b in one group (0 across groups) and S_k = Σ_j w_j B_k(x_j), both built
// once by runtime::normalization_statistics (the same bits for any thread count, backend, memory
// plan and number of processes). The residual is not part of it: UnbinnedNll integrates it by a
// pass over the accepted events.
//
// With v_a = Σ_b M_ab conj(c_b): the value is Re Σ_a c_a v_a + Re Σ_k d_k S_k and, M being
// Hermitian, its derivative is Re Σ_a (∂c_a/∂θ) 2 v_a + Re Σ_k (∂d_k/∂θ) S_k: the gradient of
// Re Σ_o e_o(θ) u_o over every coefficient e = (c, d) at u = (2 v, S), one reverse-mode pass
// over the coefficient program.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/likelihood/term.hpp>
#include <laddu/runtime/event_cache.hpp>
#include <laddu/runtime/execution.hpp>
#include <laddu/runtime/memory_pool.hpp>
#include <laddu/runtime/normalization_matrix.hpp>

namespace laddu::likelihood {

/// NormalizationMode::kAuto gathers the statistics only when that one pass costs at most this
/// many general evaluations (laddu's AUTO_BREAK_EVEN_EVALUATIONS): statistics_work ≤
/// kAutoBreakEvenEvaluations · general_work (compile::NormalizationDecomposition).
inline constexpr std::size_t kAutoBreakEvenEvaluations = 16;

/// Whether `mode` gathers the statistics of `d` (before the memory lease, which kAuto may still
/// decline): never under kGeneral, always under kVerify, and under kAuto when
/// d.proven_nonnegative and d.statistics_work ≤ kAutoBreakEvenEvaluations · d.general_work.
[[nodiscard]] bool wants_statistics(const compile::NormalizationDecomposition& d,
                                    runtime::NormalizationMode mode);

/// The statistics and the coefficient programs of one decomposed model.
class FastNormalization {
public:
    /// Builds M and S over `accepted`, or nullopt when the execution's normalisation mode does
    /// not use them: kGeneral, a model without a decomposition, or under kAuto a model not
    /// proven non-negative, statistics costing more than kAutoBreakEvenEvaluations general
    /// evaluations, or a memory budget without room for them. DataError when `accepted` lacks
    /// a column the amplitudes read, and when the budget has no room under kVerify or a
    /// collective (whose processes must all take one path). Uses the
    /// execution's threads, memory budget (the statistics are leased from it for the life of
    /// the object; a source's read windows while they are gathered) and collective (a
    /// collective call then). `accepted_cache` (optional): a resident cache of `model` over
    /// this process's accepted events, from which the statistics pass reads the amplitudes'
    /// cached factors (runtime::normalization_statistics).
    [[nodiscard]] static std::optional<FastNormalization>
    build(const compile::CompiledModel& model, const data::EventData& accepted,
          const runtime::Execution& execution, const runtime::EventCache* accepted_cache = nullptr);

    /// The separable part of the integral at `params` (free order).
    [[nodiscard]] double value(std::span<const double> params) const;

    /// value() and its gradient.
    [[nodiscard]] runtime::Evaluation value_and_gradient(std::span<const double> params) const;

    /// The number of (coefficient, amplitude) terms of the matrix.
    [[nodiscard]] std::size_t terms() const noexcept { return terms_; }

    /// The number of linear statistics S_k.
    [[nodiscard]] std::size_t bases() const noexcept { return linear_.size(); }

    /// The number of coherent groups (distinct group indices of the terms).
    [[nodiscard]] std::size_t groups() const;

    /// The bytes of the statistics as gathered and leased: terms² + bases complex doubles
    /// (only the coherent groups' blocks of M are kept).
    [[nodiscard]] std::size_t bytes() const noexcept {
        return ((terms_ * terms_) + linear_.size()) * sizeof(std::complex<double>);
    }

    /// True when the statistics were gathered from the accepted_cache given to build().
    [[nodiscard]] bool from_cache() const noexcept { return from_cache_; }

private:
    FastNormalization() = default;

    /// Sets group_, group_terms_ and group_begin_ from each term's coherent group.
    void set_groups(const std::vector<std::uint32_t>& group);

    /// Sets the blocks of M (block_re_, block_im_, block_begin_) from the terms_ × terms_
    /// row-major matrix.
    void set_blocks(std::span<const std::complex<double>> matrix);

    /// The parameter functions set by build() (InternalError before).
    [[nodiscard]] const runtime::ParameterFunction& coefficient_values() const;
    [[nodiscard]] const runtime::ParameterFunction& contraction_gradient() const;

    /// Group g's terms, ascending.
    [[nodiscard]] std::span<const std::uint32_t> members(std::size_t group) const;

    /// v_a = Σ_b M_ab conj(e_b) for every term a.
    std::vector<std::complex<double>> contracted(std::span<const std::complex<double>> e) const;

    std::size_t terms_ = 0;
    std::size_t parameters_ = 0;
    std::vector<std::uint32_t> group_;  ///< the coherent group of term a
    /// The coherent groups' terms, ascending within each group: group g's at
    /// group_terms_[group_begin_[g], group_begin_[g + 1]).
    std::vector<std::uint32_t> group_terms_;
    std::vector<std::size_t> group_begin_;
    /// M within each group (0 across groups), real and imaginary parts apart: for group g of k
    /// terms, from block_begin_[g], entry (i p + j) is M_ab for a = its j-th term and b = its
    /// i-th, p being k rounded up to a multiple of four (the rows past k are 0), so the rows
    /// of one column b are contiguous.
    std::vector<double> block_re_;
    std::vector<double> block_im_;
    std::vector<std::size_t> block_begin_;
    std::vector<std::complex<double>> linear_;  ///< S_k
    bool from_cache_ = false;                   ///< gathered from the given accepted_cache
    runtime::MemoryLease lease_;                ///< the statistics' bytes in the budget
    /// (c_a(θ), then d_k(θ)); set once built
    std::optional<runtime::ParameterFunction> coefficient_values_;
    std::optional<runtime::ParameterFunction> contraction_gradient_;  ///< ∇ Re Σ_o e_o(θ) u_o
};

namespace testing {

/// While alive, FastNormalization::build() adds `delta` to the first statistic it gathers (S_0,
/// else M_00) on this thread: a statistics path that no longer describes its model, for tests
/// of NormalizationMode::kVerify's failure. Not for use outside tests.
class ScopedStatisticsPerturbation {
public:
    explicit ScopedStatisticsPerturbation(double delta);
    ~ScopedStatisticsPerturbation();
    ScopedStatisticsPerturbation(const ScopedStatisticsPerturbation&) = delete;
    ScopedStatisticsPerturbation& operator=(const ScopedStatisticsPerturbation&) = delete;
    ScopedStatisticsPerturbation(ScopedStatisticsPerturbation&&) = delete;
    ScopedStatisticsPerturbation& operator=(ScopedStatisticsPerturbation&&) = delete;

private:
    double previous_;
};

}  // namespace testing

}  // namespace laddu::likelihood
