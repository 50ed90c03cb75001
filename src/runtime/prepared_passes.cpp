// The passes of a PreparedModel over its cache: the resident cache at once, or the cache of
// each streaming window in turn. Windows start at local chunk boundaries, so each window's
// chunk partials are the model's chunk partials.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include <laddu/base/accurate_sum.hpp>

#include "kernel_reduce.hpp"
#include "prepared_state.hpp"

namespace laddu::runtime {

EventCache PreparedModel::State::build_cache(const EventWindow& window) const {
    if (has_precompute) {
        const std::vector<ir::InputColumn> columns = window.input_columns();
        return EventCache::build(*precompute_kernel, evaluate,
                                 ir::ColumnView{columns, window.events}, window.weights, pool.get(),
                                 execution.precision);
    }
    EventCache built = EventCache::allocate(evaluate, window.events, execution.precision);
    std::copy(window.weights.begin(), window.weights.end(), built.mutable_weights().begin());
    built.refresh_sum_weights();
    return built;
}

PreparedModel::State::PassWindow PreparedModel::State::pass_window() const {
    const std::size_t held = std::min(window_events, kReductionChunk);
    const std::size_t chunk_bytes = pass_bytes_per_event * kReductionChunk;
    if (window_events <= held || chunk_bytes == 0) {
        return {window_events, {}};
    }
    // Try the planned window, then fewer chunks as another pass may hold part of the pool.
    std::size_t extra = (window_events - held) / kReductionChunk;
    while (extra > 0) {
        extra = std::min(extra, memory_pool->available() / chunk_bytes);
        if (extra == 0) {
            break;
        }
        if (std::optional<MemoryLease> borrowed =
                memory_pool->try_lease(extra * chunk_bytes, lease_label + ", a pass's window")) {
            return {held + extra * kReductionChunk, std::move(*borrowed)};
        }
    }
    return {held, {}};
}

void PreparedModel::State::for_each_cache(
    const std::function<void(const EventCache&, std::size_t)>& fn) const {
    if (cache) {
        fn(*cache, 0);
        return;
    }
    const PassWindow pass = pass_window();
    event_windows().for_each(pass.events, [&](const EventWindow& window) {
        const EventCache window_cache = build_cache(window);
        fn(window_cache, window.first_chunk);
    });
}

std::span<const std::size_t> PreparedModel::State::global_chunks(std::size_t first,
                                                                 std::size_t count) const {
    return std::span<const std::size_t>(event_windows().owned_chunks()).subspan(first, count);
}

detail::CacheOrigin PreparedModel::State::cache_origin(std::size_t first, std::size_t count) const {
    return detail::CacheOrigin{global_chunks(first, count),
                               [this, first](std::size_t row, std::uint32_t slot) {
                                   return trace_cache_slot(first * kReductionChunk + row, slot);
                               }};
}

std::string PreparedModel::State::trace_cache_slot(std::size_t local, std::uint32_t slot) const {
    if (!has_precompute) {
        return {};
    }
    // The cache keeps no event data: read the event's chunk again (an error path, once).
    const std::size_t chunk = local / kReductionChunk;
    std::string traced;
    event_windows().read_chunk(chunk, [&](const EventWindow& window) {
        const std::vector<ir::InputColumn> columns = window.input_columns();
        // The cache is filled in f64 whatever the precision (event_cache.hpp).
        const interp::Interpreter interpreter = interp::Interpreter::prepare(precompute);
        const std::optional<interp::NonFiniteOrigin> found = interpreter.diagnose_event(
            {}, ir::ColumnView{columns, window.events}, local - chunk * kReductionChunk, slot);
        if (found) {
            traced = found->description;
        }
    });
    return traced;
}

namespace {

std::size_t chunks_in(const EventCache& cache) {
    return (cache.events() + kReductionChunk - 1) / kReductionChunk;
}

}  // namespace

std::vector<double>
PreparedModel::State::local_partials(std::span<const double> params, ReductionTransform transform,
                                     const std::function<void()>& meanwhile) const {
    std::vector<double> partials(event_windows().owned_chunks().size());
    std::function<void()> pending = meanwhile;  // beside the first cache's pass
    for_each_cache([&](const EventCache& c, std::size_t first) {
        const std::vector<double> part =
            detail::reduce_partials(*value, params, c, transform, pool.get(),
                                    cache_origin(first, chunks_in(c)), std::exchange(pending, {}));
        std::copy(part.begin(), part.end(), partials.begin() + static_cast<std::ptrdiff_t>(first));
    });
    if (partials.empty()) {
        // No events: still check the parameter count, as a pass would.
        (void)value->bind(params);
    }
    if (pending) {
        pending();
    }
    return partials;
}

GradientPartials
PreparedModel::State::local_gradient_partials(std::span<const double> params,
                                              ReductionTransform transform,
                                              const std::function<void()>& meanwhile) const {
    GradientPartials partials;
    partials.parameters = gradient->program().outputs.size() - 1;
    const std::size_t chunks = event_windows().owned_chunks().size();
    partials.values.resize(chunks);
    partials.gradients.resize(chunks * partials.parameters);
    std::function<void()> pending = meanwhile;  // beside the first cache's pass
    for_each_cache([&](const EventCache& c, std::size_t first) {
        const GradientPartials part = detail::reduce_gradient_partials(
            *gradient, params, c, transform, pool.get(), cache_origin(first, chunks_in(c)),
            std::exchange(pending, {}));
        std::copy(part.values.begin(), part.values.end(),
                  partials.values.begin() + static_cast<std::ptrdiff_t>(first));
        std::copy(part.gradients.begin(), part.gradients.end(),
                  partials.gradients.begin() +
                      static_cast<std::ptrdiff_t>(first * partials.parameters));
    });
    if (chunks == 0) {
        // No events: still check the parameter count, as a pass would.
        (void)gradient->bind(params);
    }
    if (pending) {
        pending();
    }
    return partials;
}

std::vector<double> PreparedModel::State::weight_partials() const {
    std::vector<double> partials(event_windows().owned_chunks().size());
    const auto add = [&](std::span<const double> weights, std::size_t first) {
        for (std::size_t begin = 0; begin < weights.size(); begin += kReductionChunk) {
            const std::size_t count = std::min(kReductionChunk, weights.size() - begin);
            partials[first + begin / kReductionChunk] = accurate_sum(weights.subspan(begin, count));
        }
    };
    if (cache) {
        add(cache->weights(), 0);
    } else {
        const PassWindow pass = pass_window();
        event_windows().for_each(pass.events, [&](const EventWindow& window) {
            add(window.weights, window.first_chunk);
        });
    }
    return partials;
}

std::vector<std::complex<double>>
PreparedModel::State::evaluate_all(std::span<const double> params,
                                   NonFiniteValues non_finite) const {
    const std::size_t n = event_windows().local_events();
    std::vector<double> re(n);
    std::vector<double> im(n);
    const bool complex_output =
        value->program().at(value->program().outputs[0]).kind == ir::ValueKind::kComplex;
    const std::size_t outputs = value->program().outputs.size();
    for_each_cache([&](const EventCache& c, std::size_t first) {
        const std::size_t offset = first * kReductionChunk;
        // Outputs after the first are computed into scratch and dropped.
        std::vector<std::vector<double>> scratch(outputs - 1, std::vector<double>(c.events()));
        std::vector<ir::OutputColumn> columns{
            ir::OutputColumn{re.data() + offset, complex_output ? im.data() + offset : nullptr}};
        for (std::vector<double>& column : scratch) {
            columns.push_back(ir::OutputColumn{column.data(), nullptr});
        }
        detail::evaluate_cached(*value, params, c, ir::OutputView{columns}, pool.get(),
                                cache_origin(first, chunks_in(c)),
                                non_finite == NonFiniteValues::kKeep);
    });
    if (n == 0) {
        (void)value->bind(params);
    }
    std::vector<std::complex<double>> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        out[i] = {re[i], im[i]};
    }
    return out;
}

