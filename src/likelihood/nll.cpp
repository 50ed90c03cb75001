#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <laddu/base/assert.hpp>
#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/expr/tags.hpp>
#include <laddu/likelihood/nll.hpp>
#include <laddu/runtime/memory_pool.hpp>
#include <laddu/runtime/prepared_model.hpp>

#include "fast_normalization.hpp"

namespace laddu::likelihood {

struct UnbinnedNll::State {
    State(expr::Model m, data::EventData mc)
        : model(std::move(m)), accepted_events(std::move(mc)) {}

    /// The projection onto `tags` prepared on the accepted MC, from the cache or prepared now
    /// (see projections).
    [[nodiscard]] TermIntensity projection(const std::vector<std::string>& tags) const;

    /// The projection onto the (sorted, unique) `key` prepared on `events`.
    [[nodiscard]] TermIntensity prepare_projection(const std::vector<std::string>& key,
                                                   const data::EventData& events,
                                                   std::string_view purpose) const;

    Kind kind = Kind::kNll;
    std::string name;
    std::vector<expr::Parameter> parameters;
    std::unique_ptr<const runtime::PreparedModel> data;      ///< never null
    std::unique_ptr<const runtime::PreparedModel> accepted;  ///< null on the fast path
    std::unique_ptr<const FastNormalization> fast;           ///< null without the fast path
    /// The residual of a hybrid decomposition prepared on the accepted MC (null otherwise), and
    /// the position in the term's parameters of each of its free parameters.
    std::unique_ptr<const runtime::PreparedModel> residual;
    std::vector<std::size_t> residual_to_term;
    compile::NormalizationStrategy strategy = compile::NormalizationStrategy::kGeneral;
    double data_weights = 0.0;
    double prepare_seconds = 0.0;
    expr::Model model;  ///< for projections
    data::EventData accepted_events;
    std::optional<data::EventData> data_events;            ///< for stochastic batches
    std::optional<compile::CompiledModel> batch_compiled;  ///< for stochastic batches
    runtime::Execution execution;

