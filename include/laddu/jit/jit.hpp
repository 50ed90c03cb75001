// laddu/jit/jit.hpp: compiles an ir::Program to native code with LLVM ORC (LLJIT).
//
// Stages: ir::validate → lower (one LLVM function per program: invariant instructions at
// function entry, event instructions in a loop over [begin, end)) → a short IR pipeline (CSE,
// the loop vectoriser, instcombine) for the host CPU (512-bit vectors where the CPU has AVX-512,
// else AVX2 or SSE2; with AVX the loop's last events run as one masked vector iteration) →
// machine code. Entry point: compile(). docs/jit.md describes the kernel ABI, what vectorises
// and the compile latency. LADDU_JIT_DUMP=<directory> writes each kernel's LLVM IR there.
//
// Example:
//   auto kernel = jit::compile(program, ir::Precision::kF64);
//   if (!kernel) { log(LogLevel::kWarn, kernel.error().message); return use_interpreter(); }
//   const double* inputs[] = {amp0_re, amp0_im};   // one pointer per Real slot, two per Complex
//   double* outputs[] = {intensity};
//   kernel->run(params, inputs, outputs, 0, n_events);
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include <laddu/base/expected.hpp>
#include <laddu/ir/precision.hpp>
#include <laddu/ir/program.hpp>

namespace laddu::jit {

/// How much work machine-code generation does (the IR pipeline, with vectorisation, is the same
/// for both).
enum class CodeGen : std::uint8_t {
    kOptimized,  ///< LLVM's default code generator: the fastest kernels (the default)
    kFast,       ///< no code-generator optimisation: machine code ~5x quicker (total compile
                 ///< ~2.5-3x), kernels up to ~25% slower on cache-resident data; for small data
                 ///< sets where compile latency dominates
};

/// Whether compile() may generate code (CacheUse::kCompileOnMiss, the default) or only take a
/// kernel compiled before, in this process or into the object cache (docs/jit.md): a caller
/// whose program runs once (a precompute) takes the JIT only when its code costs a load.
enum class CacheUse : std::uint8_t {
    kCompileOnMiss,  ///< compile when no cache holds the kernel
    kCachedOnly,     ///< a kBackend failure, compiling nothing, when no cache holds it
};

/// The type of the input columns a kernel reads. Double columns suit any precision; float
/// columns (an f32 event cache, half the bytes per event) give an f32 kernel the same bits, since
/// it rounds every loaded value to float anyway; an f64 kernel widens them.
enum class InputColumns : std::uint8_t {
    kDouble,  ///< `inputs` holds `const double*` columns (the default)
    kFloat,   ///< `inputs` holds `const float*` columns: use the run() overload that takes them
};

/// The signature of a compiled kernel (the ABI, see JitKernel::run for the pointer layout).
using KernelFn = void (*)(const double* params, const double* const* inputs, double* const* outputs,
                          std::int64_t begin, std::int64_t end);

/// The per-event term a fused reduction (JitKernel::reduce) sums. v is the real part of the
/// kernel's output 0 and w the event's weight.
enum class ReductionTerm : std::uint8_t {
    kReal,      ///< w · v
    kPositive,  ///< w · v; every v must be finite and positive
    kLog,       ///< w · laddu::log_positive(v); v finite and positive; gradient scale w · (1 / v)
    kLogFloat,  ///< w · log_positive_f32(v) (f32 value reductions); as kLog else
};

/// What a fused reduction sums over a range of events: the value sum Σ w T(v) and, when `sums`
/// is more than 1, the gradient sums Σ s · out_j for outputs j = 1 .. sums - 1 (which must be
/// Real), with s = w · (1 / v) under the log terms and s = w otherwise. These are the terms of
/// the runtime's chunk reductions, term for term.
struct ReductionSpec {
    ReductionTerm term = ReductionTerm::kReal;
    std::uint32_t sums = 1;
    /// Every weight is 1: the reduction does not read `weights` (which may be null) and adds
    /// the terms T(v), with the same bits as fma(1, T(v), run).
    bool unit_weights = false;
    /// Bytes from each input column to the next when the caller's columns are evenly spaced
    /// (as an EventCache lays them out), every pointer still naming its column; 0 when they are
    /// not. A reduction over more columns than general registers then reads only `inputs[0]`
    /// and addresses every column from it.
    std::size_t input_stride = 0;

