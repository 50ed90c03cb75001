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
#include <laddu/runtime/collective.hpp>
#include <laddu/runtime/normalization_matrix.hpp>

namespace laddu::likelihood {
namespace {

// ScopedStatisticsPerturbation's delta: thread-local, so tests running side by side in one
// process do not see each other's.
thread_local double statistics_perturbation = 0.0;

// Re Σ_o e_o(θ) u_o over the coefficient program, u a complex vector taken as 2 n parameters
// after the model's `parameters`. Its gradient in θ at u = (2 v, S) is the whole gradient of
// the separable integral, in one reverse pass instead of one per term.
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

// kAuto follows laddu 0.21.4 (PreparedNormalization::prepare): statistics only for an
// intensity proven non-negative, and only when their one pass costs at most
// kAutoBreakEvenEvaluations general evaluations (past that, a fit of a few evaluations is
// cheaper without them), so both libraries pick the same strategy for the same model.
bool wants_statistics(const compile::NormalizationDecomposition& d,
                      runtime::NormalizationMode mode) {
    switch (mode) {
    case runtime::NormalizationMode::kGeneral:
        return false;
    case runtime::NormalizationMode::kVerify:
        return true;
    case runtime::NormalizationMode::kAuto:
        return d.proven_nonnegative &&
               d.statistics_work <= kAutoBreakEvenEvaluations * d.general_work;
    }
    return false;
}

std::optional<FastNormalization>
FastNormalization::build(const compile::CompiledModel& model, const data::EventData& accepted,
                         const runtime::Execution& execution,
                         const runtime::EventCache* accepted_cache) {
    if (!model.normalization || !wants_statistics(*model.normalization, execution.normalization)) {
        return std::nullopt;
    }
    const compile::NormalizationDecomposition& d = *model.normalization;
    FastNormalization fast;
    fast.terms_ = d.amplitudes.size();
    fast.parameters_ = model.parameters.free_count();
    const std::size_t outputs = d.basis_count();
    LADDU_ASSERT(d.coefficient_program.outputs.size() == outputs &&
                 d.amplitude_program.outputs.size() == outputs && d.group.size() == fast.terms_)
        << "normalization decomposition with mismatched term counts";

    const std::size_t bytes =
        (fast.terms_ * fast.terms_ + d.bases.size()) * sizeof(std::complex<double>);
    const std::string label = "the accepted Monte Carlo (normalisation statistics)";
    if (execution.memory_pool) {
        // kAuto falls back to the event pass when the budget has no room; kVerify needs them.
        // Under a collective every process must take the same path (the statistics pass is a
        // collective call), so a refusal on any process is the DataError on all of them.
        if (execution.collective) {
            runtime::collectively(execution.collective.get(), [&] {
                fast.lease_ = execution.memory_pool->lease(bytes, label);
            });
        } else if (execution.normalization == runtime::NormalizationMode::kAuto) {
            std::optional<runtime::MemoryLease> lease =
                execution.memory_pool->try_lease(bytes, label);
            if (!lease) {
                return std::nullopt;
            }
            fast.lease_ = std::move(*lease);
        } else {
            fast.lease_ = execution.memory_pool->lease(bytes, label);
        }
    }

    fast.group_ = d.group;
    fast.group_begin_.push_back(0);
    std::vector<bool> placed(fast.terms_, false);
    for (std::size_t a = 0; a < fast.terms_; ++a) {
        if (placed[a]) {
            continue;
        }
        for (std::size_t b = a; b < fast.terms_; ++b) {
            if (d.group[b] == d.group[a]) {
                fast.group_terms_.push_back(static_cast<std::uint32_t>(b));
                placed[b] = true;
            }
        }
        fast.group_begin_.push_back(fast.group_terms_.size());
    }
    // Evaluated on every call of the likelihood, like its kernels: the same JIT choice.
    const std::size_t events = accepted.num_events();
    fast.coefficient_values_.emplace(d.coefficient_program, execution.jit, events);
    fast.contraction_gradient_.emplace(
        autodiff::gradient(
            contraction(d.coefficient_program, fast.parameters_),
            {.mode = autodiff::AutodiffMode::kReverse, .component = autodiff::Component::kReal}),
        execution.jit, events);

    runtime::NormalizationStatistics statistics =
        runtime::normalization_statistics(d, accepted, execution, accepted_cache);
    fast.matrix_ = std::move(statistics.matrix);
    fast.linear_ = std::move(statistics.linear);
    fast.from_cache_ = statistics.from_cache;
    if (statistics_perturbation != 0.0) {
        (fast.linear_.empty() ? fast.matrix_.front() : fast.linear_.front()) +=
            statistics_perturbation;
    }
    return fast;
}

std::vector<std::complex<double>>
FastNormalization::contracted(std::span<const std::complex<double>> e) const {
    std::vector<std::complex<double>> v(terms_);
    // M is zero across coherent groups: only a's own group's products add anything. Each v_a
    // sums its group's terms b in ascending order; the rows of a group advance side by side
    // (independent sums, so the processor overlaps them), each in that same order.
    for (std::size_t g = 0; g + 1 < group_begin_.size(); ++g) {
        const std::span<const std::uint32_t> members(group_terms_.data() + group_begin_[g],
                                                     group_begin_[g + 1] - group_begin_[g]);
        for (const std::uint32_t b : members) {
            const std::complex<double> conj_e = std::conj(e[b]);
            for (const std::uint32_t a : members) {
                v[a] += matrix_[a * terms_ + b] * conj_e;
            }
        }
    }
    return v;
}

double FastNormalization::value(std::span<const double> params) const {
    const std::vector<std::complex<double>> e = (*coefficient_values_)(params);
    const std::vector<std::complex<double>> v = contracted(e);
    double sum = 0.0;
    for (std::size_t a = 0; a < terms_; ++a) {
        sum += (e[a] * v[a]).real();
    }
    for (std::size_t k = 0; k < linear_.size(); ++k) {
        sum += (e[terms_ + k] * linear_[k]).real();
    }
    return sum;
}

runtime::Evaluation FastNormalization::value_and_gradient(std::span<const double> params) const {
    const std::vector<std::complex<double>> e = (*coefficient_values_)(params);
    const std::vector<std::complex<double>> v = contracted(e);
    runtime::Evaluation result{0.0, std::vector<double>(parameters_, 0.0)};
    for (std::size_t a = 0; a < terms_; ++a) {
        result.value += (e[a] * v[a]).real();
    }
    for (std::size_t k = 0; k < linear_.size(); ++k) {
        result.value += (e[terms_ + k] * linear_[k]).real();
    }
    // u = (2 v, S): the quadratic form's derivative carries the factor 2, the linear part's not.
    std::vector<double> at(params.begin(), params.end());
    for (const std::complex<double>& va : v) {
        at.push_back(2.0 * va.real());
        at.push_back(2.0 * va.imag());
    }
    for (const std::complex<double>& s : linear_) {
        at.push_back(s.real());
        at.push_back(s.imag());
    }
    // Output 0 is the contraction itself, outputs 1.. its derivatives (θ first, then u).
    const std::vector<std::complex<double>> dv = (*contraction_gradient_)(at);
    for (std::size_t k = 0; k < parameters_; ++k) {
        result.gradient[k] = dv[k + 1].real();
    }
    return result;
}

std::size_t FastNormalization::groups() const {
    std::vector<std::uint32_t> distinct = group_;
    std::sort(distinct.begin(), distinct.end());
    return static_cast<std::size_t>(
        std::distance(distinct.begin(), std::unique(distinct.begin(), distinct.end())));
}

namespace testing {

ScopedStatisticsPerturbation::ScopedStatisticsPerturbation(double delta)
    : previous_(statistics_perturbation) {
    statistics_perturbation = delta;
}

ScopedStatisticsPerturbation::~ScopedStatisticsPerturbation() {
    statistics_perturbation = previous_;
}

}  // namespace testing

}  // namespace laddu::likelihood
