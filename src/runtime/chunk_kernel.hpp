// src/runtime/chunk_kernel.hpp (private to runtime): one interface over the backends that run
// an ir::Program for a range of events, so reductions and evaluations are written once.
//
// A ChunkKernel is immutable and shared by threads; bind() makes per-thread state for one
// parameter vector (the interpreter evaluates its invariants there; the JIT keeps the
// parameters and scratch columns). run() writes each output's values for events
// [begin, begin + count) to out[j].re[0 .. count) (and .im for Complex outputs, when non-null).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string_view>
#include <vector>

#include <laddu/interp/interpreter.hpp>
#include <laddu/ir/columns.hpp>
#include <laddu/ir/program.hpp>
#include <laddu/runtime/execution.hpp>
#include <laddu/runtime/reduce.hpp>

namespace laddu::runtime::detail {

/// A chunk reduction that a backend may run fused with its kernel (BoundKernel::reduce_chunk):
/// the terms of the runtime's own chunk reductions (reduce.cpp, reduce_gradient.cpp).
struct FusedReduction {
    ReductionTransform transform = ReductionTransform::kReal;
    bool float_log = false;     ///< the value term's log is taken in float (f32 value reductions)
    std::size_t sums = 1;       ///< 1: Σ w T(Re out_0) only; more: also Σ w T'(v) out_j, j < sums
    bool unit_weights = false;  ///< every weight is 1 (EventCache::unit_weights): need not be read
};

/// Per-thread state of a kernel bound to one parameter vector.
class BoundKernel {
public:
    BoundKernel() = default;
    BoundKernel(const BoundKernel&) = delete;
    BoundKernel& operator=(const BoundKernel&) = delete;
    BoundKernel(BoundKernel&&) = delete;
    BoundKernel& operator=(BoundKernel&&) = delete;
    virtual ~BoundKernel() = default;

    /// Binds this kernel to `params` (of the right count) as bind(params) would, keeping its
    /// buffers: what lets a pass reuse the bound kernels of the one before (ChunkKernel::
    /// acquire_worker).
    virtual void rebind(std::span<const double> params) = 0;

    /// Evaluates events [begin, begin + count) of `inputs` into `out` (count values each).
    virtual void run(const ir::ColumnView& inputs, std::size_t begin, std::size_t count,
                     std::span<const ir::OutputColumn> out) = 0;

    /// Adds the terms of `reduction` for events [begin, begin + count) to `lanes` (sum j's
    /// LaneSum lanes at [2 j kSumLanes, 2 j kSumLanes + kSumLanes), its compensations after
    /// them; event begin + i to lane i % kSumLanes), bit-identical to evaluating with run()
    /// and summing in LaneSums. `weights` holds the weights of all inputs.events events, so
    /// event begin + i's is weights[begin + i]. Returns false when
    /// the backend has no fused reduction, or a value failed the transform's check (`lanes` is
    /// then unspecified): the caller takes the unfused path, which names the event.
    virtual bool reduce_chunk(const ir::ColumnView& inputs, std::size_t begin, std::size_t count,
                              std::span<const double> weights, const FusedReduction& reduction,
                              std::span<double> lanes) {
        (void)inputs, (void)begin, (void)count, (void)weights, (void)reduction, (void)lanes;
        return false;
    }
};

/// One worker's kernel, bound to the parameters of a pass, and its output columns, reused from
/// chunk to chunk (a gradient chunk holds (P + 1) × kReductionChunk doubles) and, through
/// ChunkKernel::acquire_worker, from pass to pass.
struct ChunkWorker {
    std::unique_ptr<BoundKernel> kernel;
    std::vector<double> columns;
    std::vector<ir::OutputColumn> out;
    std::vector<double> lanes;  ///< a fused gradient reduction's lanes (reduce_chunk)

    /// Events [begin, begin + count) of one reduction chunk and their outputs.
    struct Chunk {
        std::size_t begin = 0;
        std::size_t count = 0;
        std::span<const double> columns;  ///< output j of event begin + i at [j · count + i]
    };

    /// Evaluates the real part of every output of reduction chunk `chunk` of `inputs` into the
    /// worker's columns.
    [[nodiscard]] Chunk evaluate(const ir::ColumnView& inputs, std::size_t chunk);

    /// evaluate() with imaginary parts too: output j's real parts of event begin + i at
    /// [2 j · count + i], its imaginary parts (0 for a Real output) at [(2 j + 1) · count + i].
    [[nodiscard]] Chunk evaluate_complex(const ir::ColumnView& inputs, std::size_t chunk);
};

/// A backend's compiled form of one program.
class ChunkKernel {
public:
    ChunkKernel() = default;
    ChunkKernel(const ChunkKernel&) = delete;
    ChunkKernel& operator=(const ChunkKernel&) = delete;
    ChunkKernel(ChunkKernel&&) = delete;
    ChunkKernel& operator=(ChunkKernel&&) = delete;
    virtual ~ChunkKernel() = default;

