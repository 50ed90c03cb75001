#include "lower.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "lowerer.hpp"

namespace laddu::jit::detail {

using ir::OpCode;

namespace {

// An input column used again more than this many instructions after it was loaded is loaded
// again (Lowerer::use). The K-matrix gradient kernel under LLVM's default schedule: at 128 it
// spills 20 vectors per 8 events, at 64 and at 32 none (32 adds loads and no speed).
constexpr std::uint32_t kReloadDistance = 64;

// True when the comma-separated LLVM feature string enables `name` ("+avx512f").
bool has_feature(std::string_view features, std::string_view name) {
    while (!features.empty()) {
        const std::size_t comma = features.find(',');
        const std::string_view item = features.substr(0, comma);
        if (item.size() == name.size() + 1 && item[0] == '+' && item.substr(1) == name) {
            return true;
        }
        features =
            comma == std::string_view::npos ? std::string_view{} : features.substr(comma + 1);
    }
    return false;
}

}  // namespace

Expected<void> Lowerer::run(const LowerOptions& options) {
    float_inputs_ = options.inputs == InputColumns::kFloat;
    begin_function(options);
    load_column_pointers(options);
    make_alias_scopes();
    for (std::uint32_t i = 0; i < program_.size(); ++i) {
        if (program_.instructions[i].cls == ir::ValueClass::kInvariant) {
            lower(i);
        }
    }
    llvm::Argument* begin = fn_->getArg(3);
    llvm::Argument* end = fn_->getArg(4);
    llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx_, "loop", fn_);
    llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "exit", fn_);
    llvm::BasicBlock* preheader = b_.GetInsertBlock();
    // whole_groups: an outer loop over the groups, the event loop inside it of constant trip
    // count kWholeGroup, which the vectoriser turns into whole vectors with no remainder.
    llvm::BasicBlock* groups_loop = nullptr;
    llvm::PHINode* group = nullptr;
    llvm::Value* groups = nullptr;
    llvm::Value* first = begin;
    if (options.whole_groups) {
        groups = b_.CreateLShr(b_.CreateSub(end, begin), kWholeGroupShift, "groups");
        groups_loop = llvm::BasicBlock::Create(ctx_, "groups", fn_, loop);
        b_.CreateCondBr(b_.CreateICmpNE(groups, llvm::ConstantInt::get(i64_, 0)), groups_loop,
                        exit);
        b_.SetInsertPoint(groups_loop);
        group = b_.CreatePHI(i64_, 2, "g");
        group->addIncoming(llvm::ConstantInt::get(i64_, 0), preheader);
        llvm::Value* offset = b_.CreateShl(group, kWholeGroupShift);
        first = b_.CreateAdd(begin, offset, "group.first", /*HasNUW=*/false, /*HasNSW=*/true);
        b_.CreateBr(loop);
        preheader = groups_loop;
    } else {
        b_.CreateCondBr(b_.CreateICmpSLT(begin, end), loop, exit);
    }

    b_.SetInsertPoint(loop);
    llvm::PHINode* phi = b_.CreatePHI(i64_, 2, "i");
    phi->addIncoming(options.whole_groups ? llvm::ConstantInt::get(i64_, 0)
                                          : static_cast<llvm::Value*>(begin),
                     preheader);
    index_ = options.whole_groups
                 ? b_.CreateAdd(first, phi, "event", /*HasNUW=*/false, /*HasNSW=*/true)
                 : static_cast<llvm::Value*>(phi);
    fty_ = event_ty_;
    for (std::uint32_t i = 0; i < program_.size(); ++i) {
        if (program_.instructions[i].cls == ir::ValueClass::kEvent) {
            lower(i);
            store_outputs(i);
        }
    }
    store_remaining_outputs();
    llvm::Value* next = b_.CreateAdd(phi, llvm::ConstantInt::get(i64_, 1), "i.next",
                                     /*HasNUW=*/false, /*HasNSW=*/true);
    phi->addIncoming(next, b_.GetInsertBlock());
    if (options.whole_groups) {
        llvm::BasicBlock* latch = llvm::BasicBlock::Create(ctx_, "groups.latch", fn_, exit);
        b_.CreateCondBr(b_.CreateICmpNE(next, llvm::ConstantInt::get(i64_, kWholeGroup)), loop,
                        latch);
        b_.SetInsertPoint(latch);
        llvm::Value* next_group = b_.CreateAdd(group, llvm::ConstantInt::get(i64_, 1));
        group->addIncoming(next_group, latch);
        b_.CreateCondBr(b_.CreateICmpNE(next_group, groups), groups_loop, exit);
    } else {
        llvm::BranchInst* latch = b_.CreateCondBr(b_.CreateICmpSLT(next, end), loop, exit);
        if (fold_tail_) {
            latch->setMetadata(llvm::LLVMContext::MD_loop, fold_tail_metadata());
        }
    }
    b_.SetInsertPoint(exit);
    b_.CreateRetVoid();

    return verify(*fn_, "LLVM function");
}

