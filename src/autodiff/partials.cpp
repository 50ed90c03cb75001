#include "partials.hpp"

#include <limits>
#include <numbers>

#include <laddu/base/assert.hpp>

namespace laddu::autodiff::detail {

using ir::OpCode;

namespace {

Partial linear(Term coefficient) {
    return Partial{Form::kLinear, coefficient};
}

// sign(x) without a select opcode: atan2(0, x) is exactly 0 for x >= +0 and exactly π for
// x <= -0, so 1 - 2·(atan2(0, x)/π) is ±1 (a finite subgradient at 0 instead of 0/0).
ValueId real_sign(Emitter& e, ValueId x) {
    const ValueId angle = e.binary(OpCode::kAtan2, e.real(0.0), x);
    const ValueId half_turns = e.div(angle, e.real(std::numbers::pi));
    return e.sub(e.real(1.0), e.mul(e.real(2.0), half_turns));
}

// 1/sqrt(1 - x²), the derivative of asin (principal branches for Complex).
ValueId asin_derivative(Emitter& e, ValueId x) {
    const ValueId root = e.unary(OpCode::kSqrt, e.sub(e.real(1.0), e.mul(x, x)));
    return e.div(e.real(1.0), root);
}

// The product of operands [begin, end) in order, or nothing for an empty range.
std::vector<Term> prefix_products(Emitter& e, std::span<const ValueId> v, std::size_t last) {
    std::vector<Term> prefix(v.size());
    for (std::size_t i = 1; i <= last; ++i) {
        const Term before = prefix[i - 1];
        prefix[i] = before ? e.mul(*before, v[i - 1]) : v[i - 1];
    }
    return prefix;
}

std::vector<Term> suffix_products(Emitter& e, std::span<const ValueId> v, std::size_t first) {
    std::vector<Term> suffix(v.size());
    for (std::size_t i = v.size() - 1; i > first; --i) {
        const Term after = suffix[i];
        suffix[i - 1] = after ? e.mul(v[i], *after) : v[i];
    }
    return suffix;
}

std::vector<Partial> mul_n_partials(Emitter& e, std::span<const ValueId> v,
                                    const std::vector<bool>& active) {
    // Π_{j≠i} v_j as prefix·suffix: exact with zero factors, unlike y/v_i.
    std::vector<Partial> partials(v.size());
    std::size_t first = v.size();
    std::size_t last = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (active[i]) {
            first = std::min(first, i);
            last = i;
        }
    }
    if (first == v.size()) {
        return partials;
    }
    const std::vector<Term> prefix = prefix_products(e, v, last);
    const std::vector<Term> suffix = suffix_products(e, v, first);
    for (std::size_t i = first; i <= last; ++i) {
        if (!active[i]) {
            continue;
        }
        Term c = prefix[i];
        if (const Term after = suffix[i]) {
            c = c ? e.mul(*c, *after) : *after;
        }
        partials[i] = linear(c);
    }
    return partials;
}

Partial unary_partial(Emitter& e, const ir::Instruction& inst, ValueId x, ValueId y) {
    const bool real = e.is_real(x);
    switch (inst.op) {
    case OpCode::kNeg:
        return linear(e.real(-1.0));
    case OpCode::kConj:
        return real ? linear(std::nullopt) : Partial{Form::kConj, std::nullopt};
    case OpCode::kSqrt:
        return linear(e.div(e.real(0.5), y));
    case OpCode::kExp:
        return linear(y);
    case OpCode::kLog:
        return linear(e.div(e.real(1.0), x));
    case OpCode::kSin:
        return linear(e.unary(OpCode::kCos, x));
    case OpCode::kCos:
        return linear(e.neg(e.unary(OpCode::kSin, x)));
    case OpCode::kTan:
        return linear(e.add(e.real(1.0), e.mul(y, y)));
    case OpCode::kAsin:
        return linear(asin_derivative(e, x));
    case OpCode::kAcos:
        return linear(e.neg(asin_derivative(e, x)));
    case OpCode::kAtan:
        return linear(e.div(e.real(1.0), e.add(e.real(1.0), e.mul(x, x))));
    case OpCode::kSinh:
        return linear(e.unary(OpCode::kCosh, x));
    case OpCode::kCosh:
        return linear(e.unary(OpCode::kSinh, x));
    case OpCode::kTanh:
        return linear(e.sub(e.real(1.0), e.mul(y, y)));
    case OpCode::kReal:
        return real ? linear(std::nullopt) : Partial{Form::kRealPart, std::nullopt};
    case OpCode::kImag:
        return real ? Partial{} : Partial{Form::kImagPart, std::nullopt};
    case OpCode::kAbs:
        // d|z| = Re(conj(z)·dz)/|z|.
        return real ? linear(real_sign(e, x)) : Partial{Form::kRealPart, e.div(e.conj(x), y)};
    case OpCode::kArg:
        // d arg z = Im(conj(z)·dz)/|z|²; a Real's arg is piecewise constant.
        return real ? Partial{}
                    : Partial{Form::kImagPart, e.div(e.conj(x), e.unary(OpCode::kNormSqr, x))};
    case OpCode::kNormSqr:
        // 2·conj(x) as conj(x + x) (the same bits: negation commutes with rounding), so that
        // its reverse-mode conjugate folds to x + x (Emitter::conj).
        return real ? linear(e.mul(e.real(2.0), x))
                    : Partial{Form::kRealPart, e.conj(e.mul(e.real(2.0), x))};
    case OpCode::kPowI: {
        const std::int32_t n = inst.exponent();
        if (n == 0) {
            return Partial{};
        }
        if (n == 1) {
            return linear(std::nullopt);
        }
        if (n == std::numeric_limits<std::int32_t>::min()) {
            // n - 1 would overflow: n·y/x.
            return linear(e.div(e.mul(e.real(static_cast<double>(n)), y), x));
        }
        return linear(e.mul(e.real(static_cast<double>(n)), e.pow_i(x, n - 1)));
    }
    default:
        break;
    }
    LADDU_ASSERT(false) << "no unary partial for " << ir::opcode_name(inst.op);
    return Partial{};
}

// dy = b·a^(b-1)·da + y·log(a)·db, with log taken in the result's kind.
std::vector<Partial> pow_partials(Emitter& e, std::span<const ValueId> v, ValueId y,
                                  const std::vector<bool>& active) {
    std::vector<Partial> partials(2);
    if (active[0]) {
        const ValueId lowered = e.binary(OpCode::kPow, v[0], e.sub(v[1], e.real(1.0)));
        partials[0] = linear(e.mul(v[1], lowered));
    }
    if (active[1]) {
        const ValueId base = e.is_real(y) ? v[0] : e.widen(v[0]);
        partials[1] = linear(e.mul(y, e.unary(OpCode::kLog, base)));
    }
    return partials;
}

// The partials of a two-operand operation (kSub, kMul, kDiv, kPow, kAtan2, kComplex).
std::vector<Partial> binary_partials(Emitter& e, OpCode op, std::span<const ValueId> v, ValueId y,
                                     const std::vector<bool>& active) {
    std::vector<Partial> partials(2);
    switch (op) {
    case OpCode::kSub:
        partials[0] = active[0] ? linear(std::nullopt) : Partial{};
        partials[1] = active[1] ? linear(e.real(-1.0)) : Partial{};
        return partials;
    case OpCode::kMul:
        partials[0] = active[0] ? linear(v[1]) : Partial{};
        partials[1] = active[1] ? linear(v[0]) : Partial{};
        return partials;
    case OpCode::kDiv: {
        // dy = da/b - (y/b)·db.
        const ValueId inverse = e.div(e.real(1.0), v[1]);
        partials[0] = active[0] ? linear(inverse) : Partial{};
        partials[1] = active[1] ? linear(e.neg(e.mul(y, inverse))) : Partial{};
        return partials;
    }
    case OpCode::kPow:
        return pow_partials(e, v, y, active);
    case OpCode::kAtan2: {
        // atan2(y, x): d = (x·dy - y·dx)/(x² + y²).
        const ValueId radius = e.add(e.mul(v[0], v[0]), e.mul(v[1], v[1]));
        partials[0] = active[0] ? linear(e.div(v[1], radius)) : Partial{};
        partials[1] = active[1] ? linear(e.neg(e.div(v[0], radius))) : Partial{};
        return partials;
    }
    case OpCode::kComplex:
        partials[0] = active[0] ? linear(std::nullopt) : Partial{};
        partials[1] = active[1] ? linear(e.complex_constant(0.0, 1.0)) : Partial{};
        return partials;
    default:
        break;
    }
    LADDU_ASSERT(false) << "no binary partials for " << ir::opcode_name(op);
    return partials;
}

}  // namespace