std::complex<double> PreparedModel::State::evaluate_one(std::span<const double> params,
                                                        std::size_t row,
                                                        NonFiniteValues non_finite) const {
    double re = 0.0;
    double im = 0.0;
    const std::size_t outputs = value->program().outputs.size();
    std::vector<double> scratch(outputs, 0.0);
    std::vector<ir::OutputColumn> out{ir::OutputColumn{&re, &im}};
    for (std::size_t j = 1; j < outputs; ++j) {
        out.push_back(ir::OutputColumn{&scratch[j], nullptr});
    }
    // Event `at` of cache `c`, whose first chunk is local chunk `first`.
    const auto run = [&](const EventCache& c, std::size_t at, std::size_t first) {
        value->bind(params)->run(c.view(), at, 1, out);
        if (non_finite == NonFiniteValues::kError && !(std::isfinite(re) && std::isfinite(im))) {
            const double bad = std::isfinite(re) ? im : re;
            detail::throw_non_finite_output(*value, params, c, detail::BadValue{at, 0, bad},
                                            cache_origin(first, chunks_in(c)));
        }
    };
    if (cache) {
        run(*cache, row, 0);
        return {re, im};
    }
    const std::size_t chunk = row / kReductionChunk;
    event_windows().read_chunk(chunk, [&](const EventWindow& window) {
        run(build_cache(window), row - chunk * kReductionChunk, chunk);
    });
    return {re, im};
}

std::vector<double> PreparedModel::State::local_weights() const {
    if (cache) {
        return {cache->weights().begin(), cache->weights().end()};
    }
    std::vector<double> weights(event_windows().local_events());
    const PassWindow pass = pass_window();
    event_windows().for_each(pass.events, [&](const EventWindow& window) {
        std::copy(window.weights.begin(), window.weights.end(),
                  weights.begin() +
                      static_cast<std::ptrdiff_t>(window.first_chunk * kReductionChunk));
    });
    return weights;
}

}  // namespace laddu::runtime