void Lowerer::begin_function(const LowerOptions& options) {
    auto* type = llvm::FunctionType::get(b_.getVoidTy(), {ptr_, ptr_, ptr_, i64_, i64_}, false);
    const char* names[] = {"params", "inputs", "outputs", "begin", "end"};
    fn_ =
        create_function(module_, type, options.function_name, options.cpu, options.features, names);
    // LLVM prefers 256-bit vectors even where AVX-512 exists; these kernels are long
    // throughput-bound loops, and 512-bit vectors (8 doubles) ran the K-matrix gradient kernel
    // 10-15% faster here (Sapphire Rapids), with the same compile time.
    if (has_feature(options.features, "avx512f")) {
        fn_->addFnAttr("prefer-vector-width", "512");
    }
    // Masked vector loads and stores (what folding the tail needs) exist from AVX on; without
    // them the vectoriser would rather not vectorise a folded loop at all.
    fold_tail_ = !options.whole_groups && has_feature(options.features, "avx");
    entry_ = llvm::BasicBlock::Create(ctx_, "entry", fn_);
    b_.SetInsertPoint(entry_);
}

// With evenly spaced columns (LowerOptions::input_stride, output_stride) column c is the first
// pointer plus a constant, so the loop addresses every column from one register: a kernel
// with more columns than general registers otherwise reloads a column pointer from its stack
// for every vector load and store (the K-matrix gradient kernel: 53 per 8 events, and 190 →
// 159 cycles per 8 events with both evenly spaced, driven alone with its inputs in L2).
void Lowerer::load_column_pointers(const LowerOptions& options) {
    auto load_pointer = [&](llvm::Value* array, std::size_t k, std::size_t stride) {
        if (stride != 0 && k != 0) {
            llvm::Value* first = b_.CreateLoad(ptr_, array);
            return b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), first, k * stride);
        }
        llvm::Value* slot = b_.CreateConstInBoundsGEP1_64(ptr_, array, k);
        return static_cast<llvm::Value*>(b_.CreateLoad(ptr_, slot));
    };
    for (const ir::InputSlot& slot : program_.inputs) {
        slot_first_column_.push_back(input_columns_.size());
        const std::size_t columns = slot.kind == ir::ValueKind::kComplex ? 2 : 1;
        for (std::size_t c = 0; c < columns; ++c) {
            input_columns_.push_back(
                load_pointer(fn_->getArg(1), input_columns_.size(), options.input_stride));
        }
    }
    if (options.input_stride != 0 && !input_columns_.empty()) {
        // An empty asm that returns its operand: the optimiser cannot see that the pointer is
        // the first column's, so a load through it is a load of its own (use()).
        auto* type = llvm::FunctionType::get(ptr_, {ptr_}, false);
        auto* copy = llvm::InlineAsm::get(type, "", "=r,0", /*hasSideEffects=*/false);
        llvm::CallInst* call = b_.CreateCall(type, copy, {b_.CreateLoad(ptr_, fn_->getArg(1))});
        call->setDoesNotAccessMemory();
        call->setDoesNotThrow();
        reload_base_ = call;
        input_stride_ = options.input_stride;
    }
    for (const ir::ValueId out : program_.outputs) {
        output_column_.push_back(output_columns_.size());
        const std::size_t columns = program_.at(out).kind == ir::ValueKind::kComplex ? 2 : 1;
        for (std::size_t c = 0; c < columns; ++c) {
            output_columns_.push_back(
                load_pointer(fn_->getArg(2), output_columns_.size(), options.output_stride));
        }
    }
    stored_by_.resize(program_.outputs.size());
    std::iota(stored_by_.begin(), stored_by_.end(), 0U);
    std::stable_sort(stored_by_.begin(), stored_by_.end(), [&](std::uint32_t a, std::uint32_t b) {
        return ir::to_index(program_.outputs[a]) < ir::to_index(program_.outputs[b]);
    });
}

