#include "fast_normalization.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
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

// Rows of a group's block of M that FastNormalization::contracted sums side by side, one
// 16-byte vector (baseline x86-64's width: a wider generic vector went through the stack);
// each block's columns are padded with zeros to a multiple of it.
constexpr std::size_t kRowBlock = 2;

std::size_t padded(std::size_t terms) {
    return (terms + kRowBlock - 1) / kRowBlock * kRowBlock;
}

// kRowBlock rows as one vector: elementwise IEEE arithmetic, never reassociated.
using Rows = double __attribute__((vector_size(kRowBlock * sizeof(double))));
static_assert(kRowBlock == 2, "contracted() splats {c, c}");

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

    fast.set_groups(d.group);
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
    fast.linear_ = std::move(statistics.linear);
    fast.from_cache_ = statistics.from_cache;
    if (statistics_perturbation != 0.0) {
        (fast.linear_.empty() ? statistics.matrix.front() : fast.linear_.front()) +=
            statistics_perturbation;
    }
    fast.set_blocks(statistics.matrix);
    return fast;
}

void FastNormalization::set_groups(const std::vector<std::uint32_t>& group) {
    group_ = group;
    group_begin_.assign(1, 0);
    group_terms_.clear();
    std::vector<bool> placed(terms_, false);
    for (std::size_t a = 0; a < terms_; ++a) {
        if (placed[a]) {
            continue;
        }
        for (std::size_t b = a; b < terms_; ++b) {
            if (group[b] == group[a]) {
                group_terms_.push_back(static_cast<std::uint32_t>(b));
                placed[b] = true;
            }
        }
        group_begin_.push_back(group_terms_.size());
    }
}

void FastNormalization::set_blocks(std::span<const std::complex<double>> matrix) {
    block_re_.clear();
    block_im_.clear();
    block_begin_.assign(1, 0);
    for (std::size_t g = 0; g + 1 < group_begin_.size(); ++g) {
        const std::span<const std::uint32_t> terms = members(g);
        for (const std::uint32_t b : terms) {
            for (std::size_t j = 0; j < padded(terms.size()); ++j) {
                const std::complex<double> m =
                    j < terms.size() ? matrix[(terms[j] * terms_) + b] : 0.0;
                block_re_.push_back(m.real());
                block_im_.push_back(m.imag());
            }
        }
        block_begin_.push_back(block_re_.size());
    }
}

const runtime::ParameterFunction& FastNormalization::coefficient_values() const {
    if (!coefficient_values_) {
        throw InternalError("FastNormalization used before build() set its coefficients");
    }
    return *coefficient_values_;
}

const runtime::ParameterFunction& FastNormalization::contraction_gradient() const {
    if (!contraction_gradient_) {
        throw InternalError("FastNormalization used before build() set its gradient program");
    }
    return *contraction_gradient_;
}

std::span<const std::uint32_t> FastNormalization::members(std::size_t group) const {
    return {group_terms_.data() + group_begin_[group],
            group_begin_[group + 1] - group_begin_[group]};
}

std::vector<std::complex<double>>
FastNormalization::contracted(std::span<const std::complex<double>> e) const {
    std::vector<std::complex<double>> v(terms_);
    // M is zero across coherent groups: only a's own group's products add anything. Each v_a
    // sums its group's terms b in ascending order. Two rows of a group advance side by side as
    // one SSE2 vector over the block's contiguous, zero-padded columns. Each product is spelled
    // as std::complex's (x + iy)(c + id) = (xc - yd) + i(xd + yc), term by term, so the sums
    // keep the bits of the complex arithmetic without its NaN-recovery branch, which kept the
    // loop scalar (0.27 µs of the K-matrix NLL's 1.75 µs value on 64 events).
    for (std::size_t g = 0; g + 1 < group_begin_.size(); ++g) {
        const std::span<const std::uint32_t> terms = members(g);
        const std::size_t k = terms.size();
        const std::size_t stride = padded(k);
        for (std::size_t first = 0; first < k; first += kRowBlock) {
            Rows sum_re{};
            Rows sum_im{};
            const double* m_re = block_re_.data() + block_begin_[g] + first;
            const double* m_im = block_im_.data() + block_begin_[g] + first;
            for (std::size_t i = 0; i < k; ++i, m_re += stride, m_im += stride) {
                const double re = e[terms[i]].real();
                const double im = -e[terms[i]].imag();
                const Rows c = {re, re};
                const Rows d = {im, im};
                Rows x;
                Rows y;
                std::memcpy(&x, m_re, sizeof(x));
                std::memcpy(&y, m_im, sizeof(y));
                sum_re += (x * c) - (y * d);
                sum_im += (x * d) + (y * c);
            }
            for (std::size_t j = 0; j < std::min(kRowBlock, k - first); ++j) {
                v[terms[first + j]] = {sum_re[j], sum_im[j]};
            }
        }
    }
    return v;
}

double FastNormalization::value(std::span<const double> params) const {
    const std::vector<std::complex<double>> e = coefficient_values()(params);
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
    const std::vector<std::complex<double>> e = coefficient_values()(params);
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
    const std::vector<std::complex<double>> dv = contraction_gradient()(at);
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
