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

namespace laddu::jit::detail {

namespace {

using ir::OpCode;

// kSolve systems up to this size are emitted inline; larger ones call laddu_jit_solve.
constexpr std::uint32_t kInlineSolveSize = 4;

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

// A lowered scalar: Real when `im` is null. Plain arithmetic only (no fast-math flags): the
// kernels must round exactly like the interpreter, so nothing is reassociated or contracted.
struct Value {
    llvm::Value* re = nullptr;
    llvm::Value* im = nullptr;

    [[nodiscard]] bool is_complex() const noexcept { return im != nullptr; }
};

class Lowerer {
public:
    Lowerer(const ir::Program& program, ir::Precision precision, llvm::Module& module)
        : program_(program), module_(module), ctx_(module.getContext()), b_(ctx_),
          f64_(b_.getDoubleTy()),
          event_ty_(precision == ir::Precision::kF32 ? b_.getFloatTy() : b_.getDoubleTy()),
          fty_(f64_), i64_(b_.getInt64Ty()), ptr_(b_.getPtrTy()), loaded_at_(program.size()),
          values_(program.size()), narrowed_(program.size()), vectors_(program.size()) {}

    Expected<void> run(const LowerOptions& options);

private:
    void begin_function(const LowerOptions& options);
    void load_column_pointers(const LowerOptions& options);
    void make_alias_scopes();
    llvm::MDNode* fold_tail_metadata();
    void lower(std::uint32_t index);
    void store_outputs(std::uint32_t index);
    void store_remaining_outputs();
    const Value& use(ir::ValueId id);
    Value load_input(const ir::Instruction& inst, llvm::Value* base);

    Value unary(OpCode op, const Value& a);
    Value binary(OpCode op, const Value& a, const Value& b);
    Value add(const Value& a, const Value& b);
    Value sub(const Value& a, const Value& b);
    Value mul(const Value& a, const Value& b);
    Value div(const Value& a, const Value& b);
    Value pow_i(const Value& a, std::int32_t n);
    Value dot(std::span<const ir::ValueId> operands, std::uint32_t n);
    void solve(std::uint32_t index, std::span<const ir::ValueId> operands, std::uint32_t attr);
    void solve_inline(std::uint32_t index, std::span<const ir::ValueId> operands, std::uint32_t n,
                      std::uint32_t m);
    Value select(llvm::Value* cond, const Value& a, const Value& b);

    llvm::Value* constant(double value) { return llvm::ConstantFP::get(fty_, value); }

    llvm::Value* imag_of(const Value& a) { return a.is_complex() ? a.im : constant(0.0); }

    llvm::Value* widen(llvm::Value* v);
    llvm::Value* narrow(llvm::Value* v);
    llvm::Value* load_column(llvm::Value* column);
    llvm::Value* intrinsic(llvm::Intrinsic::ID id, llvm::Value* a);
    llvm::Value* libm(const char* name, std::initializer_list<llvm::Value*> args);
    Value complex_helper(const char* name, std::initializer_list<llvm::Value*> args);
    llvm::Value* entry_alloca(std::uint32_t doubles);

    const ir::Program& program_;
    llvm::Module& module_;
    llvm::LLVMContext& ctx_;
    llvm::IRBuilder<> b_;
    llvm::Type* f64_;
    llvm::Type* event_ty_;  // the arithmetic type of event instructions: double or float
    llvm::Type* fty_;       // the arithmetic type of the instruction being lowered
    llvm::Type* i64_;
    llvm::PointerType* ptr_;

    llvm::Function* fn_ = nullptr;
    bool fold_tail_ = false;     // ask the vectoriser for masked tail iterations (see run())
    bool float_inputs_ = false;  // input columns hold float (LowerOptions::inputs)
    llvm::BasicBlock* entry_ = nullptr;
    llvm::Value* index_ = nullptr;  // the event index inside the loop
    std::vector<llvm::Value*> input_columns_;
    std::vector<std::size_t> slot_first_column_;
    std::vector<llvm::Value*> output_columns_;
    llvm::MDNode* input_scope_ = nullptr;
    llvm::MDNode* input_noalias_ = nullptr;
    std::vector<llvm::MDNode*> output_scope_;
    std::vector<llvm::MDNode*> output_noalias_;

