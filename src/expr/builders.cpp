// Node builders: leaves, operators, functions, linear algebra. Each computes and checks the
// value kind (rules in include/laddu/expr/expr.hpp) before interning.
#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include <laddu/base/assert.hpp>
#include <laddu/base/error.hpp>
#include <laddu/expr/expr.hpp>

namespace laddu::expr {
namespace {

using detail::Node;

Node make_node(NodeKind kind, std::vector<Expr> children, ValueKind value_kind) {
    Node node;
    node.kind = kind;
    node.children = std::move(children);
    node.value_kind = value_kind;
    return node;
}

bool any_complex(const std::vector<Expr>& xs) {
    return std::any_of(xs.begin(), xs.end(),
                       [](const Expr& x) { return x.value_kind().is_complex; });
}

[[noreturn]] void kind_error(const std::string& message) {
    throw ModelError(message);
}

[[noreturn]] void mismatch_error(const char* verb, const ValueKind& a, const ValueKind& b) {
    kind_error(fmt::format("cannot {} {} and {}", verb, to_string(a), to_string(b)));
}

void require_scalar(const char* operation, const Expr& x) {
    if (!x.value_kind().is_scalar()) {
        kind_error(
            fmt::format("{} needs a scalar operand, got {}", operation, to_string(x.value_kind())));
    }
}

void require_real_scalar(const char* operation, const Expr& x) {
    if (!x.value_kind().is_real_scalar()) {
        kind_error(
            fmt::format("{} needs Real operands, got {}", operation, to_string(x.value_kind())));
    }
}

// The kind of an element-wise/scaling binary combination; throws on a mismatch.
ValueKind combine_kinds(BinaryOp op, const ValueKind& a, const ValueKind& b) {
    const bool is_complex = a.is_complex || b.is_complex;
    const char* verb = op == BinaryOp::kAdd   ? "add"
                       : op == BinaryOp::kSub ? "subtract"
                       : op == BinaryOp::kMul ? "multiply"
                       : op == BinaryOp::kDiv ? "divide"
                                              : "raise";
    if (a.is_scalar() && b.is_scalar()) {
        return is_complex ? ValueKind::complex() : ValueKind::real();
    }
    switch (op) {
    case BinaryOp::kAdd:
    case BinaryOp::kSub:
        if (a.shape != b.shape || a.rows != b.rows || a.cols != b.cols) {
            mismatch_error(verb, a, b);
        }
        return ValueKind{a.shape, is_complex, a.rows, a.cols};
    case BinaryOp::kMul:
        if (a.is_scalar() != b.is_scalar()) {
            const ValueKind& aggregate = a.is_scalar() ? b : a;
            return ValueKind{aggregate.shape, is_complex, aggregate.rows, aggregate.cols};
        }
        kind_error(fmt::format("cannot multiply {} and {} element-wise; use dot, matvec or matmul",
                               to_string(a), to_string(b)));
    case BinaryOp::kDiv:
        if (b.is_scalar()) {
            return ValueKind{a.shape, is_complex, a.rows, a.cols};
        }
        mismatch_error(verb, a, b);
    case BinaryOp::kPow:
    case BinaryOp::kAtan2:
        break;
    }
    mismatch_error(verb, a, b);
}

}  // namespace

Expr constant(double value) {
    Node node = make_node(NodeKind::kRealConst, {}, ValueKind::real());
    node.re = value;
    return detail::intern(std::move(node));
}

Expr constant(std::complex<double> value) {
    Node node = make_node(NodeKind::kComplexConst, {}, ValueKind::complex());
    node.re = value.real();
    node.im = value.imag();
    return detail::intern(std::move(node));
}

Expr parameter(const Parameter& definition) {
    // Re-validate: a hand-built Parameter may skip Parameter::make.
    Parameter checked = Parameter::make(
        definition.name, ParameterOptions{definition.initial, definition.bounds, definition.fixed,
                                          definition.periodic, definition.unit, definition.latex,
                                          definition.initial_range});
    Node node = make_node(NodeKind::kParameter, {}, ValueKind::real());
    node.parameter = std::make_shared<const Parameter>(std::move(checked));
    return detail::intern(std::move(node));
}

Expr parameter(std::string name, const ParameterOptions& options) {
    return parameter(Parameter::make(std::move(name), options));
}

Expr scalar(std::string name) {
    if (name.empty()) {
        throw ModelError("scalar() needs a non-empty event column name");
    }
    Node node = make_node(NodeKind::kEventScalar, {}, ValueKind::real());
    node.name = std::move(name);
    return detail::intern(std::move(node));
}

Expr p4_component(std::string name, P4Component component) {
    if (name.empty()) {
        throw ModelError("p4_component() needs a non-empty four-momentum column name");
    }
    Node node = make_node(NodeKind::kEventP4Component, {}, ValueKind::real());
    node.name = std::move(name);
    node.op = static_cast<std::uint8_t>(component);
    return detail::intern(std::move(node));
}

Expr unary(UnaryOp op, const Expr& x, std::int32_t exponent) {
    ValueKind kind = x.value_kind();
    switch (op) {
    case UnaryOp::kNeg:
    case UnaryOp::kConj:
        break;  // element-wise on aggregates too
    case UnaryOp::kReal:
    case UnaryOp::kImag:
    case UnaryOp::kNormSqr:
    case UnaryOp::kAbs:
    case UnaryOp::kArg:
        require_scalar(to_string(op), x);
        kind = ValueKind::real();
        break;
    default:
        require_scalar(to_string(op), x);
        break;
    }
    Node node = make_node(NodeKind::kUnary, {x}, kind);
    node.op = static_cast<std::uint8_t>(op);
    node.index = op == UnaryOp::kPowI ? exponent : 0;
    return detail::intern(std::move(node));
}

Expr binary(BinaryOp op, const Expr& lhs, const Expr& rhs) {
    ValueKind kind;
    if (op == BinaryOp::kAtan2) {
        require_real_scalar("atan2", lhs);
        require_real_scalar("atan2", rhs);
        kind = ValueKind::real();
    } else if (op == BinaryOp::kPow) {
        require_scalar("pow", lhs);
        require_scalar("pow", rhs);
        kind = combine_kinds(op, lhs.value_kind(), rhs.value_kind());
    } else {
        kind = combine_kinds(op, lhs.value_kind(), rhs.value_kind());
    }
    Node node = make_node(NodeKind::kBinary, {lhs, rhs}, kind);
    node.op = static_cast<std::uint8_t>(op);
    return detail::intern(std::move(node));
}

Expr nary_add(std::vector<Expr> terms) {
    if (terms.empty()) {
        throw ModelError("nary_add needs at least one term");
    }
    ValueKind kind = terms.front().value_kind();
    for (std::size_t i = 1; i < terms.size(); ++i) {
        kind = combine_kinds(BinaryOp::kAdd, kind, terms[i].value_kind());
    }
    return detail::intern(make_node(NodeKind::kNaryAdd, std::move(terms), kind));
}

Expr nary_mul(std::vector<Expr> factors) {
    if (factors.empty()) {
        throw ModelError("nary_mul needs at least one factor");
    }
    ValueKind kind = factors.front().value_kind();
    for (std::size_t i = 1; i < factors.size(); ++i) {
        kind = combine_kinds(BinaryOp::kMul, kind, factors[i].value_kind());
    }
    return detail::intern(make_node(NodeKind::kNaryMul, std::move(factors), kind));
}

Expr operator+(const Expr& a, const Expr& b) {
    return binary(BinaryOp::kAdd, a, b);
}

Expr operator-(const Expr& a, const Expr& b) {
    return binary(BinaryOp::kSub, a, b);
}

Expr operator*(const Expr& a, const Expr& b) {
    return binary(BinaryOp::kMul, a, b);
}

Expr operator/(const Expr& a, const Expr& b) {
    return binary(BinaryOp::kDiv, a, b);
}

Expr operator-(const Expr& a) {
    return unary(UnaryOp::kNeg, a);
}

Expr& operator+=(Expr& a, const Expr& b) {
    return a = a + b;
}

Expr& operator*=(Expr& a, const Expr& b) {
    return a = a * b;
}

Expr real(const Expr& x) {
    return unary(UnaryOp::kReal, x);
}

Expr imag(const Expr& x) {
    return unary(UnaryOp::kImag, x);
}

Expr conj(const Expr& x) {
    return unary(UnaryOp::kConj, x);
}

Expr norm_sqr(const Expr& x) {
    return unary(UnaryOp::kNormSqr, x);
}

Expr abs(const Expr& x) {
    return unary(UnaryOp::kAbs, x);
}

Expr arg(const Expr& x) {
    return unary(UnaryOp::kArg, x);
}

Expr sqrt(const Expr& x) {
    return unary(UnaryOp::kSqrt, x);
}

Expr exp(const Expr& x) {
    return unary(UnaryOp::kExp, x);
}

Expr log(const Expr& x) {
    return unary(UnaryOp::kLog, x);
}

Expr sin(const Expr& x) {
    return unary(UnaryOp::kSin, x);
}

Expr cos(const Expr& x) {
    return unary(UnaryOp::kCos, x);
}

Expr tan(const Expr& x) {
    return unary(UnaryOp::kTan, x);
}

Expr asin(const Expr& x) {
    return unary(UnaryOp::kAsin, x);
}

Expr acos(const Expr& x) {
    return unary(UnaryOp::kAcos, x);
}

Expr atan(const Expr& x) {
    return unary(UnaryOp::kAtan, x);
}

Expr sinh(const Expr& x) {
    return unary(UnaryOp::kSinh, x);
}

Expr cosh(const Expr& x) {
    return unary(UnaryOp::kCosh, x);
}

Expr tanh(const Expr& x) {
    return unary(UnaryOp::kTanh, x);
}

Expr powi(const Expr& x, std::int32_t exponent) {
    return unary(UnaryOp::kPowI, x, exponent);
}

Expr pow(const Expr& base, const Expr& exponent) {
    return binary(BinaryOp::kPow, base, exponent);
}

Expr atan2(const Expr& y, const Expr& x) {
    return binary(BinaryOp::kAtan2, y, x);
}

Expr as_complex(const Expr& x) {
    require_scalar("as_complex", x);
    return x.value_kind().is_complex ? x : complex(x, constant(0.0));
}

Expr complex(const Expr& re, const Expr& im) {
    require_real_scalar("complex", re);
    require_real_scalar("complex", im);
    return detail::intern(make_node(NodeKind::kComplex, {re, im}, ValueKind::complex()));
}

Expr cis(const Expr& phi) {
    require_real_scalar("cis", phi);
    return complex(cos(phi), sin(phi));
}

Expr polar_complex(const Expr& r, const Expr& phi) {
    require_real_scalar("polar_complex", r);
    return r * cis(phi);
}

Expr vector(std::vector<Expr> elements) {
    if (elements.empty()) {
        throw ModelError("vector needs at least one element");
    }
    for (const Expr& e : elements) {
        require_scalar("vector", e);
    }
    const auto n = static_cast<std::uint32_t>(elements.size());
    const bool is_complex = any_complex(elements);
    return detail::intern(
        make_node(NodeKind::kVector, std::move(elements), ValueKind::vector(n, is_complex)));
}

Expr matrix(std::uint32_t rows, std::uint32_t cols, std::vector<Expr> elements) {
    if (rows == 0 || cols == 0) {
        throw ModelError(
            fmt::format("matrix needs at least one row and column, got {}x{}", rows, cols));
    }
    if (elements.size() != static_cast<std::size_t>(rows) * cols) {
        throw ModelError(fmt::format("a {}x{} matrix needs {} elements, got {}", rows, cols,
                                     rows * cols, elements.size()));
    }
    for (const Expr& e : elements) {
        require_scalar("matrix", e);
    }
    const bool is_complex = any_complex(elements);
    return detail::intern(make_node(NodeKind::kMatrix, std::move(elements),
                                    ValueKind::matrix(rows, cols, is_complex)));
}

Expr matrix(std::initializer_list<std::initializer_list<Expr>> rows) {
    std::vector<Expr> elements;
    const auto n_rows = static_cast<std::uint32_t>(rows.size());
    const std::uint32_t n_cols =
        rows.size() == 0 ? 0 : static_cast<std::uint32_t>(rows.begin()->size());
    for (const auto& row : rows) {
        if (row.size() != n_cols) {
            throw ModelError(fmt::format("matrix rows must have equal lengths, got {} and {}",
                                         n_cols, row.size()));
        }
        elements.insert(elements.end(), row.begin(), row.end());
    }
    return matrix(n_rows, n_cols, std::move(elements));
}

Expr component(const Expr& vector_expr, std::uint32_t index) {
    const ValueKind& kind = vector_expr.value_kind();
    if (kind.shape != Shape::kVector) {
        kind_error(fmt::format("component needs a Vector, got {}", to_string(kind)));
    }
    if (index >= kind.rows) {
        kind_error(fmt::format("component index {} out of range for {}", index, to_string(kind)));
    }
    const bool is_complex = vector_expr.kind() == NodeKind::kVector
                                ? vector_expr.children()[index].value_kind().is_complex
                                : kind.is_complex;
    Node node = make_node(NodeKind::kComponent, {vector_expr},
                          is_complex ? ValueKind::complex() : ValueKind::real());
    node.index = index;
    return detail::intern(std::move(node));
}

Expr matrix_element(const Expr& matrix_expr, std::uint32_t row, std::uint32_t col) {
    const ValueKind& kind = matrix_expr.value_kind();
    if (kind.shape != Shape::kMatrix) {
        kind_error(fmt::format("matrix element needs a Matrix, got {}", to_string(kind)));
    }
    if (row >= kind.rows || col >= kind.cols) {
        kind_error(
            fmt::format("matrix element ({}, {}) out of range for {}", row, col, to_string(kind)));
    }
    const bool is_complex =
        matrix_expr.kind() == NodeKind::kMatrix
            ? matrix_expr.children()[static_cast<std::size_t>(row) * kind.cols + col]
                  .value_kind()
                  .is_complex
            : kind.is_complex;
    Node node = make_node(NodeKind::kMatrixElement, {matrix_expr},
                          is_complex ? ValueKind::complex() : ValueKind::real());
    node.index = row;
    node.index2 = col;
    return detail::intern(std::move(node));
}

Expr matmul(const Expr& lhs, const Expr& rhs) {
    const ValueKind& a = lhs.value_kind();
    const ValueKind& b = rhs.value_kind();
    if (a.shape != Shape::kMatrix || b.shape != Shape::kMatrix || a.cols != b.rows) {
        kind_error(fmt::format("cannot matmul {} and {}", to_string(a), to_string(b)));
    }
    return detail::intern(
        make_node(NodeKind::kMatMul, {lhs, rhs},
                  ValueKind::matrix(a.rows, b.cols, a.is_complex || b.is_complex)));
}

Expr matvec(const Expr& matrix_expr, const Expr& vector_expr) {
    const ValueKind& m = matrix_expr.value_kind();
    const ValueKind& v = vector_expr.value_kind();
    if (m.shape != Shape::kMatrix || v.shape != Shape::kVector || m.cols != v.rows) {
        kind_error(fmt::format("cannot matvec {} and {}", to_string(m), to_string(v)));
    }
    return detail::intern(make_node(NodeKind::kMatVec, {matrix_expr, vector_expr},
                                    ValueKind::vector(m.rows, m.is_complex || v.is_complex)));
}

Expr dot(const Expr& lhs, const Expr& rhs) {
    const ValueKind& a = lhs.value_kind();
    const ValueKind& b = rhs.value_kind();
    if (a.shape != Shape::kVector || b.shape != Shape::kVector || a.rows != b.rows) {
        kind_error(fmt::format("cannot dot {} and {}", to_string(a), to_string(b)));
    }
    const bool is_complex = a.is_complex || b.is_complex;
    return detail::intern(make_node(NodeKind::kDot, {lhs, rhs},
                                    is_complex ? ValueKind::complex() : ValueKind::real()));
}

Expr solve(const Expr& matrix_expr, const Expr& rhs) {
    const ValueKind& m = matrix_expr.value_kind();
    const ValueKind& b = rhs.value_kind();
    if (m.shape != Shape::kMatrix || m.rows != m.cols) {
        kind_error(fmt::format("solve needs a square matrix, got {}", to_string(m)));
    }
    if (b.shape != Shape::kVector || b.rows != m.rows) {
        kind_error(fmt::format("solve needs a Vector({}) right-hand side for {}, got {}", m.rows,
                               to_string(m), to_string(b)));
    }
    return detail::intern(
        make_node(NodeKind::kSolve, {matrix_expr, rhs}, ValueKind::vector(m.rows, true)));
}

Expr zero_of(const ValueKind& kind) {
    Expr element = kind.is_complex ? constant(std::complex<double>(0.0, 0.0)) : constant(0.0);
    switch (kind.shape) {
    case Shape::kScalar:
        return element;
    case Shape::kVector:
        return vector(std::vector<Expr>(kind.rows, element));
    case Shape::kMatrix:
        break;
    }
    return matrix(kind.rows, kind.cols, std::vector<Expr>(kind.size(), element));
}

bool is_constant(const Expr& e) {
    return e.kind() == NodeKind::kRealConst || e.kind() == NodeKind::kComplexConst;
}

std::complex<double> constant_value(const Expr& e) {
    LADDU_ASSERT(is_constant(e)) << "constant_value of a " << to_string(e.kind()) << " node";
    return {e.node().re, e.node().im};
}

}  // namespace laddu::expr
