// The lowering of one ir::Program to an LLVM function (lower.hpp's lower_program), private to
// src/jit: lower.cpp builds the function, its loop, loads and stores and dispatches each
// instruction; lower_operations.cpp emits the operations (complex arithmetic, dot products,
// linear solves, library calls).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Metadata.h>
#include <llvm/Support/ModRef.h>

#include <laddu/ir/program.hpp>

#include "lower.hpp"

namespace laddu::jit::detail {

/// A lowered scalar: Real when `im` is null. Plain arithmetic only (no fast-math flags): the
/// kernels must round exactly like the interpreter, so nothing is reassociated or contracted.
struct Value {
    llvm::Value* re = nullptr;
    llvm::Value* im = nullptr;

    [[nodiscard]] bool is_complex() const noexcept { return im != nullptr; }
};

/// Lowers one program into one function of a module: construct, then run() once.
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

    Value unary(ir::OpCode op, const Value& a);
    Value binary(ir::OpCode op, const Value& a, const Value& b);
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
    void pivot(std::vector<std::vector<Value>>& a, std::vector<std::vector<Value>>& rhs,
               std::uint32_t k);
    void substitute(const std::vector<std::vector<Value>>& lu, std::vector<Value>& x);

    llvm::Value* constant(double value) { return llvm::ConstantFP::get(fty_, value); }

    llvm::Value* imag_of(const Value& a) { return a.is_complex() ? a.im : constant(0.0); }

    llvm::Value* widen(llvm::Value* v);
    llvm::Value* narrow(llvm::Value* v);
    llvm::Value* load_column(llvm::Value* column);
    llvm::Value* intrinsic(llvm::Intrinsic::ID id, llvm::Value* a);
    llvm::FunctionCallee declare_helper(const char* name, llvm::FunctionType* type,
                                        llvm::MemoryEffects memory);
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

}  // namespace laddu::jit::detail