    llvm::Value* reload_base_ = nullptr;  // an opaque copy of the first input pointer (use())
    std::size_t input_stride_ = 0;
    std::uint32_t lowering_ = 0;              // the instruction being lowered
    std::vector<std::uint32_t> loaded_at_;    // kLoad values: where they were last loaded
    std::vector<std::size_t> output_column_;  // each output's first column
    std::vector<std::uint32_t> stored_by_;    // outputs ordered by their value's index
    std::size_t next_stored_ = 0;             // into stored_by_: the next output to store

    std::vector<Value> values_;
    std::vector<Value> narrowed_;  // float copies of invariants that f32 event code reads
    std::vector<std::vector<Value>> vectors_;  // elements of kSolve results
};

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

llvm::Value* Lowerer::intrinsic(llvm::Intrinsic::ID id, llvm::Value* a) {
    return b_.CreateUnaryIntrinsic(id, a);
}

// A libm function by its C name ("tan"; "tanf" in f32 kernels), resolved from the process.
llvm::Value* Lowerer::libm(const char* name, std::initializer_list<llvm::Value*> args) {
    std::string symbol = name;
    if (fty_ != f64_) {
        symbol += 'f';
    }
    const std::vector<llvm::Type*> params(args.size(), fty_);
    auto* type = llvm::FunctionType::get(fty_, params, false);
    llvm::FunctionCallee callee = module_.getOrInsertFunction(symbol, type);
    if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
        f->setDoesNotAccessMemory();
        f->setDoesNotThrow();
        f->setWillReturn();
    }
    return b_.CreateCall(callee, std::vector<llvm::Value*>(args));
}

// One of the laddu_jit_c* helpers of helpers.hpp: always in double, returning {re, im}.
Value Lowerer::complex_helper(const char* name, std::initializer_list<llvm::Value*> args) {
    const std::vector<llvm::Type*> params(args.size(), f64_);
    auto* result_type = llvm::StructType::get(ctx_, {f64_, f64_});
    auto* type = llvm::FunctionType::get(result_type, params, false);
    llvm::FunctionCallee callee = module_.getOrInsertFunction(name, type);
    if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
        f->setDoesNotAccessMemory();
        f->setDoesNotThrow();
        f->setWillReturn();
    }
    std::vector<llvm::Value*> wide;
    for (llvm::Value* a : args) {
        wide.push_back(widen(a));
    }
    llvm::Value* pair = b_.CreateCall(callee, wide);
    return {narrow(b_.CreateExtractValue(pair, 0)), narrow(b_.CreateExtractValue(pair, 1))};
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

Value Lowerer::unary(OpCode op, const Value& a) {
    const bool c = a.is_complex();
    switch (op) {
    case OpCode::kNeg:
        return {b_.CreateFNeg(a.re), c ? b_.CreateFNeg(a.im) : nullptr};
    case OpCode::kConj:
        return {a.re, c ? b_.CreateFNeg(a.im) : nullptr};
    case OpCode::kSqrt:
        return c ? complex_helper("laddu_jit_csqrt", {a.re, a.im})
                 : Value{intrinsic(llvm::Intrinsic::sqrt, a.re), nullptr};
    case OpCode::kExp:
        return c ? complex_helper("laddu_jit_cexp", {a.re, a.im})
                 : Value{intrinsic(llvm::Intrinsic::exp, a.re), nullptr};
    case OpCode::kLog:
        return c ? complex_helper("laddu_jit_clog", {a.re, a.im})
                 : Value{intrinsic(llvm::Intrinsic::log, a.re), nullptr};
    case OpCode::kSin:
        return c ? complex_helper("laddu_jit_csin", {a.re, a.im})
                 : Value{intrinsic(llvm::Intrinsic::sin, a.re), nullptr};
    case OpCode::kCos:
        return c ? complex_helper("laddu_jit_ccos", {a.re, a.im})
                 : Value{intrinsic(llvm::Intrinsic::cos, a.re), nullptr};
    case OpCode::kTan:
        return c ? complex_helper("laddu_jit_ctan", {a.re, a.im}) : Value{libm("tan", {a.re})};
    case OpCode::kAsin:
        return c ? complex_helper("laddu_jit_casin", {a.re, a.im}) : Value{libm("asin", {a.re})};
    case OpCode::kAcos:
        return c ? complex_helper("laddu_jit_cacos", {a.re, a.im}) : Value{libm("acos", {a.re})};
    case OpCode::kAtan:
        return c ? complex_helper("laddu_jit_catan", {a.re, a.im}) : Value{libm("atan", {a.re})};
    case OpCode::kSinh:
        return c ? complex_helper("laddu_jit_csinh", {a.re, a.im}) : Value{libm("sinh", {a.re})};
    case OpCode::kCosh:
        return c ? complex_helper("laddu_jit_ccosh", {a.re, a.im}) : Value{libm("cosh", {a.re})};
    case OpCode::kTanh:
        return c ? complex_helper("laddu_jit_ctanh", {a.re, a.im}) : Value{libm("tanh", {a.re})};
    case OpCode::kReal:
        return {a.re, nullptr};
    case OpCode::kImag:
        return {imag_of(a), nullptr};
    case OpCode::kAbs:
        return {c ? libm("hypot", {a.re, a.im}) : intrinsic(llvm::Intrinsic::fabs, a.re), nullptr};
    case OpCode::kArg:
        return {libm("atan2", {imag_of(a), a.re}), nullptr};
    case OpCode::kNormSqr: {
        llvm::Value* re2 = b_.CreateFMul(a.re, a.re);
        return {c ? b_.CreateFAdd(re2, b_.CreateFMul(a.im, a.im)) : re2, nullptr};
    }
    default:
        break;
    }
    // validate() admits no other one-operand opcode.
    return {llvm::PoisonValue::get(fty_), nullptr};
}

Value Lowerer::binary(OpCode op, const Value& a, const Value& b) {
    switch (op) {
    case OpCode::kAdd:
        return add(a, b);
    case OpCode::kSub:
        return sub(a, b);
    case OpCode::kMul:
        return mul(a, b);
    case OpCode::kDiv:
        return div(a, b);
    case OpCode::kPow:
        if (!a.is_complex() && !b.is_complex()) {
            return {b_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, a.re, b.re), nullptr};
        }
        return complex_helper("laddu_jit_cpow", {a.re, imag_of(a), b.re, imag_of(b)});
    case OpCode::kAtan2:
        return {libm("atan2", {a.re, b.re}), nullptr};
    case OpCode::kComplex:
        return {a.re, b.re};
    default:
        break;
    }
    return {llvm::PoisonValue::get(fty_), nullptr};
}