std::vector<Partial> local_partials(Emitter& e, const ir::Instruction& inst,
                                    std::span<const ValueId> v, ValueId y,
                                    const std::vector<bool>& active) {
    std::vector<Partial> partials(v.size());
    switch (inst.op) {
    case OpCode::kAdd:
    case OpCode::kAddN:
        for (std::size_t j = 0; j < v.size(); ++j) {
            if (active[j]) {
                partials[j] = linear(std::nullopt);
            }
        }
        return partials;
    case OpCode::kSub:
    case OpCode::kMul:
    case OpCode::kDiv:
    case OpCode::kPow:
    case OpCode::kAtan2:
    case OpCode::kComplex:
        return binary_partials(e, inst.op, v, y, active);
    case OpCode::kMulN:
        return mul_n_partials(e, v, active);
    case OpCode::kDot: {
        const std::size_t n = inst.attr;
        for (std::size_t k = 0; k < n; ++k) {
            partials[k] = active[k] ? linear(v[n + k]) : Partial{};
            partials[n + k] = active[n + k] ? linear(v[k]) : Partial{};
        }
        return partials;
    }
    default:
        break;
    }
    if (active[0]) {
        partials[0] = unary_partial(e, inst, v[0], y);
    }
    return partials;
}

Term apply_forward(Emitter& e, const Partial& partial, Term tangent) {
    if (!tangent) {
        return std::nullopt;
    }
    const ValueId t = *tangent;
    const auto scaled = [&]() {
        return partial.coefficient ? e.mul(*partial.coefficient, t) : t;
    };
    switch (partial.form) {
    case Form::kZero:
        return std::nullopt;
    case Form::kLinear:
        return scaled();
    case Form::kRealPart:
        return e.re(scaled());
    case Form::kImagPart:
        return e.im(scaled());
    case Form::kConj:
        return e.conj(t);
    }
    return std::nullopt;
}

