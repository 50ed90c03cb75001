#include "reference.hpp"

#include <cmath>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include <laddu/expr/traversal.hpp>

namespace laddu::compile::testing {
namespace {

using expr::BinaryOp;
using expr::Expr;
using expr::NodeKind;
using expr::UnaryOp;
using Values = std::vector<Complex>;

template <typename T>
T power(T base, int n) {
    T result = T(1.0);
    for (int i = 0; i < std::abs(n); ++i) {
        result *= base;
    }
    return n < 0 ? T(1.0) / result : result;
}

Complex unary(UnaryOp op, Complex z, bool real, int n) {
    if (real) {
        const double x = z.real();
        switch (op) {
        case UnaryOp::kNeg:
            return -x;
        case UnaryOp::kReal:
        case UnaryOp::kConj:
            return x;
        case UnaryOp::kImag:
            return 0.0;
        case UnaryOp::kNormSqr:
            return x * x;
        case UnaryOp::kSqrt:
            return std::sqrt(x);
        case UnaryOp::kExp:
            return std::exp(x);
        case UnaryOp::kLog:
            return std::log(x);
        case UnaryOp::kSin:
            return std::sin(x);
        case UnaryOp::kCos:
            return std::cos(x);
        case UnaryOp::kTan:
            return std::tan(x);
        case UnaryOp::kAsin:
            return std::asin(x);
        case UnaryOp::kAcos:
            return std::acos(x);
        case UnaryOp::kAtan:
            return std::atan(x);
        case UnaryOp::kSinh:
            return std::sinh(x);
        case UnaryOp::kCosh:
            return std::cosh(x);
        case UnaryOp::kTanh:
            return std::tanh(x);
        case UnaryOp::kAbs:
            return std::fabs(x);
        case UnaryOp::kArg:
            return x < 0 ? M_PI : 0.0;
        case UnaryOp::kPowI:
            return power(x, n);
        }
    }
    switch (op) {
    case UnaryOp::kNeg:
        return -z;
    case UnaryOp::kReal:
        return z.real();
    case UnaryOp::kImag:
        return z.imag();
    case UnaryOp::kConj:
        return std::conj(z);
    case UnaryOp::kNormSqr:
        return std::norm(z);
    case UnaryOp::kSqrt:
        return std::sqrt(z);
    case UnaryOp::kExp:
        return std::exp(z);
    case UnaryOp::kLog:
        return std::log(z);
    case UnaryOp::kSin:
        return std::sin(z);
    case UnaryOp::kCos:
        return std::cos(z);
    case UnaryOp::kTan:
        return std::tan(z);
    case UnaryOp::kAsin:
        return std::asin(z);
    case UnaryOp::kAcos:
        return std::acos(z);
    case UnaryOp::kAtan:
        return std::atan(z);
    case UnaryOp::kSinh:
        return std::sinh(z);
    case UnaryOp::kCosh:
        return std::cosh(z);
    case UnaryOp::kTanh:
        return std::tanh(z);
    case UnaryOp::kAbs:
        return std::abs(z);
    case UnaryOp::kArg:
        return std::arg(z);
    case UnaryOp::kPowI:
        break;
    }
    return power(z, n);
}

Complex binary(BinaryOp op, Complex a, Complex b, bool real) {
    switch (op) {
    case BinaryOp::kAdd:
        return a + b;
    case BinaryOp::kSub:
        return a - b;
    case BinaryOp::kMul:
        return a * b;
    case BinaryOp::kDiv:
        return a / b;
    case BinaryOp::kPow:
        return real ? Complex(std::pow(a.real(), b.real())) : std::pow(a, b);
    case BinaryOp::kAtan2:
        break;
    }
    return std::atan2(a.real(), b.real());
}

// Gauss-Jordan elimination with full row pivoting by modulus: deliberately not the compiler's LU.
Values gauss_solve(std::size_t n, Values a, Values b) {
    for (std::size_t k = 0; k < n; ++k) {
        std::size_t p = k;
        for (std::size_t r = k; r < n; ++r) {
            if (std::abs(a[r * n + k]) > std::abs(a[p * n + k])) {
                p = r;
            }
        }
        for (std::size_t c = 0; c < n; ++c) {
            std::swap(a[k * n + c], a[p * n + c]);
        }
        std::swap(b[k], b[p]);
        const Complex d = a[k * n + k];
        for (std::size_t c = 0; c < n; ++c) {
            a[k * n + c] /= d;
        }
        b[k] /= d;
        for (std::size_t r = 0; r < n; ++r) {
            if (r != k) {
                const Complex f = a[r * n + k];
                for (std::size_t c = 0; c < n; ++c) {
                    a[r * n + c] -= f * a[k * n + c];
                }
                b[r] -= f * b[k];
            }
        }
    }
    return b;
}

}  // namespace

std::vector<Complex> evaluate_reference(const Expr& root,
                                        const std::map<std::string, double>& params,
                                        const Event& event) {
    std::unordered_map<const void*, Values> values;
    for (const Expr& node : expr::topological_order(root)) {
        const auto& n = node.node();
        std::vector<const Values*> c;
        for (const Expr& child : node.children()) {
            c.push_back(&values.at(child.id()));
        }
        auto scalar_of = [&](std::size_t i, std::size_t e) {
            return c[i]->size() == 1 ? (*c[i])[0] : (*c[i])[e];
        };
        const std::size_t size = node.value_kind().size();
        Values out(size);
        switch (node.kind()) {
        case NodeKind::kRealConst:
        case NodeKind::kComplexConst:
            out[0] = Complex(n.re, n.im);
            break;
        case NodeKind::kParameter:
            out[0] = n.parameter->is_fixed() ? *n.parameter->fixed : params.at(n.parameter->name);
            break;
        case NodeKind::kEventScalar:
            out[0] = event.at(n.name);
            break;
        case NodeKind::kEventP4Component:
            out[0] = event.at(fmt::format("{}.{}", n.name, expr::to_string(n.p4_component())));
            break;
        case NodeKind::kUnary:
            for (std::size_t e = 0; e < size; ++e) {
                out[e] =
                    unary(n.unary_op(), scalar_of(0, e),
                          !node.children()[0].value_kind().is_complex, static_cast<int>(n.index));
            }
            break;
        case NodeKind::kBinary:
            for (std::size_t e = 0; e < size; ++e) {
                out[e] = binary(n.binary_op(), scalar_of(0, e), scalar_of(1, e),
                                !node.value_kind().is_complex);
            }
            break;
        case NodeKind::kNaryAdd:
        case NodeKind::kNaryMul:
            for (std::size_t e = 0; e < size; ++e) {
                Complex acc = scalar_of(0, e);
                for (std::size_t i = 1; i < c.size(); ++i) {
                    acc = node.kind() == NodeKind::kNaryAdd ? acc + scalar_of(i, e)
                                                            : acc * scalar_of(i, e);
                }
                out[e] = acc;
            }
            break;
        case NodeKind::kComplex:
            out[0] = Complex((*c[0])[0].real(), (*c[1])[0].real());
            break;
        case NodeKind::kVector:
        case NodeKind::kMatrix:
            for (std::size_t e = 0; e < size; ++e) {
                out[e] = (*c[e])[0];
            }
            break;
        case NodeKind::kComponent:
            out[0] = (*c[0])[static_cast<std::size_t>(n.index)];
            break;
        case NodeKind::kMatrixElement:
            out[0] = (*c[0])[static_cast<std::size_t>(
                n.index * node.children()[0].value_kind().cols + n.index2)];
            break;
        case NodeKind::kMatMul: {
            const std::size_t inner = node.children()[0].value_kind().cols;
            const std::size_t cols = node.value_kind().cols;
            for (std::size_t e = 0; e < size; ++e) {
                for (std::size_t k = 0; k < inner; ++k) {
                    out[e] += (*c[0])[(e / cols) * inner + k] * (*c[1])[k * cols + e % cols];
                }
            }
            break;
        }
        case NodeKind::kMatVec: {
            const std::size_t inner = node.children()[0].value_kind().cols;
            for (std::size_t e = 0; e < size; ++e) {
                for (std::size_t k = 0; k < inner; ++k) {
                    out[e] += (*c[0])[e * inner + k] * (*c[1])[k];
                }
            }
            break;
        }
        case NodeKind::kDot:
            for (std::size_t k = 0; k < c[0]->size(); ++k) {
                out[0] += (*c[0])[k] * (*c[1])[k];
            }
            break;
        case NodeKind::kSolve:
            out = gauss_solve(size, *c[0], *c[1]);
            break;
        }
        values.emplace(node.id(), std::move(out));
    }
    return values.at(root.id());
}

std::vector<Complex> execute_program(const ir::Program& program, const std::vector<Complex>& inputs,
                                     const std::vector<double>& params) {
    using ir::OpCode;
    std::vector<Values> v(program.size());
    for (std::uint32_t i = 0; i < program.size(); ++i) {
        const ir::Instruction& inst = program.instructions[i];
        std::vector<Complex> a;
        for (ir::ValueId id : program.operands_of(inst)) {
            const Values& operand = v[ir::to_index(id)];
            a.insert(a.end(), operand.begin(), operand.end());
        }
        const bool real = inst.kind == ir::ValueKind::kReal;
        Complex r;
        switch (inst.op) {
        case OpCode::kConstReal:
        case OpCode::kConstComplex:
            r = Complex(inst.re, inst.im);
            break;
        case OpCode::kParam:
            r = params.at(inst.attr);
            break;
        case OpCode::kLoad:
            r = inputs.at(inst.attr);
            break;
        case OpCode::kNeg:
            r = unary(UnaryOp::kNeg, a[0], real, 0);
            break;
        case OpCode::kConj:
            r = unary(UnaryOp::kConj, a[0], real, 0);
            break;
        case OpCode::kSqrt:
            r = unary(UnaryOp::kSqrt, a[0], real, 0);
            break;
        case OpCode::kExp:
            r = unary(UnaryOp::kExp, a[0], real, 0);
            break;
        case OpCode::kLog:
            r = unary(UnaryOp::kLog, a[0], real, 0);
            break;
        case OpCode::kSin:
            r = unary(UnaryOp::kSin, a[0], real, 0);
            break;
        case OpCode::kCos:
            r = unary(UnaryOp::kCos, a[0], real, 0);
            break;
        case OpCode::kTan:
            r = unary(UnaryOp::kTan, a[0], real, 0);
            break;
        case OpCode::kAsin:
            r = unary(UnaryOp::kAsin, a[0], real, 0);
            break;
        case OpCode::kAcos:
            r = unary(UnaryOp::kAcos, a[0], real, 0);
            break;
        case OpCode::kAtan:
            r = unary(UnaryOp::kAtan, a[0], real, 0);
            break;
        case OpCode::kSinh:
            r = unary(UnaryOp::kSinh, a[0], real, 0);
            break;
        case OpCode::kCosh:
            r = unary(UnaryOp::kCosh, a[0], real, 0);
            break;
        case OpCode::kTanh:
            r = unary(UnaryOp::kTanh, a[0], real, 0);
            break;
        case OpCode::kReal:
            r = a[0].real();
            break;
        case OpCode::kImag:
            r = a[0].imag();
            break;
        case OpCode::kAbs:
            r = std::abs(a[0]);
            break;
        case OpCode::kArg:
            r = std::arg(a[0]);
            break;
        case OpCode::kNormSqr:
            r = std::norm(a[0]);
            break;
        case OpCode::kPowI:
            r = power(a[0], inst.exponent());
            break;
        case OpCode::kAdd:
            r = a[0] + a[1];
            break;
        case OpCode::kSub:
            r = a[0] - a[1];
            break;
        case OpCode::kMul:
            r = a[0] * a[1];
            break;
        case OpCode::kDiv:
            r = a[0] / a[1];
            break;
        case OpCode::kPow:
            r = binary(BinaryOp::kPow, a[0], a[1], real);
            break;
        case OpCode::kAtan2:
            r = std::atan2(a[0].real(), a[1].real());
            break;
        case OpCode::kAddN:
            r = 0.0;
            for (const Complex& x : a) {
                r += x;
            }
            break;
        case OpCode::kMulN:
            r = 1.0;
            for (const Complex& x : a) {
                r *= x;
            }
            break;
        case OpCode::kComplex:
            r = Complex(a[0].real(), a[1].real());
            break;
        case OpCode::kDot: {
            r = 0.0;
            const std::size_t n = inst.attr;
            for (std::size_t k = 0; k < n; ++k) {
                r += a[k] * a[n + k];
            }
            break;
        }
        case OpCode::kSolve: {
            const std::size_t n = ir::solve_size(inst.attr);
            const std::size_t m = ir::solve_rhs_count(inst.attr);
            Values matrix(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n * n));
            Values result;
            for (std::size_t j = 0; j < m; ++j) {
                Values rhs(a.begin() + static_cast<std::ptrdiff_t>(n * n + j * n),
                           a.begin() + static_cast<std::ptrdiff_t>(n * n + (j + 1) * n));
                Values x = gauss_solve(n, matrix, rhs);
                result.insert(result.end(), x.begin(), x.end());
            }
            v[i] = std::move(result);
            continue;
        }
        case OpCode::kExtract:
            r = a.at(inst.attr);
            break;
        }
        v[i] = {r};
    }
    std::vector<Complex> outputs;
    for (ir::ValueId id : program.outputs) {
        outputs.push_back(v[ir::to_index(id)][0]);
    }
    return outputs;
}

