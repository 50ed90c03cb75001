#include "algebraic_simplification.hpp"

#include <cmath>
#include <unordered_map>

#include <laddu/expr/traversal.hpp>

#include "../scalar_math.hpp"
#include "rewrite_support.hpp"

namespace laddu::compile {
namespace {

using detail::coerce_to;
using expr::BinaryOp;
using expr::Expr;
using expr::NodeKind;
using expr::UnaryOp;

class FiniteSafety {
public:
    bool is_safe(const Expr& e) {
        if (auto it = memo_.find(e.id()); it != memo_.end()) {
            return it->second;
        }
        const bool safe = compute(e);
        memo_.emplace(e.id(), safe);
        return safe;
    }

private:
    bool all_safe(std::span<const Expr> xs) {
        return std::all_of(xs.begin(), xs.end(), [this](const Expr& x) { return is_safe(x); });
    }

    bool compute(const Expr& e) {
        switch (e.kind()) {
        case NodeKind::kRealConst:
        case NodeKind::kComplexConst:
            return std::isfinite(e.node().re) && std::isfinite(e.node().im);
        case NodeKind::kParameter:
        case NodeKind::kEventScalar:
        case NodeKind::kEventP4Component:
            return true;
        case NodeKind::kUnary:
            switch (e.node().unary_op()) {
            case UnaryOp::kNeg:
            case UnaryOp::kConj:
            case UnaryOp::kReal:
            case UnaryOp::kImag:
            case UnaryOp::kNormSqr:
            case UnaryOp::kAbs:
            case UnaryOp::kArg:
            case UnaryOp::kSin:
            case UnaryOp::kCos:
            case UnaryOp::kAtan:
                return all_safe(e.children());
            default:
                return false;
            }
        case NodeKind::kBinary:
            return e.node().binary_op() != BinaryOp::kDiv &&
                   e.node().binary_op() != BinaryOp::kPow && all_safe(e.children());
        case NodeKind::kNaryAdd:
        case NodeKind::kNaryMul:
        case NodeKind::kComplex:
        case NodeKind::kVector:
        case NodeKind::kMatrix:
        case NodeKind::kComponent:
        case NodeKind::kMatrixElement:
        case NodeKind::kMatMul:
        case NodeKind::kMatVec:
        case NodeKind::kDot:
            return all_safe(e.children());
        case NodeKind::kSolve:
            break;
        }
        return false;
    }

