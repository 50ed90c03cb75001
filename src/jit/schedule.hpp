// Code generation under a machine-scheduler strategy chosen per kernel (schedule.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace llvm {
template <class T>
class Expected;
class MemoryBuffer;
class Module;
class TargetMachine;
}  // namespace llvm

namespace laddu::jit::detail {

/// How LLVM's machine scheduler orders a kernel's instructions (schedule.cpp).
enum class Schedule : std::uint8_t {
    kTarget,         ///< the target's default
    kFewLiveValues,  ///< LLVM's "ilpmin": bottom-up, fewest values live
};

/// Kernels with more outputs than this (reverse-mode gradients) get Schedule::kFewLiveValues.
inline constexpr std::size_t kTargetScheduleMaxOutputs = 4;

/// The schedule for a kernel with `outputs` output values.
Schedule schedule_for(std::size_t outputs);

/// The strategy's name in LLVM ("ilpmin"; "target" for the default), part of the object key.
const char* schedule_name(Schedule schedule);

/// `module`'s object code for `machine` under `schedule`. Code generation is serialised within
/// the process: LLVM reads the scheduler from a global option.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
generate_code(llvm::TargetMachine& machine, llvm::Module& module, Schedule schedule);

}  // namespace laddu::jit::detail
