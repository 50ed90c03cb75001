// The fused reductions of JitKernel::reduction: one small function per spec, in a module of its
// own added to the kernel's JIT instance, that calls the already compiled kernel on blocks of
// events whose outputs go to a stack buffer, then adds the block's terms to LaneSum-style lanes
// in explicit <8 x double> code. The kernel is called, not recompiled or inlined, so a
// reduction compiles in a few milliseconds, and only the specs a run uses are compiled (one
// function for every term was measured: it doubled the kernels' compile time). No optimisation
// pipeline runs on it (these loops are vector code already). The sums come out bit-identical
// to laddu::LaneSum over the kernel's outputs: the same terms, the same lanes and runs, the same
// fused multiply-adds and TwoSums, nothing else contracted.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <exception>
#include <iterator>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/log_positive.hpp>

#include "lower.hpp"

namespace laddu::jit::detail {

namespace {

// The stack buffers of one block: 32 KiB, which keeps the outputs in L1 between the kernel that
// writes them and the sums that read them back (a gradient kernel's 35 output columns: blocks
// of 64 events, 18 KB, beside the 15 KB of cache columns the kernel reads for them; at 64 KiB,
// 192 events, the sums read from L2 and value + gradient of the K-matrix NLL took 5% longer),
// while a value kernel's blocks stay long enough that its invariant instructions (recomputed
// per call) cost little.
constexpr std::size_t kBlockBytes = std::size_t{32} * 1024;
constexpr std::size_t kMinBlock = 64;
constexpr std::size_t kMaxBlock = 1024;

// Events of one run of every lane (laddu::LaneSum): runs start at multiples of this from the
// first event of the range, so blocks, which are multiples of it, never split one.
constexpr std::size_t kRunEvents = kReductionLanes * kSumRun;
static_assert(kReductionLanes == kSumLanes, "the JIT's lanes are LaneSum's");

class ReductionLowerer {
public:
    ReductionLowerer(const ReductionLayout& layout, const ReductionSpec& spec, llvm::Module& module)
        : layout_(layout), spec_(spec), module_(module), ctx_(module_.getContext()), b_(ctx_),
          f64_(b_.getDoubleTy()), i64_(b_.getInt64Ty()), ptr_(b_.getPtrTy()),
          vec_(llvm::FixedVectorType::get(f64_, kReductionLanes)),
          block_(reduction_block(layout.output_pointers)) {}

    Expected<void> run();

private:
    void begin_function();
    void emit_groups(llvm::BasicBlock* from, llvm::BasicBlock* to);
    void close_value_run(llvm::Value* run);
    std::pair<llvm::Value*, llvm::Value*> two_sum(llvm::Value* s, llvm::Value* c,
                                                  llvm::Value* term);

    llvm::Value* fma(llvm::Value* a, llvm::Value* b, llvm::Value* c) {
        return b_.CreateIntrinsic(llvm::Intrinsic::fma, {vec_}, {a, b, c});
    }

    void emit_gradient_sums(llvm::BasicBlock* from, llvm::BasicBlock* to);
    llvm::BasicBlock* emit_sum_loop(llvm::BasicBlock* from, std::size_t first, std::size_t end,
                                    std::size_t width);
    llvm::Value* lane_mask(llvm::Value* group);
    llvm::Value* value_term(llvm::Value* v);
    llvm::Value* log_positive(llvm::Value* x);
    std::pair<llvm::GlobalVariable*, llvm::GlobalVariable*> log_tables();

    llvm::Value* splat(double value) { return llvm::ConstantFP::get(vec_, value); }

    llvm::Value* i64(std::size_t value) { return llvm::ConstantInt::get(i64_, value); }

    const ReductionLayout& layout_;
    const ReductionSpec& spec_;
    llvm::Module& module_;
    llvm::LLVMContext& ctx_;
    llvm::IRBuilder<> b_;
    llvm::Type* f64_;
    llvm::Type* i64_;
    llvm::PointerType* ptr_;
    llvm::FixedVectorType* vec_;
    std::size_t block_;

