#include "expr_reference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace laddu::testing {
namespace {

Complex powi(Complex x, int n, bool real) {
    if (n < 0) {
        return Complex(1.0) / powi(x, -n, real);
    }
    Complex result = 1.0;
    for (int k = 0; k < n; ++k) {
        result = real ? Complex(result.real() * x.real()) : result * x;
    }
    return result;
}

Complex unary(expr::UnaryOp op, Complex x, bool real, int exponent) {
    using expr::UnaryOp;
    const double r = x.real();
    switch (op) {
    case UnaryOp::kNeg:
        return -x;
    case UnaryOp::kReal:
        return x.real();
    case UnaryOp::kImag:
        return x.imag();
    case UnaryOp::kConj:
        return std::conj(x);
    case UnaryOp::kNormSqr:
        return std::norm(x);
    case UnaryOp::kAbs:
        return std::abs(x);
    case UnaryOp::kArg:
        return std::arg(x);
    case UnaryOp::kSqrt:
        return real ? Complex(std::sqrt(r)) : std::sqrt(x);
    case UnaryOp::kExp:
        return real ? Complex(std::exp(r)) : std::exp(x);
    case UnaryOp::kLog:
        return real ? Complex(std::log(r)) : std::log(x);
    case UnaryOp::kSin:
        return real ? Complex(std::sin(r)) : std::sin(x);
    case UnaryOp::kCos:
        return real ? Complex(std::cos(r)) : std::cos(x);
    case UnaryOp::kTan:
        return real ? Complex(std::tan(r)) : std::tan(x);
    case UnaryOp::kAsin:
        return real ? Complex(std::asin(r)) : std::asin(x);
    case UnaryOp::kAcos:
        return real ? Complex(std::acos(r)) : std::acos(x);
    case UnaryOp::kAtan:
        return real ? Complex(std::atan(r)) : std::atan(x);
    case UnaryOp::kSinh:
        return real ? Complex(std::sinh(r)) : std::sinh(x);
    case UnaryOp::kCosh:
        return real ? Complex(std::cosh(r)) : std::cosh(x);
    case UnaryOp::kTanh:
        return real ? Complex(std::tanh(r)) : std::tanh(x);
    case UnaryOp::kPowI:
        return powi(x, exponent, real);
    }
    throw std::logic_error("reference evaluator: unknown unary op");
}

Complex binary(expr::BinaryOp op, Complex a, Complex b, bool real) {
    using expr::BinaryOp;
    if (real) {
        const double x = a.real();
        const double y = b.real();
        switch (op) {
        case BinaryOp::kAdd:
            return x + y;
        case BinaryOp::kSub:
            return x - y;
        case BinaryOp::kMul:
            return x * y;
        case BinaryOp::kDiv:
            return x / y;
        case BinaryOp::kPow:
            return std::pow(x, y);
        case BinaryOp::kAtan2:
            return std::atan2(x, y);
        }
    }
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
        return std::exp(b * std::log(a));
    case BinaryOp::kAtan2:
        return std::atan2(a.real(), b.real());
    }
    throw std::logic_error("reference evaluator: unknown binary op");
}

// Element-wise a op b with scalar broadcasting (aggregate ± aggregate, aggregate * scalar).
std::vector<Complex> combine(expr::BinaryOp op, const std::vector<Complex>& a,
                             const std::vector<Complex>& b, bool real) {
    const std::size_t n = std::max(a.size(), b.size());
    std::vector<Complex> out(n);
    for (std::size_t k = 0; k < n; ++k) {
        out[k] = binary(op, a.size() == 1 ? a[0] : a[k], b.size() == 1 ? b[0] : b[k], real);
    }
    return out;
}

std::vector<Complex> solve(std::vector<Complex> m, std::vector<Complex> b) {
    const std::size_t n = b.size();
    for (std::size_t col = 0; col < n; ++col) {
        std::size_t pivot = col;
        for (std::size_t row = col + 1; row < n; ++row) {
            if (std::abs(m[row * n + col]) > std::abs(m[pivot * n + col])) {
                pivot = row;
            }
        }
        for (std::size_t k = 0; k < n; ++k) {
            std::swap(m[col * n + k], m[pivot * n + k]);
        }
        std::swap(b[col], b[pivot]);
        for (std::size_t row = col + 1; row < n; ++row) {
            const Complex factor = m[row * n + col] / m[col * n + col];
            for (std::size_t k = col; k < n; ++k) {
                m[row * n + k] -= factor * m[col * n + k];
            }
            b[row] -= factor * b[col];
        }
    }
    std::vector<Complex> x(n);
    for (std::size_t i = n; i-- > 0;) {
        Complex sum = b[i];
        for (std::size_t k = i + 1; k < n; ++k) {
            sum -= m[i * n + k] * x[k];
        }
        x[i] = sum / m[i * n + i];
    }
    return x;
}

}  // namespace

std::vector<Complex> ReferenceEvaluator::evaluate(const expr::Expr& e) {
    const auto found = memo_.find(e.id());
    if (found != memo_.end()) {
        return found->second;
    }
    std::vector<Complex> value = compute(e);
    memo_.emplace(e.id(), value);
    return value;
}

