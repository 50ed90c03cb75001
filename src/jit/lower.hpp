// Lowers an ir::Program to one LLVM function (the kernel ABI of include/laddu/jit/jit.hpp).
#pragma once

#include <bit>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <laddu/base/expected.hpp>
#include <laddu/ir/program.hpp>
#include <laddu/jit/jit.hpp>

namespace llvm {
class Function;
class FunctionType;
class Module;
}  // namespace llvm

namespace laddu::jit::detail {

/// Where and for what CPU the kernel is generated.
struct LowerOptions {
    std::string function_name;  ///< the symbol the kernel is looked up by
    std::string cpu;            ///< "target-cpu" attribute (empty: the module default)
    std::string features;       ///< "target-features" attribute
    InputColumns inputs = InputColumns::kDouble;  ///< what the input column pointers hold
    /// Bytes from each input column to the next when they are evenly spaced (the kernel reads
    /// only the first pointer and addresses column c at it + c · input_stride); 0: every
    /// column's own pointer.
    std::size_t input_stride = 0;
    /// The same for the output columns.
    std::size_t output_stride = 0;
    /// The kernel evaluates only the whole groups of 8 events of its range, [begin, begin +
    /// 8 ⌊(end − begin) / 8⌋), and leaves the rest to its caller: its vectorised loop then
    /// needs neither a masked tail nor a scalar copy of the body, and its loads, unmasked, fold
    /// into their arithmetic. A fused reduction's own copy of the kernel is built so, and the
    /// reduction runs a block's last events on the kernel (docs/jit.md).
    bool whole_groups = false;
};

/// The events of a group that LowerOptions::whole_groups evaluates together (a power of 2).
inline constexpr std::size_t kWholeGroup = 8;
static_assert(std::has_single_bit(kWholeGroup), "groups are counted by shifts");

/// log2(kWholeGroup): event index = group << kWholeGroupShift.
inline constexpr unsigned kWholeGroupShift = std::countr_zero(kWholeGroup);

/// A new external function of `module` for the host: nounwind, the given target-cpu and
/// target-features attributes (when not empty), and its arguments named.
[[nodiscard]] llvm::Function* create_function(llvm::Module& module, llvm::FunctionType* type,
                                              const std::string& name, const std::string& cpu,
                                              const std::string& features,
                                              std::span<const char* const> argument_names);

/// Fails (kBackend, naming `what`) when `fn` does not pass LLVM's verifier.
[[nodiscard]] Expected<void> verify(const llvm::Function& fn, const std::string& what);

/// Appends the kernel for a validated `program` to `module`: invariant instructions at function
/// entry, event instructions in the loop over [begin, end). Fails (kBackend) if the resulting
/// function does not verify.
[[nodiscard]] Expected<void> lower_program(const ir::Program& program, ir::Precision precision,
                                           const LowerOptions& options, llvm::Module& module);

/// What the reduction of lower_reduction needs to know about the kernel it calls.
struct ReductionLayout {
    std::string kernel_name;  ///< the kernel's symbol (resolved in the same JITDylib)
    /// When set, kernel_name is built with LowerOptions::whole_groups, and this kernel (the
    /// program's own, reading every pointer) evaluates a block's events past its whole groups.
    std::string tail_kernel_name;
    std::string function_name;  ///< the reduction's symbol
    std::string cpu;            ///< as LowerOptions
    std::string features;       ///< as LowerOptions
    std::size_t input_pointers = 0;
    bool float_inputs = false;  ///< the input columns hold float
    /// Per output, the index of its real column among the kernel's output pointers, and
    /// whether it is Real.
    std::vector<std::size_t> output_column;
    std::vector<bool> output_real;
    std::size_t output_pointers = 0;
};

/// Bytes ahead of each vector load that insert_prefetches prefetches: four cache lines, 32
/// events of a double column (measured on the K-matrix benchmark: 16 to 128 events ahead all
/// help out of cache, 24-32 most; bench/README.md).
inline constexpr std::size_t kPrefetchBytes = 256;

/// The cache level insert_prefetches asks for on CPU `cpu` (LLVM's name, "znver4"), as
/// llvm.prefetch's locality: 0 (prefetchnta) on Zen 5, 2 (prefetcht1, into L2) on AMD's other
/// cores and an unknown host, 3 (prefetcht0, into L1) on the rest (Intel's cores), each where
/// it was measured fastest.
int prefetch_locality(std::string_view cpu);

/// Puts a prefetch of address + `bytes_ahead` at `locality` (prefetch_locality) before every
/// vector load in `fn`'s vectorised loop (a block that branches back to itself); returns how
/// many it inserted (0 when the loop did not vectorise). Values are unchanged: a prefetch only
/// moves cache lines.
std::size_t insert_prefetches(llvm::Function& fn, std::size_t bytes_ahead, int locality);

/// Events per block of a fused reduction over a kernel with `output_pointers` output columns:
/// 32 KiB of outputs (lower_reduction.cpp says why), a multiple of LaneSum's runs of 64 events,
/// from 64 to 1024.
[[nodiscard]] std::size_t reduction_block(std::size_t output_pointers) noexcept;

/// Fails (kBackend) for a spec the kernel of `layout` cannot take: spec.sums not in
/// [1, outputs], or a summed gradient output that is Complex.
[[nodiscard]] Expected<void> check_reduction(const ReductionLayout& layout,
                                             const ReductionSpec& spec);

/// Appends the fused reduction `spec` (the ReductionFn ABI of include/laddu/jit/jit.hpp) to
/// `module`: it calls the kernel `layout.kernel_name` (declared here, resolved in the kernel's
/// JIT instance) on blocks of events that stay in cache and sums their outputs in explicit
/// vector code. Fails (kBackend) for a spec the kernel cannot take (spec.sums not in
/// [1, outputs], or a Complex output among the gradient sums) or a function that does not
/// verify.
[[nodiscard]] Expected<void> lower_reduction(const ReductionLayout& layout,
                                             const ReductionSpec& spec, llvm::Module& module);

}  // namespace laddu::jit::detail
