#include "testing/reference.hpp"

#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>

#include <laddu/ir/builder.hpp>

namespace laddu::jit::testing {

namespace {

using ir::OpCode;
using ir::ValueKind;

// One value: a complex number (Real values have im == 0 and `real` set) or a solve's elements.
struct Slot {
    Complex z;
    bool real = true;
    std::vector<Complex> elements;
};

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
std::vector<Complex> solve(std::uint32_t n, std::uint32_t m, std::vector<Complex> a,
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

    explicit Step(std::span<const Slot* const> ops) : ops_(ops) {}

    [[nodiscard]] bool real(std::size_t k) const { return ops_[k]->real; }

    [[nodiscard]] C z(std::size_t k) const { return narrow<T>(ops_[k]->z); }

    [[nodiscard]] T x(std::size_t k) const { return static_cast<T>(ops_[k]->z.real()); }

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
    std::span<const Slot* const> ops_;
};

Complex complex_fn(OpCode op, Complex w) {
    switch (op) {
    case OpCode::kSqrt:
        return std::sqrt(w);
    case OpCode::kExp:
        return std::exp(w);
    case OpCode::kLog:
        return std::log(w);
    case OpCode::kSin:
        return std::sin(w);
    case OpCode::kCos:
        return std::cos(w);
    case OpCode::kTan:
        return std::tan(w);
    case OpCode::kAsin:
        return std::asin(w);
    case OpCode::kAcos:
        return std::acos(w);
    case OpCode::kAtan:
        return std::atan(w);
    case OpCode::kSinh:
        return std::sinh(w);
    case OpCode::kCosh:
        return std::cosh(w);
    default:
        return std::tanh(w);
    }
}

template <typename T>
T real_fn(OpCode op, T v) {
    switch (op) {
    case OpCode::kSqrt:
        return std::sqrt(v);
    case OpCode::kExp:
        return std::exp(v);
    case OpCode::kLog:
        return std::log(v);
    case OpCode::kSin:
        return std::sin(v);
    case OpCode::kCos:
        return std::cos(v);
    case OpCode::kTan:
        return std::tan(v);
    case OpCode::kAsin:
        return std::asin(v);
    case OpCode::kAcos:
        return std::acos(v);
    case OpCode::kAtan:
        return std::atan(v);
    case OpCode::kSinh:
        return std::sinh(v);
    case OpCode::kCosh:
        return std::cosh(v);
    default:
        return std::tanh(v);
    }
}

template <typename T>
Slot evaluate(const ir::Instruction& inst, std::span<const Slot* const> ops) {
    using C = std::complex<T>;
    const Step<T> s(ops);
    const bool real_result = inst.kind == ValueKind::kReal;
    Slot out;
    out.real = real_result;
    auto set = [&](C v) {
        out.z = widen(real_result ? C(v.real(), 0) : v);
    };
    switch (inst.op) {
    case OpCode::kNeg:
        set(s.real(0) ? C(-s.x(0), 0) : -s.z(0));
        break;
    case OpCode::kConj:
        set(s.real(0) ? C(s.x(0), 0) : std::conj(s.z(0)));
        break;
    case OpCode::kSqrt:
    case OpCode::kExp:
    case OpCode::kLog:
    case OpCode::kSin:
    case OpCode::kCos:
    case OpCode::kTan:
    case OpCode::kAsin:
    case OpCode::kAcos:
    case OpCode::kAtan:
    case OpCode::kSinh:
    case OpCode::kCosh:
    case OpCode::kTanh:
        if (s.real(0)) {
            set(C(real_fn<T>(inst.op, s.x(0)), 0));
        } else {
            set(narrow<T>(complex_fn(inst.op, widen(s.z(0)))));
        }
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
        C acc = Step<T>::mul(s.z(0), s.real(0), s.z(n), s.real(n));
        bool acc_real = s.real(0) && s.real(n);
        for (std::size_t k = 1; k < n; ++k) {
            const C term = Step<T>::mul(s.z(k), s.real(k), s.z(n + k), s.real(n + k));
            const bool term_real = s.real(k) && s.real(n + k);
            acc = Step<T>::add(acc, acc_real, term, term_real);
            acc_real = acc_real && term_real;
        }
        set(acc);
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
        out.real = false;
        for (const Complex& e : solve(n, m, std::move(a), std::move(b))) {
            out.elements.push_back(widen(narrow<T>(e)));
        }
        break;
    }
    case OpCode::kExtract:
        out.z = ops[0]->elements[inst.attr];
        out.real = false;
        break;
    default:
        std::abort();  // leaves are handled by the caller
    }
    return out;
}

}  // namespace

