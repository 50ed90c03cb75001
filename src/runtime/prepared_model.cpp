#include <algorithm>
#include <bit>
#include <cstdint>
#include <exception>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include <laddu/autodiff/gradient.hpp>
#include <laddu/base/error.hpp>
#include <laddu/base/random.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/ir/hash.hpp>
#include <laddu/runtime/collective.hpp>
#include <laddu/runtime/memory_pool.hpp>
#include <laddu/runtime/prepared_model.hpp>
#include <laddu/runtime/storage_plan.hpp>

#include "chunk_kernel.hpp"
#include "kernel_reduce.hpp"
#include "prepared_state.hpp"

namespace laddu::runtime {

namespace {

// Runs `fn`; under a collective every process then learns whether any failed and, if one did,
// throws the error of the lowest failing process (Collective::check_all), and whether every
// process ran it with the same `fingerprint`.
// What a reduction computes: the program, precision and transform, and the parameter bits.
// Processes of one collective that pass different fingerprints would merge partial sums of
// different evaluations.
std::uint64_t reduction_fingerprint(std::uint64_t program_hash, const Execution& execution,
                                    ReductionTransform transform, std::span<const double> params) {
    if (execution.collective == nullptr) {
        return 0;  // one process: nothing to compare it with
    }
    std::uint64_t h = splitmix64(program_hash);
    h = splitmix64(h ^ static_cast<std::uint64_t>(execution.precision));
    h = splitmix64(h ^ static_cast<std::uint64_t>(transform));
    for (const double p : params) {
        h = splitmix64(h ^ std::bit_cast<std::uint64_t>(p));
    }
    return h;
}

std::vector<std::string> input_names(const ir::Program& precompute) {
    std::vector<std::string> names;
    names.reserve(precompute.inputs.size());
    for (const ir::InputSlot& slot : precompute.inputs) {
        names.push_back(slot.name);
    }
    return names;
}

}  // namespace

void PreparedModel::check_inputs(const compile::CompiledModel& model, const data::EventData& data) {
    if (model.has_precompute()) {
        const std::vector<std::string> inputs = input_names(model.precompute);
        (void)EventWindows::open(data, inputs, nullptr);
    }
}

const EventWindows& PreparedModel::State::event_windows() const {
    if (!windows) {
        throw InternalError("a prepared model's event windows were used before prepare() opened "
                            "them");
    }
    return *windows;
}

EventCache PreparedModel::State::build_resident(std::size_t read_window) const {
    const EventWindows& opened = event_windows();
    if (opened.is_resident()) {
        std::optional<EventCache> whole;
        opened.for_each(std::max(opened.local_events(), std::size_t{1}),
                        [&](const EventWindow& window) { whole.emplace(build_cache(window)); });
        return whole ? std::move(*whole) : EventCache::allocate(evaluate, 0, execution.precision);
    }
    EventCache full = EventCache::allocate(evaluate, opened.local_events(), execution.precision);
    opened.for_each(read_window, [&](const EventWindow& window) {
        full.place(build_cache(window), window.first_chunk * kReductionChunk);
    });
    full.refresh_sum_weights();
    return full;
}

std::vector<double> PreparedModel::State::gathered(std::span<const double> local,
                                                   std::size_t width) const {
    const Collective* collective = execution.collective.get();
    if (collective == nullptr) {
        return {local.begin(), local.end()};
    }
    return collective->all_gather_chunks(local, width, event_windows().global_chunks());
}

PreparedModel PreparedModel::prepare(const compile::CompiledModel& model,
                                     const data::EventData& data, const Execution& execution,
                                     std::string_view label) {
    auto state = std::make_shared<State>();
    const Collective* collective = execution.collective.get();
    std::vector<double> weight_partials;
    const std::uint64_t program_hash = ir::hash(model.evaluate);
    collectively(
        collective,
        [&] {
            state->execution = execution;
            state->parameter_names = model.parameters.free_names();
            state->precompute = model.precompute;
            state->evaluate = model.evaluate;
            state->program_hash = program_hash;
            state->has_precompute = model.has_precompute();
            const std::vector<std::string> inputs =
                state->has_precompute ? input_names(model.precompute) : std::vector<std::string>{};
            state->windows.emplace(EventWindows::open(data, inputs, collective));
            const EventWindows& windows = *state->windows;
            const std::size_t events = windows.local_events();

            MemoryReport& memory = state->memory;
            memory.events = events;
            memory.requested = data.policy();
            // Inside the collective call: resolving a budget can fail on one process.
            const std::shared_ptr<MemoryPool> memory_pool = pool_of(execution);
            memory.label = std::string(label);
            memory.budget_bytes = memory_pool->budget();
            // f32 runs keep the cache in float (the same bits, half the bytes; event_cache.hpp).
            const ir::Precision storage = execution.precision;
            memory.cache_bytes = EventCache::memory_estimate(model.evaluate, events, storage);
            const std::size_t cache_fixed = EventCache::memory_estimate(model.evaluate, 0, storage);
            memory.cache_bytes_per_event =
                EventCache::memory_estimate(model.evaluate, 1, storage) - cache_fixed;
            memory.source_bytes_per_event = windows.source_bytes_per_event();

            // The JIT choice follows the global event count, so every process runs the same
            // backend. The kernels come before the plan, which counts their scratch.
            const std::size_t all_events = windows.global_events();
            state->value = detail::select_kernel(model.evaluate, execution.precision, execution,
                                                 all_events, detail::Passes::kMany);
            const ir::Program gradient = autodiff::gradient(
                model.evaluate, autodiff::GradientOptions{.mode = execution.autodiff,
                                                          .component = autodiff::Component::kReal});
            state->gradient = detail::select_kernel(gradient, execution.precision, execution,
                                                    all_events, detail::Passes::kMany);
            if (state->has_precompute) {
                // Precompute always runs in f64; an f32 cache rounds its outputs once. Counted as
                // one pass even when streaming re-runs it per window: its per-event solves and
                // library calls stay scalar under the JIT, which then saves no time per pass
                // (kernel_registry.cpp).
                state->precompute_kernel =
                    detail::select_kernel(model.precompute, ir::Precision::kF64, execution.jit,
                                          all_events, detail::Passes::kOnce);
            }

            // Every worker of a pass binds a kernel (or builds a window's cache) at once.
            const std::size_t threads = execution.resolved_threads();
            std::size_t per_worker = std::max(detail::worker_bytes(*state->value),
                                              detail::worker_bytes(*state->gradient));
            if (state->has_precompute) {
                per_worker = std::max(
                    per_worker, EventCache::build_worker_bytes(*state->precompute_kernel, storage));
            }
            memory.read_buffer_bytes = windows.read_buffer_bytes();
            memory.scratch_bytes = per_worker * std::max<std::size_t>(threads, 1);
            // Other work prepared with this execution already holds part of the budget: plan
            // within the rest, so together they stay within it.
            memory.available_bytes = memory_pool->available();
            const StoragePlan plan = plan_storage(
                data.policy(),
                StorageNeeds{.events = events,
                             .cache_fixed = cache_fixed,
                             .cache_bpe = memory.cache_bytes_per_event,
                             .source_bpe = memory.source_bytes_per_event,
                             .read_buffers = memory.read_buffer_bytes,
                             .scratch = memory.scratch_bytes},
                memory.available_bytes, memory_pool->remainder_text(),
                memory_pool->is_unlimited() ? 0 : memory.budget_bytes - memory.available_bytes);
            memory.policy = plan.policy;
            memory.window_events = plan.window_events;
            memory.peak_bytes = plan.peak_bytes;
            memory.decision = plan.decision;
            memory.held_bytes = plan.held_bytes;
            state->window_events = plan.window_events;
            state->memory_pool = memory_pool;
            state->pass_bytes_per_event = plan.pass_bytes_per_event;
            const bool resident = plan.policy == data::MemoryPolicy::kResident;
            state->lease_label =
                fmt::format("{} ({})", label, resident ? "resident cache" : "streaming");
            // A resident cache holds its read windows until it is built; a streaming model
            // holds one chunk's window and borrows the rest of each pass's window.
            state->lease = memory_pool->lease(resident ? plan.peak_bytes : plan.held_bytes,
                                              state->lease_label);

            if (threads > 1) {
                state->pool = std::make_unique<ThreadPool>(threads);
            }
            if (plan.policy == data::MemoryPolicy::kResident) {
                state->cache.emplace(state->build_resident(plan.window_events));
                state->lease.shrink_to(plan.held_bytes);
            }
            weight_partials = state->weight_partials();
        },
        reduction_fingerprint(program_hash, execution, ReductionTransform::kReal, {}));
    state->sum_weights = merge_partials(state->gathered(weight_partials, 1));
    if (execution.memory_pool) {
        execution.memory_pool->record(state->memory);
    }
    return PreparedModel(std::move(state));
}

std::size_t PreparedModel::events() const noexcept {
    return state_->event_windows().global_events();
}

std::size_t PreparedModel::local_events() const noexcept {
    return state_->event_windows().local_events();
}

const std::vector<std::size_t>& PreparedModel::owned_chunks() const noexcept {
    return state_->event_windows().owned_chunks();
}

double PreparedModel::sum_weights() const noexcept {
    return state_->sum_weights;
}

std::vector<double> PreparedModel::weights() const {
    return state_->local_weights();
}

const std::vector<std::string>& PreparedModel::parameter_names() const noexcept {
    return state_->parameter_names;
}

double PreparedModel::reduce(std::span<const double> params, ReductionTransform transform,
                             const std::function<void()>& meanwhile) const {
    std::vector<double> local;
    collectively(
        state_->execution.collective.get(),
        [&] { local = state_->local_partials(params, transform, meanwhile); },
        reduction_fingerprint(state_->program_hash, state_->execution, transform, params));
    return merge_partials(state_->gathered(local, 1));
}

Evaluation PreparedModel::reduce_with_gradient(std::span<const double> params,
                                               ReductionTransform transform,
                                               const std::function<void()>& meanwhile) const {
    GradientPartials local;
    collectively(
        state_->execution.collective.get(),
        [&] { local = state_->local_gradient_partials(params, transform, meanwhile); },
        reduction_fingerprint(state_->program_hash, state_->execution, transform, params));
    if (state_->execution.collective == nullptr) {
        return merge_gradient_partials(local);
    }
    // One record per chunk: the value partial, then the P gradient partials.
    const std::size_t p = local.parameters;
    const std::size_t width = p + 1;
    std::vector<double> records;
    records.reserve(local.values.size() * width);
    for (std::size_t c = 0; c < local.values.size(); ++c) {
        records.push_back(local.values[c]);
        const auto first = local.gradients.begin() + static_cast<std::ptrdiff_t>(c * p);
        records.insert(records.end(), first, first + static_cast<std::ptrdiff_t>(p));
    }
    return merge_gradient_partials(
        gradient_partials_of_records(state_->gathered(records, width), p));
}

std::vector<double> PreparedModel::reduce_partials(std::span<const double> params,
                                                   ReductionTransform transform) const {
    return state_->local_partials(params, transform);
}

GradientPartials PreparedModel::reduce_gradient_partials(std::span<const double> params,
                                                         ReductionTransform transform) const {
    return state_->local_gradient_partials(params, transform);
}

std::vector<std::complex<double>> PreparedModel::evaluate(std::span<const double> params,
                                                          NonFiniteValues non_finite) const {
    return state_->evaluate_all(params, non_finite);
}

std::complex<double> PreparedModel::evaluate_row(std::span<const double> params, std::size_t row,
                                                 NonFiniteValues non_finite) const {
    if (row >= local_events()) {
        throw DataError(fmt::format("event row {} is out of range: the prepared dataset holds {} "
                                    "events",
                                    row, local_events()));
    }
    return state_->evaluate_one(params, row, non_finite);
}

bool PreparedModel::is_resident() const noexcept {
    return state_->cache.has_value();
}

std::string_view PreparedModel::backend() const noexcept {
    return state_->value->backend();
}

const EventCache& PreparedModel::cache() const {
    const std::optional<EventCache>& cache = state_->cache;
    if (!cache) {
        throw DataError(fmt::format("this model streams its events ({}): it holds no resident "
                                    "cache; prepare it with MemoryPolicy::kResident to keep one",
                                    state_->memory.decision));
    }
    return *cache;
}

const MemoryReport& PreparedModel::memory_report() const noexcept {
    return state_->memory;
}

const Execution& PreparedModel::execution() const noexcept {
    return state_->execution;
}

}  // namespace laddu::runtime