    friend bool operator==(const ReductionSpec&, const ReductionSpec&) = default;
};

/// The lanes of one sum of a fused reduction: event i of the range (counted from 0) goes to
/// lane i % 8, and each lane is a TwoSum (s, c) pair, exactly as in laddu::LaneSum.
inline constexpr std::size_t kReductionLanes = 8;

/// The signature of a fused reduction (see JitReduction::run). Returns nonzero when a value
/// failed the term's check.
using ReductionFn = std::int32_t (*)(const double* params, const double* const* inputs,
                                     const double* weights, std::int64_t count, double* lanes);

/// Owns the LLVM JIT instance and the machine code of one compiled program; destroying it frees
/// the code. Kernels share ownership of their module, so a JitKernel stays callable on its own.
class JitModule;

/// A kernel fused with one reduction of its outputs (JitKernel::reduction). run() evaluates the
/// kernel over events [0, count) of `inputs` (laid out as for JitKernel::run, each column
/// starting at the range's first event) in blocks that stay in cache, and adds every event's
/// terms to `lanes`: sum j's lane sums at lanes[16 j .. 16 j + 8), its compensations at
/// lanes[16 j + 8 .. 16 j + 16), event i in lane i % 8. The sums are bit-identical to
/// laddu::LaneSums over the kernel's run() outputs.
class JitReduction {
public:
    /// Adds the terms of events [0, count) to `lanes` (spec.sums × 16 doubles). `weights` holds
    /// count doubles. Returns false when the term needs positive values and one was not (the
    /// lanes are then unspecified: evaluate with JitKernel::run to find the event).
    /// Thread-safe: any number of threads may run it at once, each on its own lanes.
    [[nodiscard]] bool run(const double* params, const double* const* inputs, const double* weights,
                           std::int64_t count, double* lanes) const noexcept {
        return fn_(params, inputs, weights, count, lanes) == 0;
    }

    /// run() over float input columns (a kernel compiled with InputColumns::kFloat).
    [[nodiscard]] bool run(const double* params, const float* const* inputs, const double* weights,
                           std::int64_t count, double* lanes) const noexcept {
        // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): one pointer ABI for both
        return run(params, reinterpret_cast<const double* const*>(inputs), weights, count, lanes);
    }

    /// The raw function pointer (valid while this reduction, or its kernel, lives).
    [[nodiscard]] ReductionFn function() const noexcept { return fn_; }

    /// What it sums.
    [[nodiscard]] const ReductionSpec& spec() const noexcept { return spec_; }

    /// Seconds spent compiling it (the first time it was asked for).
    [[nodiscard]] double compile_seconds() const noexcept { return compile_seconds_; }

private:
    friend class JitModule;
    JitReduction() = default;

    std::shared_ptr<const JitModule> module_;
    ReductionFn fn_ = nullptr;
    ReductionSpec spec_;
    double compile_seconds_ = 0.0;
};

/// A compiled program: a callable kernel plus what it took to build.
///
/// Pointer layout (the kernel ABI):
/// * `params`: program.parameter_count doubles.
/// * `inputs`: column pointers, in input-slot order; a Real slot takes one pointer, a Complex
///   slot two (its real column, then its imaginary column). input_pointer_count() of them.
/// * `outputs`: column pointers, in output order; a Real output takes one pointer, a Complex
///   output two (real, then imaginary). output_pointer_count() of them.
/// * Every column is indexed by the absolute event index: the kernel reads `inputs[c][i]` and
///   writes `outputs[c][i]` for begin <= i < end, and touches nothing else.
/// * Output columns must not overlap each other or any input column (the kernel is compiled
///   assuming they do not, which is what lets it vectorise).
class JitKernel {
public:
    /// Runs the kernel over events [begin, end) (nothing when begin >= end). Thread-safe: any
    /// number of threads may run the same kernel on disjoint output ranges at once.
    void run(const double* params, const double* const* inputs, double* const* outputs,
             std::int64_t begin, std::int64_t end) const noexcept {
        fn_(params, inputs, outputs, begin, end);
    }

    /// run() for a kernel compiled with InputColumns::kFloat: `inputs` are float columns, in the
    /// same layout. (The generated code reads the pointers as what it was compiled for; this
    /// overload only spares the caller the cast.)
    void run(const double* params, const float* const* inputs, double* const* outputs,
             std::int64_t begin, std::int64_t end) const noexcept {
        // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): one pointer ABI for both
        fn_(params, reinterpret_cast<const double* const*>(inputs), outputs, begin, end);
    }

    /// The raw function pointer (valid while this kernel or a copy of it lives).
    [[nodiscard]] KernelFn function() const noexcept { return fn_; }