std::vector<Complex> reference_event(const ir::Program& program, std::span<const double> params,
                                     const SlotValues& slots, std::size_t event,
                                     Precision precision) {
    std::vector<Slot> values(program.size());
    for (std::size_t i = 0; i < program.size(); ++i) {
        const ir::Instruction& inst = program.instructions[i];
        Slot& v = values[i];
        switch (inst.op) {
        case OpCode::kConstReal:
            v = {Complex(inst.re, 0.0), true, {}};
            continue;
        case OpCode::kConstComplex:
            v = {Complex(inst.re, inst.im), false, {}};
            continue;
        case OpCode::kParam:
            v = {Complex(params[inst.attr], 0.0), true, {}};
            continue;
        case OpCode::kLoad: {
            const Complex z = slots[inst.attr][event];
            const bool real = inst.kind == ValueKind::kReal;
            v = {real ? Complex(z.real(), 0.0) : z, real, {}};
            if (precision == Precision::kF32) {
                v.z = widen(narrow<float>(v.z));
            }
            continue;
        }
        default:
            break;
        }
        std::vector<const Slot*> ops;
        for (const ir::ValueId id : program.operands_of(inst)) {
            ops.push_back(&values[ir::to_index(id)]);
        }
        const bool single = precision == Precision::kF32 && inst.cls == ir::ValueClass::kEvent;
        v = single ? evaluate<float>(inst, ops) : evaluate<double>(inst, ops);
    }
    std::vector<Complex> outputs;
    for (const ir::ValueId id : program.outputs) {
        outputs.push_back(values[ir::to_index(id)].z);
    }
    return outputs;
}

std::uint64_t Random::next() noexcept {
    state_ += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31U);
}

double Random::uniform(double lo, double hi) noexcept {
    const double unit = static_cast<double>(next() >> 11U) * 0x1.0p-53;
    return lo + (hi - lo) * unit;
}

std::uint32_t Random::below(std::uint32_t n) noexcept {
    return static_cast<std::uint32_t>(next() % n);
}

namespace {

// Builds random programs bottom-up from pools of Real and Complex values.
class Generator {
public:
    Generator(Random& random, const RandomProgramOptions& options)
        : r_(random), options_(options) {}

    ir::Program build() {
        for (std::uint32_t k = 0; k < options_.real_inputs; ++k) {
            push(b_.load(b_.add_input(numbered("x", k), ValueKind::kReal)));
        }
        for (std::uint32_t k = 0; k < options_.complex_inputs; ++k) {
            push(b_.load(b_.add_input(numbered("z", k), ValueKind::kComplex)));
        }
        for (std::uint32_t k = 0; k < options_.parameters; ++k) {
            push(b_.param(k));
        }
        push(b_.const_real(r_.uniform(-2.0, 2.0)));
        push(b_.const_complex(r_.uniform(-2.0, 2.0), r_.uniform(-2.0, 2.0)));
        while (b_.program().size() < options_.instructions) {
            step();
        }
        const auto& values = all_;
        for (std::uint32_t k = 0; k < options_.outputs; ++k) {
            // The newest value, then random ones (possibly invariant).
            b_.add_output(k == 0 ? values.back()
                                 : values[r_.below(static_cast<std::uint32_t>(values.size()))]);
        }
        return b_.finish();
    }

private:
    void push(ir::ValueId id) {
        all_.push_back(id);
        (b_.kind_of(id) == ValueKind::kReal ? reals_ : complexes_).push_back(id);
    }

