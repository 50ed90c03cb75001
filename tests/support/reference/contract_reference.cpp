#include "contract_reference.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <utility>

namespace laddu::testing {

namespace {

using ir::OpCode;
using ir::ValueKind;

template <typename T>
std::complex<T> narrow(Complex z) {
    return {static_cast<T>(z.real()), static_cast<T>(z.imag())};
}

template <typename T>
Complex widen(std::complex<T> z) {
    return {static_cast<double>(z.real()), static_cast<double>(z.imag())};
}

Complex ir_div(Complex a, Complex b) {
    const double den = b.real() * b.real() + b.imag() * b.imag();
    return {(a.real() * b.real() + a.imag() * b.imag()) / den,
            (a.imag() * b.real() - a.real() * b.imag()) / den};
}

// kSolve as docs/ir.md and the interpreter define it: LU with partial pivoting on |re| + |im|
// (first row on ties), multipliers a · (1/pivot), then substitution; NaN if some U_ii is zero.
std::vector<Complex> contract_solve(std::uint32_t n, std::uint32_t m, std::vector<Complex> a,
                                    std::vector<Complex> b) {
    auto weight = [](Complex z) {
        return std::abs(z.real()) + std::abs(z.imag());
    };
    std::vector<std::uint32_t> swaps(n);
    for (std::uint32_t k = 0; k < n; ++k) {
        std::uint32_t p = k;
        for (std::uint32_t r = k + 1; r < n; ++r) {
            if (weight(a[r * n + k]) > weight(a[p * n + k])) {
                p = r;
            }
        }
        swaps[k] = p;
        if (weight(a[p * n + k]) == 0.0) {
            continue;
        }
        for (std::uint32_t c = 0; c < n; ++c) {
            std::swap(a[p * n + c], a[k * n + c]);
        }
        const Complex inv = ir_div(Complex(1.0, 0.0), a[k * n + k]);
        for (std::uint32_t r = k + 1; r < n; ++r) {
            a[r * n + k] *= inv;
        }
        for (std::uint32_t c = k + 1; c < n; ++c) {
            for (std::uint32_t r = k + 1; r < n; ++r) {
                a[r * n + c] -= a[r * n + k] * a[k * n + c];
            }
        }
    }
    for (std::uint32_t j = 0; j < m; ++j) {
        Complex* v = b.data() + std::size_t{j} * n;
        for (std::uint32_t k = 0; k < n; ++k) {
            std::swap(v[k], v[swaps[k]]);
        }
        for (std::uint32_t c = 0; c < n; ++c) {
            for (std::uint32_t r = c + 1; r < n; ++r) {
                v[r] -= a[r * n + c] * v[c];
            }
        }
        for (std::uint32_t c = n; c-- > 0;) {
            if (a[c * n + c] == Complex(0.0, 0.0)) {
                const double nan = std::numeric_limits<double>::quiet_NaN();
                return std::vector<Complex>(std::size_t{n} * m, Complex(nan, nan));
            }
            v[c] = ir_div(v[c], a[c * n + c]);
            for (std::uint32_t r = 0; r < c; ++r) {
                v[r] -= a[r * n + c] * v[c];
            }
        }
    }
    return b;
}

// Evaluates one instruction with arithmetic in T. Operands arrive as double and are rounded
// to T; complex functions and complex division are done in double and rounded.
template <typename T>
class Step {
public:
    using C = std::complex<T>;

    explicit Step(std::span<const RefValue* const> ops) : ops_(ops) {}

    [[nodiscard]] bool real(std::size_t k) const { return ops_[k]->kind == ValueKind::kReal; }

    [[nodiscard]] C z(std::size_t k) const { return narrow<T>(ops_[k]->scalar); }

    [[nodiscard]] T x(std::size_t k) const { return static_cast<T>(ops_[k]->scalar.real()); }

    static C add(C a, bool ra, C b, bool rb) {
        if (ra && rb) {
            return {a.real() + b.real(), 0};
        }
        if (ra) {
            return a.real() + b;
        }
        return rb ? a + b.real() : a + b;
    }

    static C sub(C a, bool ra, C b, bool rb) {
        if (ra && rb) {
            return {a.real() - b.real(), 0};
        }
        if (ra) {
            return a.real() - b;
        }
        return rb ? a - b.real() : a - b;
    }