// Inputs and every output column get their own alias scope, so the loop vectoriser needs no
// run-time overlap checks (the ABI promises the columns are disjoint).
void Lowerer::make_alias_scopes() {
    llvm::MDBuilder mdb(ctx_);
    llvm::MDNode* domain = mdb.createAnonymousAliasScopeDomain("laddu.kernel");
    llvm::MDNode* inputs = mdb.createAnonymousAliasScope(domain, "inputs");
    std::vector<llvm::MDNode*> outputs;
    outputs.reserve(output_columns_.size());
    for (std::size_t c = 0; c < output_columns_.size(); ++c) {
        outputs.push_back(mdb.createAnonymousAliasScope(domain, "output"));
    }
    auto list = [&](const std::vector<llvm::MDNode*>& nodes) {
        const std::vector<llvm::Metadata*> md(nodes.begin(), nodes.end());
        return llvm::MDNode::get(ctx_, md);
    };
    input_scope_ = list({inputs});
    input_noalias_ = list(outputs);
    for (std::size_t c = 0; c < outputs.size(); ++c) {
        std::vector<llvm::MDNode*> others = {inputs};
        for (std::size_t j = 0; j < outputs.size(); ++j) {
            if (j != c) {
                others.push_back(outputs[j]);
            }
        }
        output_scope_.push_back(list({outputs[c]}));
        output_noalias_.push_back(list(others));
    }
}

// Loop metadata asking the vectoriser to fold the loop's tail into the vector body with masked
// loads and stores (llvm.loop.vectorize.predicate.enable) instead of keeping a scalar copy of
// the body for the last events. Event bodies are long, so that copy cost about 40% of the
// code-generation time (K-matrix gradient: 103 → 61 ms CPU), and the vectorised loop runs as
// fast either way. Only used with AVX (see begin_function). It is a hint: a loop the vectoriser
// cannot predicate keeps its scalar epilogue or stays scalar, computing the same values.
llvm::MDNode* Lowerer::fold_tail_metadata() {
    llvm::Metadata* predicate[] = {
        llvm::MDString::get(ctx_, "llvm.loop.vectorize.predicate.enable"),
        llvm::ConstantAsMetadata::get(b_.getTrue())};
    llvm::Metadata* nodes[] = {nullptr, llvm::MDNode::get(ctx_, predicate)};
    llvm::MDNode* id = llvm::MDNode::getDistinct(ctx_, nodes);
    id->replaceOperandWith(0, id);
    return id;
}

llvm::Value* Lowerer::widen(llvm::Value* v) {
    return v->getType() == f64_ ? v : b_.CreateFPExt(v, f64_);
}

llvm::Value* Lowerer::narrow(llvm::Value* v) {
    return v->getType() == fty_ ? v : b_.CreateFPTrunc(v, fty_);
}

