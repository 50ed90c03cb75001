// laddu/runtime/execution.hpp: how a model is run: device, threads, precision, autodiff mode,
// JIT policy and the host-memory budget.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <laddu/autodiff/gradient.hpp>
#include <laddu/base/expected.hpp>
#include <laddu/ir/precision.hpp>
#include <laddu/runtime/collective.hpp>

namespace laddu::runtime {

/// Where kernels run. Only the CPU exists today.
enum class Device : std::uint8_t { kCpu };

/// How gradients are computed (autodiff::AutodiffMode: auto, forward or reverse).
using AutodiffMode = autodiff::AutodiffMode;

/// Whether to compile kernels with the LLVM JIT: when available (kAuto), required, or never.
enum class JitPolicy : std::uint8_t { kAuto, kEnabled, kDisabled };

/// A host-memory budget: a fixed byte count, or a fraction of MemAvailable at resolve time.
class MemoryPlan {
public:
    /// No limit (the default).
    MemoryPlan() = default;

    /// A budget of exactly `bytes`.
    [[nodiscard]] static MemoryPlan bytes(std::size_t bytes);

    /// A budget of `percent` (0 < percent <= 100) of MemAvailable, read when resolved.
    [[nodiscard]] static MemoryPlan fraction_of_available(double percent);

    /// Parses "2 GiB", "512 MiB", "1.5GB", "4096", "4096 B", "70% available" or "70%". Binary
    /// units KiB/MiB/GiB/TiB, decimal kB/KB/MB/GB/TB, case-insensitive, space optional. Throws
    /// ModelError naming the text and the accepted forms when it cannot parse.
    [[nodiscard]] static MemoryPlan parse(std::string_view text);

    /// True when no budget was set.
    [[nodiscard]] bool is_unlimited() const noexcept { return kind_ == Kind::kUnlimited; }

    /// The budget in bytes: SIZE_MAX when unlimited; a fraction reads /proc/meminfo (throws
    /// DataError if MemAvailable cannot be read).
    [[nodiscard]] std::size_t resolve() const;

    /// "unlimited", "2147483648 bytes" or "70% of available".
    [[nodiscard]] std::string to_string() const;

private:
    enum class Kind : std::uint8_t { kUnlimited, kBytes, kFraction };

    Kind kind_ = Kind::kUnlimited;
    std::size_t bytes_ = 0;
    double percent_ = 0.0;
};

/// MemAvailable from /proc/meminfo, in bytes, or why it could not be read.
[[nodiscard]] Expected<std::size_t> available_host_memory();

/// Options for running a model.
struct Execution {
    Device device = Device::kCpu;
    /// 0: every hardware thread (at most kMaxThreads); otherwise exactly this many, at most
    /// kMaxThreads (thread_pool.hpp; more is a BackendError when the pool is made).
    std::size_t threads = 0;
    ir::Precision precision = ir::Precision::kF64;
    AutodiffMode autodiff = AutodiffMode::kAuto;
    JitPolicy jit = JitPolicy::kAuto;
    MemoryPlan memory;
    /// The processes that share the events (nullptr: this process alone). Every process builds
    /// the same model and prepares the same global data; each caches only the chunks it owns
    /// and reductions are merged across processes (distributed::mpi_collective() over MPI).
    std::shared_ptr<const Collective> collective;

    /// The thread count to use: `threads`, or std::thread::hardware_concurrency() (at least 1,
    /// at most kMaxThreads).
    [[nodiscard]] std::size_t resolved_threads() const noexcept;
};

}  // namespace laddu::runtime
