// Lowers an ir::Program to one LLVM function (the kernel ABI of include/laddu/jit/jit.hpp).
#pragma once

#include <string>

#include <laddu/base/expected.hpp>
#include <laddu/ir/program.hpp>
#include <laddu/jit/jit.hpp>

namespace llvm {
class Module;
}  // namespace llvm

namespace laddu::jit::detail {

/// Where and for what CPU the kernel is generated.
struct LowerOptions {
    std::string function_name;  ///< the symbol the kernel is looked up by
    std::string cpu;            ///< "target-cpu" attribute (empty: the module default)
    std::string features;       ///< "target-features" attribute
    InputColumns inputs = InputColumns::kDouble;  ///< what the input column pointers hold
};

/// Appends the kernel for a validated `program` to `module`: invariant instructions at function
/// entry, event instructions in the loop over [begin, end). Fails (kBackend) if the resulting
/// function does not verify.
[[nodiscard]] Expected<void> lower_program(const ir::Program& program, Precision precision,
                                           const LowerOptions& options, llvm::Module& module);

}  // namespace laddu::jit::detail
