// laddu/expr/expr.hpp: the immutable, hash-consed expression DAG.
//
// An Expr is a cheap value handle on an immutable Node. Nodes are interned in one global,
// thread-safe table, so two structurally equal nodes (same kind, payload, tags and child
// pointers) are the same object: equality and hashing are O(1) pointer operations, and shared
// subexpressions are shared in memory. Builders check value kinds and throw ModelError on a
// mismatch, naming the operation and both kinds.
//
// Kind rules (see docs/compile.md):
//   * constants: RealConst is Real, ComplexConst is Complex (even with a zero imaginary part);
//     parameters and event leaves are Real;
//   * unary functions keep the operand's kind (sqrt/log/asin/acos of a Real node stay Real and
//     give NaN outside their real domain, like laddu); real, imag, norm_sqr, abs, arg are Real.
//     Use as_complex(x) to get the complex principal branch, e.g. sqrt(as_complex(s - 4 m^2));
//   * add, sub, mul, div, pow are Real iff both operands are Real; atan2 needs Real operands;
//   * add/sub of two aggregates of the same shape work element-wise; mul/div of an aggregate by
//     a scalar scale it; neg and conj of aggregates work element-wise;
//   * complex(re, im) needs Real scalars; component/matrix element have the element kind;
//   * matmul, matvec, dot have the natural shapes (dot does not conjugate); solve(M, b) needs a
//     square M and a Vector b of matching length, and its result is a complex Vector.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <laddu/expr/parameter.hpp>
#include <laddu/expr/value_kind.hpp>

namespace laddu::expr {

/// What a node is.
enum class NodeKind : std::uint8_t {
    kRealConst,
    kComplexConst,
    kParameter,
    kEventScalar,       ///< a named real event column
    kEventP4Component,  ///< one component of a named four-momentum column
    kUnary,
    kBinary,
    kNaryAdd,
    kNaryMul,
    kComplex,  ///< complex(re, im) of two Real scalars
    kVector,
    kMatrix,  ///< row-major elements
    kComponent,
    kMatrixElement,
    kMatMul,
    kMatVec,
    kDot,  ///< non-conjugating sum of products
    kSolve,
};

/// Unary operations (the op of a kUnary node).
enum class UnaryOp : std::uint8_t {
    kNeg,
    kReal,
    kImag,
    kConj,
    kNormSqr,
    kSqrt,
    kExp,
    kLog,
    kSin,
    kCos,
    kTan,
    kAsin,
    kAcos,
    kAtan,
    kSinh,
    kCosh,
    kTanh,
    kAbs,
    kArg,
    kPowI,  ///< integer power; the exponent is Node::index (as int32)
};

/// Binary operations (the op of a kBinary node).
enum class BinaryOp : std::uint8_t { kAdd, kSub, kMul, kDiv, kPow, kAtan2 };

/// A four-momentum component, in (E, px, py, pz) order.
enum class P4Component : std::uint8_t { kE, kPx, kPy, kPz };

/// The label of a component: "e", "px", "py", "pz".
[[nodiscard]] const char* to_string(P4Component component);

/// The name of an operation: "neg", "sqrt", "add", "atan2", ...
[[nodiscard]] const char* to_string(UnaryOp op);

/// The name of an operation.
[[nodiscard]] const char* to_string(BinaryOp op);

/// The name of a node kind: "RealConst", "Solve", ...
[[nodiscard]] const char* to_string(NodeKind kind);

class Expr;

namespace detail {
struct Node;
}  // namespace detail

/// A handle on an immutable expression node. Cheap to copy; compares by identity, which
/// hash-consing makes structural.
class Expr {
public:
    /// A real constant (implicit, so literals mix with expressions: x * 2.0).
    Expr(double value);  // NOLINT(google-explicit-constructor)

    /// A complex constant.
    Expr(std::complex<double> value);  // NOLINT(google-explicit-constructor)

    /// The node this handle refers to.
    [[nodiscard]] const detail::Node& node() const { return *node_; }

    /// The node's kind.
    [[nodiscard]] NodeKind kind() const;

    /// The value kind (shape and field), computed when the node was built.
    [[nodiscard]] const ValueKind& value_kind() const;

    /// The children, in order.
    [[nodiscard]] std::span<const Expr> children() const;

    /// The tags on this node (sorted, unique).
    [[nodiscard]] std::span<const std::string> tags() const;

    /// The structural hash (deterministic across runs: built from payloads and child hashes).
    [[nodiscard]] std::size_t structural_hash() const;

    /// A stable identity for maps keyed by node (the node's address).
    [[nodiscard]] const void* id() const { return node_.get(); }

    /// This expression marked as the coherent amplitude `tag` (see project()).
    [[nodiscard]] Expr tagged(const std::string& tag) const;