    llvm::Function* fn_ = nullptr;
    llvm::Function* kernel_ = nullptr;
    llvm::Function* tail_kernel_ = nullptr;  // a block's last events (ReductionLayout)
    llvm::Value* buffer_ = nullptr;          // [columns x block_] doubles: the block's outputs
    llvm::Value* scales_ = nullptr;  // [block_] doubles: the block's gradient scales w T'(v)
    llvm::Value* bad_ = nullptr;     // i32 slot: nonzero once a checked v was not positive
    llvm::Value* begin_ = nullptr;   // the block's first event
    llvm::Value* n_ = nullptr;       // the block's event count
};

void ReductionLowerer::begin_function() {
    auto* kernel_type =
        llvm::FunctionType::get(b_.getVoidTy(), {ptr_, ptr_, ptr_, i64_, i64_}, false);
    kernel_ = llvm::Function::Create(kernel_type, llvm::Function::ExternalLinkage,
                                     layout_.kernel_name, module_);
    if (!layout_.tail_kernel_name.empty()) {
        tail_kernel_ = llvm::Function::Create(kernel_type, llvm::Function::ExternalLinkage,
                                              layout_.tail_kernel_name, module_);
    }
    auto* type = llvm::FunctionType::get(b_.getInt32Ty(), {ptr_, ptr_, ptr_, i64_, ptr_}, false);
    const char* names[] = {"params", "inputs", "weights", "count", "lanes"};
    fn_ =
        create_function(module_, type, layout_.function_name, layout_.cpu, layout_.features, names);
}

Expected<void> ReductionLowerer::run() {
    begin_function();
    llvm::Argument* params = fn_->getArg(0);
    llvm::Argument* inputs = fn_->getArg(1);
    llvm::Argument* count = fn_->getArg(3);

    llvm::BasicBlock* entry = llvm::BasicBlock::Create(ctx_, "entry", fn_);
    llvm::BasicBlock* block_loop = llvm::BasicBlock::Create(ctx_, "block", fn_);
    llvm::BasicBlock* block_latch = llvm::BasicBlock::Create(ctx_, "block.latch", fn_);
    llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "exit", fn_);

    // Entry: the output buffers, their pointer array, and the kernel's input column pointers.
    // The buffers are zeroed only when the last block ends part way through a vector of lanes
    // (count not a multiple of kReductionLanes), so those lanes read numbers, which the lane
    // mask then discards; otherwise the kernel writes every lane that is read.
    b_.SetInsertPoint(entry);
    const std::size_t columns_out = std::max<std::size_t>(1, layout_.output_pointers);
    llvm::AllocaInst* buffer =
        b_.CreateAlloca(llvm::ArrayType::get(f64_, block_ * columns_out), nullptr, "buffer");
    buffer->setAlignment(llvm::Align(64));
    buffer_ = buffer;
    if (spec_.sums > 1) {
        llvm::AllocaInst* scales =
            b_.CreateAlloca(llvm::ArrayType::get(f64_, block_), nullptr, "scales");
        scales->setAlignment(llvm::Align(64));
        scales_ = scales;
    }
    llvm::AllocaInst* outputs =
        b_.CreateAlloca(llvm::ArrayType::get(ptr_, columns_out), nullptr, "outputs");
    for (std::size_t c = 0; c < layout_.output_pointers; ++c) {
        b_.CreateStore(b_.CreateConstInBoundsGEP1_64(f64_, buffer, c * block_),
                       b_.CreateConstInBoundsGEP1_64(ptr_, outputs, c));
    }
    llvm::AllocaInst* block_inputs = b_.CreateAlloca(
        llvm::ArrayType::get(ptr_, std::max<std::size_t>(1, layout_.input_pointers)), nullptr,
        "block.inputs");
    std::vector<llvm::Value*> columns;
    columns.reserve(layout_.input_pointers);
    for (std::size_t c = 0; c < layout_.input_pointers; ++c) {
        columns.push_back(b_.CreateLoad(ptr_, b_.CreateConstInBoundsGEP1_64(ptr_, inputs, c)));
    }
    llvm::Type* column_type = layout_.float_inputs ? b_.getFloatTy() : f64_;
    bad_ = b_.CreateAlloca(b_.getInt32Ty(), nullptr, "bad");
    b_.CreateStore(b_.getInt32(0), bad_);
    llvm::BasicBlock* zero = llvm::BasicBlock::Create(ctx_, "zero", fn_, block_loop);
    llvm::BasicBlock* ready = llvm::BasicBlock::Create(ctx_, "ready", fn_, block_loop);
    b_.CreateCondBr(b_.CreateICmpNE(b_.CreateAnd(count, i64(kReductionLanes - 1)), i64(0)), zero,
                    ready);
    b_.SetInsertPoint(zero);
    b_.CreateMemSet(buffer, b_.getInt8(0), block_ * columns_out * sizeof(double), llvm::Align(64));
    b_.CreateBr(ready);
    b_.SetInsertPoint(ready);
    b_.CreateCondBr(b_.CreateICmpSGT(count, i64(0)), block_loop, exit);

