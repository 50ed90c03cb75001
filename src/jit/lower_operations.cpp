// The operations of the lowering (lowerer.hpp): complex arithmetic spelled as the interpreter
// rounds it, dot products, inline and called linear solves, and calls into libm and the
// laddu_jit_c* helpers.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include "lowerer.hpp"

namespace laddu::jit::detail {

using ir::OpCode;

namespace {

// kSolve systems up to this size are emitted inline; larger ones call laddu_jit_solve.
constexpr std::uint32_t kInlineSolveSize = 4;

// The one-operand functions whose complex form is a laddu_jit_c* helper (helpers.hpp); the real
// form is an LLVM intrinsic when there is one, else the libm function.
struct Elementary {
    OpCode op;
    const char* complex_helper;
    llvm::Intrinsic::ID intrinsic;  // not_intrinsic: call `libm`
    const char* libm;
};

constexpr std::array kElementary = {
    Elementary{OpCode::kSqrt, "laddu_jit_csqrt", llvm::Intrinsic::sqrt, nullptr},
    Elementary{OpCode::kExp, "laddu_jit_cexp", llvm::Intrinsic::exp, nullptr},
    Elementary{OpCode::kLog, "laddu_jit_clog", llvm::Intrinsic::log, nullptr},
    Elementary{OpCode::kSin, "laddu_jit_csin", llvm::Intrinsic::sin, nullptr},
    Elementary{OpCode::kCos, "laddu_jit_ccos", llvm::Intrinsic::cos, nullptr},
    Elementary{OpCode::kTan, "laddu_jit_ctan", llvm::Intrinsic::not_intrinsic, "tan"},
    Elementary{OpCode::kAsin, "laddu_jit_casin", llvm::Intrinsic::not_intrinsic, "asin"},
    Elementary{OpCode::kAcos, "laddu_jit_cacos", llvm::Intrinsic::not_intrinsic, "acos"},
    Elementary{OpCode::kAtan, "laddu_jit_catan", llvm::Intrinsic::not_intrinsic, "atan"},
    Elementary{OpCode::kSinh, "laddu_jit_csinh", llvm::Intrinsic::not_intrinsic, "sinh"},
    Elementary{OpCode::kCosh, "laddu_jit_ccosh", llvm::Intrinsic::not_intrinsic, "cosh"},
    Elementary{OpCode::kTanh, "laddu_jit_ctanh", llvm::Intrinsic::not_intrinsic, "tanh"},
};

}  // namespace

llvm::Value* Lowerer::intrinsic(llvm::Intrinsic::ID id, llvm::Value* a) {
    return b_.CreateUnaryIntrinsic(id, a);
}

// The external function `name` of the process (libm, the laddu_jit_* helpers), declared once
// per module as nounwind, willreturn and touching only `memory`, so that LLVM may hoist, merge
// and vectorise around its calls.
llvm::FunctionCallee Lowerer::declare_helper(const char* name, llvm::FunctionType* type,
                                             llvm::MemoryEffects memory) {
    llvm::FunctionCallee callee = module_.getOrInsertFunction(name, type);
    if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
        f->setMemoryEffects(memory);
        f->setDoesNotThrow();
        f->setWillReturn();
    }
    return callee;
}

// A libm function by its C name ("tan"; "tanf" in f32 kernels), resolved from the process.
llvm::Value* Lowerer::libm(const char* name, std::initializer_list<llvm::Value*> args) {
    std::string symbol = name;
    if (fty_ != f64_) {
        symbol += 'f';
    }
    const std::vector<llvm::Type*> params(args.size(), fty_);
    auto* type = llvm::FunctionType::get(fty_, params, false);
    const llvm::FunctionCallee callee =
        declare_helper(symbol.c_str(), type, llvm::MemoryEffects::none());
    return b_.CreateCall(callee, std::vector<llvm::Value*>(args));
}