    /// Element `index` of a vector (component).
    [[nodiscard]] Expr operator[](std::uint32_t index) const;

    /// Element (row, col) of a matrix.
    [[nodiscard]] Expr at(std::uint32_t row, std::uint32_t col) const;

    /// The same node with other children (re-interned; the same Expr if nothing changed). Each
    /// new child must have the old child's ValueKind (asserted): rewrites preserve kinds.
    [[nodiscard]] Expr with_children(std::vector<Expr> children) const;

    /// The same node without tags.
    [[nodiscard]] Expr without_tags() const;

    /// Identity, which hash-consing makes structural equality.
    friend bool operator==(const Expr& a, const Expr& b) { return a.node_ == b.node_; }

    /// Wraps an interned node (used by the builders).
    explicit Expr(std::shared_ptr<const detail::Node> node) : node_(std::move(node)) {}

private:
    std::shared_ptr<const detail::Node> node_;
};

namespace detail {

/// The payload of a node. Built only through the builders below, which intern it.
struct Node {
    NodeKind kind = NodeKind::kRealConst;
    std::uint8_t op = 0;      ///< UnaryOp or BinaryOp, or the P4Component of a p4 leaf
    std::int64_t index = 0;   ///< component index, powi exponent, matrix row
    std::int64_t index2 = 0;  ///< matrix element column
    double re = 0.0;          ///< constant value
    double im = 0.0;
    std::string name;                            ///< event column name
    std::shared_ptr<const Parameter> parameter;  ///< kParameter only
    std::vector<Expr> children;
    std::vector<std::string> tags;
    ValueKind value_kind;
    std::size_t hash = 0;

    [[nodiscard]] UnaryOp unary_op() const { return static_cast<UnaryOp>(op); }

    [[nodiscard]] BinaryOp binary_op() const { return static_cast<BinaryOp>(op); }

