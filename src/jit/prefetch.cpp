// Software prefetches in the vectorised event loop. A kernel reads every input column as its
// own stream (a K-matrix model's evaluate kernel reads 30), more than the hardware prefetchers
// follow well: out of cache, the loop then waits on memory once per column and iteration. One
// prefetch per stream and iteration, a few cache lines ahead, keeps the lines coming; a
// prefetch never faults, so reading past a column's end is harmless, and it changes no value.
#include <cstdint>
#include <string_view>
#include <vector>

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Intrinsics.h>

#include "lower.hpp"

namespace laddu::jit::detail {

namespace {

// The address a vector load reads, or null for anything else.
llvm::Value* vector_load_address(llvm::Instruction& inst) {
    if (!inst.getType()->isVectorTy()) {
        return nullptr;
    }
    if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst)) {
        return load->getPointerOperand();
    }
    if (auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
        call != nullptr && call->getIntrinsicID() == llvm::Intrinsic::masked_load) {
        return call->getArgOperand(0);
    }
    return nullptr;
}

// True for an address through the lowering's opaque copy of the first input pointer: a column's
// second load in the iteration (Lowerer::use), whose line the first load's prefetch brought.
bool is_second_load(llvm::Value* address) {
    auto* call = llvm::dyn_cast<llvm::CallInst>(llvm::getUnderlyingObject(address));
    return call != nullptr && call->isInlineAsm();
}

// A block whose terminator can branch back to itself: the vectoriser's loop body, which holds
// the whole event loop (no remainder loop: the tail is folded into masks).
bool is_single_block_loop(llvm::BasicBlock& block) {
    const llvm::Instruction* terminator = block.getTerminator();
    if (terminator == nullptr) {
        return false;
    }
    for (unsigned s = 0; s < terminator->getNumSuccessors(); ++s) {
        if (terminator->getSuccessor(s) == &block) {
            return true;
        }
    }
    return false;
}

}  // namespace

// prefetchnta is kept only where it was measured faster: Zen 5 (K-matrix NLL over 1,000,000
// events, 14 % faster than prefetcht0 for the value). On Zen 4 prefetcht1 took the value at
// 1,000,000 events from 15.2 to 12.4 ms on 1 thread against prefetchnta. On Intel Xeons
// (sapphirerapids; one LLVM calls rocketlake) prefetchnta keeps the 2.4 MB cache of 10,000
// events out of L2 and L3 between calls (value 192 µs against 79-92 with prefetcht0/t1), and
// prefetcht0 beat prefetcht1 where the cache stays in L2 (10,000 events: value 70-75 against
// 76-80 µs on 1 thread, 32-35 against 35-39 on 2) and matched it out of cache (1,000,000
// events: value 20.0-20.7 against 19.8-20.3 ms); docs/jit.md. AMD's other cores and an
// unknown host get prefetcht1.
int prefetch_locality(std::string_view cpu) {
    if (cpu == "znver5") {
        return 0;
    }
    const bool amd = cpu.starts_with("znver") || cpu.starts_with("bdver") ||
                     cpu.starts_with("btver") || cpu.starts_with("amdfam");
    return amd || cpu.empty() ? 2 : 3;
}

std::size_t insert_prefetches(llvm::Function& fn, std::size_t bytes_ahead, int locality) {
    std::size_t streams = 0;
    for (llvm::BasicBlock& block : fn) {
        if (!is_single_block_loop(block)) {
            continue;
        }
        std::vector<std::pair<llvm::Instruction*, llvm::Value*>> loads;
        for (llvm::Instruction& inst : block) {
            if (llvm::Value* address = vector_load_address(inst);
                address != nullptr && !is_second_load(address)) {
                loads.emplace_back(&inst, address);
            }
        }
        for (const auto& [load, address] : loads) {
            llvm::IRBuilder<> b(load);
            llvm::Value* ahead = b.CreateConstGEP1_64(b.getInt8Ty(), address, bytes_ahead);
            // llvm.prefetch(address, read, locality, data cache). Locality 0 is prefetchnta on
            // x86: each line is read once per pass, and the non-temporal hint keeps the
            // streams from evicting what the loop reuses; on the K-matrix NLL at 1e6 events it
            // beat locality 3 (prefetcht0) by 14 % for the value on 1 thread and 15 % on 2,
            // and matched it at 1e4 events, whose cache stays in L2/L3 between calls.
            b.CreateIntrinsic(llvm::Intrinsic::prefetch, {b.getPtrTy()},
                              {ahead, b.getInt32(0),
                               b.getInt32(static_cast<std::uint32_t>(locality)), b.getInt32(1)});
            ++streams;
        }
    }
    return streams;
}

}  // namespace laddu::jit::detail