    // Block loop: the kernel over events [begin, begin + n) into the buffers, then the
    // block's terms.
    b_.SetInsertPoint(block_loop);
    llvm::PHINode* begin = b_.CreatePHI(i64_, 2, "begin");
    begin->addIncoming(i64(0), ready);
    begin_ = begin;
    n_ = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, i64(block_), b_.CreateSub(count, begin));
    for (std::size_t c = 0; c < columns.size(); ++c) {
        b_.CreateStore(b_.CreateInBoundsGEP(column_type, columns[c], begin),
                       b_.CreateConstInBoundsGEP1_64(ptr_, block_inputs, c));
    }
    b_.CreateCall(kernel_, {params, block_inputs, outputs, i64(0), n_});
    if (tail_kernel_ != nullptr) {
        // The kernel took the block's whole groups; the last events, in the last block only,
        // go to the program's own kernel, which reads every pointer of the same arrays.
        llvm::Value* whole = b_.CreateAnd(n_, i64(~(kWholeGroup - 1)));
        llvm::BasicBlock* tail = llvm::BasicBlock::Create(ctx_, "block.tail", fn_);
        llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "block.kernels", fn_);
        b_.CreateCondBr(b_.CreateICmpSLT(whole, n_), tail, done);
        b_.SetInsertPoint(tail);
        b_.CreateCall(tail_kernel_, {params, block_inputs, outputs, whole, n_});
        b_.CreateBr(done);
        b_.SetInsertPoint(done);
    }
    emit_groups(b_.GetInsertBlock(), block_latch);

    b_.SetInsertPoint(block_latch);
    llvm::Value* next_begin = b_.CreateAdd(begin, i64(block_));
    begin->addIncoming(next_begin, block_latch);
    b_.CreateCondBr(b_.CreateICmpSLT(next_begin, count), block_loop, exit);

    b_.SetInsertPoint(exit);
    b_.CreateRet(b_.CreateLoad(b_.getInt32Ty(), bad_));

    return verify(*fn_, "reduction");
}

// Lanes 0 .. 7 of the group at event `group` of the block that hold one of its n_ events.
llvm::Value* ReductionLowerer::lane_mask(llvm::Value* group) {
    std::vector<llvm::Constant*> iota;
    iota.reserve(kReductionLanes);
    for (std::size_t l = 0; l < kReductionLanes; ++l) {
        iota.push_back(llvm::ConstantInt::get(i64_, l));
    }
    llvm::Value* lanes =
        b_.CreateAdd(b_.CreateVectorSplat(kReductionLanes, group), llvm::ConstantVector::get(iota));
    return b_.CreateICmpSLT(lanes, b_.CreateVectorSplat(kReductionLanes, n_));
}

