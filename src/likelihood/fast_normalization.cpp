#include "fast_normalization.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include <laddu/autodiff/gradient.hpp>
#include <laddu/base/assert.hpp>
#include <laddu/base/error.hpp>
#include <laddu/runtime/normalization_matrix.hpp>

namespace laddu::likelihood {
namespace {

// The program computing only output `a` of `program` (autodiff differentiates output 0).
ir::Program single_output(const ir::Program& program, std::size_t a) {
    ir::Program one = program;
    one.outputs = {program.outputs[a]};
    one.output_names.clear();
    return one;
}

}  // namespace

std::optional<FastNormalization> FastNormalization::build(const compile::CompiledModel& model,
                                                          const data::EventData& accepted,
                                                          const runtime::Execution& execution) {
    if (!model.normalization) {
        return std::nullopt;
    }
    const compile::NormalizationDecomposition& d = *model.normalization;
    FastNormalization fast;
    fast.terms_ = d.amplitudes.size();
    fast.parameters_ = model.parameters.free_count();
    LADDU_ASSERT(d.coefficient_program.outputs.size() == fast.terms_ &&
                 d.amplitude_program.outputs.size() == fast.terms_ && d.group.size() == fast.terms_)
        << "normalization decomposition with mismatched term counts";

    fast.coefficient_values_.emplace(d.coefficient_program);
    fast.coefficient_gradients_.reserve(fast.terms_);
    for (std::size_t a = 0; a < fast.terms_; ++a) {
        fast.coefficient_gradients_.emplace_back(autodiff::gradient(
            single_output(d.coefficient_program, a),
            {.mode = autodiff::AutodiffMode::kAuto, .component = autodiff::Component::kFull}));
    }

    fast.matrix_ = runtime::normalization_matrix(d, accepted, execution);
    return fast;
}

std::vector<std::complex<double>>
FastNormalization::coefficients(std::span<const double> params) const {
    return (*coefficient_values_)(params);
}

std::vector<std::complex<double>>
FastNormalization::contracted(std::span<const std::complex<double>> c) const {
    std::vector<std::complex<double>> v(terms_);
    for (std::size_t a = 0; a < terms_; ++a) {
        std::complex<double> sum = 0.0;
        for (std::size_t b = 0; b < terms_; ++b) {
            sum += matrix_[a * terms_ + b] * std::conj(c[b]);
        }
        v[a] = sum;
    }
    return v;
}

double FastNormalization::value(std::span<const double> params) const {
    const std::vector<std::complex<double>> c = coefficients(params);
    const std::vector<std::complex<double>> v = contracted(c);
    double sum = 0.0;
    for (std::size_t a = 0; a < terms_; ++a) {
        sum += (c[a] * v[a]).real();
    }
    return sum;
}

runtime::Evaluation FastNormalization::value_and_gradient(std::span<const double> params) const {
    const std::vector<std::complex<double>> c = coefficients(params);
    const std::vector<std::complex<double>> v = contracted(c);
    runtime::Evaluation result{0.0, std::vector<double>(parameters_, 0.0)};
    for (std::size_t a = 0; a < terms_; ++a) {
        result.value += (c[a] * v[a]).real();
        const std::vector<std::complex<double>> dc = coefficient_gradients_[a](params);
        for (std::size_t k = 0; k < parameters_; ++k) {
            result.gradient[k] += 2.0 * (dc[k + 1] * v[a]).real();
        }
    }
    return result;
}

}  // namespace laddu::likelihood
