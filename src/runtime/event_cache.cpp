#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/error.hpp>
#include <laddu/ir/hash.hpp>
#include <laddu/runtime/event_cache.hpp>
#include <laddu/runtime/thread_pool.hpp>

#include "kernel_reduce.hpp"

namespace laddu::runtime {

namespace {

// What an empty float column points at, so it still reads as float.
constexpr float kEmptyFloat = 0.0F;

void check_programs_match(const ir::Program& precompute, const ir::Program& evaluate) {
    if (precompute.parameter_count != 0) {
        throw CompileError(fmt::format("the precompute program has {} parameters; cache columns "
                                       "must not depend on parameters",
                                       precompute.parameter_count));
    }
    if (precompute.outputs.size() != evaluate.inputs.size()) {
        throw CompileError(fmt::format("the precompute program has {} outputs but the evaluate "
                                       "program reads {} cache columns",
                                       precompute.outputs.size(), evaluate.inputs.size()));
    }
    for (std::size_t slot = 0; slot < evaluate.inputs.size(); ++slot) {
        const ir::ValueKind produced = precompute.at(precompute.outputs[slot]).kind;
        if (produced != evaluate.inputs[slot].kind) {
            throw CompileError(fmt::format(
                "cache column {} ('{}'): the precompute output is {} but the evaluate program "
                "reads it as {}",
                slot, evaluate.inputs[slot].name, ir::kind_name(produced),
                ir::kind_name(evaluate.inputs[slot].kind)));
        }
    }
}

std::size_t saturating_add(std::size_t a, std::size_t b) noexcept {
    return a > std::numeric_limits<std::size_t>::max() - b ? std::numeric_limits<std::size_t>::max()
                                                           : a + b;
}

std::size_t saturating_mul(std::size_t a, std::size_t b) noexcept {
    return b != 0 && a > std::numeric_limits<std::size_t>::max() / b
               ? std::numeric_limits<std::size_t>::max()
               : a * b;
}

}  // namespace

EventCache EventCache::allocate(const ir::Program& evaluate, std::size_t events,
                                ir::Precision storage) {
    EventCache cache;
    cache.events_ = events;
    cache.program_hash_ = ir::hash(evaluate);
    cache.storage_ = storage;
    const bool f32 = storage == ir::Precision::kF32;
    std::size_t columns = 0;
    for (const ir::InputSlot& slot : evaluate.inputs) {
        columns += slot.kind == ir::ValueKind::kComplex ? 2 : 1;
    }
    const std::size_t value_bytes = f32 ? sizeof(float) : sizeof(double);
    cache.block_ = ColumnBlock(columns, saturating_mul(events, value_bytes));
    std::size_t next = 0;  // the next column's index in the block
    const auto take = [&]<typename T>(T* /*type*/) {
        // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): zeroed column memory
        return std::span<T>(reinterpret_cast<T*>(cache.block_.column(next++)), events);
    };
    for (const ir::InputSlot& slot : evaluate.inputs) {
        const bool complex = slot.kind == ir::ValueKind::kComplex;
        cache.kinds_.push_back(slot.kind);
        if (f32) {
            cache.re32_.push_back(take(static_cast<float*>(nullptr)));
            cache.im32_.push_back(complex ? take(static_cast<float*>(nullptr))
                                          : std::span<float>{});
            cache.re_.emplace_back();
            cache.im_.emplace_back();
        } else {
            cache.re_.push_back(take(static_cast<double*>(nullptr)));
            cache.im_.push_back(complex ? take(static_cast<double*>(nullptr))
                                        : std::span<double>{});
            cache.re32_.emplace_back();
            cache.im32_.emplace_back();
        }
    }
    cache.weights_.assign(events, 1.0);
    cache.refresh_sum_weights();
    cache.link_columns();
    return cache;
}

EventCache EventCache::build(const ir::Program& precompute, const ir::Program& evaluate,
                             const ir::ColumnView& inputs, std::span<const double> weights,
                             ThreadPool* pool, ir::Precision storage, JitPolicy jit) {
    check_programs_match(precompute, evaluate);
    const std::shared_ptr<const detail::ChunkKernel> kernel = detail::select_kernel(
        precompute, ir::Precision::kF64, jit, inputs.events, detail::Passes::kOnce);
    return build(*kernel, evaluate, inputs, weights, pool, storage);
}

EventCache EventCache::build(const detail::ChunkKernel& precompute, const ir::Program& evaluate,
                             const ir::ColumnView& inputs, std::span<const double> weights,
                             ThreadPool* pool, ir::Precision storage) {
    check_programs_match(precompute.program(), evaluate);
    if (!weights.empty() && weights.size() != inputs.events) {
        throw DataError(fmt::format("{} weights given for {} events; give one weight per event "
                                    "or none",
                                    weights.size(), inputs.events));
    }
    ir::check_inputs(precompute.program(), ir::Precision::kF64, inputs);
    EventCache cache = allocate(evaluate, inputs.events, storage);
    if (!weights.empty()) {
        std::copy(weights.begin(), weights.end(), cache.weights_.begin());
        cache.refresh_sum_weights();
    }
    const std::size_t slots = cache.slot_count();
    const bool f32 = storage == ir::Precision::kF32;
    detail::for_each_chunk(
        precompute, {}, inputs.events, pool, [&](std::size_t chunk, detail::ChunkWorker& worker) {
            if (!f32) {
                const auto [begin, count] = detail::chunk_range(chunk, inputs.events);
                for (std::size_t slot = 0; slot < slots; ++slot) {
                    const bool complex = cache.kinds_[slot] == ir::ValueKind::kComplex;
                    worker.out[slot] = {cache.re_[slot].data() + begin,
                                        complex ? cache.im_[slot].data() + begin : nullptr};
                }
                worker.kernel->run(inputs, begin, count, worker.out);
                return;
            }
            // A float cache is filled through a chunk of double outputs, rounded once.
            const detail::ChunkWorker::Chunk c = worker.evaluate_complex(inputs, chunk);
            for (std::size_t slot = 0; slot < slots; ++slot) {
                const double* re = c.columns.data() + 2 * slot * c.count;
                std::copy_n(re, c.count, cache.re32_[slot].data() + c.begin);
                if (cache.kinds_[slot] == ir::ValueKind::kComplex) {
                    std::copy_n(re + c.count, c.count, cache.im32_[slot].data() + c.begin);
                }
            }
        });
    return cache;
}

EventCache EventCache::build(const ir::Program& precompute, const ir::Program& evaluate,
                             std::span<const std::span<const double>> columns,
                             std::span<const double> weights, ThreadPool* pool,
                             ir::Precision storage, JitPolicy jit) {
    std::vector<ir::InputColumn> inputs;
    const std::size_t events = columns.empty() ? weights.size() : columns.front().size();
    for (std::size_t slot = 0; slot < columns.size(); ++slot) {
        if (columns[slot].size() != events) {
            throw DataError(fmt::format("input column {} has {} events but column 0 has {}; all "
                                        "columns must have the same length",
                                        slot, columns[slot].size(), events));
        }
        if (slot < precompute.inputs.size() &&
            precompute.inputs[slot].kind != ir::ValueKind::kReal) {
            throw DataError(fmt::format("precompute input {} ('{}') is Complex; pass a ColumnView "
                                        "with re and im arrays",
                                        slot, precompute.inputs[slot].name));
        }
        inputs.push_back(ir::InputColumn{columns[slot].data(), nullptr});
    }
    return build(precompute, evaluate, ir::ColumnView{inputs, events}, weights, pool, storage, jit);
}

void EventCache::check_program(const ir::Program& evaluate) const {
    const std::uint64_t expected = ir::hash(evaluate);
    if (expected != program_hash_) {
        throw DataError(fmt::format("event cache was built for a different program (cache for "
                                    "program hash {:016x}, this program hashes to {:016x}); "
                                    "rebuild the cache for this program",
                                    program_hash_, expected));
    }
}

void EventCache::place(const EventCache& part, std::size_t first_event) {
    if (part.program_hash_ != program_hash_ || part.storage_ != storage_) {
        throw DataError(fmt::format("cannot place a cache part built for program {:016x} ({}) "
                                    "into a cache for program {:016x} ({})",
                                    part.program_hash_, ir::precision_name(part.storage_),
                                    program_hash_, ir::precision_name(storage_)));
    }
    if (first_event > events_ || part.events_ > events_ - first_event) {
        throw DataError(fmt::format("a cache part of {} events does not fit at event {} of a "
                                    "cache of {} events",
                                    part.events_, first_event, events_));
    }
    const auto at = static_cast<std::ptrdiff_t>(first_event);
    const auto copy = [&](const auto& from, auto& to) {
        for (std::size_t slot = 0; slot < from.size(); ++slot) {
            std::copy(from[slot].begin(), from[slot].end(), to[slot].begin() + at);
        }
    };
    copy(part.re_, re_);
    copy(part.im_, im_);
    copy(part.re32_, re32_);
    copy(part.im32_, im32_);
    std::copy(part.weights_.begin(), part.weights_.end(), weights_.begin() + at);
}

void EventCache::check_double_storage() const {
    if (storage_ == ir::Precision::kF32) {
        throw DataError("a float event cache has no double columns to write; allocate it with "
                        "ir::Precision::kF64 or fill it with place()");
    }
}

std::span<double> EventCache::mutable_re(std::size_t slot) {
    if (slot >= re_.size()) {
        throw DataError(fmt::format("cache slot {} is out of range ({} slots)", slot, re_.size()));
    }
    check_double_storage();
    return re_[slot];
}

std::span<double> EventCache::mutable_im(std::size_t slot) {
    if (slot >= im_.size() || kinds_[slot] != ir::ValueKind::kComplex) {
        throw DataError(fmt::format("cache slot {} is not a Complex slot", slot));
    }
    check_double_storage();
    return im_[slot];
}

void EventCache::refresh_sum_weights() noexcept {
    sum_weights_ = accurate_sum(weights_);
    unit_weights_ =
        std::all_of(weights_.begin(), weights_.end(), [](double w) { return w == 1.0; });
}

std::size_t EventCache::resident_bytes() const noexcept {
    return weights_.capacity() * sizeof(double) + block_.resident_bytes();
}

std::size_t EventCache::memory_estimate(const ir::Program& evaluate, std::size_t events,
                                        ir::Precision storage) noexcept {
    const std::size_t per_slot_fixed = 2 * sizeof(std::span<double>) +
                                       2 * sizeof(std::span<float>) + sizeof(ir::InputColumn) +
                                       sizeof(ir::ValueKind);
    const std::size_t fixed = sizeof(EventCache) + evaluate.inputs.size() * per_slot_fixed;
    const std::size_t value = storage == ir::Precision::kF32 ? sizeof(float) : sizeof(double);
    // Linear in the events, for the planners that divide a budget by the bytes per event: a
    // column's padding to an odd number of cache lines is under 128 bytes (a column of 2 MiB or
    // more, mapped on its own, may hold a page or two more, not counted).
    constexpr std::size_t kColumnPadding = 128;
    std::size_t per_event = sizeof(double);  // the weight
    std::size_t padding = 0;
    for (const ir::InputSlot& slot : evaluate.inputs) {
        const std::size_t columns = slot.kind == ir::ValueKind::kComplex ? 2 : 1;
        per_event += columns * value;
        padding += columns * kColumnPadding;
    }
    return saturating_add(fixed + padding, saturating_mul(events, per_event));
}

std::size_t EventCache::build_worker_bytes(const detail::ChunkKernel& precompute,
                                           ir::Precision storage) noexcept {
    const std::size_t outputs = precompute.program().outputs.size();
    const std::size_t rounded =
        storage == ir::Precision::kF32 ? 2 * outputs * kReductionChunk * sizeof(double) : 0;
    return precompute.bound_bytes() + outputs * sizeof(ir::OutputColumn) + rounded;
}

void EventCache::link_columns() {
    columns_.clear();
    const auto data_or_null = [](auto& column) {
        return column.empty() ? nullptr : column.data();
    };
    for (std::size_t slot = 0; slot < re_.size(); ++slot) {
        ir::InputColumn column;
        if (storage_ == ir::Precision::kF32) {
            // Zero events still mark the column as float, so f64 programs reject it.
            column.re32 = re32_[slot].empty() ? &kEmptyFloat : re32_[slot].data();
            column.im32 = data_or_null(im32_[slot]);
        } else {
            column.re = data_or_null(re_[slot]);
            column.im = data_or_null(im_[slot]);
        }
        columns_.push_back(column);
    }
}

}  // namespace laddu::runtime