// The group loop, entered from `from` and left to `to`: events begin + g .. begin + g + 7 of
// the block into lanes 0 .. 7 of the value sum's run (closed into the lanes every kRunEvents
// events and at the block's end), and their gradient scales into scales_, zero in lanes past
// the block's events; then the gradient sums (emit_gradient_sums).
void ReductionLowerer::emit_groups(llvm::BasicBlock* from, llvm::BasicBlock* to) {
    const ReductionTerm term = spec_.term;
    llvm::BasicBlock* groups = llvm::BasicBlock::Create(ctx_, "groups", fn_);
    llvm::BasicBlock* close = llvm::BasicBlock::Create(ctx_, "groups.close", fn_);
    llvm::BasicBlock* latch = llvm::BasicBlock::Create(ctx_, "groups.latch", fn_);
    b_.SetInsertPoint(from);
    b_.CreateBr(groups);
    b_.SetInsertPoint(groups);
    llvm::PHINode* group = b_.CreatePHI(i64_, 2, "g");
    group->addIncoming(i64(0), from);
    llvm::PHINode* run = b_.CreatePHI(vec_, 2, "run");
    run->addIncoming(splat(0.0), from);

    llvm::Value* mask = lane_mask(group);
    llvm::Value* v = b_.CreateAlignedLoad(
        vec_,
        b_.CreateInBoundsGEP(f64_, buffer_,
                             b_.CreateAdd(i64(layout_.output_column[0] * block_), group)),
        llvm::Align(64));
    // The weights hold exactly `count` doubles: a masked load never reads past them. Unit
    // weights are not read (one memory stream less): LLVM folds fma(1, t, run) to the exact
    // t + run and 1 · (1 / v) to 1 / v.
    llvm::Value* w = splat(1.0);
    if (!spec_.unit_weights) {
        llvm::Value* weight_address =
            b_.CreateInBoundsGEP(f64_, fn_->getArg(2), b_.CreateAdd(begin_, group));
        w = b_.CreateMaskedLoad(vec_, weight_address, llvm::Align(8), mask, splat(0.0), "w");
    }
    if (term != ReductionTerm::kReal) {
        // Finite and positive: 0 < v < inf (false for NaN), as runtime's first_bad_value.
        llvm::Value* ok =
            b_.CreateAnd(b_.CreateFCmpOGT(v, splat(0.0)),
                         b_.CreateFCmpOLT(v, splat(std::numeric_limits<double>::infinity())));
        llvm::Value* bad = b_.CreateOrReduce(b_.CreateAnd(mask, b_.CreateNot(ok)));
        b_.CreateStore(
            b_.CreateOr(b_.CreateLoad(b_.getInt32Ty(), bad_), b_.CreateZExt(bad, b_.getInt32Ty())),
            bad_);
    }
    // Lanes past the block's events keep their run: their v may be anything (log(0) is -inf).
    llvm::Value* added = b_.CreateSelect(mask, fma(w, value_term(v), run), run);
    if (spec_.sums > 1) {
        // The gradient scale, rounded as the runtime rounds it: w · (1 / v), not w / v. Zero
        // past the events, where fma(0, out_j, run) leaves a run as it is (out_j there is a
        // number the kernel wrote for an earlier event, or the zeroed buffer's).
        const bool log = term == ReductionTerm::kLog || term == ReductionTerm::kLogFloat;
        llvm::Value* scale = log ? b_.CreateFMul(w, b_.CreateFDiv(splat(1.0), v)) : w;
        b_.CreateAlignedStore(b_.CreateSelect(mask, scale, splat(0.0)),
                              b_.CreateInBoundsGEP(f64_, scales_, group), llvm::Align(64));
    }
    llvm::Value* next_group = b_.CreateAdd(group, i64(kReductionLanes));
    llvm::Value* run_ends =
        b_.CreateOr(b_.CreateICmpEQ(b_.CreateURem(next_group, i64(kRunEvents)), i64(0)),
                    b_.CreateICmpSGE(next_group, n_));
    llvm::BasicBlock* body_end = b_.GetInsertBlock();
    b_.CreateCondBr(run_ends, close, latch);

    b_.SetInsertPoint(close);
    close_value_run(added);
    b_.CreateBr(latch);

    b_.SetInsertPoint(latch);
    llvm::PHINode* carried = b_.CreatePHI(vec_, 2, "run.next");
    carried->addIncoming(added, body_end);
    carried->addIncoming(splat(0.0), close);
    group->addIncoming(next_group, latch);
    run->addIncoming(carried, latch);
    if (spec_.sums < 2) {
        b_.CreateCondBr(b_.CreateICmpSLT(next_group, n_), groups, to);
        return;
    }
    llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "groups.done", fn_);
    b_.CreateCondBr(b_.CreateICmpSLT(next_group, n_), groups, done);
    emit_gradient_sums(done, to);
}

