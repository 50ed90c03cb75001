// laddu/gpu/gpu.hpp: runs an ir::Program on an OpenCL device (a GPU, or a CPU through PoCL).
//
// lower_to_opencl() emits a program as OpenCL C: a one-work-item kernel for the invariant
// instructions, then the event kernel, one work-item per event, with the IR's complex formulas
// (docs/ir.md "Arithmetic") and kSolve's pivoting, and with doubles the reduction kernel.
// compile() builds that source with the device driver (cached by program hash, precision and
// device). Kernel::run() evaluates a range of events: input columns are uploaded on first use
// and stay resident on the device (keyed by host address, length and a sample of their values),
// only the parameters travel per call, and the per-event outputs come back to the host.
// Kernel::reduce() instead sums the outputs on the device in the runtime's fixed lanes, so only
// a few doubles per 1024 events come back and the sums do not depend on the work-group size.
// docs/gpu.md describes the design.
//
// Example:
//   for (const gpu::DeviceInfo& d : gpu::devices()) fmt::print("{}: {}\n", d.index, d.name);
//   auto kernel = gpu::compile(program, ir::Precision::kF64, 0);
//   kernel->run(params, ir::ColumnView{columns, n}, 0, n, outputs);
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <laddu/ir/columns.hpp>
#include <laddu/ir/precision.hpp>
#include <laddu/ir/program.hpp>

namespace laddu::gpu {

/// One OpenCL device, as gpu::devices() lists it.
struct DeviceInfo {
    std::size_t index = 0;  ///< the device number Execution and compile() take
    std::string name;       ///< CL_DEVICE_NAME
    std::string vendor;     ///< CL_DEVICE_VENDOR
    std::string platform;   ///< the platform's name ("NVIDIA CUDA", "Portable Computing...")
    std::string version;    ///< CL_DEVICE_VERSION
    std::uint64_t global_memory{};      ///< CL_DEVICE_GLOBAL_MEM_SIZE, bytes
    std::uint64_t max_allocation{};     ///< CL_DEVICE_MAX_MEM_ALLOC_SIZE, bytes
    std::uint32_t vendor_id{};          ///< CL_DEVICE_VENDOR_ID (the PCI vendor id on most GPUs)
    std::size_t max_work_group_size{};  ///< CL_DEVICE_MAX_WORK_GROUP_SIZE
    bool fp64 = false;    ///< double support (cl_khr_fp64): needed for Precision::kF64
    bool is_gpu = false;  ///< CL_DEVICE_TYPE_GPU (false for CPU devices such as PoCL's)
};

/// Every device of every OpenCL platform, numbered in platform then device order. Empty when no
/// OpenCL platform is installed (no ICD), never an error.
[[nodiscard]] std::vector<DeviceInfo> devices();

/// Device `index`, or BackendError naming the devices there are (or saying that no OpenCL
/// platform is installed, and how to install one).
[[nodiscard]] DeviceInfo device(std::size_t index);

/// `program` as OpenCL C source with two kernels (and, with `fp64`, Kernel::reduce's
/// `laddu_reduce` over the outputs): `laddu_invariants(params, inv)`, run on one
/// work-item, evaluates the invariant instructions (in double when `fp64`, as every backend does;
/// in float otherwise) into the buffer `inv`; `laddu_kernel(inv, inputs..., outputs..., begin,
/// count)` has work-item g evaluate event begin + g into element g of the outputs. Inputs are one
/// buffer per column (re, then im for a Complex slot; double under kF64, float under kF32),
/// outputs likewise (double when `fp64`, else float). Throws CompileError for an invalid program
/// and BackendError for kF64 without `fp64`.
[[nodiscard]] std::string lower_to_opencl(const ir::Program& program, ir::Precision precision,
                                          bool fp64 = true);

/// The term Kernel::reduce sums for each event, v being its output 0 and w its weight (the
/// runtime's ReductionTransform).
enum class ReductionTerm : std::uint8_t {
    kReal = 0,      ///< w v
    kPositive = 1,  ///< w v, with 0 < v < inf checked
    kLog = 2,       ///< w log v (laddu::log_positive), with 0 < v < inf checked
    kLogFloat = 3,  ///< w log v as laddu::log_positive_f32 (f32 value reductions), checked
};

/// What Kernel::reduce sums, chunk by chunk.
struct Reduction {
    ReductionTerm term = ReductionTerm::kReal;
    /// 1: the value term only; more: also Σ w T'(v) out_j for j = 1 .. sums - 1 (Real outputs),
    /// T' = 1 / v for the logs (the scale rounded as w · (1 / v)), else 1.
    std::size_t sums = 1;
    std::size_t chunk_events = 1024;  ///< events per chunk (the runtime's kReductionChunk)
};

namespace detail {
struct KernelState;
}  // namespace detail

/// A program built for one device. Immutable and thread-safe: run() may be called from any
/// number of threads (launches on one device are serialised).
class Kernel {
public:
    explicit Kernel(std::shared_ptr<detail::KernelState> state);

