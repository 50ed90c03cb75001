#include "algebraic_simplification.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <iterator>
#include <optional>
#include <span>
#include <unordered_map>

#include <laddu/base/assert.hpp>
#include <laddu/expr/node_map.hpp>
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
        if (const char* known = memo_.find(e.id())) {
            return *known != 0;
        }
        // Children first, so compute() only reads memoised children (no recursion).
        const auto known = [this](const Expr& x) {
            return memo_.contains(x.id());
        };
        for (const Expr& node : expr::topological_order(e, known)) {
            const char safe = compute(node) ? 1 : 0;
            memo_.try_emplace(node.id(), safe);
        }
        return memo_.at(e.id()) != 0;
    }

private:
    bool all_safe(std::span<const Expr> xs) {
        return std::all_of(xs.begin(), xs.end(),
                           [this](const Expr& x) { return memo_.at(x.id()) != 0; });
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

    expr::NodeMap<char> memo_;  // 0 or 1 (NodeMap keeps no bool)
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

// The operands of a flattened sum or product before it is built: its non-constant operands in
// order, and its constant operands merged into one (folded in operand order). Keeping these
// instead of interned nodes is what makes flattening linear: a sum built with += is a chain of
// n binary adds, and building each prefix as a node would copy 1 + 2 + ... + n operands. A
// flattened operand that is used only by sums (or only by products) stays a Flat, and its one
// user takes its operand vector instead of copying it.
struct Flat {
    std::deque<Expr> operands;
    std::complex<double> constant;
    bool constant_real = true;
    bool any_constant = false;
    bool negate = false;       // products: an odd number of neg factors was stripped
    bool any_complex = false;  // some operand is Complex
    bool all_safe = true;      // products: every operand is finite-safe
    std::size_t placed = 0;    // operands pushed or copied into this Flat, one by one

    explicit Flat(BinaryOp op) : constant(op == BinaryOp::kAdd ? 0.0 : 1.0) {}
};

bool is_unary(const Expr& e, UnaryOp op) {
    return e.kind() == NodeKind::kUnary && e.node().unary_op() == op;
}

// Sums and products flattened in one bottom-up walk (see Flat).
class Flattener {
public:
    // The operands of sum (kAdd) or product (kMul) `node`: `sources` are its operands, each
    // either a built node or the Flat of an operand that was not built.
    struct Source {
        const Expr* expr = nullptr;
        Flat* flat = nullptr;
        bool take = false;  // the Flat has no other user: move its operands
    };

    static Flat flatten(BinaryOp op, std::span<const Source> sources, FiniteSafety& safety) {
        Flat out(op);
        for (const Source& source : sources) {
            if (source.flat != nullptr) {
                absorb(out, op, *source.flat, source.take);
                continue;
            }
            const Expr& c = *source.expr;
            const NodeKind nested = op == BinaryOp::kAdd ? NodeKind::kNaryAdd : NodeKind::kNaryMul;
            if (c.kind() == nested) {
                for (const Expr& g : c.children()) {
                    push(out, op, g, safety);
                }
            } else if (op == BinaryOp::kMul || !is_zero_literal(c)) {
                push(out, op, c, safety);
            }
        }
        return out;
    }

    // The node of `flat` for `node` (as written before: the merged constant first); `node`
    // itself when that is what it would build (no node is interned for nothing).
    static Expr build(BinaryOp op, Flat flat, const Expr& node) {
        const expr::ValueKind& target = node.value_kind();
        std::vector<Expr> rest(std::make_move_iterator(flat.operands.begin()),
                               std::make_move_iterator(flat.operands.end()));
        std::complex<double> constant = flat.constant;
        bool any_constant = flat.any_constant;
        if (op == BinaryOp::kAdd) {
            if (any_constant && constant != 0.0) {
                rest.insert(rest.begin(), constant_node(constant, flat.constant_real));
            }
            if (rest.empty()) {
                return expr::zero_of(target);
            }
            return finish_nary(NodeKind::kNaryAdd, std::move(rest), node);
        }
        if (flat.negate) {
            constant = -constant;
            any_constant = true;
        }
        if (any_constant && constant == 0.0 && flat.all_safe) {
            return expr::zero_of(target);
        }
        if (any_constant && constant != 1.0) {
            rest.insert(rest.begin(), constant_node(constant, flat.constant_real));
        }
        if (rest.empty()) {
            return coerce_to(constant_node(constant, flat.constant_real), target);
        }
        return finish_nary(NodeKind::kNaryMul, std::move(rest), node);
    }

    // True when build() would give an n-ary node of `target`'s kind whose operands are the
    // Flat's, so a sum (product) using it can take the operands without the node being built.
    static bool inlinable(BinaryOp op, const Flat& flat, const expr::ValueKind& target) {
        std::complex<double> constant = flat.constant;
        if (op == BinaryOp::kMul && flat.negate) {
            constant = -constant;
        }
        const bool any_constant = flat.any_constant || (op == BinaryOp::kMul && flat.negate);
        const bool keeps_constant = any_constant && constant != (op == BinaryOp::kAdd ? 0.0 : 1.0);
        if (op == BinaryOp::kMul && any_constant && constant == 0.0 && flat.all_safe) {
            return false;  // becomes 0
        }
        if (flat.operands.size() + (keeps_constant ? 1U : 0U) < 2) {
            return false;  // a single operand or nothing: not an n-ary node
        }
        const bool complex = flat.any_complex || (keeps_constant && !flat.constant_real);
        return !(target.is_scalar() && target.is_complex && !complex);  // else coerced
    }

private:
    static Expr constant_node(std::complex<double> value, bool real) {
        return real ? expr::constant(value.real()) : expr::constant(value);
    }

    static Expr finish_nary(NodeKind kind, std::vector<Expr> operands, const Expr& node) {
        const expr::ValueKind& target = node.value_kind();
        if (node.kind() == kind && std::ranges::equal(operands, node.children())) {
            return node;  // same kind and operands: the same interned node
        }
        if (operands.size() == 1) {
            return coerce_to(operands.front(), target);
        }
        const Expr result = kind == NodeKind::kNaryAdd ? expr::nary_add(std::move(operands))
                                                       : expr::nary_mul(std::move(operands));
        return coerce_to(result, target);
    }

    static void fold(Flat& out, BinaryOp op, std::complex<double> value, bool real) {
        out.constant = detail::apply_binary(op, out.constant, out.constant_real, value, real);
        out.constant_real = out.constant_real && real;
        out.any_constant = true;
    }

    static void push(Flat& out, BinaryOp op, Expr e, FiniteSafety& safety) {
        if (op == BinaryOp::kMul) {
            while (is_unary(e, UnaryOp::kNeg)) {
                out.negate = !out.negate;
                e = e.children()[0];
            }
        }
        if (expr::is_constant(e)) {
            fold(out, op, expr::constant_value(e), !e.value_kind().is_complex);
            return;
        }
        out.any_complex = out.any_complex || e.value_kind().is_complex;
        if (op == BinaryOp::kMul) {
            out.all_safe = out.all_safe && safety.is_safe(e);
        }
        out.operands.push_back(std::move(e));
        ++out.placed;
    }

    // An inlinable Flat operand: its constant (after its own negation) is one constant operand.
    static void absorb(Flat& out, BinaryOp op, Flat& inner, bool take) {
        std::complex<double> constant = inner.constant;
        bool any_constant = inner.any_constant;
        if (op == BinaryOp::kMul && inner.negate) {
            constant = -constant;
            any_constant = true;
        }
        if (any_constant && constant != (op == BinaryOp::kAdd ? 0.0 : 1.0)) {
            fold(out, op, constant, inner.constant_real);
        }
        out.any_complex = out.any_complex || inner.any_complex;
        out.all_safe = out.all_safe && inner.all_safe;
        if (take && out.operands.size() < inner.operands.size()) {
            // Left- or right-deep chains alike: move the shorter side.
            out.placed += out.operands.size();
            inner.operands.insert(inner.operands.begin(),
                                  std::make_move_iterator(out.operands.begin()),
                                  std::make_move_iterator(out.operands.end()));
            out.operands = std::move(inner.operands);
        } else {
            out.placed += inner.operands.size();
            out.operands.insert(out.operands.end(), inner.operands.begin(), inner.operands.end());
        }
    }
};

// -e without creating a double negation (the new node is not revisited in this round).
Expr negate(const Expr& e) {
    if (is_unary(e, UnaryOp::kNeg)) {
        return e.children()[0];
    }
    if (e.kind() == NodeKind::kRealConst) {
        return expr::constant(-e.node().re);
    }
    if (e.kind() == NodeKind::kComplexConst) {
        return expr::constant(-expr::constant_value(e));
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

namespace {

// The n-ary operation a sum or product node flattens into (kAdd for add, sub and n-ary sums,
// kMul for mul and n-ary products), or nothing.
std::optional<BinaryOp> flattening_op(const Expr& node) {
    if (node.kind() == NodeKind::kNaryAdd) {
        return BinaryOp::kAdd;
    }
    if (node.kind() == NodeKind::kNaryMul) {
        return BinaryOp::kMul;
    }
    if (node.kind() == NodeKind::kBinary) {
        switch (node.node().binary_op()) {
        case BinaryOp::kAdd:
        case BinaryOp::kSub:
            return BinaryOp::kAdd;
        case BinaryOp::kMul:
            return BinaryOp::kMul;
        default:
            break;
        }
    }
    return std::nullopt;
}

// The rewritten form of one node: a built node, or (for a sum or product used only by sums or
// products of its own operation) the Flat its users absorb.
struct Rewritten {
    std::optional<Expr> expr;
    std::optional<Flat> flat;
    std::size_t absorbing_uses = 0;  // users that flatten it and have not absorbed it yet
    bool needs_expr = false;         // some user (or the caller) needs the built node
};

}  // namespace

expr::Expr algebraic_simplification(const expr::Expr& root) {
    SimplificationCounts counts;
    return algebraic_simplification_counted(root, counts);
}

namespace {

// a - b: its left operand flattens into the sum, its right one is negated first.
bool is_difference(const Expr& node) {
    return node.kind() == NodeKind::kBinary && node.node().binary_op() == BinaryOp::kSub;
}

// One bottom-up rewrite of `root`: first every node's users are counted (which sums and
// products may absorb it), then each node is rebuilt, flattened into a Flat or built.
class Simplifier {
public:
    Simplifier(const Expr& root, SimplificationCounts& counts)
        : order_(expr::topological_order(root)), rewritten_(order_.size()), counts_(counts) {
        for (const Expr& node : order_) {
            count_uses(node);
        }
    }

    // The rewritten root (the last node of the post-order).
    Expr run() {
        rewritten_[order_.back().id()].needs_expr = true;
        for (const Expr& node : order_) {
            Rewritten& slot = rewritten_.at(node.id());
            if (const std::optional<BinaryOp> op = flattening_op(node)) {
                flatten(node, *op, slot);
            } else {
                std::vector<Expr> children;
                children.reserve(node.children().size());
                for (const Expr& child : node.children()) {
                    children.push_back(built(child));
                }
                const Expr rebuilt = node.with_children(std::move(children));
                slot.expr = rebuilt.kind() == NodeKind::kUnary ? simplify_unary(rebuilt) : rebuilt;
            }
        }
        return built(order_.back());
    }

private:
    void count_uses(const Expr& node) {
        const std::optional<BinaryOp> op = flattening_op(node);
        const auto children = node.children();
        const bool difference = is_difference(node);
        for (std::size_t k = 0; k < children.size(); ++k) {
            Rewritten& child = rewritten_[children[k].id()];
            // A sum absorbs its terms, a difference its left operand, a product its factors.
            const bool absorbs = op && flattening_op(children[k]) == op && !(difference && k == 1);
            if (absorbs) {
                ++child.absorbing_uses;
            } else {
                child.needs_expr = true;
            }
        }
    }

    const Expr& built(const Expr& e) {
        const Rewritten& r = rewritten_.at(e.id());
        const Expr* expr = r.expr ? &*r.expr : nullptr;
        LADDU_ASSERT(expr != nullptr) << "algebraic_simplification: an operand was not built";
        return *expr;
    }

    void flatten(const Expr& node, BinaryOp op, Rewritten& slot) {
        const bool difference = is_difference(node);
        std::vector<Flattener::Source> sources;
        std::optional<Expr> negated;  // -b of a - b
        if (difference) {
            negated = negate(built(node.children()[1]));
        }
        for (std::size_t k = 0; k < node.children().size(); ++k) {
            if (difference && k == 1) {
                sources.push_back({.expr = &*negated});
                continue;
            }
            Rewritten& child = rewritten_.at(node.children()[k].id());
            if (child.flat) {
                // Only flattening users reach a Flat: the last of them may take its operands.
                const bool take = --child.absorbing_uses == 0 && !child.needs_expr;
                sources.push_back({.flat = &*child.flat, .take = take});
            } else {
                sources.push_back({.expr = &built(node.children()[k])});
            }
        }
        Flat flat = Flattener::flatten(op, sources, safety_);
        counts_.operands_placed += flat.placed;
        for (const Expr& child : node.children()) {
            Rewritten& c = rewritten_.at(child.id());
            if (c.flat && c.absorbing_uses == 0) {
                c.flat.reset();  // absorbed by every user
            }
        }
        if (!slot.needs_expr && Flattener::inlinable(op, flat, node.value_kind())) {
            slot.flat = std::move(flat);
        } else {
            slot.expr = Flattener::build(op, std::move(flat), node);
        }
    }

    std::vector<Expr> order_;  // root's post-order: the root last
    FiniteSafety safety_;
    expr::NodeMap<Rewritten> rewritten_;
    SimplificationCounts& counts_;
};

}  // namespace

expr::Expr algebraic_simplification_counted(const expr::Expr& root, SimplificationCounts& counts) {
    Simplifier simplifier(root, counts);
    return simplifier.run();
}

}  // namespace laddu::compile
