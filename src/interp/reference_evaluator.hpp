// A straightforward scalar evaluator for tests: one event at a time, one instruction at a
// time, every value a std::complex<double> (or a vector of them), library functions only.
// Deliberately shares no code with the interpreter.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <numbers>
#include <vector>

#include <laddu/ir/program.hpp>

namespace laddu::interp::testing {

using C = std::complex<double>;

/// The per-event inputs of a test: inputs[slot][event].
using EventInputs = std::vector<std::vector<C>>;

// Gauss-Jordan with partial pivoting on |z|; independent of the interpreter's LU.
inline std::vector<C> reference_solve(std::size_t n, std::size_t m, std::vector<C> a,
                                      std::vector<C> b) {
    for (std::size_t k = 0; k < n; ++k) {
        std::size_t p = k;
        for (std::size_t i = k + 1; i < n; ++i) {
            if (std::abs(a[i * n + k]) > std::abs(a[p * n + k])) {
                p = i;
            }
        }
        if (std::abs(a[p * n + k]) == 0.0) {
            return std::vector<C>(n * m, C(NAN, NAN));
        }
        for (std::size_t j = 0; j < n; ++j) {
            std::swap(a[k * n + j], a[p * n + j]);
        }
        for (std::size_t c = 0; c < m; ++c) {
            std::swap(b[c * n + k], b[c * n + p]);
        }
        for (std::size_t i = 0; i < n; ++i) {
            if (i == k) {
                continue;
            }
            const C f = a[i * n + k] / a[k * n + k];
            for (std::size_t j = 0; j < n; ++j) {
                a[i * n + j] -= f * a[k * n + j];
            }
            for (std::size_t c = 0; c < m; ++c) {
                b[c * n + i] -= f * b[c * n + k];
            }
        }
    }
    for (std::size_t c = 0; c < m; ++c) {
        for (std::size_t i = 0; i < n; ++i) {
            b[c * n + i] /= a[i * n + i];
        }
    }
    return b;
}

inline double real_unary(ir::OpCode op, double x) {
    using ir::OpCode;
    switch (op) {
    case OpCode::kNeg:
        return -x;
    case OpCode::kConj:
    case OpCode::kReal:
        return x;
    case OpCode::kImag:
        return 0.0;
    case OpCode::kAbs:
        return std::abs(x);
    case OpCode::kArg:
        return x < 0 ? std::numbers::pi : 0.0;
    case OpCode::kNormSqr:
        return x * x;
    case OpCode::kSqrt:
        return std::sqrt(x);
    case OpCode::kExp:
        return std::exp(x);
    case OpCode::kLog:
        return std::log(x);
    case OpCode::kSin:
        return std::sin(x);
    case OpCode::kCos:
        return std::cos(x);
    case OpCode::kTan:
        return std::tan(x);
    case OpCode::kAsin:
        return std::asin(x);
    case OpCode::kAcos:
        return std::acos(x);
    case OpCode::kAtan:
        return std::atan(x);
    case OpCode::kSinh:
        return std::sinh(x);
    case OpCode::kCosh:
        return std::cosh(x);
    case OpCode::kTanh:
        return std::tanh(x);
    default:
        return NAN;
    }
}

inline C complex_unary(ir::OpCode op, C z) {
    using ir::OpCode;
    switch (op) {
    case OpCode::kNeg:
        return -z;
    case OpCode::kConj:
        return std::conj(z);
    case OpCode::kReal:
        return z.real();
    case OpCode::kImag:
        return z.imag();
    case OpCode::kAbs:
        return std::abs(z);
    case OpCode::kArg:
        return std::arg(z);
    case OpCode::kNormSqr:
        return std::norm(z);
    case OpCode::kSqrt:
        return std::sqrt(z);
    case OpCode::kExp:
        return std::exp(z);
    case OpCode::kLog:
        return std::log(z);
    case OpCode::kSin:
        return std::sin(z);
    case OpCode::kCos:
        return std::cos(z);
    case OpCode::kTan:
        return std::tan(z);
    case OpCode::kAsin:
        return std::asin(z);
    case OpCode::kAcos:
        return std::acos(z);
    case OpCode::kAtan:
        return std::atan(z);
    case OpCode::kSinh:
        return std::sinh(z);
    case OpCode::kCosh:
        return std::cosh(z);
    case OpCode::kTanh:
        return std::tanh(z);
    default:
        return NAN;
    }
}

/// Every output of `program` for one event, widened to complex.
inline std::vector<C> reference_outputs(const ir::Program& program,
                                        const std::vector<double>& params,
                                        const EventInputs& inputs, std::size_t event) {
    using ir::OpCode;
    using ir::ValueKind;
    std::vector<std::vector<C>> values(program.size());
    for (std::uint32_t index = 0; index < program.size(); ++index) {
        const ir::Instruction& inst = program.instructions[index];
        const auto ops = program.operands_of(ir::value_id(index));
        auto arg = [&](std::size_t k) {
            return values[ir::to_index(ops[k])][0];
        };
        auto real_arg = [&](std::size_t k) {
            return program.at(ops[k]).kind == ValueKind::kReal;
        };
        C r;
        switch (inst.op) {
        case OpCode::kConstReal:
            r = inst.re;
            break;
        case OpCode::kConstComplex:
            r = C(inst.re, inst.im);
            break;
        case OpCode::kParam:
            r = params[inst.attr];
            break;
        case OpCode::kLoad:
            r = inputs[inst.attr][event];
            break;
        case OpCode::kPowI: {
            const std::int64_t n = inst.exponent();
            C acc = 1.0;
            for (std::int64_t k = 0; k < (n < 0 ? -n : n); ++k) {
                acc *= arg(0);
            }
            r = n < 0 ? 1.0 / acc : acc;
            if (real_arg(0)) {
                r = r.real();
            }
            break;
        }
        case OpCode::kAdd:
            r = arg(0) + arg(1);
            break;
        case OpCode::kSub:
            r = arg(0) - arg(1);
            break;
        case OpCode::kMul:
            r = arg(0) * arg(1);
            break;
        case OpCode::kDiv:
            r = arg(0) / arg(1);
            break;
        case OpCode::kPow:
            r = inst.kind == ValueKind::kReal ? C(std::pow(arg(0).real(), arg(1).real()))
                                              : std::exp(arg(1) * std::log(arg(0)));
            break;
        case OpCode::kAtan2:
            r = std::atan2(arg(0).real(), arg(1).real());
            break;
        case OpCode::kComplex:
            r = C(arg(0).real(), arg(1).real());
            break;
        case OpCode::kAddN:
            r = arg(0);
            for (std::size_t k = 1; k < ops.size(); ++k) {
                r += arg(k);
            }
            break;
        case OpCode::kMulN:
            r = arg(0);
            for (std::size_t k = 1; k < ops.size(); ++k) {
                r *= arg(k);
            }
            break;
        case OpCode::kDot:
            r = 0.0;
            for (std::size_t k = 0; k < inst.attr; ++k) {
                r += arg(k) * arg(inst.attr + k);
            }
            break;
        case OpCode::kSolve: {
            const std::size_t n = ir::solve_size(inst.attr);
            const std::size_t m = ir::solve_rhs_count(inst.attr);
            std::vector<C> a(n * n);
            std::vector<C> b(n * m);
            for (std::size_t k = 0; k < n * n; ++k) {
                a[k] = arg(k);
            }
            for (std::size_t k = 0; k < n * m; ++k) {
                b[k] = arg(n * n + k);
            }
            values[index] = reference_solve(n, m, a, b);
            continue;
        }
        case OpCode::kExtract:
            r = values[ir::to_index(ops[0])][inst.attr];
            break;
        default:
            r = real_arg(0) ? C(real_unary(inst.op, arg(0).real()))
                            : complex_unary(inst.op, arg(0));
            break;
        }
        values[index] = {r};
    }
    std::vector<C> out;
    for (const ir::ValueId id : program.outputs) {
        out.push_back(values[ir::to_index(id)][0]);
    }
    return out;
}

}  // namespace laddu::interp::testing