    // Prefers recent values, so chains grow deep.
    ir::ValueId pick(const std::vector<ir::ValueId>& pool) {
        const auto size = static_cast<std::uint32_t>(pool.size());
        const std::uint32_t window = size < 8 ? size : 8;
        return r_.below(3) == 0 ? pool[r_.below(size)] : pool[size - 1 - r_.below(window)];
    }

    ir::ValueId any() { return r_.below(2) == 0 ? pick(reals_) : pick(complexes_); }

    ir::ValueId real() { return pick(reals_); }

    ir::ValueId cplx() { return pick(complexes_); }

    // |v| kept moderate: tanh for Real, v / (1 + |v|²) for Complex (no transcendental).
    ir::ValueId squash(ir::ValueId v) {
        if (b_.kind_of(v) == ValueKind::kReal) {
            if (options_.transcendental) {
                return b_.unary(OpCode::kTanh, v);
            }
            return b_.binary(
                OpCode::kDiv, v,
                b_.binary(OpCode::kAdd, b_.const_real(1.0), b_.unary(OpCode::kNormSqr, v)));
        }
        return b_.binary(
            OpCode::kDiv, v,
            b_.binary(OpCode::kAdd, b_.const_real(1.0), b_.unary(OpCode::kNormSqr, v)));
    }

    // A Complex value with positive real part (away from log/sqrt/arg branch cuts).
    ir::ValueId right_half_plane() {
        const ir::ValueId re =
            b_.binary(OpCode::kAdd, b_.const_real(0.5), b_.unary(OpCode::kNormSqr, real()));
        return b_.complex(re, real());
    }

    ir::ValueId transcendental() {
        static constexpr std::array<OpCode, 6> kBounded = {
            OpCode::kSin, OpCode::kCos, OpCode::kTanh, OpCode::kAtan, OpCode::kSinh, OpCode::kCosh};
        switch (r_.below(6)) {
        case 0:
            return b_.unary(kBounded[r_.below(6)], squash(any()));
        case 1: {
            static constexpr std::array<OpCode, 3> kCut = {OpCode::kSqrt, OpCode::kLog,
                                                           OpCode::kArg};
            return b_.unary(kCut[r_.below(3)], right_half_plane());
        }
        case 2:
            return b_.unary(
                r_.below(2) == 0 ? OpCode::kAsin : OpCode::kAcos,
                b_.binary(OpCode::kMul, b_.const_real(0.9), b_.unary(OpCode::kTanh, real())));
        case 3:
            return b_.unary(OpCode::kExp, squash(any()));
        case 4:
            if (r_.below(2) == 0) {
                return b_.binary(
                    OpCode::kPow,
                    b_.binary(OpCode::kAdd, b_.const_real(0.5), b_.unary(OpCode::kNormSqr, real())),
                    squash(real()));
            }
            return b_.binary(OpCode::kPow, right_half_plane(), squash(any()));
        default:
            return r_.below(2) == 0 ? b_.binary(OpCode::kAtan2, real(), real())
                                    : b_.unary(OpCode::kAbs, cplx());
        }
    }

