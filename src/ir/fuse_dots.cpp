#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <laddu/ir/builder.hpp>
#include <laddu/ir/fuse_dots.hpp>

namespace laddu::ir {

namespace {

bool is_product(const Instruction& inst) noexcept {
    return inst.op == OpCode::kMul || (inst.op == OpCode::kMulN && inst.count >= 2);
}

bool is_zero(const Instruction& inst) noexcept {
    return inst.op == OpCode::kConstReal && inst.re == 0.0;
}

// How often the outputs and the live instructions read each value.
std::vector<std::uint32_t> live_uses(const Program& program, const std::vector<char>& live) {
    std::vector<std::uint32_t> uses(program.size(), 0);
    for (const ValueId id : program.outputs) {
        ++uses[to_index(id)];
    }
    for (std::size_t i = 0; i < program.size(); ++i) {
        if (live[i] == 0) {
            continue;
        }
        for (const ValueId operand : program.operands_of(program.instructions[i])) {
            ++uses[to_index(operand)];
        }
    }
    return uses;
}

// One run of fuse_dots over `program`: mark() finds the products each sum absorbs, then run()
// copies the program into a Builder with those sums as dots.
class DotFuser {
public:
    explicit DotFuser(const Program& program)
        : program_(program), size_(program.instructions.size()),
          live_(live_instructions(program, program.outputs)), absorbed_(size_, false),
          fused_(size_, false), mapped_(size_) {}

    Program run() {
        mark();
        b_.add_signature_of(program_);
        for (std::size_t i = 0; i < size_; ++i) {
            if (live_[i] != 0 && !absorbed_[i]) {
                mapped_[i] = copy(program_.instructions[i], i);
            }
        }
        b_.add_outputs_of(program_, mapped_);
        return b_.finish();
    }

private:
    // A product is absorbed into the one sum that uses it; a sum is fused when it absorbs one.
    // Instructions no output reads are dropped (autodiff leaves some: a partial whose adjoint
    // folded to another value), and their reads are not counted, so a product that only a
    // dropped instruction shares with its sum is still absorbed into the sum.
    void mark() {
        const std::vector<std::uint32_t> uses = live_uses(program_, live_);
        for (std::size_t i = 0; i < size_; ++i) {
            const Instruction& inst = program_.instructions[i];
            if (live_[i] == 0 || inst.op != OpCode::kAddN) {
                continue;
            }
            for (const ValueId operand : program_.operands_of(inst)) {
                if (uses[to_index(operand)] == 1 && is_product(program_.at(operand))) {
                    absorbed_[to_index(operand)] = true;
                    fused_[i] = true;
                }
            }
        }
    }

    ValueId map(ValueId id) const { return mapped_[to_index(id)]; }

    // Instruction i (live, not absorbed) in the new program.
    ValueId copy(const Instruction& inst, std::size_t i) {
        if (fused_[i]) {
            return dot(inst);
        }
        const auto ops = program_.operands_of(inst);
        if (inst.op == OpCode::kMul) {
            const std::array<ValueId, 2> pair = factors_of(ops[0], ops[1]);
            return b_.binary(OpCode::kMul, pair[0], pair[1]);
        }
        operands_.clear();
        for (const ValueId operand : ops) {
            operands_.push_back(map(operand));
        }
        return b_.copy(inst, operands_);
    }

    // The fused sum `inst` as one dot: an absorbed product p·q as the pair (p, q), a product of
    // more factors as (the product of all but the last, the last), any other term t as (t, 1).
    ValueId dot(const Instruction& inst) {
        std::vector<ValueId> left;
        std::vector<ValueId> right;
        for (const ValueId term : program_.operands_of(inst)) {
            if (!absorbed_[to_index(term)]) {
                if (!one_) {
                    one_ = b_.const_real(1.0);
                }
                left.push_back(map(term));
                right.push_back(*one_);
                continue;
            }
            const auto factors = program_.operands_of(term);
            if (factors.size() == 2) {
                const std::array<ValueId, 2> pair = factors_of(factors[0], factors[1]);
                left.push_back(pair[0]);
                right.push_back(pair[1]);
                continue;
            }
            operands_.clear();
            for (std::size_t f = 0; f + 1 < factors.size(); ++f) {
                operands_.push_back(map(factors[f]));
            }
            left.push_back(b_.mul_n(operands_));
            right.push_back(map(factors.back()));
        }
        return b_.dot(left, right);
    }

    // A complex factor x + i·0 (a coupling whose imaginary part is fixed at zero) enters a
    // product as x: x·C takes two real products where (x + i·0)·C takes four and two sums, and
    // its bits are the same wherever C is finite (up to the sign of a zero part). One factor
    // of a pair at most, so the product stays Complex.
    bool real_zero_imag(ValueId id) const {
        const Instruction& inst = program_.at(id);
        return (inst.op == OpCode::kComplex &&
                is_zero(program_.at(program_.operands_of(inst)[1]))) ||
               (inst.op == OpCode::kConstComplex && inst.im == 0.0);
    }

    ValueId real_part(ValueId id) {
        const Instruction& inst = program_.at(id);
        return inst.op == OpCode::kConstComplex ? b_.const_real(inst.re)
                                                : map(program_.operands_of(inst)[0]);
    }

    std::array<ValueId, 2> factors_of(ValueId p, ValueId q) {
        if (real_zero_imag(p) && program_.at(q).kind == ValueKind::kComplex) {
            return {real_part(p), map(q)};
        }
        if (real_zero_imag(q) && program_.at(p).kind == ValueKind::kComplex) {
            return {map(p), real_part(q)};
        }
        return {map(p), map(q)};
    }

    const Program& program_;
    std::size_t size_;
    std::vector<char> live_;
    std::vector<bool> absorbed_;  // products absorbed into their sum
    std::vector<bool> fused_;     // sums that absorb a product
    std::vector<ValueId> mapped_;
    std::vector<ValueId> operands_;  // scratch
    std::optional<ValueId> one_;     // the constant 1 of a dot's lone terms, once emitted
    Builder b_;
};

}  // namespace

Program fuse_dots(const Program& program) {
    return DotFuser(program).run();
}

}  // namespace laddu::ir