    static C mul(C a, bool ra, C b, bool rb) {
        if (ra && rb) {
            return {a.real() * b.real(), 0};
        }
        if (ra) {
            return a.real() * b;
        }
        return rb ? a * b.real() : a * b;
    }

    static C div(C a, bool ra, C b, bool rb) {
        if (ra && rb) {
            return {a.real() / b.real(), 0};
        }
        if (rb) {
            return a / b.real();
        }
        // The IR's formula (the interpreter's): over |b|², no scaling.
        const T den = b.real() * b.real() + b.imag() * b.imag();
        if (ra) {
            return {(a.real() * b.real()) / den, -(a.real() * b.imag()) / den};
        }
        return {(a.real() * b.real() + a.imag() * b.imag()) / den,
                (a.imag() * b.real() - a.real() * b.imag()) / den};
    }

    static C pow_i(C a, bool ra, std::int32_t n) {
        if (n == 0) {
            return {1, 0};
        }
        std::uint32_t e =
            n < 0 ? 0U - static_cast<std::uint32_t>(n) : static_cast<std::uint32_t>(n);
        C base = a;
        C result;
        bool have = false;
        while (true) {
            if ((e & 1U) != 0) {
                result = have ? mul(result, ra, base, ra) : base;
                have = true;
            }
            e >>= 1U;
            if (e == 0) {
                break;
            }
            base = mul(base, ra, base, ra);
        }
        return n < 0 ? div(C(1, 0), true, result, ra) : result;
    }

private:
    std::span<const RefValue* const> ops_;
};

template <typename T>
RefValue evaluate(const ir::Instruction& inst, std::span<const RefValue* const> ops) {
    using C = std::complex<T>;
    const Step<T> s(ops);
    const bool real_result = inst.kind == ValueKind::kReal;
    RefValue out{inst.kind, Complex{}, {}};
    auto set = [&](C v) {
        out.scalar = widen(real_result ? C(v.real(), 0) : v);
    };
    // Complex operands: the std::complex function in double of the rounded operand.
    if (s.real(0)) {
        if (const std::optional<T> y = elementary_function<T>(inst.op, s.x(0))) {
            set(C(*y, 0));
            return out;
        }
    } else if (const std::optional<Complex> w = elementary_function(inst.op, widen(s.z(0)))) {
        set(narrow<T>(*w));
        return out;
    }
    switch (inst.op) {
    case OpCode::kNeg:
        set(s.real(0) ? C(-s.x(0), 0) : -s.z(0));
        break;
    case OpCode::kConj:
        set(s.real(0) ? C(s.x(0), 0) : std::conj(s.z(0)));
        break;
    case OpCode::kReal:
        set(C(s.x(0), 0));
        break;
    case OpCode::kImag:
        set(C(s.real(0) ? T(0) : s.z(0).imag(), 0));
        break;
    case OpCode::kAbs:
        set(C(s.real(0) ? std::abs(s.x(0)) : std::abs(s.z(0)), 0));
        break;
    case OpCode::kArg:
        set(C(std::atan2(s.real(0) ? T(0) : s.z(0).imag(), s.x(0)), 0));
        break;
    case OpCode::kNormSqr: {
        const C v = s.z(0);
        set(C(s.real(0) ? v.real() * v.real() : v.real() * v.real() + v.imag() * v.imag(), 0));
        break;
    }
    case OpCode::kPowI:
        set(Step<T>::pow_i(s.z(0), s.real(0), inst.exponent()));
        break;
    case OpCode::kAdd:
        set(Step<T>::add(s.z(0), s.real(0), s.z(1), s.real(1)));
        break;
    case OpCode::kSub:
        set(Step<T>::sub(s.z(0), s.real(0), s.z(1), s.real(1)));
        break;
    case OpCode::kMul:
        set(Step<T>::mul(s.z(0), s.real(0), s.z(1), s.real(1)));
        break;
    case OpCode::kDiv:
        set(Step<T>::div(s.z(0), s.real(0), s.z(1), s.real(1)));
        break;
    case OpCode::kPow:
        if (s.real(0) && s.real(1)) {
            set(C(std::pow(s.x(0), s.x(1)), 0));
        } else {
            set(narrow<T>(std::exp(widen(s.z(1)) * std::log(widen(s.z(0))))));
        }
        break;
    case OpCode::kAtan2:
        set(C(std::atan2(s.x(0), s.x(1)), 0));
        break;
    case OpCode::kComplex:
        set(C(s.x(0), s.x(1)));
        break;
    case OpCode::kAddN:
    case OpCode::kMulN: {
        C acc = s.z(0);
        bool acc_real = s.real(0);
        for (std::size_t k = 1; k < ops.size(); ++k) {
            acc = inst.op == OpCode::kAddN ? Step<T>::add(acc, acc_real, s.z(k), s.real(k))
                                           : Step<T>::mul(acc, acc_real, s.z(k), s.real(k));
            acc_real = acc_real && s.real(k);
        }
        set(acc);
        break;
    }
    case OpCode::kDot: {
        const std::size_t n = inst.attr;
        // Term 0 by the kMul formula; each later real product fused into its part, a part
        // the accumulator lacks starting from a plain product (docs/ir.md).
        const C first = Step<T>::mul(s.z(0), s.real(0), s.z(n), s.real(n));
        bool acc_real = s.real(0) && s.real(n);
        T re = first.real();
        T im = first.imag();
        auto into_im = [&](T p, T q) {
            im = acc_real ? p * q : std::fma(p, q, im);
        };
        for (std::size_t k = 1; k < n; ++k) {
            const C a = s.z(k);
            const C b = s.z(n + k);
            const bool a_complex = !s.real(k);
            const bool b_complex = !s.real(n + k);
            re = std::fma(a.real(), b.real(), re);
            if (a_complex && b_complex) {
                re = std::fma(-a.imag(), b.imag(), re);
                into_im(a.real(), b.imag());
                im = std::fma(a.imag(), b.real(), im);
            } else if (a_complex) {
                into_im(a.imag(), b.real());
            } else if (b_complex) {
                into_im(a.real(), b.imag());
            }
            acc_real = acc_real && !a_complex && !b_complex;
        }
        set(C{re, acc_real ? T(0) : im});
        break;
    }
    case OpCode::kSolve: {
        const std::uint32_t n = ir::solve_size(inst.attr);
        const std::uint32_t m = ir::solve_rhs_count(inst.attr);
        std::vector<Complex> a;
        std::vector<Complex> b;
        for (std::size_t k = 0; k < ops.size(); ++k) {
            (k < std::size_t{n} * n ? a : b).push_back(widen(s.z(k)));
        }
        for (const Complex& e : contract_solve(n, m, std::move(a), std::move(b))) {
            out.elements.push_back(widen(narrow<T>(e)));
        }
        break;
    }
    default:
        std::abort();  // leaves and kExtract are evaluated by the caller
    }
    return out;
}

// The instructions that read no operand arithmetic: constants, parameters, loads and kExtract.
bool is_leaf(OpCode op) {
    return op == OpCode::kConstReal || op == OpCode::kConstComplex || op == OpCode::kParam ||
           op == OpCode::kLoad || op == OpCode::kExtract;
}

}  // namespace

std::vector<Complex> contract_reference(const ir::Program& program, std::span<const double> params,
                                        const SlotValues& slots, std::size_t event,
                                        ContractPrecision precision) {
    const bool f32 = precision == ContractPrecision::kF32;
    std::vector<Complex> inputs;
    for (const std::vector<Complex>& slot : slots) {
        inputs.push_back(f32 ? widen(narrow<float>(slot[event])) : slot[event]);
    }
    std::vector<RefValue> values;
    values.reserve(program.size());
    std::vector<const RefValue*> ops;
    for (std::uint32_t i = 0; i < program.size(); ++i) {
        const ir::Instruction& inst = program.instructions[i];
        if (is_leaf(inst.op)) {
            values.push_back(evaluate_instruction(program, i, values, params, inputs));
            continue;
        }
        ops.clear();
        for (const ir::ValueId id : program.operands_of(inst)) {
            ops.push_back(&values[ir::to_index(id)]);
        }
        const bool single = f32 && inst.cls == ir::ValueClass::kEvent;
        values.push_back(single ? evaluate<float>(inst, ops) : evaluate<double>(inst, ops));
    }
    std::vector<Complex> outputs;
    for (const ir::ValueId id : program.outputs) {
        outputs.push_back(values[ir::to_index(id)].scalar);
    }
    return outputs;
}

}  // namespace laddu::testing
