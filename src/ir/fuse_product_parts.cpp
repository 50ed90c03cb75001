#include <array>
#include <optional>
#include <vector>

#include <laddu/ir/builder.hpp>
#include <laddu/ir/fuse_product_parts.hpp>

namespace laddu::ir {

namespace {

// Which parts of a replaced product its uses read.
struct PartsRead {
    bool re = false;
    bool im = false;
};

class PartFuser {
public:
    explicit PartFuser(const Program& program)
        : program_(program), size_(program.instructions.size()), mapped_(size_), parts_(size_),
          skip_(size_, false), re_of_product_(size_), im_of_product_(size_), re_(size_), im_(size_),
          negated_re_(size_), negated_im_(size_) {}

    Program run() {
        find_products();
        b_.add_signature_of(program_);
        for (std::size_t i = 0; i < size_; ++i) {
            emit(i);
        }
        b_.add_outputs_of(program_, mapped_);
        return b_.finish();
    }

private:
    // A factor's parts: the value whose kReal/kImag give them, and the sign of the imaginary
    // part (-1 for conj(z), whose parts are z's).
    struct Factor {
        ValueId value;  // in the original program
        bool conjugated = false;
    };

    [[nodiscard]] bool is_complex(ValueId id) const {
        return program_.at(id).kind == ValueKind::kComplex;
    }

    [[nodiscard]] Factor factor(ValueId id) const {
        const Instruction& inst = program_.at(id);
        if (inst.op == OpCode::kConj && is_complex(program_.operands_of(inst)[0])) {
            return Factor{program_.operands_of(inst)[0], true};
        }
        return Factor{id, false};
    }

    // Marks the Complex products read only through kReal/kImag, which parts they read, and the
    // kConj values used only as their factors.
    void find_products() {
        std::vector<std::uint32_t> uses(size_, 0);
        std::vector<std::uint32_t> part_uses(size_, 0);
        for (const Instruction& inst : program_.instructions) {
            const bool part = inst.op == OpCode::kReal || inst.op == OpCode::kImag;
            for (const ValueId operand : program_.operands_of(inst)) {
                ++uses[to_index(operand)];
                part_uses[to_index(operand)] += part ? 1 : 0;
            }
        }
        for (const ValueId id : program_.outputs) {
            ++uses[to_index(id)];
        }
        std::vector<std::uint32_t> factor_uses(size_, 0);
        for (std::size_t i = 0; i < size_; ++i) {
            if (uses[i] > 0 && uses[i] == part_uses[i] && is_complex_product(i)) {
                parts_[i] = PartsRead{};
                for (const ValueId operand : program_.operands_of(program_.instructions[i])) {
                    ++factor_uses[to_index(operand)];
                }
            }
        }
        mark_reads_and_factors(uses, factor_uses);
    }

    // Which parts each replaced product's uses read; the kConj values used only as factors of
    // replaced products (`factor_uses` of their `uses`).
    void mark_reads_and_factors(const std::vector<std::uint32_t>& uses,
                                const std::vector<std::uint32_t>& factor_uses) {
        for (std::size_t i = 0; i < size_; ++i) {
            const Instruction& inst = program_.instructions[i];
            if (inst.op == OpCode::kReal || inst.op == OpCode::kImag) {
                if (std::optional<PartsRead>& read =
                        parts_[to_index(program_.operands_of(inst)[0])]) {
                    (inst.op == OpCode::kReal ? read->re : read->im) = true;
                }
            }
            skip_[i] = inst.op == OpCode::kConj && uses[i] > 0 && uses[i] == factor_uses[i] &&
                       is_complex(program_.operands_of(inst)[0]);
        }
    }

    // A kMul of two Complex values.
    [[nodiscard]] bool is_complex_product(std::size_t i) const {
        const Instruction& inst = program_.instructions[i];
        if (inst.op != OpCode::kMul || inst.kind != ValueKind::kComplex) {
            return false;
        }
        const auto ops = program_.operands_of(inst);
        return is_complex(ops[0]) && is_complex(ops[1]);
    }

    [[nodiscard]] ValueId map(ValueId id) const { return mapped_[to_index(id)]; }