// Invariants are computed in double at entry (as the interpreter does); an f32 event
// instruction reads a float copy made once, at the end of the entry block.
//
// An input column read again far from where it was loaded is loaded again, through
// reload_base_ so that the optimiser keeps the second load: kept in a register all the way, it
// is spilled and reloaded instead. The K-matrix gradient kernel reads its 30 columns for the
// amplitudes and again for the derivatives: under LLVM's default schedule it spills 28 vectors
// per 8 events without the second loads and the outputs stored as they are computed
// (store_outputs), none with them, and its NLL value + gradient takes 4-7 % less time with
// them (bench/ab_kmatrix.py).
const Value& Lowerer::use(ir::ValueId id) {
    const std::uint32_t i = ir::to_index(id);
    if (reload_base_ != nullptr && program_.instructions[i].op == OpCode::kLoad &&
        lowering_ - loaded_at_[i] > kReloadDistance) {
        values_[i] = load_input(program_.instructions[i], reload_base_);
        loaded_at_[i] = lowering_;
    }
    const Value& value = values_[i];
    if (value.re == nullptr || value.re->getType() == fty_) {
        return value;
    }
    Value& copy = narrowed_[i];
    if (copy.re == nullptr) {
        llvm::IRBuilder<> at_entry(entry_->getTerminator());
        copy.re = at_entry.CreateFPTrunc(value.re, fty_);
        copy.im = value.is_complex() ? at_entry.CreateFPTrunc(value.im, fty_) : nullptr;
    }
    return copy;
}

// The columns of an input slot, from the kernel's column pointers or, with `base` (reload_base_),
// from the opaque copy of the first one.
Value Lowerer::load_input(const ir::Instruction& inst, llvm::Value* base) {
    const std::size_t first = slot_first_column_[inst.attr];
    auto column = [&](std::size_t c) {
        return base == nullptr
                   ? input_columns_[c]
                   : b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), base, c * input_stride_);
    };
    if (inst.kind == ir::ValueKind::kComplex) {
        return {load_column(column(first)), load_column(column(first + 1))};
    }
    return {load_column(column(first)), nullptr};
}

llvm::Value* Lowerer::load_column(llvm::Value* column) {
    llvm::Type* stored = float_inputs_ ? b_.getFloatTy() : f64_;
    llvm::Value* address = b_.CreateInBoundsGEP(stored, column, index_);
    llvm::LoadInst* load =
        b_.CreateAlignedLoad(stored, address, llvm::MaybeAlign(float_inputs_ ? 4 : 8));
    load->setMetadata(llvm::LLVMContext::MD_alias_scope, input_scope_);
    load->setMetadata(llvm::LLVMContext::MD_noalias, input_noalias_);
    if (stored == fty_) {
        return load;
    }
    return float_inputs_ ? b_.CreateFPExt(load, fty_) : b_.CreateFPTrunc(load, fty_);
}

// The outputs whose value is instruction `index`, stored as soon as it is computed: an output
// held to the end of the body occupies a register all the way (or is spilled).
void Lowerer::store_outputs(std::uint32_t index) {
    auto store = [&](llvm::Value* v, std::size_t column) {
        llvm::Value* address = b_.CreateInBoundsGEP(f64_, output_columns_[column], index_);
        llvm::StoreInst* st = b_.CreateAlignedStore(widen(v), address, llvm::MaybeAlign(8));
        st->setMetadata(llvm::LLVMContext::MD_alias_scope, output_scope_[column]);
        st->setMetadata(llvm::LLVMContext::MD_noalias, output_noalias_[column]);
    };
    while (next_stored_ < stored_by_.size()) {
        const std::uint32_t k = stored_by_[next_stored_];
        const ir::ValueId out = program_.outputs[k];
        if (ir::to_index(out) > index) {
            return;
        }
        const Value& v = values_[ir::to_index(out)];
        store(v.re, output_column_[k]);
        if (program_.at(out).kind == ir::ValueKind::kComplex) {
            store(imag_of(v), output_column_[k] + 1);
        }
        ++next_stored_;
    }
}

// Outputs not stored yet: those whose value is not an event instruction's (a constant, a
// parameter or another invariant), stored at the end of the body.
void Lowerer::store_remaining_outputs() {
    store_outputs(static_cast<std::uint32_t>(program_.size()));
}