Event random_event(const Expr& root, std::mt19937& rng, double lo, double hi) {
    std::uniform_real_distribution<double> dist(lo, hi);
    Event event;
    for (const Expr& node : expr::topological_order(root)) {
        if (node.kind() == NodeKind::kEventScalar) {
            event.emplace(node.node().name, dist(rng));
        } else if (node.kind() == NodeKind::kEventP4Component) {
            event.emplace(
                fmt::format("{}.{}", node.node().name, expr::to_string(node.node().p4_component())),
                dist(rng));
        }
    }
    return event;
}

std::map<std::string, double> random_params(const expr::ParamLayout& layout, std::mt19937& rng) {
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::map<std::string, double> params;
    for (const expr::Parameter& p : layout.parameters()) {
        params.emplace(p.name, p.is_fixed() ? *p.fixed : dist(rng));
    }
    return params;
}

Complex run_compiled(const CompiledModel& model, const Event& event,
                     const std::map<std::string, double>& params) {
    std::vector<Complex> cache;
    if (model.has_precompute()) {
        std::vector<Complex> inputs;
        for (const ir::InputSlot& slot : model.precompute.inputs) {
            inputs.emplace_back(event.at(slot.name));
        }
        cache = execute_program(model.precompute, inputs, {});
    }
    std::vector<double> free;
    for (const std::string& name : model.parameters.free_names()) {
        free.push_back(params.at(name));
    }
    return execute_program(model.evaluate, cache, free).at(0);
}

bool close(Complex a, Complex b, double tolerance) {
    return std::abs(a - b) <= tolerance * std::max(1.0, std::abs(b));
}

}  // namespace laddu::compile::testing
