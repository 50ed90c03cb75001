#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/error.hpp>
#include <laddu/interp/interpreter.hpp>
#include <laddu/ir/hash.hpp>
#include <laddu/runtime/event_cache.hpp>
#include <laddu/runtime/thread_pool.hpp>

namespace laddu::runtime {

namespace {

// Events per fill job: a multiple of the interpreter block.
constexpr std::size_t kFillChunk = 64 * interp::kBlockSize;

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
                                interp::Precision storage) {
    EventCache cache;
    cache.events_ = events;
    cache.program_hash_ = ir::hash(evaluate);
    cache.storage_ = storage;
    const bool f32 = storage == interp::Precision::kF32;
    for (const ir::InputSlot& slot : evaluate.inputs) {
        const std::size_t im = slot.kind == ir::ValueKind::kComplex ? events : 0;
        cache.kinds_.push_back(slot.kind);
        cache.re_.emplace_back(f32 ? 0 : events, 0.0);
        cache.im_.emplace_back(f32 ? 0 : im, 0.0);
        cache.re32_.emplace_back(f32 ? events : 0, 0.0F);
        cache.im32_.emplace_back(f32 ? im : 0, 0.0F);
    }
    cache.weights_.assign(events, 1.0);
    cache.refresh_sum_weights();
    cache.link_columns();
    return cache;
}

EventCache EventCache::build(const ir::Program& precompute, const ir::Program& evaluate,
                             const interp::ColumnView& inputs, std::span<const double> weights,
                             ThreadPool* pool, interp::Precision storage) {
    check_programs_match(precompute, evaluate);
    if (!weights.empty() && weights.size() != inputs.events) {
        throw DataError(fmt::format("{} weights given for {} events; give one weight per event "
                                    "or none",
                                    weights.size(), inputs.events));
    }
    const interp::Interpreter interp =
        interp::Interpreter::prepare(precompute, interp::Precision::kF64);
    interp.check_inputs(inputs);
    EventCache cache = allocate(evaluate, inputs.events, storage);
    if (!weights.empty()) {
        std::copy(weights.begin(), weights.end(), cache.weights_.begin());
        cache.refresh_sum_weights();
    }
    const std::size_t n_chunks = (inputs.events + kFillChunk - 1) / kFillChunk;
    const bool f32 = storage == interp::Precision::kF32;
    auto fill = [&](std::size_t chunk, interp::Workspace& ws) {
        const std::size_t end = std::min(inputs.events, (chunk + 1) * kFillChunk);
        const std::size_t slots = cache.slot_count();
        std::vector<interp::OutputColumn> out(slots);
        // A float cache is filled through one double block per slot, rounded once.
        std::vector<double> block(f32 ? 2 * slots * interp::kBlockSize : 0);
        for (std::size_t begin = chunk * kFillChunk; begin < end; begin += interp::kBlockSize) {
            const std::size_t count = std::min(interp::kBlockSize, end - begin);
            for (std::size_t slot = 0; slot < slots; ++slot) {
                const bool complex = cache.kinds_[slot] == ir::ValueKind::kComplex;
                if (f32) {
                    double* re = block.data() + 2 * slot * interp::kBlockSize;
                    out[slot] = {re, complex ? re + interp::kBlockSize : nullptr};
                } else {
                    out[slot] = {cache.re_[slot].data() + begin,
                                 complex ? cache.im_[slot].data() + begin : nullptr};
                }
            }
            interp.run_block(inputs, begin, count, ws, interp::OutputView{out});
            if (f32) {
                for (std::size_t slot = 0; slot < slots; ++slot) {
                    std::copy_n(out[slot].re, count, cache.re32_[slot].data() + begin);
                    if (out[slot].im != nullptr) {
                        std::copy_n(out[slot].im, count, cache.im32_[slot].data() + begin);
                    }
                }
            }
        }
    };
    if (pool == nullptr || pool->size() == 1 || n_chunks < 2) {
        interp::Workspace ws = interp.make_workspace();
        interp.evaluate_invariants({}, ws);
        for (std::size_t chunk = 0; chunk < n_chunks; ++chunk) {
            fill(chunk, ws);
        }
    } else {
        std::vector<interp::Workspace> workspaces;
        for (std::size_t w = 0; w < pool->size(); ++w) {
            workspaces.push_back(interp.make_workspace());
            interp.evaluate_invariants({}, workspaces.back());
        }
        pool->parallel_for_chunks(n_chunks, [&](std::size_t chunk, std::size_t worker) {
            fill(chunk, workspaces[worker]);
        });
    }
    return cache;
}

EventCache EventCache::build(const ir::Program& precompute, const ir::Program& evaluate,
                             std::span<const std::span<const double>> columns,
                             std::span<const double> weights, ThreadPool* pool,
                             interp::Precision storage) {
    std::vector<interp::InputColumn> inputs;
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
        inputs.push_back(interp::InputColumn{columns[slot].data(), nullptr});
    }
    return build(precompute, evaluate, interp::ColumnView{inputs, events}, weights, pool, storage);
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
                                    part.program_hash_, interp::precision_name(part.storage_),
                                    program_hash_, interp::precision_name(storage_)));
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
    if (storage_ == interp::Precision::kF32) {
        throw DataError("a float event cache has no double columns to write; allocate it with "
                        "Precision::kF64 or fill it with place()");
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
}

std::size_t EventCache::resident_bytes() const noexcept {
    std::size_t bytes = weights_.capacity() * sizeof(double);
    for (std::size_t slot = 0; slot < re_.size(); ++slot) {
        bytes += (re_[slot].capacity() + im_[slot].capacity()) * sizeof(double) +
                 (re32_[slot].capacity() + im32_[slot].capacity()) * sizeof(float);
    }
    return bytes;
}

std::size_t EventCache::memory_estimate(const ir::Program& evaluate, std::size_t events,
                                        interp::Precision storage) noexcept {
    const std::size_t per_slot_fixed = 2 * sizeof(AlignedVector<double>) +
                                       2 * sizeof(AlignedVector<float>) +
                                       sizeof(interp::InputColumn) + sizeof(ir::ValueKind);
    const std::size_t fixed = sizeof(EventCache) + evaluate.inputs.size() * per_slot_fixed;
    const std::size_t value = storage == interp::Precision::kF32 ? sizeof(float) : sizeof(double);
    std::size_t per_event = sizeof(double);  // the weight
    for (const ir::InputSlot& slot : evaluate.inputs) {
        per_event += slot.kind == ir::ValueKind::kComplex ? 2 * value : value;
    }
    return saturating_add(fixed, saturating_mul(events, per_event));
}

std::size_t EventCache::build_worker_bytes(const ir::Program& precompute,
                                           const ir::Program& evaluate, interp::Precision storage) {
    const interp::Interpreter interp =
        interp::Interpreter::prepare(precompute, interp::Precision::kF64);
    const std::size_t slots = evaluate.inputs.size();
    const std::size_t block =
        storage == interp::Precision::kF32 ? 2 * slots * interp::kBlockSize * sizeof(double) : 0;
    return interp.make_workspace().bytes() + slots * sizeof(interp::OutputColumn) + block;
}

void EventCache::link_columns() {
    columns_.clear();
    const auto data_or_null = [](auto& column) {
        return column.empty() ? nullptr : column.data();
    };
    for (std::size_t slot = 0; slot < re_.size(); ++slot) {
        interp::InputColumn column;
        if (storage_ == interp::Precision::kF32) {
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
