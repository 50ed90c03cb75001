// Names of kinds and operations, used by messages, the printer and the DOT dump.
#include <fmt/format.h>

#include <laddu/expr/expr.hpp>
#include <laddu/expr/value_kind.hpp>

namespace laddu::expr {

std::string to_string(const ValueKind& kind) {
    switch (kind.shape) {
    case Shape::kScalar:
        return kind.is_complex ? "Complex" : "Real";
    case Shape::kVector:
        return fmt::format("Vector({})", kind.rows);
    case Shape::kMatrix:
        break;
    }
    return fmt::format("Matrix({}x{})", kind.rows, kind.cols);
}

const char* to_string(P4Component component) {
    switch (component) {
    case P4Component::kE:
        return "e";
    case P4Component::kPx:
        return "px";
    case P4Component::kPy:
        return "py";
    case P4Component::kPz:
        break;
    }
    return "pz";
}

const char* to_string(UnaryOp op) {
    switch (op) {
    case UnaryOp::kNeg:
        return "neg";
    case UnaryOp::kReal:
        return "real";
    case UnaryOp::kImag:
        return "imag";
    case UnaryOp::kConj:
        return "conj";
    case UnaryOp::kNormSqr:
        return "norm_sqr";
    case UnaryOp::kSqrt:
        return "sqrt";
    case UnaryOp::kExp:
        return "exp";
    case UnaryOp::kLog:
        return "log";
    case UnaryOp::kSin:
        return "sin";
    case UnaryOp::kCos:
        return "cos";
    case UnaryOp::kTan:
        return "tan";
    case UnaryOp::kAsin:
        return "asin";
    case UnaryOp::kAcos:
        return "acos";
    case UnaryOp::kAtan:
        return "atan";
    case UnaryOp::kSinh:
        return "sinh";
    case UnaryOp::kCosh:
        return "cosh";
    case UnaryOp::kTanh:
        return "tanh";
    case UnaryOp::kAbs:
        return "abs";
    case UnaryOp::kArg:
        return "arg";
    case UnaryOp::kPowI:
        break;
    }
    return "powi";
}

const char* to_string(BinaryOp op) {
    switch (op) {
    case BinaryOp::kAdd:
        return "add";
    case BinaryOp::kSub:
        return "sub";
    case BinaryOp::kMul:
        return "mul";
    case BinaryOp::kDiv:
        return "div";
    case BinaryOp::kPow:
        return "pow";
    case BinaryOp::kAtan2:
        break;
    }
    return "atan2";
}

const char* to_string(NodeKind kind) {
    switch (kind) {
    case NodeKind::kRealConst:
        return "RealConst";
    case NodeKind::kComplexConst:
        return "ComplexConst";
    case NodeKind::kParameter:
        return "Parameter";
    case NodeKind::kEventScalar:
        return "EventScalar";
    case NodeKind::kEventP4Component:
        return "EventP4Component";
    case NodeKind::kUnary:
        return "Unary";
    case NodeKind::kBinary:
        return "Binary";
    case NodeKind::kNaryAdd:
        return "NaryAdd";
    case NodeKind::kNaryMul:
        return "NaryMul";
    case NodeKind::kComplex:
        return "Complex";
    case NodeKind::kVector:
        return "Vector";
    case NodeKind::kMatrix:
        return "Matrix";
    case NodeKind::kComponent:
        return "Component";
    case NodeKind::kMatrixElement:
        return "MatrixElement";
    case NodeKind::kMatMul:
        return "MatMul";
    case NodeKind::kMatVec:
        return "MatVec";
    case NodeKind::kDot:
        return "Dot";
    case NodeKind::kSolve:
        break;
    }
    return "Solve";
}

}  // namespace laddu::expr
