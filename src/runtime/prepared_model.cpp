#include <limits>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include <laddu/autodiff/gradient.hpp>
#include <laddu/base/error.hpp>
#include <laddu/interp/interpreter.hpp>
#include <laddu/runtime/prepared_model.hpp>
#include <laddu/runtime/thread_pool.hpp>

#include "chunk_kernel.hpp"
#include "kernel_reduce.hpp"

namespace laddu::runtime {

struct PreparedModel::State {
    Execution execution;
    std::vector<std::string> parameter_names;
    std::optional<EventCache> cache;
    std::shared_ptr<const detail::ChunkKernel> value;
    std::shared_ptr<const detail::ChunkKernel> gradient;
    std::unique_ptr<ThreadPool> pool;
    MemoryReport memory;
};

namespace {

// The precompute input "name.px" is component px of four-momentum `name`; any other input is a
// scalar column. Returns the span, or nullopt when the dataset has no such column.
std::optional<std::span<const double>> find_column(const data::Dataset& dataset,
                                                   const std::string& input) {
    const data::EventBatch& batch = dataset.batch();
    const std::size_t dot = input.rfind('.');
    if (dot != std::string::npos) {
        const std::string p4 = input.substr(0, dot);
        const std::string component = input.substr(dot + 1);
        static constexpr std::array<const char*, 4> kComponents = {"e", "px", "py", "pz"};
        if (const auto index = dataset.schema().p4_index(p4)) {
            for (std::size_t c = 0; c < kComponents.size(); ++c) {
                if (component == kComponents[c]) {
                    return batch.p4_component(*index, c);
                }
            }
        }
    }
    if (dataset.schema().scalar_index(input)) {
        return batch.column(input);
    }
    return std::nullopt;
}

std::vector<std::span<const double>> resolve_columns(const ir::Program& precompute,
                                                     const data::Dataset& dataset) {
    std::vector<std::span<const double>> columns;
    std::vector<std::string> missing;
    for (const ir::InputSlot& slot : precompute.inputs) {
        if (const auto column = find_column(dataset, slot.name)) {
            columns.push_back(*column);
        } else {
            missing.push_back(slot.name);
        }
    }
    if (!missing.empty()) {
        throw DataError(fmt::format(
            "the model reads event columns the dataset does not have: [{}]; the dataset has "
            "four-momenta [{}] and scalars [{}] (a four-momentum 'p' is read as p.e, p.px, p.py, "
            "p.pz from the columns p_e, p_px, p_py, p_pz)",
            fmt::join(missing, ", "), fmt::join(dataset.p4_names(), ", "),
            fmt::join(dataset.scalar_names(), ", ")));
    }
    return columns;
}

std::string format_bytes(std::size_t bytes) {
    if (bytes == std::numeric_limits<std::size_t>::max()) {
        return "unlimited";
    }
    return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

}  // namespace

PreparedModel PreparedModel::prepare(const compile::CompiledModel& model,
                                     const data::Dataset& dataset, const Execution& execution) {
    auto state = std::make_shared<State>();
    state->execution = execution;
    state->parameter_names = model.parameters.free_names();

    const std::size_t events = dataset.size();
    MemoryReport& memory = state->memory;
    memory.events = events;
    memory.budget_bytes = execution.memory.resolve();
    memory.cache_bytes = EventCache::memory_estimate(model.evaluate, events);
    memory.cache_bytes_per_event = EventCache::memory_estimate(model.evaluate, 1) -
                                   EventCache::memory_estimate(model.evaluate, 0);
    if (memory.cache_bytes > memory.budget_bytes) {
        throw DataError(fmt::format(
            "the event cache for {} events needs {} ({} bytes per event) but the memory budget "
            "is {} ({}); raise the budget (Execution::memory) or prepare fewer events at a time",
            events, format_bytes(memory.cache_bytes), memory.cache_bytes_per_event,
            format_bytes(memory.budget_bytes), execution.memory.to_string()));
    }
    memory.decision =
        fmt::format("resident: {} cache slots, {} bytes/event, {} of {} budget",
                    model.evaluate.inputs.size(), memory.cache_bytes_per_event,
                    format_bytes(memory.cache_bytes), format_bytes(memory.budget_bytes));

    const std::size_t threads = execution.resolved_threads();
    if (threads > 1) {
        state->pool = std::make_unique<ThreadPool>(threads);
    }
    if (model.has_precompute()) {
        const std::vector<std::span<const double>> columns =
            resolve_columns(model.precompute, dataset);
        state->cache.emplace(EventCache::build(model.precompute, model.evaluate, columns,
                                               dataset.weights(), state->pool.get()));
    } else {
        EventCache cache = EventCache::allocate(model.evaluate, events);
        const std::span<const double> weights = dataset.weights();
        std::copy(weights.begin(), weights.end(), cache.mutable_weights().begin());
        cache.refresh_sum_weights();
        state->cache.emplace(std::move(cache));
    }

    state->value =
        detail::select_kernel(model.evaluate, execution.precision, execution.jit, events);
    const ir::Program gradient = autodiff::gradient(
        model.evaluate, autodiff::GradientOptions{.mode = execution.autodiff,
                                                  .component = autodiff::Component::kReal});
    state->gradient = detail::select_kernel(gradient, execution.precision, execution.jit, events);
    return PreparedModel(std::move(state));
}

std::size_t PreparedModel::events() const noexcept {
    return state_->cache->events();
}

double PreparedModel::sum_weights() const noexcept {
    return state_->cache->sum_weights();
}

const std::vector<std::string>& PreparedModel::parameter_names() const noexcept {
    return state_->parameter_names;
}

double PreparedModel::reduce(std::span<const double> params, ReductionTransform transform) const {
    return merge_partials(reduce_partials(params, transform));
}

ReductionEvaluation PreparedModel::reduce_with_gradient(std::span<const double> params,
                                                        ReductionTransform transform) const {
    return merge_gradient_partials(reduce_gradient_partials(params, transform));
}

std::vector<double> PreparedModel::reduce_partials(std::span<const double> params,
                                                   ReductionTransform transform) const {
    return detail::reduce_partials(*state_->value, params, *state_->cache, transform,
                                   state_->pool.get());
}

GradientPartials PreparedModel::reduce_gradient_partials(std::span<const double> params,
                                                         ReductionTransform transform) const {
    return detail::reduce_gradient_partials(*state_->gradient, params, *state_->cache, transform,
                                            state_->pool.get());
}

std::vector<std::complex<double>> PreparedModel::evaluate(std::span<const double> params) const {
    const std::size_t n = events();
    std::vector<double> re(n);
    std::vector<double> im(n);
    const bool complex_output =
        state_->value->program().at(state_->value->program().outputs[0]).kind ==
        ir::ValueKind::kComplex;
    std::vector<interp::OutputColumn> columns{
        interp::OutputColumn{re.data(), complex_output ? im.data() : nullptr}};
    detail::evaluate_cached(*state_->value, params, *state_->cache, interp::OutputView{columns},
                            state_->pool.get());
    std::vector<std::complex<double>> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        out[i] = {re[i], im[i]};
    }
    return out;
}

std::complex<double> PreparedModel::evaluate_row(std::span<const double> params,
                                                 std::size_t row) const {
    if (row >= events()) {
        throw DataError(fmt::format("event row {} is out of range: the prepared dataset holds {} "
                                    "events",
                                    row, events()));
    }
    double re = 0.0;
    double im = 0.0;
    const std::vector<interp::OutputColumn> out{interp::OutputColumn{&re, &im}};
    state_->value->bind(params)->run(state_->cache->view(), row, 1, out);
    return {re, im};
}

std::string_view PreparedModel::backend() const noexcept {
    return state_->value->backend();
}

const EventCache& PreparedModel::cache() const noexcept {
    return *state_->cache;
}

const MemoryReport& PreparedModel::memory_report() const noexcept {
    return state_->memory;
}

const Execution& PreparedModel::execution() const noexcept {
    return state_->execution;
}

}  // namespace laddu::runtime