// Mixed Real/Complex: the Real operand's missing imaginary part is an exact zero, so the
// imaginary part passes through (or is negated) exactly as std::complex does it.
Value Lowerer::add(const Value& a, const Value& b) {
    llvm::Value* re = b_.CreateFAdd(a.re, b.re);
    if (a.is_complex() && b.is_complex()) {
        return {re, b_.CreateFAdd(a.im, b.im)};
    }
    return {re, a.is_complex() ? a.im : b.im};
}

Value Lowerer::sub(const Value& a, const Value& b) {
    llvm::Value* re = b_.CreateFSub(a.re, b.re);
    if (a.is_complex() && b.is_complex()) {
        return {re, b_.CreateFSub(a.im, b.im)};
    }
    if (b.is_complex()) {
        return {re, b_.CreateFNeg(b.im)};
    }
    return {re, a.im};
}

Value Lowerer::mul(const Value& a, const Value& b) {
    if (!a.is_complex() && !b.is_complex()) {
        return {b_.CreateFMul(a.re, b.re), nullptr};
    }
    if (!a.is_complex()) {
        return {b_.CreateFMul(a.re, b.re), b_.CreateFMul(a.re, b.im)};
    }
    if (!b.is_complex()) {
        return {b_.CreateFMul(a.re, b.re), b_.CreateFMul(a.im, b.re)};
    }
    llvm::Value* re = b_.CreateFSub(b_.CreateFMul(a.re, b.re), b_.CreateFMul(a.im, b.im));
    llvm::Value* im = b_.CreateFAdd(b_.CreateFMul(a.re, b.im), b_.CreateFMul(a.im, b.re));
    return {re, im};
}

