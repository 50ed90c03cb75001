#include "fast_normalization.hpp"

#include <algorithm>
#include <array>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <laddu/autodiff/gradient.hpp>
#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/assert.hpp>
#include <laddu/base/error.hpp>

namespace laddu::likelihood {
namespace {

// The amplitude program input "p.px" is component px of four-momentum p; others are scalars.
std::optional<std::span<const double>> find_column(const data::Dataset& dataset,
                                                   const std::string& input) {
    const std::size_t dot = input.rfind('.');
    if (dot != std::string::npos) {
        static constexpr std::array<const char*, 4> kComponents = {"e", "px", "py", "pz"};
        if (const auto index = dataset.schema().p4_index(input.substr(0, dot))) {
            const std::string component = input.substr(dot + 1);
            for (std::size_t c = 0; c < kComponents.size(); ++c) {
                if (component == kComponents[c]) {
                    return dataset.batch().p4_component(*index, c);
                }
            }
        }
    }
    if (dataset.schema().scalar_index(input)) {
        return dataset.batch().column(input);
    }
    return std::nullopt;
}

// The program computing only output `a` of `program` (autodiff differentiates output 0).
ir::Program single_output(const ir::Program& program, std::size_t a) {
    ir::Program one = program;
    one.outputs = {program.outputs[a]};
    one.output_names.clear();
    return one;
}

// Coefficient programs read no event columns: one "event" with no inputs.
interp::ColumnView no_inputs() {
    return interp::ColumnView{{}, 1};
}

// The amplitude program's inputs bound to the accepted dataset's columns (DataError naming
// every missing one).
std::vector<interp::InputColumn> bind_inputs(const ir::Program& program,
                                             const data::Dataset& accepted) {
    std::vector<interp::InputColumn> inputs;
    std::vector<std::string> missing;
    for (const ir::InputSlot& slot : program.inputs) {
        const auto column = find_column(accepted, slot.name);
        if (column && slot.kind == ir::ValueKind::kReal) {
            inputs.push_back(interp::InputColumn{column->data(), nullptr});
        } else {
            missing.push_back(slot.name);
        }
    }
    if (!missing.empty()) {
        throw DataError(fmt::format("the accepted Monte Carlo lacks the event columns [{}] that "
                                    "the model's amplitudes read; it has four-momenta [{}] and "
                                    "scalars [{}]",
                                    fmt::join(missing, ", "), fmt::join(accepted.p4_names(), ", "),
                                    fmt::join(accepted.scalar_names(), ", ")));
    }
    return inputs;
}

// One compensated sum per real and imaginary part of each matrix entry.
struct MatrixSums {
    explicit MatrixSums(std::size_t terms) : n(terms), re(terms * terms), im(terms * terms) {}

    // Adds w A_a conj(A_b) for lane `lane` of a block whose amplitude a sits at
    // (block_re, block_im)[a * kBlockSize + lane].
    void add(const compile::NormalizationDecomposition& d, const std::vector<double>& block_re,
             const std::vector<double>& block_im, std::size_t lane, double w) {
        for (std::size_t a = 0; a < n; ++a) {
            const std::complex<double> wa(w * block_re[a * interp::kBlockSize + lane],
                                          w * block_im[a * interp::kBlockSize + lane]);
            for (std::size_t b = 0; b < n; ++b) {
                if (d.group[a] == d.group[b]) {
                    const std::complex<double> ab =
                        wa * std::complex<double>(block_re[b * interp::kBlockSize + lane],
                                                  -block_im[b * interp::kBlockSize + lane]);
                    re[a * n + b].push(ab.real());
                    im[a * n + b].push(ab.imag());
                }
            }
        }
    }

    std::size_t n;
    std::vector<AccurateSum> re;
    std::vector<AccurateSum> im;
};

// M_ab = sum_j w_j A_a(x_j) conj(A_b(x_j)) over `accepted`, serially in event order.
std::vector<std::complex<double>> normalization_matrix(const compile::NormalizationDecomposition& d,
                                                       const data::Dataset& accepted) {
    const std::vector<interp::InputColumn> inputs = bind_inputs(d.amplitude_program, accepted);
    const std::size_t events = accepted.size();
    const interp::ColumnView view{inputs, events};
    const interp::Interpreter amplitudes = interp::Interpreter::prepare(d.amplitude_program);
    interp::Workspace workspace = amplitudes.make_workspace();
    const std::size_t n = d.amplitudes.size();
    std::vector<double> re(n * interp::kBlockSize);
    std::vector<double> im(n * interp::kBlockSize);
    std::vector<interp::OutputColumn> columns;
    columns.reserve(n);
    for (std::size_t a = 0; a < n; ++a) {
        columns.push_back({re.data() + a * interp::kBlockSize, im.data() + a * interp::kBlockSize});
    }
    MatrixSums sums(n);
    const std::span<const double> weights = accepted.weights();
    if (events > 0) {
        amplitudes.check_inputs(view);
        amplitudes.evaluate_invariants(std::span<const double>{}, workspace);
    }
    for (std::size_t begin = 0; begin < events; begin += interp::kBlockSize) {
        const std::size_t count = std::min(interp::kBlockSize, events - begin);
        amplitudes.run_block(view, begin, count, workspace, interp::OutputView{columns});
        for (std::size_t lane = 0; lane < count; ++lane) {
            sums.add(d, re, im, lane, weights[begin + lane]);
        }
    }
    std::vector<std::complex<double>> matrix(n * n);
    for (std::size_t k = 0; k < n * n; ++k) {
        matrix[k] = {sums.re[k].finish(), sums.im[k].finish()};
    }
    return matrix;
}

}  // namespace

std::optional<FastNormalization> FastNormalization::build(const compile::CompiledModel& model,
                                                          const data::Dataset& accepted) {
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

    fast.coefficient_values_ = std::make_unique<const interp::Interpreter>(
        interp::Interpreter::prepare(d.coefficient_program));
    fast.coefficient_gradients_.reserve(fast.terms_);
    for (std::size_t a = 0; a < fast.terms_; ++a) {
        fast.coefficient_gradients_.push_back(interp::Interpreter::prepare(autodiff::gradient(
            single_output(d.coefficient_program, a),
            {.mode = autodiff::AutodiffMode::kAuto, .component = autodiff::Component::kFull})));
    }

    fast.matrix_ = normalization_matrix(d, accepted);
    return fast;
}

std::vector<std::complex<double>>
FastNormalization::coefficients(std::span<const double> params) const {
    return coefficient_values_->evaluate_row(params, no_inputs(), 0);
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

Evaluation FastNormalization::value_and_gradient(std::span<const double> params) const {
    const std::vector<std::complex<double>> c = coefficients(params);
    const std::vector<std::complex<double>> v = contracted(c);
    Evaluation result{0.0, std::vector<double>(parameters_, 0.0)};
    for (std::size_t a = 0; a < terms_; ++a) {
        result.value += (c[a] * v[a]).real();
        const std::vector<std::complex<double>> dc =
            coefficient_gradients_[a].evaluate_row(params, no_inputs(), 0);
        for (std::size_t k = 0; k < parameters_; ++k) {
            result.gradient[k] += 2.0 * (dc[k + 1] * v[a]).real();
        }
    }
    return result;
}

}  // namespace laddu::likelihood