    /// The kernel fused with the reduction `spec` of its outputs (see JitReduction): compiled
    /// on the first call for each spec, as a small module that calls this kernel (a few ms),
    /// and cached with the kernel; thread-safe. Fails (kBackend) when spec.sums is 0 or
    /// exceeds the outputs, when an output summed as a gradient is Complex, or when LLVM
    /// cannot compile the reduction.
    [[nodiscard]] Expected<JitReduction> reduction(const ReductionSpec& spec) const;

    /// The precision the kernel computes in.
    [[nodiscard]] ir::Precision precision() const noexcept { return precision_; }

    /// The type of input columns the kernel reads.
    [[nodiscard]] InputColumns input_columns() const noexcept { return input_columns_; }

    /// Seconds spent lowering, optimising and generating code for this kernel, or lowering it
    /// and loading its object code from the object cache (on a hit of the process's kernel
    /// cache: the time of the original compilation).
    [[nodiscard]] double compile_seconds() const noexcept { return compile_seconds_; }

    /// True when the kernel's object code came from the on-disk object cache (LADDU_JIT_CACHE,
    /// docs/jit.md) instead of code generation.
    [[nodiscard]] bool cached_object() const noexcept { return cached_object_; }

    /// The number of entries `inputs` must hold (one per Real slot, two per Complex slot).
    [[nodiscard]] std::size_t input_pointer_count() const noexcept { return input_pointers_; }

    /// The number of entries `outputs` must hold (one per Real output, two per Complex output).
    [[nodiscard]] std::size_t output_pointer_count() const noexcept { return output_pointers_; }

    /// The number of LLVM IR instructions after optimisation (a size measure for reports).
    [[nodiscard]] std::size_t llvm_instruction_count() const noexcept { return llvm_instructions_; }

    /// True when the optimiser vectorised the event loop (the code holds vector arithmetic).
    [[nodiscard]] bool vectorized() const noexcept { return vectorized_; }

    /// The input streams the vectorised event loop prefetches ahead of its loads (one per
    /// vector load of a column part; 0 when the loop did not vectorise).
    [[nodiscard]] std::size_t prefetched_streams() const noexcept { return prefetched_streams_; }

    /// The module that owns the code; kernels that compare equal share it.
    [[nodiscard]] const std::shared_ptr<const JitModule>& module() const noexcept {
        return module_;
    }

    friend bool operator==(const JitKernel& a, const JitKernel& b) noexcept {
        return a.fn_ == b.fn_;
    }

private:
    friend struct KernelFactory;

    JitKernel() = default;

    std::shared_ptr<const JitModule> module_;
    KernelFn fn_ = nullptr;
    ir::Precision precision_ = ir::Precision::kF64;
    InputColumns input_columns_ = InputColumns::kDouble;
    double compile_seconds_ = 0.0;
    std::size_t input_pointers_ = 0;
    std::size_t output_pointers_ = 0;
    std::size_t llvm_instructions_ = 0;
    bool vectorized_ = false;
    std::size_t prefetched_streams_ = 0;
    bool cached_object_ = false;
};

/// Compiles `program` for `precision` over `inputs` columns, or returns the kernel compiled
/// earlier in this process for an equal program, precision, code generation and input type (the
/// cache is keyed by ir::hash and checked for equality up to names; thread-safe). Fails with
/// ErrorKind::kBackend, never aborting, when the program is invalid (the message carries
/// ir::validate's reason) or LLVM cannot compile it, and under CacheUse::kCachedOnly when
/// neither this process nor the object cache holds the kernel's code.
[[nodiscard]] Expected<JitKernel> compile(const ir::Program& program, ir::Precision precision,
                                          CodeGen codegen = CodeGen::kOptimized,
                                          InputColumns inputs = InputColumns::kDouble,
                                          CacheUse use = CacheUse::kCompileOnMiss);

/// Like compile() but always compiles afresh and leaves the cache alone (for latency
/// measurements and tests).
[[nodiscard]] Expected<JitKernel> compile_uncached(const ir::Program& program,
                                                   ir::Precision precision,
                                                   CodeGen codegen = CodeGen::kOptimized,
                                                   InputColumns inputs = InputColumns::kDouble);

/// The number of kernels in the process-wide compile cache.
[[nodiscard]] std::size_t cache_size() noexcept;

/// Empties the compile cache. Kernels already handed out stay valid (they own their module).
void clear_cache() noexcept;

/// The host CPU name LLVM compiles for (e.g. "znver3"), for reports.
[[nodiscard]] const char* host_cpu_name() noexcept;

}  // namespace laddu::jit
