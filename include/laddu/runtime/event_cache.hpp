// laddu/runtime/event_cache.hpp: the per-event values an evaluate program reads, computed once.
//
// A compiled model is two programs (docs/ir.md): `precompute` turns event columns into cache
// columns, `evaluate` reads the cache columns and parameters. An EventCache holds, for every
// input slot of `evaluate`, one 64-byte-aligned column (Real) or two (Complex: re and im), plus
// the event weights and their compensated sum. It remembers ir::hash(evaluate) so a cache is
// never read by a program it was not built for.
//
// The columns are stored in double, or in float for f32 runs (`storage` kF32): precompute still
// runs in double and its outputs are rounded once, which is what an f32 program does to each
// value it loads, so f32 results are the same bits from either storage; the float cache holds
// half the bytes and the kernels stream half as much memory per pass.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <laddu/base/aligned.hpp>
#include <laddu/ir/columns.hpp>
#include <laddu/ir/precision.hpp>
#include <laddu/ir/program.hpp>
#include <laddu/runtime/execution.hpp>
#include <laddu/runtime/thread_pool.hpp>

namespace laddu::runtime {

namespace detail {
class ChunkKernel;
}  // namespace detail

/// Structure-of-arrays cache columns for one evaluate program over a set of events.
class EventCache {
public:
    /// Runs `precompute` over `inputs` (its event columns, one per precompute input slot) in f64,
    /// reduction chunk by reduction chunk on the backend `jit` selects (the JIT's f64 kernels
    /// give the interpreter's bits), and stores its outputs as the cache columns of `evaluate`.
    /// `weights` is empty (every weight 1) or one per event. Throws CompileError if precompute's
    /// outputs do not match evaluate's input slots in number and kind, or precompute has
    /// parameters; DataError for malformed inputs or a weight count that differs from
    /// inputs.events. `pool` (optional) fills chunks in parallel; the result does not depend on
    /// it. `storage` is the type the columns are kept in (weights are always double).
    [[nodiscard]] static EventCache
    build(const ir::Program& precompute, const ir::Program& evaluate, const ir::ColumnView& inputs,
          std::span<const double> weights, ThreadPool* pool = nullptr,
          ir::Precision storage = ir::Precision::kF64, JitPolicy jit = JitPolicy::kAuto);

    /// build() for Real-only precompute inputs given as one span per input slot (each of the
    /// same length, the event count).
    [[nodiscard]] static EventCache
    build(const ir::Program& precompute, const ir::Program& evaluate,
          std::span<const std::span<const double>> columns, std::span<const double> weights,
          ThreadPool* pool = nullptr, ir::Precision storage = ir::Precision::kF64,
          JitPolicy jit = JitPolicy::kAuto);

    /// build() with a precompute kernel the runtime already selected (its private ChunkKernel,
    /// which a prepared model selects once for all its windows).
    [[nodiscard]] static EventCache build(const detail::ChunkKernel& precompute,
                                          const ir::Program& evaluate, const ir::ColumnView& inputs,
                                          std::span<const double> weights, ThreadPool* pool,
                                          ir::Precision storage);

    /// A zero-filled cache for `evaluate` over `events` events with unit weights, to be filled
    /// through mutable_re()/mutable_im()/mutable_weights() (tests, benchmarks, loaders that
    /// compute cache columns themselves). Call refresh_sum_weights() after changing weights.
    /// A float cache (`storage` kF32) is filled through place() only.
    [[nodiscard]] static EventCache allocate(const ir::Program& evaluate, std::size_t events,
                                             ir::Precision storage = ir::Precision::kF64);

    /// The number of events.
    [[nodiscard]] std::size_t events() const noexcept { return events_; }

    /// The cache columns as interpreter inputs (valid while this cache lives and is not moved).
    [[nodiscard]] ir::ColumnView view() const noexcept { return {columns_, events_}; }

    /// The kind of cache column `slot` (Real or Complex).
    [[nodiscard]] ir::ValueKind kind(std::size_t slot) const { return kinds_.at(slot); }

    /// The type the columns are stored in.
    [[nodiscard]] ir::Precision storage() const noexcept { return storage_; }

    /// The number of cache slots (evaluate's input slots).
    [[nodiscard]] std::size_t slot_count() const noexcept { return kinds_.size(); }

    /// Per-event weights.
    [[nodiscard]] std::span<const double> weights() const noexcept { return weights_; }

    /// The compensated sum of the weights.
    [[nodiscard]] double sum_weights() const noexcept { return sum_weights_; }

    /// True when every weight is exactly 1 (unweighted events, as of the last
    /// refresh_sum_weights()): a fused reduction then adds its terms without reading them,
    /// with the same bits (fma(1, t, p) is t + p).
    [[nodiscard]] bool unit_weights() const noexcept { return unit_weights_; }