    /// The program this kernel runs.
    [[nodiscard]] virtual const ir::Program& program() const noexcept = 0;

    /// "interpreter", "jit" or "gpu".
    [[nodiscard]] virtual std::string_view backend() const noexcept = 0;

    /// Arithmetic precision.
    [[nodiscard]] virtual ir::Precision precision() const noexcept = 0;

    /// State for `params`; throws EvaluationError for a wrong parameter count (checked here,
    /// for every backend, before bind_checked()).
    [[nodiscard]] std::unique_ptr<BoundKernel> bind(std::span<const double> params) const;

    /// The most bytes one bound kernel holds (registers, scratch columns) running at most
    /// kReductionChunk events at a time: what a memory plan counts per worker.
    [[nodiscard]] virtual std::size_t bound_bytes() const noexcept = 0;

    /// A worker bound to `params`: one a finished pass released, rebound, else a new one.
    /// Reusing them saves each pass its allocations and the first touches of memory the other
    /// threads wrote last (value + gradient of the K-matrix NLL at 10,000 events on 2 threads
    /// took 5% longer binding new workers per pass). EvaluationError for a wrong parameter count.
    [[nodiscard]] std::unique_ptr<ChunkWorker> acquire_worker(std::span<const double> params) const;

    /// Keeps `worker` for a later pass (unless the backend binds per pass: keeps_workers()).
    /// Idle workers hold their memory until the kernel is destroyed: as many as passes ran at
    /// once, each at most worker_bytes().
    void release_worker(std::unique_ptr<ChunkWorker> worker) const noexcept;

protected:
    /// The backend's bind(), given exactly program().parameter_count values.
    [[nodiscard]] virtual std::unique_ptr<BoundKernel>
    bind_checked(std::span<const double> params) const = 0;

    /// False when a bound kernel's lifetime means something to the backend (the GPU kernel keeps
    /// a pass's device results until its last bound kernel is destroyed). Also false for a
    /// backend whose bound kernels use their kernel when destroyed: idle workers are destroyed
    /// with this base, after the derived kernel's members.
    [[nodiscard]] virtual bool keeps_workers() const noexcept { return true; }

private:
    // EvaluationError unless `params` holds program().parameter_count values.
    void check_parameter_count(std::span<const double> params) const;

    mutable std::mutex idle_mutex_;
    mutable std::vector<std::unique_ptr<ChunkWorker>> idle_;
};

/// The most bytes one worker of a pass over a prepared model holds besides the cache: a bound
/// `kernel` with its output columns for one reduction chunk (ChunkWorker) and the lanes of a
/// fused reduction.
[[nodiscard]] std::size_t worker_bytes(const ChunkKernel& kernel) noexcept;

/// The interpreter as a ChunkKernel (owning its Interpreter).
[[nodiscard]] std::shared_ptr<const ChunkKernel> make_interpreter_kernel(const ir::Program& program,
                                                                         ir::Precision precision);

/// Under Device::kGpu, Execution::device_memory resolved against the device's global memory
/// (bytes); SIZE_MAX on the CPU or for an unlimited device budget. BackendError for a device
/// that does not exist.
[[nodiscard]] std::size_t device_budget(const Execution& execution);

/// How often a program runs over the same events: what its compile time is weighed against.
enum class Passes : std::uint8_t {
    kOnce,  ///< once per preparation (precompute, the normalisation matrix)
    kMany,  ///< once per evaluation (the evaluate and gradient programs of a fit)
};

/// The kernel the JIT policy asks for: kDisabled gives the interpreter; kEnabled the JIT or a
/// BackendError saying why not; kAuto the JIT when it is built and repays its compile time: a
/// program run kMany times over at least kJitBreakEvenEvents events; a program run kOnce over
/// at least kJitOnceBreakEvenEvents, or over at least kJitBreakEvenEvents when its code is
/// already compiled (in this process or the JIT's object cache); else the interpreter (a JIT
/// failure is logged once). Both give the same bits.
[[nodiscard]] std::shared_ptr<const ChunkKernel> select_kernel(const ir::Program& program,
                                                               ir::Precision precision,
                                                               JitPolicy policy, std::size_t events,
                                                               Passes passes);

/// The kernel `execution` asks for: on Device::kGpu, a program run kMany times runs on OpenCL
/// device execution.device_index (BackendError when the GPU backend is not built, there is no
/// such device or its driver cannot build the program); everything else, and every program on
/// the CPU, is select_kernel(program, precision, execution.jit, events, passes). Programs run
/// once per preparation stay on the CPU: a driver build and an upload never repay one pass.
[[nodiscard]] std::shared_ptr<const ChunkKernel> select_kernel(const ir::Program& program,
                                                               ir::Precision precision,
                                                               const Execution& execution,
                                                               std::size_t events, Passes passes);

}  // namespace laddu::runtime::detail