// Complex division by the textbook formula over |b|² (the interpreter's; docs/ir.md fixes the
// rounding of every operation so both backends agree bit for bit). Real ÷ Complex drops the
// zero imaginary part's products; ÷ Real divides both parts.
Value Lowerer::div(const Value& a, const Value& b) {
    if (!b.is_complex()) {
        return {b_.CreateFDiv(a.re, b.re), a.is_complex() ? b_.CreateFDiv(a.im, b.re) : nullptr};
    }
    llvm::Value* den = b_.CreateFAdd(b_.CreateFMul(b.re, b.re), b_.CreateFMul(b.im, b.im));
    if (!a.is_complex()) {
        return {b_.CreateFDiv(b_.CreateFMul(a.re, b.re), den),
                b_.CreateFDiv(b_.CreateFNeg(b_.CreateFMul(a.re, b.im)), den)};
    }
    llvm::Value* re = b_.CreateFAdd(b_.CreateFMul(a.re, b.re), b_.CreateFMul(a.im, b.im));
    llvm::Value* im = b_.CreateFSub(b_.CreateFMul(a.im, b.re), b_.CreateFMul(a.re, b.im));
    return {b_.CreateFDiv(re, den), b_.CreateFDiv(im, den)};
}

// Right-to-left binary exponentiation; the first factor is taken as is (no 1 *).
Value Lowerer::pow_i(const Value& a, std::int32_t n) {
    if (n == 0) {
        return {constant(1.0), a.is_complex() ? constant(0.0) : nullptr};
    }
    std::uint32_t e = n < 0 ? 0U - static_cast<std::uint32_t>(n) : static_cast<std::uint32_t>(n);
    Value base = a;
    Value result;
    bool have_result = false;
    while (true) {
        if ((e & 1U) != 0) {
            result = have_result ? mul(result, base) : base;
            have_result = true;
        }
        e >>= 1U;
        if (e == 0) {
            break;
        }
        base = mul(base, base);
    }
    if (n < 0) {
        return div(Value{constant(1.0), nullptr}, result);
    }
    return result;
}

// docs/ir.md's kDot, as the interpreter's dot_step: term 0 by the kMul formula, every later
// real product fused into its part (llvm.fma, correctly rounded like std::fma); a part the
// accumulator lacks starts from a plain product.
Value Lowerer::dot(std::span<const ir::ValueId> operands, std::uint32_t n) {
    auto at = [&](std::size_t k) -> const Value& {
        return use(operands[k]);
    };
    auto fma = [&](llvm::Value* p, llvm::Value* q, llvm::Value* part) -> llvm::Value* {
        return b_.CreateIntrinsic(llvm::Intrinsic::fma, {p->getType()}, {p, q, part});
    };
    // im's next contribution p·q: fused into im when the accumulator has one.
    auto into_im = [&](llvm::Value* im, llvm::Value* p, llvm::Value* q) -> llvm::Value* {
        return im != nullptr ? fma(p, q, im) : b_.CreateFMul(p, q);
    };
    Value acc = mul(at(0), at(n));
    for (std::size_t k = 1; k < n; ++k) {
        const Value& a = at(k);
        const Value& b = at(n + k);
        acc.re = fma(a.re, b.re, acc.re);
        if (a.is_complex() && b.is_complex()) {
            acc.re = fma(b_.CreateFNeg(a.im), b.im, acc.re);
            acc.im = fma(a.im, b.re, into_im(acc.im, a.re, b.im));
        } else if (a.is_complex()) {
            acc.im = into_im(acc.im, a.im, b.re);
        } else if (b.is_complex()) {
            acc.im = into_im(acc.im, a.re, b.im);
        }
    }
    return acc;
}