    /// The order of the next pass over the cache's reduction chunks: forward and backward in
    /// turn, so that a pass starts on the events the one before it read last, which the core's
    /// caches may still hold when the whole cache does not fit (docs/runtime.md, "Sweep
    /// order"). Results do not depend on it. Safe to call from several threads.
    [[nodiscard]] SweepOrder next_sweep() const noexcept {
        return passes_.value.fetch_add(1, std::memory_order_relaxed) % 2 == 0
                   ? SweepOrder::kForward
                   : SweepOrder::kBackward;
    }

    /// ir::hash of the evaluate program this cache was built for.
    [[nodiscard]] std::uint64_t program_hash() const noexcept { return program_hash_; }

    /// Throws DataError if this cache was built for a program other than `evaluate`.
    void check_program(const ir::Program& evaluate) const;

    /// Copies `part`'s columns and weights to events [first_event, first_event + part.events())
    /// of this cache (assembling a cache from windows). Throws DataError if `part` was built for
    /// another program or storage type or does not fit. Call refresh_sum_weights() after.
    void place(const EventCache& part, std::size_t first_event);

    /// Writable real parts (or values, for a Real slot) of cache column `slot` (DataError for
    /// a float cache).
    [[nodiscard]] std::span<double> mutable_re(std::size_t slot);

    /// Writable imaginary parts of Complex cache column `slot` (DataError for a Real slot).
    [[nodiscard]] std::span<double> mutable_im(std::size_t slot);

    /// Writable weights.
    [[nodiscard]] std::span<double> mutable_weights() noexcept { return weights_; }

    /// Recomputes sum_weights() and unit_weights() after mutable_weights() changed them.
    void refresh_sum_weights() noexcept;

    /// Bytes held by the columns (ColumnBlock::resident_bytes) and the weights (8 per event).
    [[nodiscard]] std::size_t resident_bytes() const noexcept;

    /// The bytes a cache for `evaluate` over `events` events takes, linear in `events`: a fixed
    /// part (this object, its per-slot bookkeeping and 128 bytes per column for its padding)
    /// plus events × (8 + Σ_slots {Real 8, Complex 16}), the slot bytes halved for float
    /// storage; a column of 2 MiB or more (ColumnBlock maps it on its own) may hold a page or
    /// two more. Saturates.
    [[nodiscard]] static std::size_t
    memory_estimate(const ir::Program& evaluate, std::size_t events,
                    ir::Precision storage = ir::Precision::kF64) noexcept;

    /// The most bytes one worker of build() holds besides the cache: the bound precompute
    /// kernel, its output columns and, for float storage, a chunk of double outputs to round.
    [[nodiscard]] static std::size_t build_worker_bytes(const detail::ChunkKernel& precompute,
                                                        ir::Precision storage) noexcept;

    EventCache(EventCache&&) noexcept = default;
    EventCache& operator=(EventCache&&) noexcept = default;
    EventCache(const EventCache&) = delete;
    EventCache& operator=(const EventCache&) = delete;
    ~EventCache() = default;

private:
    EventCache() = default;
    void link_columns();
    void check_double_storage() const;  // DataError for a float cache

    std::size_t events_ = 0;
    std::uint64_t program_hash_ = 0;
    ir::Precision storage_ = ir::Precision::kF64;
    std::vector<ir::ValueKind> kinds_;
    // Every column lives in one ColumnBlock, in slot order (a Complex slot's real part, then
    // its imaginary part), each ColumnBlock::stride_for(a column's bytes) apart: kernels address
    // them all from the first (jit::ReductionSpec::input_stride).
    ColumnBlock block_;
    // The columns, views of the block; one of the two pairs is empty, by storage_.
    std::vector<std::span<double>> re_;
    std::vector<std::span<double>> im_;  ///< empty for Real slots
    std::vector<std::span<float>> re32_;
    std::vector<std::span<float>> im32_;  ///< empty for Real slots
    std::vector<ir::InputColumn> columns_;
    AlignedVector<double> weights_;
    double sum_weights_ = 0.0;
    bool unit_weights_ = true;

    // Passes begun (next_sweep): a counter that a moved cache takes along.
    struct PassCount {
        PassCount() = default;

        PassCount(const PassCount& other) noexcept
            : value(other.value.load(std::memory_order_relaxed)) {}

        PassCount& operator=(const PassCount& other) noexcept {
            value.store(other.value.load(std::memory_order_relaxed), std::memory_order_relaxed);
            return *this;
        }

        PassCount(PassCount&& other) noexcept
            : value(other.value.load(std::memory_order_relaxed)) {}

        PassCount& operator=(PassCount&& other) noexcept { return *this = other; }

        ~PassCount() = default;
        mutable std::atomic<std::uint64_t> value{0};
    };

    PassCount passes_;
};

}  // namespace laddu::runtime
