// fast_normalization.hpp (private): the normalisation integral as a precomputed Hermitian form.
//
// For I = Σ_g |Σ_{a in g} c_a(θ) A_a(x)|², Σ_j w_j I_j = Re Σ_ab c_a conj(c_b) M_ab with
// M_ab = Σ_j w_j A_a(x_j) conj(A_b(x_j)) for a, b in one group (0 across groups), built once by
// runtime::normalization_matrix (the same bits for any thread count, backend, memory plan and
// number of processes).
// With v_a = Σ_b M_ab conj(c_b): the integral is Re Σ_a c_a v_a and, M being Hermitian, its
// derivative is 2 Re Σ_a (∂c_a/∂θ_k) v_a: the gradient of Re Σ_a c_a(θ) u_a at u = v, one
// reverse-mode pass over the coefficient program.
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
#include <laddu/runtime/execution.hpp>
#include <laddu/runtime/normalization_matrix.hpp>

namespace laddu::likelihood {

/// The precomputed matrix and the coefficient programs of one decomposed model.
class FastNormalization {
public:
    /// Builds M over `accepted`, or nullopt when `model` has no decomposition. DataError when
    /// `accepted` lacks a column the amplitudes read. Uses the execution's threads, memory
    /// budget (for the read windows of a source) and collective (a collective call then).
    [[nodiscard]] static std::optional<FastNormalization>
    build(const compile::CompiledModel& model, const data::EventData& accepted,
          const runtime::Execution& execution);

    /// Re c^T M c* at `params` (free order).
    [[nodiscard]] double value(std::span<const double> params) const;

    /// value() and its gradient.
    [[nodiscard]] runtime::Evaluation value_and_gradient(std::span<const double> params) const;

    /// The number of (coefficient, amplitude) terms.
    [[nodiscard]] std::size_t terms() const noexcept { return terms_; }

    /// The number of coherent groups (distinct group indices of the terms).
    [[nodiscard]] std::size_t groups() const;

private:
    FastNormalization() = default;

    std::vector<std::complex<double>> coefficients(std::span<const double> params) const;
    std::vector<std::complex<double>> contracted(std::span<const std::complex<double>> c) const;

    std::size_t terms_ = 0;
    std::size_t parameters_ = 0;
    std::vector<std::uint32_t> group_;          ///< the coherent group of term a
    std::vector<std::complex<double>> matrix_;  ///< terms_ × terms_, row-major
    std::optional<runtime::ParameterFunction> coefficient_values_;    ///< c_a(θ); set once built
    std::optional<runtime::ParameterFunction> contraction_gradient_;  ///< ∇ Re Σ_a c_a(θ) u_a
};

}  // namespace laddu::likelihood
