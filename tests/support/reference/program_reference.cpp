#include "program_reference.hpp"

#include <cmath>
#include <limits>

namespace laddu::testing {

using ir::OpCode;
using ir::ValueKind;

namespace {

template <typename T>
T power(T base, std::int32_t n) {
    std::uint64_t e = n < 0 ? static_cast<std::uint64_t>(-static_cast<std::int64_t>(n))
                            : static_cast<std::uint64_t>(n);
    T result(1.0);
    while (e > 0) {
        if ((e & 1U) != 0) {
            result *= base;
        }
        base *= base;
        e >>= 1U;
    }
    return n < 0 ? T(1.0) / result : result;
}

RefValue real_value(double v) {
    return RefValue{ValueKind::kReal, Complex(v, 0.0), {}};
}

RefValue complex_value(Complex v) {
    return RefValue{ValueKind::kComplex, v, {}};
}

RefValue unary(OpCode op, const RefValue& a, std::int32_t exponent) {
    if (a.kind == ValueKind::kReal) {
        const double x = a.scalar.real();
        if (const std::optional<double> y = elementary_function(op, x)) {
            return real_value(*y);
        }
        switch (op) {
        case OpCode::kNeg:
            return real_value(-x);
        case OpCode::kConj:
            return real_value(x);
        case OpCode::kReal:
            return real_value(x);
        case OpCode::kImag:
            return real_value(0.0);
        case OpCode::kAbs:
            return real_value(std::fabs(x));
        case OpCode::kArg:
            return real_value(std::atan2(0.0, x));
        case OpCode::kNormSqr:
            return real_value(x * x);
        case OpCode::kPowI:
            return real_value(power(x, exponent));
        default:
            break;
        }
    } else {
        const Complex z = a.scalar;
        if (const std::optional<Complex> w = elementary_function(op, z)) {
            return complex_value(*w);
        }
        switch (op) {
        case OpCode::kNeg:
            return complex_value(-z);
        case OpCode::kConj:
            return complex_value(std::conj(z));
        case OpCode::kReal:
            return real_value(z.real());
        case OpCode::kImag:
            return real_value(z.imag());
        case OpCode::kAbs:
            return real_value(std::abs(z));
        case OpCode::kArg:
            return real_value(std::atan2(z.imag(), z.real()));
        case OpCode::kNormSqr:
            return real_value(std::norm(z));
        case OpCode::kPowI:
            return complex_value(power(z, exponent));
        default:
            break;
        }
    }
    return real_value(std::numeric_limits<double>::quiet_NaN());
}

RefValue binary(OpCode op, const RefValue& a, const RefValue& b) {
    const bool real = a.kind == ValueKind::kReal && b.kind == ValueKind::kReal;
    if (real) {
        const double x = a.scalar.real();
        const double y = b.scalar.real();
        switch (op) {
        case OpCode::kAdd:
            return real_value(x + y);
        case OpCode::kSub:
            return real_value(x - y);
        case OpCode::kMul:
            return real_value(x * y);
        case OpCode::kDiv:
            return real_value(x / y);
        case OpCode::kPow:
            return real_value(std::pow(x, y));
        case OpCode::kAtan2:
            return real_value(std::atan2(x, y));
        case OpCode::kComplex:
            return complex_value(Complex(x, y));
        default:
            break;
        }
    }
    const Complex x = a.scalar;
    const Complex y = b.scalar;
    switch (op) {
    case OpCode::kAdd:
        return complex_value(x + y);
    case OpCode::kSub:
        return complex_value(x - y);
    case OpCode::kMul:
        return complex_value(x * y);
    case OpCode::kDiv:
        return complex_value(x / y);
    case OpCode::kPow:
        return complex_value(std::exp(y * std::log(x)));
    default:
        break;
    }
    return real_value(std::numeric_limits<double>::quiet_NaN());
}

}  // namespace

std::vector<Complex> reference_solve(std::uint32_t n, std::uint32_t m, std::vector<Complex> a,
                                     std::vector<Complex> b) {
    const auto magnitude = [](Complex z) {
        return std::fabs(z.real()) + std::fabs(z.imag());
    };
    for (std::uint32_t k = 0; k < n; ++k) {
        std::uint32_t pivot = k;
        for (std::uint32_t r = k + 1; r < n; ++r) {
            if (magnitude(a[r * n + k]) > magnitude(a[pivot * n + k])) {
                pivot = r;
            }
        }
        if (a[pivot * n + k] == Complex(0.0, 0.0)) {
            return std::vector<Complex>(std::size_t{n} * m,
                                        Complex(std::numeric_limits<double>::quiet_NaN(),
                                                std::numeric_limits<double>::quiet_NaN()));
        }
        if (pivot != k) {
            for (std::uint32_t c = 0; c < n; ++c) {
                std::swap(a[k * n + c], a[pivot * n + c]);
            }
            for (std::uint32_t col = 0; col < m; ++col) {
                std::swap(b[col * n + k], b[col * n + pivot]);
            }
        }
        for (std::uint32_t r = k + 1; r < n; ++r) {
            const Complex factor = a[r * n + k] / a[k * n + k];
            for (std::uint32_t c = k; c < n; ++c) {
                a[r * n + c] -= factor * a[k * n + c];
            }
            for (std::uint32_t col = 0; col < m; ++col) {
                b[col * n + r] -= factor * b[col * n + k];
            }
        }
    }
    for (std::uint32_t col = 0; col < m; ++col) {
        for (std::uint32_t r = n; r-- > 0;) {
            Complex acc = b[col * n + r];
            for (std::uint32_t c = r + 1; c < n; ++c) {
                acc -= a[r * n + c] * b[col * n + c];
            }
            b[col * n + r] = acc / a[r * n + r];
        }
    }
    return b;
}

RefValue evaluate_instruction(const ir::Program& program, std::uint32_t index,
                              std::span<const RefValue> values, std::span<const double> params,
                              std::span<const Complex> inputs) {
    const ir::Instruction& inst = program.instructions[index];
    const std::span<const ir::ValueId> ops = program.operands_of(inst);
    const auto at = [&](std::size_t j) -> const RefValue& {
        return values[ir::to_index(ops[j])];
    };
    switch (inst.op) {
    case OpCode::kConstReal:
        return real_value(inst.re);
    case OpCode::kConstComplex:
        return complex_value(Complex(inst.re, inst.im));
    case OpCode::kParam:
        return real_value(params[inst.attr]);
    case OpCode::kLoad:
        return program.inputs[inst.attr].kind == ValueKind::kReal
                   ? real_value(inputs[inst.attr].real())
                   : complex_value(inputs[inst.attr]);
    case OpCode::kAdd:
    case OpCode::kSub:
    case OpCode::kMul:
    case OpCode::kDiv:
    case OpCode::kPow:
    case OpCode::kAtan2:
    case OpCode::kComplex:
        return binary(inst.op, at(0), at(1));
    case OpCode::kAddN:
    case OpCode::kMulN: {
        RefValue acc = at(0);
        for (std::size_t j = 1; j < ops.size(); ++j) {
            acc = binary(inst.op == OpCode::kAddN ? OpCode::kAdd : OpCode::kMul, acc, at(j));
        }
        return acc;
    }
    case OpCode::kDot: {
        const std::size_t n = inst.attr;
        RefValue acc = binary(OpCode::kMul, at(0), at(n));
        for (std::size_t k = 1; k < n; ++k) {
            acc = binary(OpCode::kAdd, acc, binary(OpCode::kMul, at(k), at(n + k)));
        }
        return acc;
    }
    case OpCode::kSolve: {
        const std::uint32_t n = ir::solve_size(inst.attr);
        const std::uint32_t m = ir::solve_rhs_count(inst.attr);
        std::vector<Complex> a;
        std::vector<Complex> b;
        for (std::size_t j = 0; j < ops.size(); ++j) {
            (j < std::size_t{n} * n ? a : b).push_back(at(j).scalar);
        }
        return RefValue{ValueKind::kVector, Complex{}, reference_solve(n, m, a, b)};
    }
    case OpCode::kExtract:
        return complex_value(at(0).elements[inst.attr]);
    default:
        return unary(inst.op, at(0), inst.exponent());
    }
}

std::vector<RefValue> program_values(const ir::Program& program, std::span<const double> params,
                                     std::span<const Complex> inputs) {
    std::vector<RefValue> values;
    values.reserve(program.size());
    for (std::uint32_t index = 0; index < program.size(); ++index) {
        values.push_back(evaluate_instruction(program, index, values, params, inputs));
    }
    return values;
}

std::vector<Complex> run_reference(const ir::Program& program, std::span<const double> params,
                                   std::span<const Complex> inputs) {
    const std::vector<RefValue> values = program_values(program, params, inputs);
    std::vector<Complex> outputs;
    for (const ir::ValueId id : program.outputs) {
        outputs.push_back(values[ir::to_index(id)].scalar);
    }
    return outputs;
}

std::vector<Complex> run_reference(const ir::Program& program, std::span<const double> params,
                                   const SlotValues& slots, std::size_t event) {
    std::vector<Complex> inputs;
    inputs.reserve(slots.size());
    for (const std::vector<Complex>& slot : slots) {
        inputs.push_back(slot[event]);
    }
    return run_reference(program, params, inputs);
}

}  // namespace laddu::testing