    void step() {
        ir::ValueId v{};
        switch (r_.below(options_.transcendental ? 10 : 9)) {
        case 0:
        case 1: {
            static constexpr std::array<OpCode, 3> kOps = {OpCode::kAdd, OpCode::kSub,
                                                           OpCode::kMul};
            v = b_.binary(kOps[r_.below(3)], any(), any());
            break;
        }
        case 2: {
            // Denominators bounded away from zero: 1.5 + |d|² (+ i·something).
            const ir::ValueId d =
                b_.binary(OpCode::kAdd, b_.const_real(1.5), b_.unary(OpCode::kNormSqr, any()));
            v = b_.binary(OpCode::kDiv, any(), r_.below(2) == 0 ? d : b_.complex(d, real()));
            break;
        }
        case 3: {
            static constexpr std::array<OpCode, 5> kOps = {
                OpCode::kNeg, OpCode::kConj, OpCode::kReal, OpCode::kImag, OpCode::kNormSqr};
            v = b_.unary(kOps[r_.below(5)], any());
            break;
        }
        case 4: {
            std::vector<ir::ValueId> ops;
            const std::uint32_t n = 1 + r_.below(5);
            for (std::uint32_t k = 0; k < n; ++k) {
                ops.push_back(squash(any()));
            }
            v = r_.below(2) == 0 ? b_.add_n(ops) : b_.mul_n(ops);
            break;
        }
        case 5: {
            std::vector<ir::ValueId> a;
            std::vector<ir::ValueId> c;
            const std::uint32_t n = 1 + r_.below(4);
            for (std::uint32_t k = 0; k < n; ++k) {
                a.push_back(any());
                c.push_back(squash(any()));
            }
            v = b_.dot(a, c);
            break;
        }
        case 6: {
            static constexpr std::array<std::int32_t, 8> kExponents = {-3, -2, -1, 0, 1, 2, 3, 5};
            const std::int32_t n = kExponents[r_.below(8)];
            ir::ValueId base = squash(any());
            if (n < 0) {
                base = b_.binary(OpCode::kAdd, b_.const_real(1.25), base);  // |base| >= 0.25
            }
            v = b_.pow_i(base, n);
            break;
        }
        case 7:
            v = b_.complex(real(), real());
            break;
        case 8:
            v = solve_step();
            break;
        default:
            v = transcendental();
            break;
        }
        push(r_.below(3) == 0 ? squash(v) : v);
    }

    // A diagonally dominant n×n system with m right-hand sides; pushes every element.
    ir::ValueId solve_step() {
        const std::uint32_t n = 1 + r_.below(3);
        const std::uint32_t m = 1 + r_.below(2);
        std::vector<ir::ValueId> ops;
        for (std::uint32_t row = 0; row < n; ++row) {
            for (std::uint32_t col = 0; col < n; ++col) {
                ir::ValueId e = squash(any());
                if (row == col) {
                    e = b_.binary(OpCode::kAdd, b_.const_real(static_cast<double>(2 * n)), e);
                }
                ops.push_back(e);
            }
        }
        for (std::uint32_t k = 0; k < n * m; ++k) {
            ops.push_back(any());
        }
        const ir::ValueId x = b_.solve(n, m, ops);
        for (std::uint32_t k = 0; k + 1 < n * m; ++k) {
            push(b_.extract(x, k));
        }
        return b_.extract(x, n * m - 1);
    }

    Random& r_;
    RandomProgramOptions options_;
    ir::Builder b_;
    std::vector<ir::ValueId> all_;
    std::vector<ir::ValueId> reals_;
    std::vector<ir::ValueId> complexes_;
};

}  // namespace

ir::Program random_program(Random& random, const RandomProgramOptions& options) {
    return Generator(random, options).build();
}

SlotValues random_slots(Random& random, const ir::Program& program, std::size_t events) {
    SlotValues slots(program.inputs.size());
    for (std::size_t s = 0; s < slots.size(); ++s) {
        const bool real = program.inputs[s].kind == ValueKind::kReal;
        for (std::size_t e = 0; e < events; ++e) {
            const double re = random.uniform(-2.0, 2.0);
            slots[s].push_back(Complex(re, real ? 0.0 : random.uniform(-2.0, 2.0)));
        }
    }
    return slots;
}

}  // namespace laddu::jit::testing