// Gradient sums j = 1 .. sums - 1 in passes over the block of at most kMaxInterleave sums
// each, the passes as even as they can be (34 sums: 9, 9, 8, 8), each sum over the block's
// runs with its lanes in registers: within a run, sum j's terms scale · out_j meet its run
// partial by fma in the order the events come, and each run closes into the lanes by TwoSum,
// as in LaneSum; the column is read front to back. A pass's chains are independent: with a
// 4-cycle fma and two fma pipes, 8 chains keep both busy where fewer wait on the latency
// (4 at a time and the last two sums alone took 40 cycles per 8 events for 34 sums, 9/9/8/8
// take 17), and 9 chains' sums, compensations and partials still fit the 32 vector registers.
// A loop over j, not a copy of the body per sum: the code stays the same size for any number
// of parameters (unrolled, 35 sums took 25 ms to compile).
void ReductionLowerer::emit_gradient_sums(llvm::BasicBlock* from, llvm::BasicBlock* to) {
    constexpr std::size_t kMaxInterleave = 9;
    const std::size_t gradients = spec_.sums - 1;
    const std::size_t passes = (gradients + kMaxInterleave - 1) / kMaxInterleave;
    const std::size_t narrow = gradients / passes;  // the width of most passes
    const std::size_t wide = gradients % passes;    // passes one sum wider
    const std::size_t wide_end = 1 + wide * (narrow + 1);
    llvm::BasicBlock* next = from;
    if (wide > 0) {
        next = emit_sum_loop(next, 1, wide_end, narrow + 1);
    }
    if (wide_end < spec_.sums) {
        next = emit_sum_loop(next, wide_end, spec_.sums, narrow);
    }
    b_.SetInsertPoint(next);
    b_.CreateBr(to);
}