Value Lowerer::select(llvm::Value* cond, const Value& a, const Value& b) {
    return {b_.CreateSelect(cond, a.re, b.re), b_.CreateSelect(cond, a.im, b.im)};
}

// Small systems (the K-matrix's 2×2 and 3×3) are unrolled into straight-line code with
// selects for the row swaps, so an event loop holding them still vectorises. The operation
// sequence is the interpreter's LU (see helpers.cpp) on operands widened to complex, so the
// results are the same bits; a zero U_ii (which a zero pivot column implies) makes every
// element NaN.
void Lowerer::solve_inline(std::uint32_t index, std::span<const ir::ValueId> operands,
                           std::uint32_t n, std::uint32_t m) {
    auto complex_of = [&](ir::ValueId id) {
        const Value& v = use(id);
        return Value{v.re, imag_of(v)};
    };
    std::vector<std::vector<Value>> a(n);
    std::vector<std::vector<Value>> rhs(n);  // rhs[row][column]
    for (std::uint32_t r = 0; r < n; ++r) {
        for (std::uint32_t c = 0; c < n; ++c) {
            a[r].push_back(complex_of(operands[r * n + c]));
        }
        for (std::uint32_t c = 0; c < m; ++c) {
            rhs[r].push_back(complex_of(operands[n * n + c * n + r]));
        }
    }
    auto weight = [&](const Value& z) {
        return b_.CreateFAdd(intrinsic(llvm::Intrinsic::fabs, z.re),
                             intrinsic(llvm::Intrinsic::fabs, z.im));
    };
    auto* i32 = b_.getInt32Ty();
    for (std::uint32_t k = 0; k < n; ++k) {
        // The first row of largest |re| + |im| in column k.
        llvm::Value* best = weight(a[k][k]);
        llvm::Value* pivot = llvm::ConstantInt::get(i32, k);
        for (std::uint32_t r = k + 1; r < n; ++r) {
            llvm::Value* w = weight(a[r][k]);
            llvm::Value* larger = b_.CreateFCmpOGT(w, best);
            best = b_.CreateSelect(larger, w, best);
            pivot = b_.CreateSelect(larger, llvm::ConstantInt::get(i32, r), pivot);
        }
        for (std::uint32_t r = k + 1; r < n; ++r) {
            llvm::Value* swap = b_.CreateICmpEQ(pivot, llvm::ConstantInt::get(i32, r));
            for (std::uint32_t c = 0; c < n; ++c) {
                const Value top = a[k][c];
                a[k][c] = select(swap, a[r][c], top);
                a[r][c] = select(swap, top, a[r][c]);
            }
            for (std::uint32_t c = 0; c < m; ++c) {
                const Value top = rhs[k][c];
                rhs[k][c] = select(swap, rhs[r][c], top);
                rhs[r][c] = select(swap, top, rhs[r][c]);
            }
        }
        const Value inv = div(Value{constant(1.0), nullptr}, a[k][k]);
        for (std::uint32_t r = k + 1; r < n; ++r) {
            a[r][k] = mul(a[r][k], inv);
        }
        for (std::uint32_t c = k + 1; c < n; ++c) {
            for (std::uint32_t r = k + 1; r < n; ++r) {
                a[r][c] = sub(a[r][c], mul(a[r][k], a[k][c]));
            }
        }
    }
    llvm::Value* singular = b_.getFalse();
    for (std::uint32_t j = 0; j < n; ++j) {
        llvm::Value* zero = b_.CreateAnd(b_.CreateFCmpOEQ(a[j][j].re, constant(0.0)),
                                         b_.CreateFCmpOEQ(a[j][j].im, constant(0.0)));
        singular = b_.CreateOr(singular, zero);
    }
    const Value nan{constant(std::numeric_limits<double>::quiet_NaN()),
                    constant(std::numeric_limits<double>::quiet_NaN())};
    std::vector<Value>& elements = vectors_[index];
    for (std::uint32_t c = 0; c < m; ++c) {
        std::vector<Value> x(n);
        for (std::uint32_t r = 0; r < n; ++r) {
            x[r] = rhs[r][c];
        }
        for (std::uint32_t j = 0; j < n; ++j) {
            for (std::uint32_t r = j + 1; r < n; ++r) {
                x[r] = sub(x[r], mul(a[r][j], x[j]));
            }
        }
        for (std::uint32_t j = n; j-- > 0;) {
            x[j] = div(x[j], a[j][j]);
            for (std::uint32_t r = 0; r < j; ++r) {
                x[r] = sub(x[r], mul(a[r][j], x[j]));
            }
        }
        for (std::uint32_t r = 0; r < n; ++r) {
            elements.push_back(select(singular, nan, x[r]));
        }
    }
}