    // Projections asked for again (fit fractions and projection weights over a parameter scan)
    // reuse their compiled and prepared state. Each holds an event cache of the accepted MC, so
    // only the most recently used few are kept.
    static constexpr std::size_t kCachedProjections = 4;
    mutable std::mutex projections_mutex;
    mutable std::list<std::pair<std::vector<std::string>, TermIntensity>> projections;
};

namespace {

std::vector<expr::Parameter> free_parameters(const expr::ParamLayout& layout) {
    std::vector<expr::Parameter> result;
    result.reserve(layout.free_count());
    for (const std::size_t index : layout.free_indices()) {
        result.push_back(layout.parameters()[index]);
    }
    return result;
}

void check_integral(const std::string& term, double integral) {
    if (!(integral > 0.0) || !std::isfinite(integral)) {
        throw EvaluationError(fmt::format(
            "'{}': the normalisation integral over the accepted Monte Carlo is {}, but it must "
            "be positive and finite; check the model's parameters and the accepted weights",
            term, integral));
    }
}

// NormalizationMode::kVerify: the statistics path's `what` against the event pass's, within
// laddu's tolerance (1e-10, 5e-4 under f32, of max(|pass|, 1)).
void verify_close(const std::string& term, compile::NormalizationStrategy strategy,
                  ir::Precision precision, const std::string& what, double statistics,
                  double pass) {
    const double tolerance =
        (precision == ir::Precision::kF32 ? 5.0e-4 : 1.0e-10) * std::max(std::abs(pass), 1.0);
    if (!(std::abs(statistics - pass) <= tolerance)) {
        throw EvaluationError(fmt::format(
            "'{}': the normalisation {} from the '{}' strategy's precomputed statistics ({}) "
            "differs from the pass over the accepted Monte Carlo ({}) by more than {}; the "
            "statistics do not describe this model: use Execution normalization 'general' and "
            "report the model",
            term, what, compile::to_string(strategy), statistics, pass, tolerance));
    }
}

std::vector<double> gather(std::span<const double> params, const std::vector<std::size_t>& to) {
    std::vector<double> local;
    local.reserve(to.size());
    for (const std::size_t index : to) {
        local.push_back(params[index]);
    }
    return local;
}

}  // namespace

namespace {

void check_real_intensity(const expr::Model& model, const std::string& name) {
    // An intensity is real: taking the real part of a complex model would fit Re A, silently.
    if (!model.expression().value_kind().is_real_scalar()) {
        throw ModelError(fmt::format(
            "{}: the model is complex-valued, but a likelihood needs a real intensity; build the "
            "model from the squared magnitude of the amplitude, amplitude.norm_sqr() "
            "(expr::norm_sqr(amplitude) in C++)",
            name));
    }
}

}  // namespace

/// What a deferred term prepares from on first use.
struct UnbinnedNll::Pending {
    Kind kind = Kind::kNll;
    expr::Model model;
    compile::CompiledModel compiled;
    data::EventData data;
    data::EventData accepted;
    runtime::Execution execution;
    std::string name;
};

UnbinnedNll::UnbinnedNll(Kind kind, const expr::Model& model, const data::EventData& data,
                         const data::EventData& accepted, const runtime::Execution& execution,
                         std::string name, Preparation preparation)
    : name_(std::move(name)) {
    check_real_intensity(model, name_);
    compile::CompiledModel compiled = compile::compile_model(model);
    parameters_ = free_parameters(compiled.parameters);
    // A collective preparation must happen on every process at once: at construction.
    if (preparation == Preparation::kNow || execution.collective) {
        state_ = build(kind, model, compiled, data, accepted, execution, name_);
        return;
    }
    runtime::PreparedModel::check_inputs(compiled, data);
    runtime::PreparedModel::check_inputs(compiled, accepted);
    pending_ = std::make_unique<const Pending>(
        Pending{kind, model, std::move(compiled), data, accepted, execution, name_});
}

UnbinnedNll::~UnbinnedNll() = default;

const UnbinnedNll::State& UnbinnedNll::state() const {
    if (pending_) {
        std::call_once(prepared_, [this] {
            const Pending& p = *pending_;
            state_ = build(p.kind, p.model, p.compiled, p.data, p.accepted, p.execution, p.name);
        });
    }
    return *state_;
}

std::shared_ptr<const UnbinnedNll::State>
UnbinnedNll::build(Kind kind, const expr::Model& model, const compile::CompiledModel& compiled,
                   const data::EventData& data, const data::EventData& accepted,
                   const runtime::Execution& execution, const std::string& name) {
    const auto start = std::chrono::steady_clock::now();
    auto state = std::make_shared<State>(model, accepted);
    state->execution = execution;
    // The data, the accepted MC and the projections share one budget: each plans within what
    // the others left.
    if (!state->execution.memory_pool) {
        state->execution.memory_pool = std::make_shared<runtime::MemoryPool>(execution);
    }
    const runtime::Execution& shared = state->execution;
    state->kind = kind;
    state->name = name;
    state->parameters = free_parameters(compiled.parameters);
    state->data = std::make_unique<const runtime::PreparedModel>(
        runtime::PreparedModel::prepare(compiled, data, shared, "the data"));
    state->data_events = data;
    state->batch_compiled = compiled;
    state->data_weights = state->data->sum_weights();
    // NLL = W ln(integral) - sum w ln(I) needs W > 0: with no events or weights summing to zero
    // or less it is 0 or unbounded below, and a fit would report a meaningless minimum. (An
    // extended likelihood with no events is well defined: its minimum has no yield.)
    if (kind == Kind::kNll && !(state->data_weights > 0.0)) {
        throw DataError(fmt::format(
            "{}: the data {} (total weight {}); an NLL needs events with a positive total "
            "weight: check the data file, its weight column and any selection",
            state->name,
            state->data->events() == 0 ? "has no events" : "weights do not sum to a positive value",
            state->data_weights));
    }
    // The accepted Monte Carlo may be the data itself (a benchmark, a closure test): the
    // statistics then read the data's cache instead of computing its columns again.
    const runtime::EventCache* accepted_cache =
        accepted.same_events(data) && state->data->is_resident() ? &state->data->cache() : nullptr;
    if (std::optional<FastNormalization> fast =
            FastNormalization::build(compiled, accepted, shared, accepted_cache)) {
        state->fast = std::make_unique<const FastNormalization>(std::move(*fast));
        // FastNormalization::build finds statistics only in the compiler's decomposition.
        if (!compiled.normalization) {
            throw InternalError("normalisation statistics without a decomposition");
        }
        const compile::NormalizationDecomposition& d = *compiled.normalization;
        state->strategy = d.strategy;
        if (d.residual_model) {
            state->residual =
                std::make_unique<const runtime::PreparedModel>(runtime::PreparedModel::prepare(
                    *d.residual_model, accepted, shared,
                    "the accepted Monte Carlo (normalisation residual)"));
            state->residual_to_term = d.residual_parameters;
        }
    }
    if (!state->fast || shared.normalization == runtime::NormalizationMode::kVerify) {
        state->accepted =
            std::make_unique<const runtime::PreparedModel>(runtime::PreparedModel::prepare(
                compiled, accepted, shared, "the accepted Monte Carlo"));
    }
    state->prepare_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return state;
}

const std::string& UnbinnedNll::name() const noexcept {
    return name_;
}

const std::vector<expr::Parameter>& UnbinnedNll::parameters() const noexcept {
    return parameters_;
}

bool UnbinnedNll::uses_fast_normalization() const {
    return state().fast != nullptr;
}

std::string_view UnbinnedNll::backend() const {
    return state().data->backend();
}

double UnbinnedNll::data_sum_weights() const {
    return state().data_weights;
}

std::vector<double> UnbinnedNll::data_weights() const {
    return state().data->weights();
}

namespace {

PreparedEventsInfo prepared_events_info(const runtime::PreparedModel& prepared) {
    PreparedEventsInfo info;
    info.events = prepared.events();
    info.local_events = prepared.local_events();
    info.sum_weights = prepared.sum_weights();
    info.memory = prepared.memory_report();
    if (prepared.is_resident()) {
        info.cache_columns = prepared.cache().slot_count();
        info.resident_bytes = prepared.cache().resident_bytes();
    }
    return info;
}

}  // namespace

UnbinnedNllInfo UnbinnedNll::info() const {
    UnbinnedNllInfo info;
    info.backend = std::string(backend());
    info.prepare_seconds = state().prepare_seconds;
    info.data = prepared_events_info(*state().data);
    info.normalization_strategy = std::string(compile::to_string(state().strategy));
    if (state().fast) {
        const FastNormalization& fast = *state().fast;
        info.fast_normalization = true;
        info.normalization_terms = fast.terms();
        info.normalization_bases = fast.bases();
        info.normalization_groups = fast.groups();
        info.normalization_has_residual = state().residual != nullptr;
        info.normalization_bytes = fast.bytes();
        info.normalization_from_data_cache = fast.from_cache();
    }
    if (state().accepted) {
        // The event pass (NormalizationMode::kGeneral, or kVerify's check of the matrix).
        info.accepted = prepared_events_info(*state().accepted);
    } else if (state().residual) {
        // The hybrid strategy keeps the residual's prepared events beside the statistics.
        info.accepted = prepared_events_info(*state().residual);
        info.accepted.resident_bytes += info.normalization_bytes;
    } else {
        // The statistics sum over every process's events; no local count is kept.
        info.accepted.events = static_cast<std::size_t>(state().accepted_events.num_events());
        info.accepted.local_events = info.accepted.events;
        info.accepted.resident_bytes = info.normalization_bytes;
    }
    return info;
}

double UnbinnedNll::normalization_integral(std::span<const double> params) const {
    check_parameter_count(state().name, state().parameters.size(), params.size());
    if (!state().fast) {
        const double integral =
            state().accepted->reduce(params, runtime::ReductionTransform::kReal);
        check_integral(state().name, integral);
        return integral;
    }
    double integral = state().fast->value(params);
    if (state().residual) {
        integral += state().residual->reduce(gather(params, state().residual_to_term),
                                             runtime::ReductionTransform::kReal);
    }
    if (state().accepted) {
        verify_close(state().name, state().strategy, state().execution.precision, "value", integral,
                     state().accepted->reduce(params, runtime::ReductionTransform::kReal));
    }
    check_integral(state().name, integral);
    return integral;
}

runtime::Evaluation
UnbinnedNll::normalization_integral_with_gradient(std::span<const double> params) const {
    check_parameter_count(state().name, state().parameters.size(), params.size());
    runtime::Evaluation result;
    if (state().fast) {
        result = state().fast->value_and_gradient(params);
        if (state().residual) {
            // The hybrid strategy: the residual's event pass, scattered onto the term's
            // parameters (it reads only some of them).
            const runtime::Evaluation residual = state().residual->reduce_with_gradient(
                gather(params, state().residual_to_term), runtime::ReductionTransform::kReal);
            result.value += residual.value;
            for (std::size_t k = 0; k < state().residual_to_term.size(); ++k) {
                result.gradient[state().residual_to_term[k]] += residual.gradient[k];
            }
        }
        if (state().accepted) {
            const runtime::Evaluation pass =
                state().accepted->reduce_with_gradient(params, runtime::ReductionTransform::kReal);
            verify_close(state().name, state().strategy, state().execution.precision, "value",
                         result.value, pass.value);
            for (std::size_t k = 0; k < pass.gradient.size(); ++k) {
                verify_close(state().name, state().strategy, state().execution.precision,
                             "gradient component " + std::to_string(k), result.gradient[k],
                             pass.gradient[k]);
            }
        }
    } else {
        result = state().accepted->reduce_with_gradient(params, runtime::ReductionTransform::kReal);
    }
    check_integral(state().name, result.value);
    return result;
}

// The normalisation from the statistics alone runs on no pool (FastNormalization contracts them
// on the calling thread), so it can run while the pool's other workers start on the data:
// with 10,000 events on two threads the caller then takes 4 of the 10 chunks.
bool UnbinnedNll::normalization_beside_data() const {
    return state().fast && !state().residual && !state().accepted;
}

double UnbinnedNll::value(std::span<const double> params) const {
    check_parameter_count(state().name, state().parameters.size(), params.size());
    double integral = 0.0;
    const std::function<void()> normalise = [&] {
        integral = normalization_integral(params);
    };
    const bool beside = normalization_beside_data();
    if (!beside) {
        normalise();
    }
    const double data_term = state().data->reduce(
        params, runtime::ReductionTransform::kLogPositiveReal, beside ? normalise : nullptr);
    if (state().kind == Kind::kNll) {
        return state().data_weights * std::log(integral) - data_term;
    }
    return integral - data_term;
}

runtime::Evaluation UnbinnedNll::value_and_gradient(std::span<const double> params) const {
    check_parameter_count(state().name, state().parameters.size(), params.size());
    runtime::Evaluation integral;
    const std::function<void()> normalise = [&] {
        integral = normalization_integral_with_gradient(params);
    };
    const bool beside = normalization_beside_data();
    if (!beside) {
        normalise();
    }
    const runtime::Evaluation data_term = state().data->reduce_with_gradient(
        params, runtime::ReductionTransform::kLogPositiveReal, beside ? normalise : nullptr);
    const bool extended = state().kind == Kind::kExtended;
    const double scale = extended ? 1.0 : state().data_weights / integral.value;
    runtime::Evaluation result;
    result.value = extended ? integral.value - data_term.value
                            : state().data_weights * std::log(integral.value) - data_term.value;
    result.gradient.resize(params.size());
    for (std::size_t k = 0; k < params.size(); ++k) {
        result.gradient[k] = scale * integral.gradient[k] - data_term.gradient[k];
    }
    return result;
}

runtime::Evaluation UnbinnedNll::stochastic_value_and_gradient(std::span<const double> params,
                                                               double fraction,
                                                               std::uint64_t seed) const {
    if (!(fraction > 0.0 && fraction <= 1.0)) {
        throw ModelError(
            fmt::format("the stochastic batch fraction must be in (0, 1], got {}", fraction));
    }
    const runtime::Evaluation integral = normalization_integral_with_gradient(params);
    // laddu prepares each batch as a dataset of its own: the events the subsample keeps.
    const State& s = state();
    const runtime::PreparedModel batch = runtime::PreparedModel::prepare(
        *s.batch_compiled, s.data_events->subsample(fraction, seed), s.execution, "a data batch");
    runtime::Evaluation data_term =
        batch.reduce_with_gradient(params, runtime::ReductionTransform::kLogPositiveReal);
    const bool extended = s.kind == Kind::kExtended;
    const double scale = extended ? 1.0 : s.data_weights / integral.value;
    runtime::Evaluation result;
    result.value = (extended ? integral.value : s.data_weights * std::log(integral.value)) -
                   data_term.value / fraction;
    result.gradient.resize(params.size());
    for (std::size_t k = 0; k < params.size(); ++k) {
        result.gradient[k] = scale * integral.gradient[k] - data_term.gradient[k] / fraction;
    }
    return result;
}

namespace {

std::vector<std::string> sorted_tags(const std::vector<std::string>& tags) {
    std::vector<std::string> key = tags;
    std::sort(key.begin(), key.end());
    key.erase(std::unique(key.begin(), key.end()), key.end());
    return key;
}

}  // namespace

TermIntensity UnbinnedNll::State::projection(const std::vector<std::string>& tags) const {
    std::vector<std::string> key = sorted_tags(tags);
    {
        const std::lock_guard lock(projections_mutex);
        for (auto it = projections.begin(); it != projections.end(); ++it) {
            if (it->first == key) {
                projections.splice(projections.begin(), projections, it);
                return it->second;
            }
        }
    }
    TermIntensity result =
        prepare_projection(key, accepted_events, "a projection over the accepted Monte Carlo");
    const std::lock_guard lock(projections_mutex);
    projections.emplace_front(std::move(key), result);
    if (projections.size() > kCachedProjections) {
        projections.pop_back();
    }
    return result;
}

TermIntensity UnbinnedNll::State::prepare_projection(const std::vector<std::string>& key,
                                                     const data::EventData& events,
                                                     std::string_view purpose) const {
    const std::vector<std::string> known = expr::collect_tags(model.expression());
    for (const std::string& tag : key) {
        if (std::find(known.begin(), known.end(), tag) == known.end()) {
            throw ModelError(
                fmt::format("the model has no amplitude tagged '{}'; its tags are [{}]", tag,
                            fmt::join(known, ", ")));
        }
    }
    const expr::Model projected = key.empty() ? model : model.project(key);
    const compile::CompiledModel compiled = compile::compile_model(projected);
    TermIntensity result;
    result.term_parameters_ = parameters.size();
    for (const std::string& free_name : compiled.parameters.free_names()) {
        std::size_t index = 0;
        while (index < parameters.size() && parameters[index].name != free_name) {
            ++index;
        }
        LADDU_ASSERT(index < parameters.size())
            << "projected parameter " << free_name << " not in the model";
        result.to_term_.push_back(index);
    }
    result.prepared_ = std::make_shared<const runtime::PreparedModel>(
        runtime::PreparedModel::prepare(compiled, events, execution, std::string(purpose)));
    return result;
}

TermIntensity UnbinnedNll::intensity(const std::vector<std::string>& tags,
                                     const data::EventData* events) const {
    if (events == nullptr) {
        return state().projection(tags);
    }
    return state().prepare_projection(sorted_tags(tags), *events,
                                      "the model over other events (cross sections)");
}

bool UnbinnedNll::has_absolute_rate() const {
    return state().kind == Kind::kExtended;
}

std::vector<double> TermIntensity::local(std::span<const double> params) const {
    if (params.size() != term_parameters_) {
        throw ModelError(fmt::format("expected {} parameter values (the term's), got {}",
                                     term_parameters_, params.size()));
    }
    return gather(params, to_term_);
}

std::vector<double> TermIntensity::values(std::span<const double> params) const {
    const std::vector<std::complex<double>> values = prepared_->evaluate(local(params));
    std::vector<double> result(values.size());
    for (std::size_t j = 0; j < values.size(); ++j) {
        result[j] = values[j].real();
    }
    return result;
}

double TermIntensity::integral(std::span<const double> params) const {
    return prepared_->reduce(local(params), runtime::ReductionTransform::kReal);
}

runtime::Evaluation TermIntensity::integral_with_gradient(std::span<const double> params) const {
    const runtime::Evaluation part =
        prepared_->reduce_with_gradient(local(params), runtime::ReductionTransform::kReal);
    runtime::Evaluation result{part.value, std::vector<double>(term_parameters_, 0.0)};
    for (std::size_t k = 0; k < to_term_.size(); ++k) {
        result.gradient[to_term_[k]] = part.gradient[k];
    }
    return result;
}

std::vector<double> TermIntensity::weights() const {
    return prepared_->weights();
}

std::size_t TermIntensity::events() const {
    return prepared_->local_events();
}

std::size_t TermIntensity::held_bytes() const {
    return prepared_->memory_report().held_bytes;
}

std::vector<double> UnbinnedNll::projection_weights(std::span<const double> params,
                                                    const std::vector<std::string>& tags) const {
    const double integral = normalization_integral(params);
    const double scale = state().kind == Kind::kNll ? state().data_weights / integral : 1.0;
    const TermIntensity projected = state().projection(tags);
    const std::vector<double> values = projected.values(params);
    const std::vector<double> weights = projected.weights();
    std::vector<double> result(values.size());
    for (std::size_t j = 0; j < values.size(); ++j) {
        result[j] = scale * weights[j] * values[j];
    }
    return result;
}

runtime::Evaluation UnbinnedNll::fit_fraction(std::span<const double> params,
                                              const std::vector<std::string>& tags) const {
    if (tags.empty()) {
        throw ModelError("fit_fraction needs at least one amplitude tag");
    }
    const runtime::Evaluation total = normalization_integral_with_gradient(params);
    const runtime::Evaluation part = state().projection(tags).integral_with_gradient(params);
    runtime::Evaluation result{part.value / total.value, std::vector<double>(params.size())};
    for (std::size_t k = 0; k < params.size(); ++k) {
        result.gradient[k] = (part.gradient[k] * total.value - part.value * total.gradient[k]) /
                             (total.value * total.value);
    }
    return result;
}

}  // namespace laddu::likelihood