// Sums first .. end - 1 (end - first a multiple of `width`), `width` of them per pass over the
// block; entered from `from`, returns the block it leaves to (empty, for the caller to end).
llvm::BasicBlock* ReductionLowerer::emit_sum_loop(llvm::BasicBlock* from, std::size_t first,
                                                  std::size_t end, std::size_t width) {
    llvm::BasicBlock* sums = llvm::BasicBlock::Create(ctx_, "sums", fn_);
    llvm::BasicBlock* runs = llvm::BasicBlock::Create(ctx_, "sums.runs", fn_);
    llvm::BasicBlock* terms = llvm::BasicBlock::Create(ctx_, "sums.terms", fn_);
    llvm::BasicBlock* run_end = llvm::BasicBlock::Create(ctx_, "sums.run_end", fn_);
    llvm::BasicBlock* latch = llvm::BasicBlock::Create(ctx_, "sums.latch", fn_);
    llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "sums.exit", fn_);
    b_.SetInsertPoint(from);
    b_.CreateBr(sums);

    // Per pass: the sums' lanes from memory and their columns.
    b_.SetInsertPoint(sums);
    llvm::PHINode* j = b_.CreatePHI(i64_, 2, "j");
    j->addIncoming(i64(first), from);
    std::vector<llvm::Value*> s_at(width);
    std::vector<llvm::Value*> c_at(width);
    std::vector<llvm::Value*> s0(width);
    std::vector<llvm::Value*> c0(width);
    std::vector<llvm::Value*> column(width);
    for (std::size_t k = 0; k < width; ++k) {
        llvm::Value* sum = b_.CreateAdd(j, i64(k));
        s_at[k] =
            b_.CreateInBoundsGEP(f64_, fn_->getArg(4), b_.CreateMul(sum, i64(2 * kReductionLanes)));
        c_at[k] = b_.CreateConstInBoundsGEP1_64(f64_, s_at[k], kReductionLanes);
        s0[k] = b_.CreateAlignedLoad(vec_, s_at[k], llvm::Align(8));
        c0[k] = b_.CreateAlignedLoad(vec_, c_at[k], llvm::Align(8));
        column[k] = b_.CreateInBoundsGEP(
            f64_, buffer_,
            b_.CreateMul(b_.CreateAdd(sum, i64(layout_.output_column[1] - 1)), i64(block_)));
    }
    b_.CreateBr(runs);

    // Per run: the lanes carried from run to run.
    b_.SetInsertPoint(runs);
    llvm::PHINode* run_begin = b_.CreatePHI(i64_, 2, "r");
    run_begin->addIncoming(i64(0), sums);
    std::vector<llvm::PHINode*> s(width);
    std::vector<llvm::PHINode*> c(width);
    for (std::size_t k = 0; k < width; ++k) {
        s[k] = b_.CreatePHI(vec_, 2, "s");
        c[k] = b_.CreatePHI(vec_, 2, "c");
        s[k]->addIncoming(s0[k], sums);
        c[k]->addIncoming(c0[k], sums);
    }
    llvm::Value* run_stop = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin,
                                                     b_.CreateAdd(run_begin, i64(kRunEvents)), n_);
    b_.CreateBr(terms);

    // Per group: scale · out_j into the runs' partials.
    b_.SetInsertPoint(terms);
    llvm::PHINode* group = b_.CreatePHI(i64_, 2, "g");
    group->addIncoming(run_begin, runs);
    std::vector<llvm::PHINode*> partial(width);
    for (std::size_t k = 0; k < width; ++k) {
        partial[k] = b_.CreatePHI(vec_, 2, "p");
        partial[k]->addIncoming(splat(0.0), runs);
    }
    llvm::Value* scale =
        b_.CreateAlignedLoad(vec_, b_.CreateInBoundsGEP(f64_, scales_, group), llvm::Align(64));
    std::vector<llvm::Value*> added(width);
    for (std::size_t k = 0; k < width; ++k) {
        llvm::Value* g = b_.CreateAlignedLoad(vec_, b_.CreateInBoundsGEP(f64_, column[k], group),
                                              llvm::Align(64));
        added[k] = fma(scale, g, partial[k]);
        partial[k]->addIncoming(added[k], terms);
    }
    llvm::Value* next_group = b_.CreateAdd(group, i64(kReductionLanes));
    group->addIncoming(next_group, terms);
    b_.CreateCondBr(b_.CreateICmpSLT(next_group, run_stop), terms, run_end);

    // The runs close into the lanes.
    b_.SetInsertPoint(run_end);
    std::vector<llvm::Value*> s1(width);
    std::vector<llvm::Value*> c1(width);
    for (std::size_t k = 0; k < width; ++k) {
        std::tie(s1[k], c1[k]) = two_sum(s[k], c[k], added[k]);
        s[k]->addIncoming(s1[k], run_end);
        c[k]->addIncoming(c1[k], run_end);
    }
    llvm::Value* next_run = b_.CreateAdd(run_begin, i64(kRunEvents));
    run_begin->addIncoming(next_run, run_end);
    b_.CreateCondBr(b_.CreateICmpSLT(next_run, n_), runs, latch);

    b_.SetInsertPoint(latch);
    for (std::size_t k = 0; k < width; ++k) {
        b_.CreateAlignedStore(s1[k], s_at[k], llvm::Align(8));
        b_.CreateAlignedStore(c1[k], c_at[k], llvm::Align(8));
    }
    llvm::Value* next = b_.CreateAdd(j, i64(width));
    j->addIncoming(next, latch);
    b_.CreateCondBr(b_.CreateICmpULT(next, i64(end)), sums, exit);
    return exit;
}

