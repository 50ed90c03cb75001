// Code generation with the machine scheduler chosen per kernel. A reverse-mode kernel keeps its
// forward values live until their adjoints are formed, and its loop body (300-400 instructions
// per 8 events for the K-matrix gradient) is longer than a reorder buffer holds, so what cannot
// start early waits. LLVM's "ilpmin" strategy (bottom-up, least instruction-level parallelism
// first, which keeps fewer values live) made the K-matrix NLL's value + gradient 11-12 % faster
// on Zen 4 at 10,000 events (1 and 2 threads) and 5 % at 1,000,000 (docs/jit.md), measured when
// every column was loaded once and every output stored at the body's end, and the one-output
// value kernel 15 % slower, so the choice is per kernel. With the lowering's second loads and
// early stores (lower.cpp) the two schedules run that gradient kernel equally fast on an Intel
// Xeon (ilpmin 357 instructions and 12 spills per 8 events, the default 320 and none;
// bench/ab_kmatrix.py at 5,120 events: 1.007x). Scheduling orders instructions and never changes
// a value.
#include "schedule.hpp"

#include <memory>
#include <mutex>
#include <string>

#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Target/TargetMachine.h>

namespace laddu::jit::detail {

namespace {

// LLVM reads its machine scheduler from the global option "-misched" while it generates code
// (MachineScheduler::createMachineScheduler): code generation that sets it holds this lock.
std::mutex& scheduler_option_mutex() {
    static std::mutex mutex;
    return mutex;
}

llvm::cl::Option* scheduler_option() {
    const llvm::StringMap<llvm::cl::Option*>& options = llvm::cl::getRegisteredOptions();
    const auto it = options.find("misched");
    return it == options.end() ? nullptr : it->second;
}

// Sets "-misched" for the life of the object and puts the target's default back after.
class ScopedScheduler {
public:
    explicit ScopedScheduler(const char* strategy) : option_(scheduler_option()) {
        if (option_ != nullptr) {
            // addOccurrence parses the name as the command line would; an unknown one
            // (another LLVM build) returns true and leaves the default in place.
            set_ = !option_->addOccurrence(0, "misched", strategy);
        }
    }

    ~ScopedScheduler() {
        if (set_) {
            (void)option_->addOccurrence(0, "misched", "default");
        }
    }

    ScopedScheduler(const ScopedScheduler&) = delete;
    ScopedScheduler& operator=(const ScopedScheduler&) = delete;
    ScopedScheduler(ScopedScheduler&&) = delete;
    ScopedScheduler& operator=(ScopedScheduler&&) = delete;

private:
    llvm::cl::Option* option_;
    bool set_ = false;
};

}  // namespace

Schedule schedule_for(std::size_t outputs) {
    return outputs > kTargetScheduleMaxOutputs ? Schedule::kFewLiveValues : Schedule::kTarget;
}

const char* schedule_name(Schedule schedule) {
    return schedule == Schedule::kFewLiveValues ? "ilpmin" : "target";
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
generate_code(llvm::TargetMachine& machine, llvm::Module& module, Schedule schedule) {
    llvm::orc::SimpleCompiler compiler(machine);
    // Every schedule takes the lock: a kTarget compile beside a kFewLiveValues one would
    // otherwise read the other's setting (and cache that code under its own key).
    const std::lock_guard lock(scheduler_option_mutex());
    if (schedule == Schedule::kTarget) {
        return compiler(module);
    }
    const ScopedScheduler scheduler(schedule_name(schedule));
    return compiler(module);
}

}  // namespace laddu::jit::detail
