#include "emitter.hpp"

#include <array>
#include <bit>

namespace laddu::autodiff::detail {

using ir::OpCode;

Emitter::Emitter(const ir::Program& primal) {
    builder_.add_signature_of(primal);
}

ValueId Emitter::copy(const ir::Instruction& inst, std::span<const ValueId> operands) {
    return builder_.copy(inst, operands);
}

bool Emitter::is_constant(ValueId id, double re, double im) const {
    const ir::Instruction& inst = builder_.program().at(id);
    return (inst.op == OpCode::kConstReal || inst.op == OpCode::kConstComplex) && inst.re == re &&
           inst.im == im;
}

ValueId Emitter::real(double value) {
    const auto key = std::make_tuple(false, std::bit_cast<std::uint64_t>(value), std::uint64_t{0});
    if (auto it = constants_.find(key); it != constants_.end()) {
        return it->second;
    }
    const ValueId id = builder_.const_real(value);
    constants_.emplace(key, id);
    return id;
}

ValueId Emitter::complex_constant(double re, double im) {
    const auto key =
        std::make_tuple(true, std::bit_cast<std::uint64_t>(re), std::bit_cast<std::uint64_t>(im));
    if (auto it = constants_.find(key); it != constants_.end()) {
        return it->second;
    }
    const ValueId id = builder_.const_complex(re, im);
    constants_.emplace(key, id);
    return id;
}

ValueId Emitter::add(ValueId a, ValueId b) {
    return builder_.binary(OpCode::kAdd, a, b);
}

ValueId Emitter::sub(ValueId a, ValueId b) {
    return builder_.binary(OpCode::kSub, a, b);
}

ValueId Emitter::mul(ValueId a, ValueId b) {
    // x·1 == x and x·(-1) == -x exactly; a Complex 1 would widen a Real, so only Real 1 folds.
    if (is_constant(a, 1.0) && (is_real(a) || !is_real(b))) {
        return b;
    }
    if (is_constant(b, 1.0) && (is_real(b) || !is_real(a))) {
        return a;
    }
    if (is_constant(a, -1.0) && is_real(a)) {
        return neg(b);
    }
    if (is_constant(b, -1.0) && is_real(b)) {
        return neg(a);
    }
    // 2·x == x + x exactly (signed zeros, infinities and NaNs included), and an add runs on
    // the vector units that multiplies and fused multiply-adds leave free: norm_sqr's partial.
    if (is_constant(a, 2.0) && is_real(a)) {
        return add(b, b);
    }
    if (is_constant(b, 2.0) && is_real(b)) {
        return add(a, a);
    }
    return builder_.binary(OpCode::kMul, a, b);
}

ValueId Emitter::div(ValueId a, ValueId b) {
    if (is_constant(b, 1.0) && is_real(b)) {
        return a;
    }
    return builder_.binary(OpCode::kDiv, a, b);
}

ValueId Emitter::neg(ValueId a) {
    return builder_.unary(OpCode::kNeg, a);
}

ValueId Emitter::conj(ValueId a) {
    if (is_real(a)) {
        return a;
    }
    const ir::Program& program = builder_.program();
    const ir::Instruction& inst = program.at(a);
    // The conjugate of a constant is exact: keep it a constant, so that later folds see it.
    if (inst.op == OpCode::kConstComplex) {
        return complex_constant(inst.re, -inst.im);
    }
    // conj(conj x) = x exactly: a reverse sweep conjugates every partial coefficient, so a
    // partial written as a conjugate (norm_sqr's conj(x + x)) gives back its operand.
    if (inst.op == OpCode::kConj) {
        return program.operands_of(inst)[0];
    }
    return builder_.unary(OpCode::kConj, a);
}

ValueId Emitter::re(ValueId a) {
    return is_real(a) ? a : builder_.unary(OpCode::kReal, a);
}

Term Emitter::im(ValueId a) {
    if (is_real(a)) {
        return std::nullopt;
    }
    return builder_.unary(OpCode::kImag, a);
}

ValueId Emitter::unary(ir::OpCode op, ValueId a) {
    return builder_.unary(op, a);
}

ValueId Emitter::binary(ir::OpCode op, ValueId a, ValueId b) {
    return builder_.binary(op, a, b);
}

ValueId Emitter::pow_i(ValueId a, std::int32_t n) {
    if (n == 1) {
        return a;
    }
    return builder_.pow_i(a, n);
}

ValueId Emitter::complex(Term re_part, Term im_part) {
    const ValueId zero = real(0.0);
    return builder_.complex(re_part.value_or(zero), im_part.value_or(zero));
}

ValueId Emitter::widen(ValueId a) {
    return is_real(a) ? complex(a, std::nullopt) : a;
}

ValueId Emitter::extract(ValueId vector, std::uint32_t index) {
    return builder_.extract(vector, index);
}

ValueId Emitter::solve(std::uint32_t n, std::uint32_t m, std::span<const ValueId> operands) {
    return builder_.solve(n, m, operands);
}

Term Emitter::sum(std::span<const ValueId> terms) {
    if (terms.empty()) {
        return std::nullopt;
    }
    if (terms.size() == 1) {
        return terms.front();
    }
    return builder_.add_n(terms);
}

Term Emitter::combine(std::span<const Term> coefficients, std::span<const Term> terms) {
    std::vector<ValueId> lhs;
    std::vector<ValueId> rhs;
    bool all_unit = true;
    for (std::size_t j = 0; j < terms.size(); ++j) {
        const Term term = terms[j];
        if (!term) {
            continue;
        }
        rhs.push_back(*term);
        if (const Term coefficient = coefficients[j]) {
            lhs.push_back(*coefficient);
            all_unit = false;
        } else {
            lhs.push_back(real(1.0));
        }
    }
    if (rhs.empty()) {
        return std::nullopt;
    }
    if (all_unit) {
        return sum(rhs);
    }
    if (rhs.size() == 1) {
        return mul(lhs.front(), rhs.front());
    }
    return builder_.dot(lhs, rhs);
}

void Emitter::add_output(ValueId id, std::string name) {
    builder_.add_output(id, std::move(name));
}

ir::Program Emitter::finish() {
    return builder_.finish();
}

}  // namespace laddu::autodiff::detail