    // Re or Im of original value `id`, emitted once (a constant's part is a constant).
    ValueId part(ValueId id, bool imag) {
        std::optional<ValueId>& memo = (imag ? im_ : re_)[to_index(id)];
        if (!memo) {
            const Instruction& inst = program_.at(id);
            memo = inst.op == OpCode::kConstComplex
                       ? b_.const_real(imag ? inst.im : inst.re)
                       : b_.unary(imag ? OpCode::kImag : OpCode::kReal, map(id));
        }
        return *memo;
    }

    // -part(id, imag), emitted once (a constant for a constant).
    ValueId negated_part(ValueId id, bool imag) {
        std::optional<ValueId>& memo = (imag ? negated_im_ : negated_re_)[to_index(id)];
        if (!memo) {
            const Instruction& inst = program_.at(id);
            memo = inst.op == OpCode::kConstComplex ? b_.const_real(-(imag ? inst.im : inst.re))
                                                    : b_.unary(OpCode::kNeg, part(id, imag));
        }
        return *memo;
    }

    // P's part, negated when `negate`.
    ValueId signed_part(const Factor& f, bool imag, bool negate) {
        return negate ? negated_part(f.value, imag) : part(f.value, imag);
    }

    // The parts of product i = P·Q that its uses read. With P = p_re + i·sp·p_im and
    // Q = q_re + i·sq·q_im (s = -1 for a conjugated factor):
    //     Re = p_re·q_re - sp·sq·p_im·q_im,    Im = sq·p_re·q_im + sp·p_im·q_re,
    // each a two-pair dot with the signs on P's parts, in the order of the product's formula.
    void emit_product(std::size_t i, const PartsRead& read) {
        const auto ops = program_.operands_of(program_.instructions[i]);
        const Factor p = factor(ops[0]);
        const Factor q = factor(ops[1]);
        if (read.re) {
            const bool minus = p.conjugated == q.conjugated;  // sp·sq = +1
            const std::array<ValueId, 2> lhs{part(p.value, false), signed_part(p, true, minus)};
            const std::array<ValueId, 2> rhs{part(q.value, false), part(q.value, true)};
            re_of_product_[i] = b_.dot(lhs, rhs);
        }
        if (read.im) {
            const std::array<ValueId, 2> lhs{signed_part(p, false, q.conjugated),
                                             signed_part(p, true, p.conjugated)};
            const std::array<ValueId, 2> rhs{part(q.value, true), part(q.value, false)};
            im_of_product_[i] = b_.dot(lhs, rhs);
        }
    }

    void emit(std::size_t i) {
        const Instruction& inst = program_.instructions[i];
        if (skip_[i]) {
            return;
        }
        if (const std::optional<PartsRead>& read = parts_[i]) {
            emit_product(i, *read);
            return;
        }
        const auto ops = program_.operands_of(inst);
        if (inst.op == OpCode::kReal || inst.op == OpCode::kImag) {
            const auto& of = inst.op == OpCode::kReal ? re_of_product_ : im_of_product_;
            if (const std::optional<ValueId>& part = of[to_index(ops[0])]) {
                mapped_[i] = *part;  // a replaced product's part, emitted with it
                return;
            }
        }
        operands_.clear();
        for (const ValueId operand : ops) {
            operands_.push_back(map(operand));
        }
        mapped_[i] = b_.copy(inst, operands_);
    }

    const Program& program_;
    const std::size_t size_;
    Builder b_;
    std::vector<ValueId> mapped_;
    std::vector<std::optional<PartsRead>> parts_;  // set for a replaced product
    std::vector<bool> skip_;                       // a kConj used only as such a factor
    // Per original value, emitted once: a replaced product's parts; a factor's parts and
    // their negations.
    std::vector<std::optional<ValueId>> re_of_product_;
    std::vector<std::optional<ValueId>> im_of_product_;
    std::vector<std::optional<ValueId>> re_;
    std::vector<std::optional<ValueId>> im_;
    std::vector<std::optional<ValueId>> negated_re_;
    std::vector<std::optional<ValueId>> negated_im_;
    std::vector<ValueId> operands_;
};

}  // namespace

Program fuse_product_parts(const Program& program) {
    return PartFuser(program).run();
}

}  // namespace laddu::ir