    [[nodiscard]] P4Component p4_component() const { return static_cast<P4Component>(op); }
};

/// Checks and interns a node whose value_kind is already set; returns the canonical handle.
[[nodiscard]] Expr intern(Node node);

/// Number of live interned nodes (for tests of the intern table).
[[nodiscard]] std::size_t intern_table_size();

}  // namespace detail

// The accessors every graph walk calls per node, inline (Node is complete only here).
inline NodeKind Expr::kind() const {
    return node_->kind;
}

inline const ValueKind& Expr::value_kind() const {
    return node_->value_kind;
}

inline std::span<const Expr> Expr::children() const {
    return node_->children;
}

inline std::span<const std::string> Expr::tags() const {
    return node_->tags;
}

inline std::size_t Expr::structural_hash() const {
    return node_->hash;
}

/// Hash functor for unordered containers keyed by Expr.
struct ExprHash {
    std::size_t operator()(const Expr& e) const noexcept {
        return std::hash<const void*>{}(e.id());
    }
};

// Leaves.

/// A real constant.
[[nodiscard]] Expr constant(double value);

/// A complex constant (Complex-kinded even when the imaginary part is zero).
[[nodiscard]] Expr constant(std::complex<double> value);

/// A parameter node with the given definition.
[[nodiscard]] Expr parameter(const Parameter& definition);

/// A parameter node: parameter("mass", {.initial = 1.0, .bounds = Bounds{0.5, 1.5}}).
[[nodiscard]] Expr parameter(std::string name, const ParameterOptions& options = {});

/// A named real event column ("pol_angle").
[[nodiscard]] Expr scalar(std::string name);

/// One component of the four-momentum column `name` (read as "name.e", "name.px", ...).
[[nodiscard]] Expr p4_component(std::string name, P4Component component);

// Generic builders (the operators and functions below use these).

/// A unary node; `exponent` is used by kPowI only.
[[nodiscard]] Expr unary(UnaryOp op, const Expr& x, std::int32_t exponent = 0);

/// A binary node.
[[nodiscard]] Expr binary(BinaryOp op, const Expr& lhs, const Expr& rhs);

/// An n-ary sum (at least one term).
[[nodiscard]] Expr nary_add(std::vector<Expr> terms);

/// An n-ary product (at least one factor; at most one aggregate factor).
[[nodiscard]] Expr nary_mul(std::vector<Expr> factors);

// Arithmetic.

/// a + b (scalars, or aggregates of one shape).
[[nodiscard]] Expr operator+(const Expr& a, const Expr& b);

/// a - b (scalars, or aggregates of one shape).
[[nodiscard]] Expr operator-(const Expr& a, const Expr& b);

/// a * b (scalars, or an aggregate scaled by a scalar).
[[nodiscard]] Expr operator*(const Expr& a, const Expr& b);

/// a / b (the divisor must be a scalar).
[[nodiscard]] Expr operator/(const Expr& a, const Expr& b);

/// -a (element-wise on aggregates).
[[nodiscard]] Expr operator-(const Expr& a);

/// a = a + b.
Expr& operator+=(Expr& a, const Expr& b);

/// a = a * b.
Expr& operator*=(Expr& a, const Expr& b);

// Scalar functions (complex principal branches for Complex operands).

/// The real part (Real).
[[nodiscard]] Expr real(const Expr& x);
/// The imaginary part (Real).
[[nodiscard]] Expr imag(const Expr& x);
/// The complex conjugate (element-wise on aggregates).
[[nodiscard]] Expr conj(const Expr& x);
[[nodiscard]] Expr norm_sqr(const Expr& x);  ///< |x|^2, Real
[[nodiscard]] Expr abs(const Expr& x);       ///< |x|, Real
[[nodiscard]] Expr arg(const Expr& x);       ///< atan2(im, re), Real
/// Square root.
[[nodiscard]] Expr sqrt(const Expr& x);
/// Exponential.
[[nodiscard]] Expr exp(const Expr& x);
/// Natural logarithm.
[[nodiscard]] Expr log(const Expr& x);
/// Sine.
[[nodiscard]] Expr sin(const Expr& x);
/// Cosine.
[[nodiscard]] Expr cos(const Expr& x);
/// Tangent.
[[nodiscard]] Expr tan(const Expr& x);
/// Arc sine.
[[nodiscard]] Expr asin(const Expr& x);
/// Arc cosine.
[[nodiscard]] Expr acos(const Expr& x);
/// Arc tangent.
[[nodiscard]] Expr atan(const Expr& x);
/// Hyperbolic sine.
[[nodiscard]] Expr sinh(const Expr& x);
/// Hyperbolic cosine.
[[nodiscard]] Expr cosh(const Expr& x);
/// Hyperbolic tangent.
[[nodiscard]] Expr tanh(const Expr& x);
/// x^exponent by repeated squaring.
[[nodiscard]] Expr powi(const Expr& x, std::int32_t exponent);
/// base^exponent (real exponents allowed; complex: exp(exponent log base)).
[[nodiscard]] Expr pow(const Expr& base, const Expr& exponent);
/// atan2(y, x) of Real operands.
[[nodiscard]] Expr atan2(const Expr& y, const Expr& x);

/// A Complex-kinded copy of `x` (complex(x, 0) for a Real x; x itself when already Complex).
[[nodiscard]] Expr as_complex(const Expr& x);

/// re + i im from two Real scalars.
[[nodiscard]] Expr complex(const Expr& re, const Expr& im);

/// cos(phi) + i sin(phi) for a Real phi.
[[nodiscard]] Expr cis(const Expr& phi);

/// r e^{i phi} for Real r and phi.
[[nodiscard]] Expr polar_complex(const Expr& r, const Expr& phi);

// Linear algebra.

/// A vector of scalar elements (at least one).
[[nodiscard]] Expr vector(std::vector<Expr> elements);

/// A rows x cols matrix from row-major scalar elements.
[[nodiscard]] Expr matrix(std::uint32_t rows, std::uint32_t cols, std::vector<Expr> elements);

/// A matrix from rows of scalars: matrix({{a, b}, {c, d}}).
[[nodiscard]] Expr matrix(std::initializer_list<std::initializer_list<Expr>> rows);

/// Element `index` of a vector.
[[nodiscard]] Expr component(const Expr& vector, std::uint32_t index);

/// Element (row, col) of a matrix.
[[nodiscard]] Expr matrix_element(const Expr& matrix, std::uint32_t row, std::uint32_t col);

/// The matrix product.
[[nodiscard]] Expr matmul(const Expr& lhs, const Expr& rhs);

/// The matrix-vector product.
[[nodiscard]] Expr matvec(const Expr& matrix, const Expr& vector);

/// The non-conjugating dot product sum_k a_k b_k.
[[nodiscard]] Expr dot(const Expr& lhs, const Expr& rhs);

/// The solution x of matrix x = rhs (complex; a singular matrix gives NaN per event).
[[nodiscard]] Expr solve(const Expr& matrix, const Expr& rhs);

/// A zero of the given kind (a RealConst, a ComplexConst, or an aggregate of zeros).
[[nodiscard]] Expr zero_of(const ValueKind& kind);

/// True when `e` is a RealConst or ComplexConst node.
[[nodiscard]] bool is_constant(const Expr& e);

/// The value of a constant node (asserts is_constant(e)).
[[nodiscard]] std::complex<double> constant_value(const Expr& e);

}  // namespace laddu::expr

template <>
struct std::hash<laddu::expr::Expr> {
    std::size_t operator()(const laddu::expr::Expr& e) const noexcept {
        return laddu::expr::ExprHash{}(e);
    }
};