// Larger kSolves go through laddu_jit_solve with the operands spilled to stack arrays (allocated
// once, at entry); such a call keeps an event loop scalar.
void Lowerer::solve(std::uint32_t index, std::span<const ir::ValueId> operands,
                    std::uint32_t attr) {
    const std::uint32_t n = ir::solve_size(attr);
    const std::uint32_t m = ir::solve_rhs_count(attr);
    if (n <= kInlineSolveSize) {
        solve_inline(index, operands, n, m);
        return;
    }
    llvm::Value* a = entry_alloca(2 * n * n);
    llvm::Value* rhs = entry_alloca(2 * n * m);
    llvm::Value* x = entry_alloca(2 * n * m);
    auto spill = [&](llvm::Value* array, std::uint32_t k, const Value& v) {
        b_.CreateStore(widen(v.re),
                       b_.CreateConstInBoundsGEP1_64(f64_, array, 2 * std::uint64_t{k}));
        b_.CreateStore(widen(imag_of(v)),
                       b_.CreateConstInBoundsGEP1_64(f64_, array, (2 * std::uint64_t{k}) + 1));
    };
    for (std::uint32_t k = 0; k < n * n; ++k) {
        spill(a, k, use(operands[k]));
    }
    for (std::uint32_t k = 0; k < n * m; ++k) {
        spill(rhs, k, use(operands[n * n + k]));
    }
    auto* i32 = b_.getInt32Ty();
    auto* type = llvm::FunctionType::get(b_.getVoidTy(), {i32, i32, ptr_, ptr_, ptr_}, false);
    llvm::FunctionCallee callee = module_.getOrInsertFunction("laddu_jit_solve", type);
    if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
        f->setOnlyAccessesArgMemory();
        f->setDoesNotThrow();
        f->setWillReturn();
    }
    b_.CreateCall(callee,
                  {llvm::ConstantInt::get(i32, n), llvm::ConstantInt::get(i32, m), a, rhs, x});
    std::vector<Value>& elements = vectors_[index];
    for (std::uint32_t k = 0; k < n * m; ++k) {
        llvm::Value* re =
            b_.CreateLoad(f64_, b_.CreateConstInBoundsGEP1_64(f64_, x, 2 * std::uint64_t{k}));
        llvm::Value* im =
            b_.CreateLoad(f64_, b_.CreateConstInBoundsGEP1_64(f64_, x, (2 * std::uint64_t{k}) + 1));
        elements.push_back({narrow(re), narrow(im)});
    }
}

}  // namespace

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