Term adjoint_coefficient(Emitter& e, const Partial& partial) {
    switch (partial.form) {
    case Form::kLinear:
    case Form::kRealPart:
        return partial.coefficient ? Term{e.conj(*partial.coefficient)} : std::nullopt;
    case Form::kImagPart: {
        // Im(c·dx) = Re(-i·c·dx), whose adjoint coefficient is conj(-i·c) = i·conj(c).
        const ValueId i = e.complex_constant(0.0, 1.0);
        return partial.coefficient ? e.mul(i, e.conj(*partial.coefficient)) : i;
    }
    case Form::kZero:
    case Form::kConj:
        break;
    }
    return std::nullopt;
}

Term apply_reverse(Emitter& e, const Partial& partial, Term coefficient, ValueId adjoint,
                   ir::ValueKind operand_kind) {
    Term contribution;
    switch (partial.form) {
    case Form::kZero:
        return std::nullopt;
    case Form::kConj:
        contribution = e.conj(adjoint);
        break;
    case Form::kLinear:
    case Form::kRealPart:
    case Form::kImagPart:
        if (operand_kind == ir::ValueKind::kReal && coefficient) {
            // Re(ȳ · ±i) = ∓Im(ȳ): the adjoint of the imaginary part of complex(a, b) and of
            // every Im(). The product would spend two multiplies (by 0 and by ±1) and an add
            // per event and parameter on it; this is the same value except for the sign of a
            // zero, and a non-finite Re(ȳ), which the product would spread to it.
            for (const double sign : {1.0, -1.0}) {
                if (e.is_constant(*coefficient, 0.0, sign)) {
                    const Term im = e.im(adjoint);
                    if (!im) {
                        return std::nullopt;  // a Real ȳ: Re(ȳ · ±i) = 0
                    }
                    return sign > 0.0 ? e.neg(*im) : *im;
                }
            }
        }
        contribution = coefficient ? e.mul(adjoint, *coefficient) : adjoint;
        break;
    }
    if (operand_kind == ir::ValueKind::kReal) {
        return e.re(*contribution);
    }
    return contribution;
}

}  // namespace laddu::autodiff::detail