llvm::Value* ReductionLowerer::value_term(llvm::Value* v) {
    switch (spec_.term) {
    case ReductionTerm::kReal:
    case ReductionTerm::kPositive:
        return v;
    case ReductionTerm::kLog:
        return log_positive(v);
    case ReductionTerm::kLogFloat: {
        // laddu::log_positive_f32: the double log of the float value, rounded to float.
        auto* floats = llvm::FixedVectorType::get(b_.getFloatTy(), kReductionLanes);
        llvm::Value* narrow = b_.CreateFPExt(b_.CreateFPTrunc(v, floats), vec_);
        llvm::Value* log = b_.CreateFPTrunc(log_positive(narrow), floats);
        return b_.CreateFPExt(log, vec_);
    }
    }
    return v;
}

// laddu::log_positive (base/log_positive.cpp) on 8 lanes: the same operations in the same order,
// so the same bits. The table is a constant of the module; its rows are gathered.
llvm::Value* ReductionLowerer::log_positive(llvm::Value* x) {
    namespace c = log_positive_constants;
    auto* ints = llvm::FixedVectorType::get(i64_, kReductionLanes);
    auto bits = [&](std::uint64_t value) {
        return llvm::ConstantInt::get(ints, value);
    };
    auto real = [&](std::uint64_t pattern) {
        return splat(std::bit_cast<double>(pattern));
    };
    llvm::Value* raw = b_.CreateBitCast(x, ints);
    llvm::Value* subnormal = b_.CreateICmpULT(raw, bits(0x0010000000000000ULL));
    llvm::Value* scaled = b_.CreateSelect(subnormal, b_.CreateFMul(x, real(c::kTwo54)), x);
    llvm::Value* pattern = b_.CreateBitCast(scaled, ints);
    llvm::Value* offset = b_.CreateSub(pattern, bits(c::kReductionStart));
    llvm::Value* row =
        b_.CreateAnd(b_.CreateLShr(offset, bits(c::kTableShift)), bits((1U << c::kTableBits) - 1U));
    llvm::Value* k =
        b_.CreateAdd(b_.CreateAShr(offset, bits(52)),
                     b_.CreateSelect(subnormal, bits(static_cast<std::uint64_t>(-54)), bits(0)));
    llvm::Value* z = b_.CreateBitCast(
        b_.CreateSub(pattern, b_.CreateAnd(offset, bits(0xfff0000000000000ULL))), vec_);
    auto [invc_table, logc_table] = log_tables();
    auto* table_type = llvm::ArrayType::get(f64_, std::size(c::kTable));
    auto gather = [&](llvm::GlobalVariable* table) {
        llvm::Value* at = b_.CreateInBoundsGEP(table_type, table, {i64(0), row});
        return b_.CreateMaskedGather(vec_, at, llvm::Align(8));
    };
    llvm::Value* invc = gather(invc_table);
    llvm::Value* logc = gather(logc_table);
    llvm::Value* r = fma(z, invc, splat(-1.0));
    llvm::Value* kd = b_.CreateSIToFP(k, vec_);
    llvm::Value* k_ln2 = b_.CreateFMul(kd, real(c::kLn2Hi));
    llvm::Value* w = b_.CreateFAdd(k_ln2, logc);
    llvm::Value* w_error = b_.CreateFAdd(b_.CreateFSub(k_ln2, w), logc);
    llvm::Value* hi = b_.CreateFAdd(w, r);
    llvm::Value* lo =
        fma(kd, real(c::kLn2Lo), b_.CreateFAdd(b_.CreateFAdd(b_.CreateFSub(w, hi), r), w_error));
    llvm::Value* r2 = b_.CreateFMul(r, r);
    llvm::Value* p01 = fma(r, splat(c::kPoly[1]), splat(c::kPoly[0]));
    llvm::Value* p23 = fma(r, splat(c::kPoly[3]), splat(c::kPoly[2]));
    llvm::Value* p45 = fma(r, splat(c::kPoly[5]), splat(c::kPoly[4]));
    llvm::Value* p46 = fma(r2, splat(c::kPoly[6]), p45);
    llvm::Value* p26 = fma(r2, p46, p23);
    llvm::Value* p06 = fma(r2, p26, p01);
    return b_.CreateFAdd(hi, fma(r2, p06, lo));
}