// One of the laddu_jit_c* helpers of helpers.hpp: always in double, returning {re, im}.
Value Lowerer::complex_helper(const char* name, std::initializer_list<llvm::Value*> args) {
    const std::vector<llvm::Type*> params(args.size(), f64_);
    auto* result_type = llvm::StructType::get(ctx_, {f64_, f64_});
    auto* type = llvm::FunctionType::get(result_type, params, false);
    const llvm::FunctionCallee callee = declare_helper(name, type, llvm::MemoryEffects::none());
    std::vector<llvm::Value*> wide;
    for (llvm::Value* a : args) {
        wide.push_back(widen(a));
    }
    llvm::Value* pair = b_.CreateCall(callee, wide);
    return {narrow(b_.CreateExtractValue(pair, 0)), narrow(b_.CreateExtractValue(pair, 1))};
}

Value Lowerer::unary(OpCode op, const Value& a) {
    const bool c = a.is_complex();
    for (const Elementary& e : kElementary) {
        if (e.op != op) {
            continue;
        }
        if (c) {
            return complex_helper(e.complex_helper, {a.re, a.im});
        }
        return {e.libm != nullptr ? libm(e.libm, {a.re}) : intrinsic(e.intrinsic, a.re), nullptr};
    }
    switch (op) {
    case OpCode::kNeg:
        return {b_.CreateFNeg(a.re), c ? b_.CreateFNeg(a.im) : nullptr};
    case OpCode::kConj:
        return {a.re, c ? b_.CreateFNeg(a.im) : nullptr};
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
    for (std::uint32_t k = 0; k < n; ++k) {
        pivot(a, rhs, k);
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
        substitute(a, x);
        for (std::uint32_t r = 0; r < n; ++r) {
            elements.push_back(select(singular, nan, x[r]));
        }
    }
}

// Swaps row k of `a` and `rhs` with the first row at or below it of largest |re| + |im| in
// column k, by selects (the row is known only per event).
void Lowerer::pivot(std::vector<std::vector<Value>>& a, std::vector<std::vector<Value>>& rhs,
                    std::uint32_t k) {
    const auto n = static_cast<std::uint32_t>(a.size());
    auto weight = [&](const Value& z) {
        return b_.CreateFAdd(intrinsic(llvm::Intrinsic::fabs, z.re),
                             intrinsic(llvm::Intrinsic::fabs, z.im));
    };
    auto* i32 = b_.getInt32Ty();
    llvm::Value* best = weight(a[k][k]);
    llvm::Value* row = llvm::ConstantInt::get(i32, k);
    for (std::uint32_t r = k + 1; r < n; ++r) {
        llvm::Value* w = weight(a[r][k]);
        llvm::Value* larger = b_.CreateFCmpOGT(w, best);
        best = b_.CreateSelect(larger, w, best);
        row = b_.CreateSelect(larger, llvm::ConstantInt::get(i32, r), row);
    }
    const auto swap_rows = [&](std::vector<Value>& top_row, std::vector<Value>& other,
                               llvm::Value* swap) {
        for (std::size_t c = 0; c < top_row.size(); ++c) {
            const Value top = top_row[c];
            top_row[c] = select(swap, other[c], top);
            other[c] = select(swap, top, other[c]);
        }
    };
    for (std::uint32_t r = k + 1; r < n; ++r) {
        llvm::Value* swap = b_.CreateICmpEQ(row, llvm::ConstantInt::get(i32, r));
        swap_rows(a[k], a[r], swap);
        swap_rows(rhs[k], rhs[r], swap);
    }
}

// x := U⁻¹ L⁻¹ x for the LU factors packed in `lu` (L unit lower, U upper).
void Lowerer::substitute(const std::vector<std::vector<Value>>& lu, std::vector<Value>& x) {
    const auto n = static_cast<std::uint32_t>(lu.size());
    for (std::uint32_t j = 0; j < n; ++j) {
        for (std::uint32_t r = j + 1; r < n; ++r) {
            x[r] = sub(x[r], mul(lu[r][j], x[j]));
        }
    }
    for (std::uint32_t j = n; j-- > 0;) {
        x[j] = div(x[j], lu[j][j]);
        for (std::uint32_t r = 0; r < j; ++r) {
            x[r] = sub(x[r], mul(lu[r][j], x[j]));
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
    const llvm::FunctionCallee callee =
        declare_helper("laddu_jit_solve", type, llvm::MemoryEffects::argMemOnly());
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

}  // namespace laddu::jit::detail