    std::unordered_map<const void*, bool> memo_;
};

bool is_zero_literal(const Expr& e) {
    if (expr::is_constant(e)) {
        return e.node().re == 0.0 && e.node().im == 0.0;
    }
    if (detail::is_literal_aggregate(e)) {
        return std::all_of(e.children().begin(), e.children().end(), is_zero_literal);
    }
    return false;
}

// Merges the constants of a flattened sum or product into one (placed first).
std::vector<Expr> merge_constants(std::vector<Expr> operands, BinaryOp op,
                                  std::complex<double>* merged, bool* merged_real,
                                  bool* any_constant) {
    std::vector<Expr> rest;
    *merged = op == BinaryOp::kAdd ? 0.0 : 1.0;
    *merged_real = true;
    *any_constant = false;
    for (const Expr& e : operands) {
        if (expr::is_constant(e)) {
            const bool real = !e.value_kind().is_complex;
            *merged =
                detail::apply_binary(op, *merged, *merged_real, expr::constant_value(e), real);
            *merged_real = *merged_real && real;
            *any_constant = true;
        } else {
            rest.push_back(e);
        }
    }
    return rest;
}

Expr finish_nary(NodeKind kind, std::vector<Expr> operands, const expr::ValueKind& target) {
    if (operands.empty()) {
        return expr::zero_of(target);
    }
    if (operands.size() == 1) {
        return coerce_to(operands.front(), target);
    }
    Expr result = kind == NodeKind::kNaryAdd ? expr::nary_add(std::move(operands))
                                             : expr::nary_mul(std::move(operands));
    return coerce_to(result, target);
}

Expr simplify_add(const Expr& node) {
    std::vector<Expr> flat;
    for (const Expr& c : node.children()) {
        if (c.kind() == NodeKind::kNaryAdd) {
            flat.insert(flat.end(), c.children().begin(), c.children().end());
        } else if (!is_zero_literal(c)) {
            flat.push_back(c);
        }
    }
    std::complex<double> constant;
    bool constant_real = true;
    bool any_constant = false;
    std::vector<Expr> rest =
        merge_constants(std::move(flat), BinaryOp::kAdd, &constant, &constant_real, &any_constant);
    if (any_constant && constant != 0.0) {
        rest.insert(rest.begin(),
                    constant_real ? expr::constant(constant.real()) : expr::constant(constant));
    }
    if (rest.empty()) {
        return expr::zero_of(node.value_kind());
    }
    return finish_nary(NodeKind::kNaryAdd, std::move(rest), node.value_kind());
}

Expr simplify_mul(const Expr& node, FiniteSafety& safety) {
    std::vector<Expr> flat;
    bool negate = false;
    auto push = [&](Expr e) {
        while (e.kind() == NodeKind::kUnary && e.node().unary_op() == UnaryOp::kNeg) {
            negate = !negate;
            e = e.children()[0];
        }
        flat.push_back(std::move(e));
    };
    for (const Expr& c : node.children()) {
        if (c.kind() == NodeKind::kNaryMul) {
            for (const Expr& g : c.children()) {
                push(g);
            }
        } else {
            push(c);
        }
    }
    std::complex<double> constant;
    bool constant_real = true;
    bool any_constant = false;
    std::vector<Expr> rest =
        merge_constants(std::move(flat), BinaryOp::kMul, &constant, &constant_real, &any_constant);
    if (negate) {
        constant = -constant;
        any_constant = true;
    }
    if (any_constant && constant == 0.0 &&
        std::all_of(rest.begin(), rest.end(), [&](const Expr& e) { return safety.is_safe(e); })) {
        return expr::zero_of(node.value_kind());
    }
    if (any_constant && constant != 1.0) {
        rest.insert(rest.begin(),
                    constant_real ? expr::constant(constant.real()) : expr::constant(constant));
    }
    if (rest.empty()) {
        return coerce_to(constant_real ? expr::constant(constant.real()) : expr::constant(constant),
                         node.value_kind());
    }
    return finish_nary(NodeKind::kNaryMul, std::move(rest), node.value_kind());
}

bool is_unary(const Expr& e, UnaryOp op) {
    return e.kind() == NodeKind::kUnary && e.node().unary_op() == op;
}

// -e without creating a double negation (the new node is not revisited in this round).
Expr negate(const Expr& e) {
    if (is_unary(e, UnaryOp::kNeg)) {
        return e.children()[0];
    }
    if (e.kind() == NodeKind::kRealConst) {
        return expr::constant(-e.node().re);
    }
    return -e;
}

Expr simplify_unary(const Expr& node) {
    const Expr& x = node.children()[0];
    const bool x_real = x.value_kind().is_real_scalar();
    switch (node.node().unary_op()) {
    case UnaryOp::kNeg:
        return is_unary(x, UnaryOp::kNeg) ? x.children()[0] : node;
    case UnaryOp::kConj:
        if (is_unary(x, UnaryOp::kConj)) {
            return x.children()[0];
        }
        if (!x.value_kind().is_complex) {
            return x;
        }
        if (x.kind() == NodeKind::kComplex) {
            return expr::complex(x.children()[0], negate(x.children()[1]));
        }
        return node;
    case UnaryOp::kReal:
        if (x_real) {
            return x;
        }
        return x.kind() == NodeKind::kComplex ? x.children()[0] : node;
    case UnaryOp::kImag:
        if (x_real) {
            return expr::constant(0.0);
        }
        return x.kind() == NodeKind::kComplex ? x.children()[1] : node;
    case UnaryOp::kNormSqr:
        if (is_unary(x, UnaryOp::kNeg) || is_unary(x, UnaryOp::kConj)) {
            return expr::norm_sqr(x.children()[0]);
        }
        if (x.kind() == NodeKind::kNaryMul) {
            std::vector<Expr> factors;
            for (const Expr& f : x.children()) {
                factors.push_back(expr::norm_sqr(f));
            }
            return expr::nary_mul(std::move(factors));
        }
        return node;
    default:
        return node;
    }
}

}  // namespace

expr::Expr algebraic_simplification(const expr::Expr& root) {
    FiniteSafety safety;
    return expr::rewrite_bottom_up(root, [&](const Expr& node) -> Expr {
        switch (node.kind()) {
        case NodeKind::kBinary:
            switch (node.node().binary_op()) {
            case BinaryOp::kAdd:
                return simplify_add(expr::nary_add({node.children()[0], node.children()[1]}));
            case BinaryOp::kSub:
                return simplify_add(expr::nary_add({node.children()[0], -node.children()[1]}));
            case BinaryOp::kMul:
                return simplify_mul(expr::nary_mul({node.children()[0], node.children()[1]}),
                                    safety);
            default:
                return node;
            }
        case NodeKind::kNaryAdd:
            return simplify_add(node);
        case NodeKind::kNaryMul:
            return simplify_mul(node, safety);
        case NodeKind::kUnary:
            return simplify_unary(node);
        default:
            return node;
        }
    });
}

}  // namespace laddu::compile