    /// Evaluates events [begin, begin + count) of `inputs` and writes event begin + i's outputs
    /// to out[j].re[i] (and .im[i] for a Complex output when non-null). `params` holds the
    /// program's parameter_count values (EvaluationError otherwise). Input columns are uploaded
    /// once and reused while their host memory is unchanged; least recently used columns are
    /// freed to keep the resident ones within `resident_budget` bytes (0: 3/4 of the device's
    /// memory). `work_group_size` 0 lets the driver choose; the values are the same for every
    /// size. Throws BackendError when the device runs out of memory or a launch fails.
    void run(std::span<const double> params, const ir::ColumnView& inputs, std::size_t begin,
             std::size_t count, std::span<const ir::OutputColumn> out,
             std::size_t work_group_size = 0, std::size_t resident_budget = 0) const;

    /// Whether reduce() runs on this kernel's device: it sums in double, so it needs the
    /// device's doubles (cl_khr_fp64), in either precision.
    [[nodiscard]] bool reduces() const noexcept;

    /// Evaluates events [begin, begin + count) like run() and sums their terms on the device,
    /// without reading the per-event outputs back. Chunk c holds events begin + c ·
    /// reduction.chunk_events onwards; its sum j goes to lanes[(c · sums + j) · 16 ...]: 8 lane
    /// sums, then their 8 compensations, event i of the chunk in lane i % 8, each lane a
    /// sequential TwoSum chain. So the lanes are those of a laddu::LaneSum over the same terms,
    /// bit for bit, whatever the work-group size. bad[c] is set when a value of chunk c failed
    /// the term's check (its lanes are then meaningless). `weights` holds one weight per input
    /// event. BackendError when !reduces(); DataError for a wrong sum count, a Complex gradient
    /// output, or short `lanes` / `bad` spans.
    void reduce(std::span<const double> params, const ir::ColumnView& inputs,
                std::span<const double> weights, std::size_t begin, std::size_t count,
                const Reduction& reduction, std::span<double> lanes, std::span<std::uint8_t> bad,
                std::size_t work_group_size = 0, std::size_t resident_budget = 0) const;

    /// The program it runs.
    [[nodiscard]] const ir::Program& program() const noexcept;

    /// The arithmetic precision.
    [[nodiscard]] ir::Precision precision() const noexcept;

    /// The device index.
    [[nodiscard]] std::size_t device() const noexcept;

    /// The OpenCL C source it was built from.
    [[nodiscard]] const std::string& source() const noexcept;

    /// Seconds the driver took to build it (the first time, on a cache hit).
    [[nodiscard]] double compile_seconds() const noexcept;

private:
    std::shared_ptr<detail::KernelState> state_;
};

/// Builds `program` for device `device_index` in `precision`, or returns the kernel built earlier
/// in this process for an equal program, precision and device. Throws CompileError for an
/// invalid program and BackendError when there is no such device, the device lacks double
/// support under kF64, or the driver rejects the source (the message carries its build log).
[[nodiscard]] std::shared_ptr<const Kernel>
compile(const ir::Program& program, ir::Precision precision, std::size_t device_index = 0);

/// The number of built kernels in the process-wide cache.
[[nodiscard]] std::size_t cache_size() noexcept;

/// Empties the kernel cache and frees every resident input column on every device (kernels
/// already handed out stay usable and upload again on their next run).
void clear_cache() noexcept;

/// Bytes of input columns currently resident on device `device_index` (0 for an unknown one).
[[nodiscard]] std::size_t resident_bytes(std::size_t device_index) noexcept;

}  // namespace laddu::gpu
