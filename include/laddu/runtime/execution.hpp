// laddu/runtime/execution.hpp: how a model is run: device, threads, precision, autodiff mode,
// JIT policy, the host-memory budget and the pool that shares it (memory_pool.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <laddu/autodiff/gradient.hpp>
#include <laddu/base/expected.hpp>
#include <laddu/ir/precision.hpp>
#include <laddu/runtime/collective.hpp>

namespace laddu::runtime {

/// Where kernels run.
enum class Device : std::uint8_t {
    kCpu,  ///< the interpreter or the JIT (JitPolicy)
    kGpu,  ///< the evaluate and gradient programs on OpenCL device Execution::device_index (the
           ///< gpu stage, docs/gpu.md); preparation still runs on the CPU
};

/// How gradients are computed (autodiff::AutodiffMode: auto, forward or reverse).
using AutodiffMode = autodiff::AutodiffMode;

/// How a likelihood's normalisation integral over accepted Monte Carlo is computed (laddu's
/// NormalizationMode).
enum class NormalizationMode : std::uint8_t {
    kAuto,     ///< the precomputed Hermitian matrix when the model decomposes, else an event pass
    kGeneral,  ///< always a pass over every accepted event
    kVerify,   ///< the matrix, checked against an event pass at every evaluation (EvaluationError
               ///< when they differ by more than 1e-10, 5e-4 under f32, of max(|pass|, 1))
};

/// Whether to compile kernels with the LLVM JIT: when available (kAuto), required, or never.
enum class JitPolicy : std::uint8_t { kAuto, kEnabled, kDisabled };

/// A host-memory budget (laddu's MemoryBudget): no limit, "auto", a byte count, or a percentage
/// of MemTotal or MemAvailable, read from /proc/meminfo when the budget is resolved.
class MemoryPlan {
public:
    /// No limit (the default).
    MemoryPlan() = default;

    /// A budget of exactly `bytes`.
    [[nodiscard]] static MemoryPlan bytes(std::size_t bytes);

    /// laddu's "auto": 80% of MemAvailable (50% of MemTotal when MemAvailable is not reported).
    [[nodiscard]] static MemoryPlan automatic();

    /// A budget of `percent` (0 < percent <= 100) of MemAvailable, read when resolved. Throws
    /// ModelError outside that range.
    [[nodiscard]] static MemoryPlan fraction_of_available(double percent);

    /// A budget of `percent` (0 < percent <= 100) of MemTotal, read when resolved. Throws
    /// ModelError outside that range.
    [[nodiscard]] static MemoryPlan fraction_of_total(double percent);

    /// Parses laddu's budget text, case-insensitive, spaces optional: "auto"; a decimal number
    /// of bytes with an optional unit, "4096", "4096 B", "1.5 GB", "2 GiB" (units b, byte,
    /// bytes, kB/MB/GB/TB, KiB/MiB/GiB/TiB; fractions of a byte round down, the number must not
    /// be all zeros and the result must fit in 64 bits); a percentage "50% total" or "50%" (of
    /// MemTotal) or "70% available" ("free", "remaining", "of available": of MemAvailable).
    /// Throws ModelError naming the text and the accepted forms when it cannot parse.
    [[nodiscard]] static MemoryPlan parse(std::string_view text);

    /// True when no budget was set.
    [[nodiscard]] bool is_unlimited() const noexcept { return kind_ == Kind::kUnlimited; }

    /// The budget in bytes: SIZE_MAX when unlimited; a percentage is floor(fraction × the
    /// /proc/meminfo value), which throws BackendError when /proc/meminfo cannot be read (a
    /// system other than Linux: give the budget in bytes there).
    [[nodiscard]] std::size_t resolve() const;

    /// The budget in bytes of a memory of `total` bytes with `available` free (a GPU's):
    /// SIZE_MAX when unlimited, "auto" 80% of `available`, percentages of either.
    [[nodiscard]] std::size_t resolve_against(std::size_t total,
                                              std::size_t available) const noexcept;

    /// laddu's spelling: "auto", "2147483648 B", "70% available", "50% total"; or "unlimited".
    [[nodiscard]] std::string to_string() const;

private:
    enum class Kind : std::uint8_t { kUnlimited, kAuto, kBytes, kOfAvailable, kOfTotal };

    Kind kind_ = Kind::kUnlimited;
    std::size_t bytes_ = 0;
    double fraction_ = 0.0;  ///< percent / 100, as laddu stores it
};

/// A value of /proc/meminfo (or another file in its format) in bytes: the line `key` ("MemTotal",
/// "MemAvailable"), whose value is in kB. A BackendError-kind failure says why it could not be
/// read.
[[nodiscard]] Expected<std::size_t> meminfo_bytes(const std::string& path, std::string_view key);

/// MemAvailable from /proc/meminfo, in bytes, or why it could not be read.
[[nodiscard]] Expected<std::size_t> available_host_memory();

/// MemTotal from /proc/meminfo, in bytes, or why it could not be read.
[[nodiscard]] Expected<std::size_t> total_host_memory();

class MemoryPool;  // memory_pool.hpp

/// Options for running a model.
struct Execution {
    Device device = Device::kCpu;
    /// The OpenCL device under Device::kGpu: an index of gpu::devices() (ld.gpu.devices()).
    std::size_t device_index = 0;
    /// 0: every hardware thread (at most kMaxThreads); otherwise exactly this many, at most
    /// kMaxThreads (thread_pool.hpp; more is a BackendError when the pool is made).
    std::size_t threads = 0;
    ir::Precision precision = ir::Precision::kF64;
    AutodiffMode autodiff = AutodiffMode::kAuto;
    JitPolicy jit = JitPolicy::kAuto;
    NormalizationMode normalization = NormalizationMode::kAuto;
    MemoryPlan memory;
    /// Under Device::kGpu, the budget of the device memory that input columns stay resident in,
    /// resolved against the device's global memory (OpenCL reports no free memory, so
    /// "available" and "total" both mean it); unlimited: 3/4 of it. The runtime also plans the
    /// event cache within it (MemoryPool(const Execution&)), so a cache larger than the device
    /// budget streams through the device in event windows. Ignored on the CPU.
    MemoryPlan device_memory;
    /// The processes that share the events (nullptr: this process alone). Every process builds
    /// the same model and prepares the same global data; each caches only the chunks it owns
    /// and reductions are merged across processes (distributed::mpi_collective() over MPI).
    std::shared_ptr<const Collective> collective;
    /// The one budget shared by everything prepared with this execution and its copies, and
    /// their decision log (memory_pool.hpp; make it from `memory`). nullptr: each PreparedModel
    /// and normalisation matrix plans against the whole budget on its own, and an NLL makes
    /// one pool for the data, accepted Monte Carlo and projections it prepares. Python's
    /// ld.Execution always has one.
    std::shared_ptr<MemoryPool> memory_pool;

    /// The thread count to use: `threads`, or std::thread::hardware_concurrency() (at least 1,
    /// at most kMaxThreads).
    [[nodiscard]] std::size_t resolved_threads() const noexcept;
};

}  // namespace laddu::runtime