// The log's table as two constant arrays of the module (1 / c, then log c), made on first use.
std::pair<llvm::GlobalVariable*, llvm::GlobalVariable*> ReductionLowerer::log_tables() {
    namespace c = log_positive_constants;
    auto* table_type = llvm::ArrayType::get(f64_, std::size(c::kTable));
    auto make = [&](const char* name, std::uint64_t c::LogRow::* column) {
        if (llvm::GlobalVariable* made = module_.getNamedGlobal(name)) {
            return made;
        }
        std::vector<llvm::Constant*> values;
        values.reserve(std::size(c::kTable));
        for (const c::LogRow& entry : c::kTable) {
            values.push_back(llvm::ConstantFP::get(f64_, std::bit_cast<double>(entry.*column)));
        }
        auto* table =
            new llvm::GlobalVariable(module_, table_type, true, llvm::GlobalValue::PrivateLinkage,
                                     llvm::ConstantArray::get(table_type, values), name);
        table->setAlignment(llvm::Align(64));
        return table;
    };
    return {make("laddu_log_invc", &c::LogRow::invc), make("laddu_log_logc", &c::LogRow::logc)};
}

// TwoSum of lane sums s and terms x (base/accurate_sum.hpp's two_sum(s, x), then c += error).
// Returns the new {s, c}.
std::pair<llvm::Value*, llvm::Value*> ReductionLowerer::two_sum(llvm::Value* s, llvm::Value* c,
                                                                llvm::Value* term) {
    llvm::Value* total = b_.CreateFAdd(s, term);
    llvm::Value* term_virtual = b_.CreateFSub(total, s);
    llvm::Value* s_virtual = b_.CreateFSub(total, term_virtual);
    llvm::Value* error =
        b_.CreateFAdd(b_.CreateFSub(s, s_virtual), b_.CreateFSub(term, term_virtual));
    return {total, b_.CreateFAdd(c, error)};
}

// The value sum's run partials close into its lanes in memory (sum 0 of the lane array).
void ReductionLowerer::close_value_run(llvm::Value* run) {
    llvm::Value* s_at = fn_->getArg(4);
    llvm::Value* c_at = b_.CreateConstInBoundsGEP1_64(f64_, s_at, kReductionLanes);
    const auto [s, c] = two_sum(b_.CreateAlignedLoad(vec_, s_at, llvm::Align(8)),
                                b_.CreateAlignedLoad(vec_, c_at, llvm::Align(8)), run);
    b_.CreateAlignedStore(s, s_at, llvm::Align(8));
    b_.CreateAlignedStore(c, c_at, llvm::Align(8));
}

}  // namespace

std::size_t reduction_block(std::size_t output_pointers) noexcept {
    const std::size_t fits =
        kBlockBytes / (sizeof(double) * std::max<std::size_t>(1, output_pointers));
    const std::size_t block = fits / kRunEvents * kRunEvents;
    return std::clamp(block, kMinBlock, kMaxBlock);
}

Expected<void> check_reduction(const ReductionLayout& layout, const ReductionSpec& spec) {
    const std::size_t outputs = layout.output_column.size();
    if (spec.sums == 0 || spec.sums > outputs) {
        return failure(ErrorKind::kBackend,
                       "jit: a reduction sums between 1 and " + std::to_string(outputs) +
                           " outputs of this kernel, not " + std::to_string(spec.sums));
    }
    for (std::size_t j = 1; j < spec.sums; ++j) {
        if (!layout.output_real[j]) {
            return failure(ErrorKind::kBackend,
                           "jit: output " + std::to_string(j) +
                               " is Complex; a reduction sums Real gradient outputs");
        }
    }
    return {};
}

Expected<void> lower_reduction(const ReductionLayout& layout, const ReductionSpec& spec,
                               llvm::Module& module) {
    if (const Expected<void> checked = check_reduction(layout, spec); !checked) {
        return checked;
    }
    try {
        return ReductionLowerer(layout, spec, module).run();
    } catch (const std::exception& error) {
        return failure(ErrorKind::kBackend,
                       std::string("jit: cannot lower the reduction: ") + error.what());
    }
}

}  // namespace laddu::jit::detail
