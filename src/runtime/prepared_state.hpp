// src/runtime/prepared_state.hpp (private): the state behind a PreparedModel and its passes
// over the event cache, resident (one cache) or streaming (a cache per window).
#pragma once

#include <complex>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <laddu/ir/program.hpp>
#include <laddu/runtime/event_cache.hpp>
#include <laddu/runtime/event_windows.hpp>
#include <laddu/runtime/execution.hpp>
#include <laddu/runtime/memory_pool.hpp>
#include <laddu/runtime/prepared_model.hpp>
#include <laddu/runtime/thread_pool.hpp>

#include "chunk_kernel.hpp"
#include "non_finite.hpp"

namespace laddu::runtime {

struct PreparedModel::State {
    // First, so it is destroyed last: the bytes go back once the cache is freed.
    MemoryLease lease;  ///< the planned peak, from the execution's pool
    Execution execution;
    std::vector<std::string> parameter_names;
    ir::Program precompute;
    ir::Program evaluate;
    std::uint64_t program_hash = 0;  ///< ir::hash(evaluate), for Collective fingerprints
    bool has_precompute = false;
    std::optional<EventWindows> windows;
    std::optional<EventCache> cache;  ///< resident only
    std::size_t window_events = 0;    ///< streaming window, planned (at most)
    std::shared_ptr<MemoryPool> memory_pool;
    std::string lease_label;  ///< who holds `lease`, for the windows a pass borrows
    std::size_t pass_bytes_per_event =
        0;  ///< streaming: what a window event beyond the held chunk costs
    double sum_weights = 0.0;
    std::shared_ptr<const detail::ChunkKernel> precompute_kernel;  ///< null without precompute
    std::shared_ptr<const detail::ChunkKernel> value;
    std::shared_ptr<const detail::ChunkKernel> gradient;
    std::unique_ptr<ThreadPool> pool;
    MemoryReport memory;

    /// The event windows prepare() opened; InternalError when they are not open (a state
    /// used before prepare() finished).
    [[nodiscard]] const EventWindows& event_windows() const;

    /// The resident cache of the local events, built window by window (`read_window` events
    /// per source read; a resident dataset is one window).
    [[nodiscard]] EventCache build_resident(std::size_t read_window) const;

    /// Local chunk records of `width` doubles merged across the collective in global chunk
    /// order (the local records themselves without one).
    [[nodiscard]] std::vector<double> gathered(std::span<const double> local,
                                               std::size_t width) const;

    /// The events of a streaming pass's windows, and the lease of their bytes beyond the one
    /// chunk `lease` holds: window_events when the pool can lend them, else the most whole
    /// chunks it can (at least one). Windows of any whole chunks give the same bits.
    struct PassWindow {
        std::size_t events = 0;
        MemoryLease lease;
    };

    [[nodiscard]] PassWindow pass_window() const;

    /// The cache of one window of events.
    [[nodiscard]] EventCache build_cache(const EventWindow& window) const;

    /// Calls fn(cache, first local chunk) for the resident cache, or for each window's cache in
    /// order (each dropped after fn returns).
    void for_each_cache(const std::function<void(const EventCache&, std::size_t)>& fn) const;

    /// The global chunk indices of `count` local chunks from `first`.
    [[nodiscard]] std::span<const std::size_t> global_chunks(std::size_t first,
                                                             std::size_t count) const;

    /// Where the events of a cache of `count` local chunks from `first` come from: their global
    /// chunks, and a bad cache column traced to the precompute program (trace_cache_slot).
    [[nodiscard]] detail::CacheOrigin cache_origin(std::size_t first, std::size_t count) const;

    /// Why cache slot `slot` of local event `local` is not finite: the precompute program
    /// re-run on that event's data (empty without a precompute program, or if it finds nothing).
    [[nodiscard]] std::string trace_cache_slot(std::size_t local, std::uint32_t slot) const;

    /// Local chunk partials of Σ w T(Re f) and of its gradient; `meanwhile` (optional) runs
    /// on the calling thread beside the first pass (detail::for_each_chunk).
    [[nodiscard]] std::vector<double>
    local_partials(std::span<const double> params, ReductionTransform transform,
                   const std::function<void()>& meanwhile = {}) const;
    [[nodiscard]] GradientPartials
    local_gradient_partials(std::span<const double> params, ReductionTransform transform,
                            const std::function<void()>& meanwhile = {}) const;

    /// Local chunk partials of the weights (compensated, in event order).
    [[nodiscard]] std::vector<double> weight_partials() const;

    /// Every output-0 value of the local events (see PreparedModel::evaluate for `non_finite`).
    [[nodiscard]] std::vector<std::complex<double>> evaluate_all(std::span<const double> params,
                                                                 NonFiniteValues non_finite) const;

    /// Output 0 of local event `row` (in range).
    [[nodiscard]] std::complex<double> evaluate_one(std::span<const double> params, std::size_t row,
                                                    NonFiniteValues non_finite) const;

    /// The local weights.
    [[nodiscard]] std::vector<double> local_weights() const;
};

}  // namespace laddu::runtime