llvm::Value* Lowerer::entry_alloca(std::uint32_t doubles) {
    llvm::IRBuilder<> at_entry(entry_, entry_->begin());
    return at_entry.CreateAlloca(f64_, llvm::ConstantInt::get(b_.getInt32Ty(), doubles));
}

void Lowerer::lower(std::uint32_t index) {
    lowering_ = index;
    const ir::Instruction& inst = program_.instructions[index];
    const std::span<const ir::ValueId> ops = program_.operands_of(inst);
    auto operand = [&](std::size_t k) -> const Value& {
        return use(ops[k]);
    };
    Value& result = values_[index];
    switch (inst.op) {
    case OpCode::kConstReal:
        result = {constant(inst.re), nullptr};
        return;
    case OpCode::kConstComplex:
        result = {constant(inst.re), constant(inst.im)};
        return;
    case OpCode::kParam: {
        llvm::Value* address = b_.CreateConstInBoundsGEP1_64(f64_, fn_->getArg(0), inst.attr);
        result = {b_.CreateAlignedLoad(f64_, address, llvm::MaybeAlign(8)), nullptr};
        return;
    }
    case OpCode::kLoad:
        result = load_input(inst, nullptr);
        loaded_at_[index] = index;
        return;
    case OpCode::kAddN:
    case OpCode::kMulN: {
        Value acc = operand(0);
        for (std::size_t k = 1; k < ops.size(); ++k) {
            acc = inst.op == OpCode::kAddN ? add(acc, operand(k)) : mul(acc, operand(k));
        }
        result = acc;
        return;
    }
    case OpCode::kDot:
        result = dot(ops, inst.attr);
        return;
    case OpCode::kSolve:
        solve(index, ops, inst.attr);
        return;
    case OpCode::kExtract:
        result = vectors_[ir::to_index(ops[0])][inst.attr];
        return;
    case OpCode::kPowI:
        result = pow_i(operand(0), inst.exponent());
        return;
    default:
        break;
    }
    if (ops.size() == 1) {
        result = unary(inst.op, operand(0));
    } else {
        result = binary(inst.op, operand(0), operand(1));
    }
}

llvm::Function* create_function(llvm::Module& module, llvm::FunctionType* type,
                                const std::string& name, const std::string& cpu,
                                const std::string& features,
                                std::span<const char* const> argument_names) {
    llvm::Function* fn =
        llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, module);
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    // A kernel spills vector registers (a K-matrix gradient kernel 34 per 8 events): the ABI
    // promises only a 16-byte aligned stack, and a 64-byte spill across two cache lines costs
    // both, so the frame is realigned to 64 bytes. Without it the gradient kernel ran at
    // 265-295 cycles per 8 events in three processes of four (those whose stack pointer the
    // caller left at 16, 48 or 0 mod 64) and at 210-220 in the fourth.
    fn->addFnAttr(llvm::Attribute::getWithStackAlignment(module.getContext(), llvm::Align(64)));
    if (!cpu.empty()) {
        fn->addFnAttr("target-cpu", cpu);
    }
    if (!features.empty()) {
        fn->addFnAttr("target-features", features);
    }
    for (std::size_t k = 0; k < argument_names.size() && k < fn->arg_size(); ++k) {
        fn->getArg(static_cast<unsigned>(k))->setName(argument_names[k]);
    }
    return fn;
}

Expected<void> verify(const llvm::Function& fn, const std::string& what) {
    std::string message;
    llvm::raw_string_ostream out(message);
    if (llvm::verifyFunction(fn, &out)) {
        out.flush();
        return failure(ErrorKind::kBackend,
                       "jit: the generated " + what + " does not verify: " + message);
    }
    return {};
}

Expected<void> lower_program(const ir::Program& program, ir::Precision precision,
                             const LowerOptions& options, llvm::Module& module) {
    try {
        Lowerer lowerer(program, precision, module);
        return lowerer.run(options);
    } catch (const std::exception& error) {
        return failure(ErrorKind::kBackend, std::string("jit: lowering failed: ") + error.what());
    }
}

}  // namespace laddu::jit::detail
