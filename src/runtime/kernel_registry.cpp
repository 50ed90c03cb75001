// The one place that knows whether the JIT and the GPU backend were built: select_kernel()
// applies the device and the JIT policy.
#include <limits>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/base/log.hpp>

#include "chunk_kernel.hpp"

#if LADDU_HAVE_JIT
#include "jit_kernel.hpp"
#endif

#if LADDU_HAVE_GPU
#include <laddu/gpu/gpu.hpp>

#include "gpu_kernel.hpp"
#endif

namespace laddu::runtime::detail {

namespace {

// Under kAuto a program run once per evaluation gets the JIT from this many events on: the
// K-matrix evaluate program and its fused log reduction compile in ~30 ms and then save
// ~0.05 us per event per evaluation (the NLL value: interpreter ~6.5 ms, JIT ~1.4 ms per 1e5
// events); a fit evaluates hundreds of times, so a few thousand events repay the compile within
// one fit.
constexpr std::size_t kJitBreakEvenEvents = 2048;

// A program run once per preparation (precompute, the normalisation statistics) repays a
// compile only over many events: the K-matrix benchmark's precompute program (1122
// instructions; per-event complex solves and library calls, which the JIT leaves scalar)
// compiles in ~110 ms and its statistics program in ~15 ms, and the JIT then saves ~0.14 us
// per event (1e6 events prepared in 1.70 s against 1.84 s on the interpreter, `laddu-cpp bench
// kmatrix --jit on|auto` with the objects cached). So under kAuto such a program takes the JIT
// from this many events on, which also leaves its code in the object cache (docs/jit.md), and
// from kJitBreakEvenEvents on when its code is already there: a load of ~0.3 ms.
constexpr std::size_t kJitOnceBreakEvenEvents = 1000000;

}  // namespace

std::shared_ptr<const ChunkKernel> select_kernel(const ir::Program& program,
                                                 ir::Precision precision, JitPolicy policy,
                                                 std::size_t events, Passes passes) {
    if (policy == JitPolicy::kDisabled ||
        (policy == JitPolicy::kAuto && events < kJitBreakEvenEvents)) {
        return make_interpreter_kernel(program, precision);
    }
#if LADDU_HAVE_JIT
    const bool cached_only =
        policy == JitPolicy::kAuto && passes == Passes::kOnce && events < kJitOnceBreakEvenEvents;
    auto jit = make_jit_kernel(program, precision, cached_only);
    if (jit) {
        return std::move(jit).value();
    }
    if (cached_only) {
        // Not compiled before: the interpreter, as for a program nobody has asked the JIT for.
        return make_interpreter_kernel(program, precision);
    }
    if (policy == JitPolicy::kEnabled) {
        throw BackendError("the JIT was required (JitPolicy::kEnabled) but could not compile the "
                           "program: " +
                           jit.error().message);
    }
    log_once(LogLevel::kWarn, "runtime.jit_fallback",
             "the JIT could not compile a program, using the interpreter: " + jit.error().message);
#else
    (void)passes;
    if (policy == JitPolicy::kEnabled) {
        throw BackendError("the JIT was required (JitPolicy::kEnabled) but laddu-cpp was built "
                           "without LLVM (LADDU_WITH_LLVM=OFF); use JitPolicy::kAuto or "
                           "kDisabled, or rebuild with llvm-19-dev installed");
    }
#endif
    return make_interpreter_kernel(program, precision);
}

std::size_t device_budget(const Execution& execution) {
    if (execution.device != Device::kGpu || execution.device_memory.is_unlimited()) {
        return std::numeric_limits<std::size_t>::max();
    }
#if LADDU_HAVE_GPU
    const std::size_t memory = gpu::device(execution.device_index).global_memory;
    return execution.device_memory.resolve_against(memory, memory);
#else
    return std::numeric_limits<std::size_t>::max();
#endif
}

std::shared_ptr<const ChunkKernel> select_kernel(const ir::Program& program,
                                                 ir::Precision precision,
                                                 const Execution& execution, std::size_t events,
                                                 Passes passes) {
    if (execution.device == Device::kGpu && passes == Passes::kMany) {
#if LADDU_HAVE_GPU
        const std::size_t budget = device_budget(execution);
        return make_gpu_kernel(program, precision, execution.device_index,
                               budget == std::numeric_limits<std::size_t>::max() ? 0 : budget);
#else
        throw BackendError("the GPU was asked for (Device::kGpu) but laddu-cpp was built without "
                           "the OpenCL backend (LADDU_WITH_OPENCL=OFF or no OpenCL headers and "
                           "ICD loader at build time); rebuild with opencl-headers and "
                           "ocl-icd-opencl-dev installed, or run on the CPU");
#endif
    }
    return select_kernel(program, precision, execution.jit, events, passes);
}

}  // namespace laddu::runtime::detail