Complex ReferenceEvaluator::scalar(const expr::Expr& e) {
    const std::vector<Complex> v = evaluate(e);
    if (v.size() != 1) {
        throw std::logic_error("reference evaluator: not a scalar");
    }
    return v.front();
}

std::vector<Complex> ReferenceEvaluator::compute(const expr::Expr& e) {
    using expr::NodeKind;
    const expr::detail::Node& node = e.node();
    const bool real = !node.value_kind.is_complex;
    std::vector<std::vector<Complex>> args;
    for (const expr::Expr& child : e.children()) {
        args.push_back(evaluate(child));
    }
    switch (node.kind) {
    case NodeKind::kRealConst:
        return {Complex(node.re)};
    case NodeKind::kComplexConst:
        return {Complex(node.re, node.im)};
    case NodeKind::kParameter: {
        const auto found = parameters_.find(node.parameter->name);
        return {Complex(found != parameters_.end() && !node.parameter->is_fixed()
                            ? found->second
                            : node.parameter->default_value())};
    }
    case NodeKind::kEventScalar:
        return {Complex(event_.scalars.at(node.name))};
    case NodeKind::kEventP4Component:
        return {Complex(event_.p4.at(node.name)[static_cast<std::size_t>(node.op)])};
    case NodeKind::kUnary: {
        const bool real_operand = !e.children()[0].value_kind().is_complex;
        std::vector<Complex> out;
        for (const Complex& x : args[0]) {
            out.push_back(unary(node.unary_op(), x, real_operand, static_cast<int>(node.index)));
        }
        return out;
    }
    case NodeKind::kBinary:
        return combine(node.binary_op(), args[0], args[1], real);
    case NodeKind::kNaryAdd:
    case NodeKind::kNaryMul: {
        std::vector<Complex> acc = args[0];
        const auto op =
            node.kind == NodeKind::kNaryAdd ? expr::BinaryOp::kAdd : expr::BinaryOp::kMul;
        for (std::size_t k = 1; k < args.size(); ++k) {
            acc = combine(op, acc, args[k], real);
        }
        return acc;
    }
    case NodeKind::kComplex:
        return {Complex(args[0][0].real(), args[1][0].real())};
    case NodeKind::kVector:
    case NodeKind::kMatrix: {
        std::vector<Complex> out;
        for (const auto& a : args) {
            out.push_back(a[0]);
        }
        return out;
    }
    case NodeKind::kComponent:
        return {args[0].at(static_cast<std::size_t>(node.index))};
    case NodeKind::kMatrixElement: {
        const std::size_t cols = e.children()[0].value_kind().cols;
        return {args[0].at(static_cast<std::size_t>(node.index) * cols +
                           static_cast<std::size_t>(node.index2))};
    }
    case NodeKind::kMatMul: {
        const auto& lk = e.children()[0].value_kind();
        const auto& rk = e.children()[1].value_kind();
        std::vector<Complex> out(std::size_t{lk.rows} * rk.cols);
        for (std::size_t i = 0; i < lk.rows; ++i) {
            for (std::size_t j = 0; j < rk.cols; ++j) {
                for (std::size_t k = 0; k < lk.cols; ++k) {
                    out[i * rk.cols + j] += args[0][i * lk.cols + k] * args[1][k * rk.cols + j];
                }
            }
        }
        return out;
    }
    case NodeKind::kMatVec: {
        const auto& mk = e.children()[0].value_kind();
        std::vector<Complex> out(mk.rows);
        for (std::size_t i = 0; i < mk.rows; ++i) {
            for (std::size_t k = 0; k < mk.cols; ++k) {
                out[i] += args[0][i * mk.cols + k] * args[1][k];
            }
        }
        return out;
    }
    case NodeKind::kDot: {
        Complex sum = 0.0;
        for (std::size_t k = 0; k < args[0].size(); ++k) {
            sum += args[0][k] * args[1][k];
        }
        return {sum};
    }
    case NodeKind::kSolve:
        return solve(args[0], args[1]);
    }
    throw std::logic_error("reference evaluator: unknown node kind");
}

Complex evaluate(const expr::Expr& e, const Event& event, const ParameterValues& parameters) {
    return ReferenceEvaluator(event, parameters).scalar(e);
}

std::vector<Complex> evaluate_all(const expr::Expr& e, const Event& event,
                                  const ParameterValues& parameters) {
    return ReferenceEvaluator(event, parameters).evaluate(e);
}

double column_value(const Event& event, const std::string& column) {
    static constexpr std::array<const char*, 4> kComponents = {"e", "px", "py", "pz"};
    const std::size_t dot = column.rfind('.');
    if (dot != std::string::npos) {
        const auto p4 = event.p4.find(column.substr(0, dot));
        if (p4 != event.p4.end()) {
            for (std::size_t c = 0; c < kComponents.size(); ++c) {
                if (column.compare(dot + 1, std::string::npos, kComponents[c]) == 0) {
                    return p4->second[c];
                }
            }
        }
    }
    return event.scalars.at(column);
}

}  // namespace laddu::testing
