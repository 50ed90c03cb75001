// The one place that knows whether the JIT was built: select_kernel() applies the JIT policy.
#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/base/log.hpp>

#include "chunk_kernel.hpp"

#if LADDU_HAVE_JIT
#include "jit_kernel.hpp"
#endif

namespace laddu::runtime::detail {

namespace {

// Under kAuto the JIT is used from this many events on. Measured (docs/jit.md, bench/README.md):
// the K-matrix evaluate program and its fused log reduction compile in ~30 ms and then save
// ~0.05 us per event per evaluation (the NLL value: interpreter ~6.5 ms, JIT ~1.4 ms per 1e5
// events); a fit evaluates hundreds of times, so a few thousand events repay the compile within
// one fit. Small programs compile faster.
constexpr std::size_t kJitBreakEvenEvents = 2048;

}  // namespace

std::shared_ptr<const ChunkKernel> select_kernel(const ir::Program& program,
                                                 ir::Precision precision, JitPolicy policy,
                                                 std::size_t events) {
    if (policy == JitPolicy::kDisabled ||
        (policy == JitPolicy::kAuto && events < kJitBreakEvenEvents)) {
        return make_interpreter_kernel(program, precision);
    }
#if LADDU_HAVE_JIT
    auto jit = make_jit_kernel(program, precision);
    if (jit) {
        return std::move(jit).value();
    }
    if (policy == JitPolicy::kEnabled) {
        throw BackendError("the JIT was required (JitPolicy::kEnabled) but could not compile the "
                           "program: " +
                           jit.error().message);
    }
    log_once(LogLevel::kWarn, "runtime.jit_fallback",
             "the JIT could not compile a program, using the interpreter: " + jit.error().message);
#else
    if (policy == JitPolicy::kEnabled) {
        throw BackendError("the JIT was required (JitPolicy::kEnabled) but laddu-cpp was built "
                           "without LLVM (LADDU_WITH_LLVM=OFF); use JitPolicy::kAuto or "
                           "kDisabled, or rebuild with llvm-19-dev installed");
    }
#endif
    return make_interpreter_kernel(program, precision);
}

}  // namespace laddu::runtime::detail
