#include "fast_normalization.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <string>

#include <laddu/autodiff/gradient.hpp>
#include <laddu/base/assert.hpp>
#include <laddu/base/error.hpp>
#include <laddu/ir/builder.hpp>
#include <laddu/runtime/normalization_matrix.hpp>

namespace laddu::likelihood {
namespace {

// Re Σ_a c_a(θ) u_a over the coefficient program, u a complex vector taken as 2n parameters
// after the model's `parameters`. Its gradient in θ at u = v is Σ_a Re(∂c_a/∂θ v_a), the whole
// gradient of the integral but the factor 2, in one reverse pass instead of one per term.
ir::Program contraction(const ir::Program& coefficients, std::size_t parameters) {
    ir::Program base = coefficients;
    base.outputs.clear();
    base.output_names.clear();
    ir::Builder b(std::move(base));
    std::vector<ir::ValueId> terms;
    for (std::size_t a = 0; a < coefficients.outputs.size(); ++a) {
        const auto re = static_cast<std::uint32_t>(parameters + 2 * a);
        const ir::ValueId u = b.complex(b.param(re), b.param(re + 1));
        terms.push_back(b.binary(ir::OpCode::kMul, coefficients.outputs[a], u));
    }
    b.add_output(b.unary(ir::OpCode::kReal, b.add_n(terms)), "contraction");
    return b.finish();
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

    fast.group_ = d.group;
    fast.coefficient_values_.emplace(d.coefficient_program);
    fast.contraction_gradient_.emplace(autodiff::gradient(
        contraction(d.coefficient_program, fast.parameters_),
        {.mode = autodiff::AutodiffMode::kReverse, .component = autodiff::Component::kReal}));

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
            // M is zero across coherent groups: those products would only add zeros.
            if (group_[b] == group_[a]) {
                sum += matrix_[a * terms_ + b] * std::conj(c[b]);
            }
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
    }
    std::vector<double> at(params.begin(), params.end());
    for (const std::complex<double>& va : v) {
        at.push_back(va.real());
        at.push_back(va.imag());
    }
    // Output 0 is the contraction itself, outputs 1.. its derivatives (θ first, then u).
    const std::vector<std::complex<double>> dv = (*contraction_gradient_)(at);
    for (std::size_t k = 0; k < parameters_; ++k) {
        result.gradient[k] = 2.0 * dv[k + 1].real();
    }
    return result;
}

std::size_t FastNormalization::groups() const {
    std::vector<std::uint32_t> distinct = group_;
    std::sort(distinct.begin(), distinct.end());
    return static_cast<std::size_t>(
        std::distance(distinct.begin(), std::unique(distinct.begin(), distinct.end())));
}

}  // namespace laddu::likelihood
