// The separable analysis: splits the intensity into coherent groups sum_g |sum_a c_a A_a|^2,
// linear terms Re sum_k d_k B_k and a residual (include/laddu/compile/normalization.hpp).
#include <cmath>
#include <unordered_map>
#include <utility>

#include <laddu/base/assert.hpp>
#include <laddu/compile/normalization.hpp>
#include <laddu/expr/traversal.hpp>

#include "passes/rewrite_support.hpp"

namespace laddu::compile {
namespace {

using expr::Expr;
using expr::NodeKind;
using expr::UnaryOp;

// sum_k coefficient_k * amplitude_k; a missing factor is 1.
struct LinearTerm {
    std::optional<Expr> coefficient;
    std::optional<Expr> amplitude;
};

using Expansion = std::vector<LinearTerm>;

Expr times(const std::optional<Expr>& a, const std::optional<Expr>& b, bool* any) {
    *any = a.has_value() || b.has_value();
    if (a && b) {
        return *a * *b;
    }
    return a ? *a : b ? *b : expr::constant(1.0);
}

std::optional<Expr> product(const std::optional<Expr>& a, const std::optional<Expr>& b) {
    bool any = false;
    Expr p = times(a, b, &any);
    return any ? std::optional<Expr>(p) : std::nullopt;
}

class Expander {
public:
    explicit Expander(const GraphFacts& facts) : facts_(facts) {}

    // The expansion of scalar `e`, or nullopt when it is not linear in the coefficients.
    // Memoised; the mixed nodes not yet seen are expanded children first, so expand_node()
    // finds its operands' expansions ready and never recurses (graphs can be deep).
    std::optional<Expansion> expand(const Expr& e) {
        if (!mixed(e)) {
            return expand_node(e);
        }
        if (auto it = memo_.find(e.id()); it != memo_.end()) {
            return it->second.second;
        }
        const auto done = [this](const Expr& x) {
            return !mixed(x) || memo_.contains(x.id());
        };
        for (const Expr& node : expr::topological_order(e, done)) {
            auto expansion = expand_node(node);
            memo_.emplace(node.id(), std::make_pair(node, std::move(expansion)));
        }
        return memo_.at(e.id()).second;
    }

    // The expansion of one node; operands are expanded through expand().
    std::optional<Expansion> expand_node(const Expr& e) {
        if (expr::is_constant(e)) {
            return Expansion{{e, std::nullopt}};  // may be built here, outside the facts
        }
        const NodeFacts f = facts_.of(e);
        if (!f.depends_on_event) {
            return Expansion{{e, std::nullopt}};
        }
        if (!f.depends_on_parameters) {
            return Expansion{{std::nullopt, e}};
        }
        const auto children = e.children();
        switch (e.kind()) {
        case NodeKind::kNaryAdd: {
            Expansion sum;
            for (const Expr& c : children) {
                auto part = expand(c);
                if (!part || sum.size() + part->size() > kMaxNormalizationTerms) {
                    return std::nullopt;
                }
                sum.insert(sum.end(), part->begin(), part->end());
            }
            return sum;
        }
        case NodeKind::kNaryMul:
            return expand_product(children);
        case NodeKind::kUnary: {
            auto inner = expand(children[0]);
            if (!inner) {
                return std::nullopt;
            }
            const UnaryOp op = e.node().unary_op();
            if (op == UnaryOp::kNeg) {
                for (LinearTerm& t : *inner) {
                    t.coefficient = t.coefficient ? -*t.coefficient : expr::constant(-1.0);
                }
                return inner;
            }
            if (op == UnaryOp::kConj) {
                conjugate(*inner);
                return inner;
            }
            const bool real_input = children[0].value_kind().is_real_scalar();
            if (op == UnaryOp::kReal || op == UnaryOp::kImag) {
                if (real_input) {
                    return op == UnaryOp::kReal ? inner : Expansion{};
                }
                return projection(op, std::move(*inner));
            }
            if (op == UnaryOp::kNormSqr) {
                return norm_sqr(*inner);
            }
            if (op == UnaryOp::kPowI && e.node().index >= 0) {
                Expansion acc{{std::nullopt, std::nullopt}};
                for (std::int64_t k = 0; k < e.node().index; ++k) {
                    auto next = multiply(acc, *inner);
                    if (!next) {
                        return std::nullopt;
                    }
                    acc = std::move(*next);
                }
                return acc;
            }
            return std::nullopt;
        }
        case NodeKind::kBinary:
            return expand_binary(e);
        case NodeKind::kComplex: {
            auto re = expand(children[0]);
            auto im = expand(children[1]);
            if (!re || !im) {
                return std::nullopt;
            }
            for (LinearTerm& t : *im) {
                const Expr i = expr::constant(std::complex<double>(0.0, 1.0));
                t.coefficient = t.coefficient ? i * *t.coefficient : i;
            }
            re->insert(re->end(), im->begin(), im->end());
            return re;
        }
        case NodeKind::kComponent:
            return expand_solve_component(e);
        default:
            return std::nullopt;
        }
    }

    // The expansion of the product of `factors`.
    std::optional<Expansion> expand_product(std::span<const Expr> factors) {
        Expansion acc{{std::nullopt, std::nullopt}};
        for (const Expr& c : factors) {
            auto part = expand(c);
            if (!part) {
                return std::nullopt;
            }
            auto next = multiply(acc, *part);
            if (!next) {
                return std::nullopt;
            }
            acc = std::move(*next);
        }
        return acc;
    }

private:
    // The term-by-term product of two expansions, or nullopt past the term budget.
    static std::optional<Expansion> multiply(const Expansion& lhs, const Expansion& rhs) {
        if (lhs.size() * rhs.size() > kMaxNormalizationTerms) {
            return std::nullopt;
        }
        Expansion next;
        next.reserve(lhs.size() * rhs.size());
        for (const LinearTerm& a : lhs) {
            for (const LinearTerm& b : rhs) {
                next.push_back(
                    {product(a.coefficient, b.coefficient), product(a.amplitude, b.amplitude)});
            }
        }
        return next;
    }

    static void conjugate(Expansion& terms) {
        for (LinearTerm& t : terms) {
            if (t.coefficient) {
                t.coefficient = expr::conj(*t.coefficient);
            }
            if (t.amplitude) {
                t.amplitude = expr::conj(*t.amplitude);
            }
        }
    }

    // Re z = (z + conj z) / 2 and Im z = (z - conj z) / 2i, term by term: each term splits in
    // two, one of them conjugated.
    static std::optional<Expansion> projection(UnaryOp op, Expansion terms) {
        if (2 * terms.size() > kMaxNormalizationTerms) {
            return std::nullopt;
        }
        const std::complex<double> half =
            op == UnaryOp::kReal ? std::complex<double>(0.5, 0.0) : std::complex<double>(0.0, -0.5);
        Expansion conjugated = terms;
        conjugate(conjugated);
        Expansion result;
        result.reserve(2 * terms.size());
        for (std::size_t k = 0; k < terms.size(); ++k) {
            const Expr direct = expr::constant(half);
            const Expr mirror = expr::constant(op == UnaryOp::kReal ? half : -half);
            const auto& c = terms[k].coefficient;
            const auto& cc = conjugated[k].coefficient;
            result.push_back({c ? direct * *c : direct, terms[k].amplitude});
            result.push_back({cc ? mirror * *cc : mirror, conjugated[k].amplitude});
        }
        return result;
    }

    // |sum_k t_k|^2 = sum_kl t_k conj(t_l): n^2 terms. (A whole additive term |.|^2 becomes a
    // coherent group instead, which keeps n amplitudes; this covers |.|^2 inside products.)
    static std::optional<Expansion> norm_sqr(const Expansion& terms) {
        Expansion conjugated = terms;
        conjugate(conjugated);
        return multiply(terms, conjugated);
    }

    // Sums, differences and products of expansions; quotients by a factor that depends on
    // parameters only (divides the coefficients) or events only (divides the amplitudes).
    std::optional<Expansion> expand_binary(const Expr& e) {
        const Expr& lhs = e.children()[0];
        const Expr& rhs = e.children()[1];
        const expr::BinaryOp op = e.node().binary_op();
        if (op != expr::BinaryOp::kAdd && op != expr::BinaryOp::kSub &&
            op != expr::BinaryOp::kMul && op != expr::BinaryOp::kDiv) {
            return std::nullopt;
        }
        auto left = expand(lhs);
        if (!left) {
            return std::nullopt;
        }
        if (op == expr::BinaryOp::kDiv) {
            if (mixed(rhs)) {
                return std::nullopt;
            }
            const bool by_events = !expr::is_constant(rhs) && facts_.of(rhs).depends_on_event;
            for (LinearTerm& t : *left) {
                std::optional<Expr>& factor = by_events ? t.amplitude : t.coefficient;
                factor = (factor ? *factor : expr::constant(1.0)) / rhs;
            }
            return left;
        }
        auto right = expand(rhs);
        if (!right) {
            return std::nullopt;
        }
        if (op == expr::BinaryOp::kMul) {
            return multiply(*left, *right);
        }
        if (left->size() + right->size() > kMaxNormalizationTerms) {
            return std::nullopt;
        }
        for (LinearTerm& t : *right) {
            if (op == expr::BinaryOp::kSub) {
                t.coefficient = t.coefficient ? -*t.coefficient : expr::constant(-1.0);
            }
            left->push_back(std::move(t));
        }
        return left;
    }

    // solve(M, b)[i] with an event-only M: sum_j (M^-1)_ij b_j, and (M^-1)_ij is the event-only
    // amplitude solve(M, e_j)[i].
    std::optional<Expansion> expand_solve_component(const Expr& e) {
        const Expr& s = e.children()[0];
        if (s.kind() != NodeKind::kSolve || facts_.of(s.children()[0]).depends_on_parameters ||
            s.children()[1].kind() != NodeKind::kVector) {
            return std::nullopt;
        }
        const Expr& m = s.children()[0];
        const Expr& b = s.children()[1];
        const std::uint32_t n = m.value_kind().rows;
        Expansion sum;
        for (std::uint32_t j = 0; j < n; ++j) {
            auto part = expand(b.children()[j]);
            if (!part) {
                return std::nullopt;
            }
            const Expr inverse_element =
                detail::inverse_element(m, static_cast<std::uint32_t>(e.node().index), j);
            for (LinearTerm& t : *part) {
                t.amplitude = t.amplitude ? inverse_element * *t.amplitude : inverse_element;
                sum.push_back(t);
            }
            if (sum.size() > kMaxNormalizationTerms) {
                return std::nullopt;
            }
        }
        return sum;
    }

    bool mixed(const Expr& e) const {
        if (expr::is_constant(e)) {
            return false;
        }
        const NodeFacts f = facts_.of(e);
        return f.depends_on_event && f.depends_on_parameters;
    }

    const GraphFacts& facts_;
    std::unordered_map<const void*, std::pair<Expr, std::optional<Expansion>>> memo_;
};

bool is_norm_sqr(const Expr& e) {
    return e.kind() == NodeKind::kUnary && e.node().unary_op() == UnaryOp::kNormSqr;
}

// x_1..x_k with term = |x_1 ... x_k|^2: a norm_sqr, or a product of norm_sqrs and positive
// real constants (simplification turns |a b|^2 into |a|^2 |b|^2).
std::optional<std::vector<Expr>> norm_sqr_factors(const Expr& term) {
    if (is_norm_sqr(term)) {
        return std::vector<Expr>{term.children()[0]};
    }
    if (term.kind() != NodeKind::kNaryMul) {
        return std::nullopt;
    }
    // Nested products are walked with an explicit stack, factors in order.
    std::vector<Expr> inners;
    std::vector<std::pair<Expr, std::size_t>> stack{{term, 0}};
    while (!stack.empty()) {
        auto& [product, next] = stack.back();
        if (next == product.children().size()) {
            stack.pop_back();
            continue;
        }
        const Expr f = product.children()[next++];
        if (f.kind() == NodeKind::kNaryMul) {
            stack.emplace_back(f, 0);
        } else if (is_norm_sqr(f)) {
            inners.push_back(f.children()[0]);
        } else if (f.kind() == NodeKind::kRealConst && f.node().re > 0.0) {
            inners.push_back(expr::constant(std::sqrt(f.node().re)));
        } else {
            return std::nullopt;
        }
    }
    return inners;
}

// laddu's proves_nonnegative: non-negative constants, |.|^2 (and |.|), Re of a non-negative
// value, even non-negative powers of reals, and sums and products of non-negative values.
// Walked with an explicit stack (graphs can be deep); shared nodes are visited once.
bool proves_nonnegative(const Expr& root) {
    std::vector<Expr> stack{root};
    std::unordered_map<const void*, bool> seen;
    while (!stack.empty()) {
        const Expr e = stack.back();
        stack.pop_back();
        if (!seen.emplace(e.id(), true).second) {
            continue;
        }
        switch (e.kind()) {
        case NodeKind::kRealConst:
            if (!(std::isfinite(e.node().re) && e.node().re >= 0.0)) {
                return false;
            }
            break;
        case NodeKind::kComplexConst:
            if (!(e.node().im == 0.0 && std::isfinite(e.node().re) && e.node().re >= 0.0)) {
                return false;
            }
            break;
        case NodeKind::kUnary: {
            const UnaryOp op = e.node().unary_op();
            if (op == UnaryOp::kNormSqr || op == UnaryOp::kAbs) {
                break;
            }
            if (op == UnaryOp::kReal) {
                stack.push_back(e.children()[0]);
                break;
            }
            if (op == UnaryOp::kPowI && e.node().index >= 0 && e.node().index % 2 == 0 &&
                e.children()[0].value_kind().is_real_scalar()) {
                break;
            }
            return false;
        }
        case NodeKind::kBinary:
            if (e.node().binary_op() != expr::BinaryOp::kAdd &&
                e.node().binary_op() != expr::BinaryOp::kMul) {
                return false;
            }
            stack.insert(stack.end(), e.children().begin(), e.children().end());
            break;
        case NodeKind::kNaryAdd:
        case NodeKind::kNaryMul:
            stack.insert(stack.end(), e.children().begin(), e.children().end());
            break;
        default:
            return false;
        }
    }
    return true;
}

// The additive terms of `root`: the operands of (nested) sums, each a term of its own.
std::vector<Expr> additive_terms(const Expr& root) {
    std::vector<Expr> terms;
    std::vector<Expr> stack{root};
    while (!stack.empty()) {
        const Expr e = stack.back();
        stack.pop_back();
        const bool binary_add =
            e.kind() == NodeKind::kBinary && e.node().binary_op() == expr::BinaryOp::kAdd;
        if (e.kind() == NodeKind::kNaryAdd || binary_add) {
            // Reversed onto the stack, so the terms come out in order.
            stack.insert(stack.end(), e.children().rbegin(), e.children().rend());
        } else {
            terms.push_back(e);
        }
    }
    return terms;
}

bool is_zero_constant(const Expr& e) {
    return expr::is_constant(e) && expr::constant_value(e) == 0.0;
}

// Terms with one coefficient merge their amplitudes (keyed by the hash-consed coefficient), so
// each coefficient has one row of the matrix, or one statistic, not one per product.
std::vector<std::pair<Expr, std::vector<Expr>>> merge_by_coefficient(const Expansion& expansion) {
    std::vector<std::pair<Expr, std::vector<Expr>>> merged;
    std::unordered_map<const void*, std::size_t> index;
    for (const auto& t : expansion) {
        const Expr amplitude = t.amplitude ? *t.amplitude : expr::constant(1.0);
        const Expr coefficient = t.coefficient ? *t.coefficient : expr::constant(1.0);
        if (is_zero_constant(coefficient) || is_zero_constant(amplitude)) {
            continue;
        }
        const auto [it, added] = index.emplace(coefficient.id(), merged.size());
        if (added) {
            merged.push_back({coefficient, {amplitude}});
        } else {
            merged[it->second].second.push_back(amplitude);
        }
    }
    return merged;
}

Expr sum_of(const std::vector<Expr>& terms) {
    return terms.size() == 1 ? terms.front() : expr::nary_add(terms);
}

}  // namespace

std::string_view to_string(NormalizationStrategy strategy) {
    switch (strategy) {
    case NormalizationStrategy::kHermitian:
        return "hermitian";
    case NormalizationStrategy::kLinearStatistics:
        return "linear_statistics";
    case NormalizationStrategy::kHybrid:
        return "hybrid";
    case NormalizationStrategy::kGeneral:
        return "general";
    }
    return "general";
}

std::optional<NormalizationDecomposition> decompose_intensity(const Expr& root,
                                                              const GraphFacts& facts) {
    if (!root.value_kind().is_real_scalar()) {
        return std::nullopt;
    }
    Expander expander(facts);
    NormalizationDecomposition result;
    std::vector<Expr> residual;
    // Linear terms of every additive term, merged by coefficient at the end.
    Expansion linear;
    const auto budget_left = [&](std::size_t more) {
        return result.amplitudes.size() + linear.size() + more <= kMaxNormalizationTerms;
    };
    for (const Expr& term : additive_terms(root)) {
        // A coherent group first: n amplitudes and an n x n block, where the linear expansion
        // of the same |.|^2 would take n^2 statistics.
        // (Only for a term that mixes parameters and events: |A(x)|^2 alone is one basis, and
        // laddu counts no coherent group for it.)
        const bool mixed_term = !expr::is_constant(term) && facts.of(term).depends_on_event &&
                                facts.of(term).depends_on_parameters;
        auto inners = mixed_term ? norm_sqr_factors(term) : std::nullopt;
        if (inners) {
            auto expansion = expander.expand_product(*inners);
            if (expansion && budget_left(expansion->size())) {
                for (auto& [coefficient, amplitudes] : merge_by_coefficient(*expansion)) {
                    result.coefficients.push_back(expr::as_complex(coefficient));
                    result.amplitudes.push_back(expr::as_complex(sum_of(amplitudes)));
                    result.group.push_back(result.group_count);
                }
                ++result.group_count;
                continue;
            }
        }
        auto expansion = expander.expand(term);
        if (expansion && budget_left(expansion->size())) {
            linear.insert(linear.end(), expansion->begin(), expansion->end());
        } else {
            residual.push_back(term);
        }
    }
    for (auto& [coefficient, bases] : merge_by_coefficient(linear)) {
        result.linear_coefficients.push_back(expr::as_complex(coefficient));
        result.bases.push_back(expr::as_complex(sum_of(bases)));
    }
    if (result.amplitudes.empty() && result.bases.empty()) {
        return std::nullopt;
    }
    if (!residual.empty()) {
        result.residual = sum_of(residual);
        result.strategy = NormalizationStrategy::kHybrid;
    } else if (result.group_count > 0) {
        result.strategy = NormalizationStrategy::kHermitian;
    } else {
        result.strategy = NormalizationStrategy::kLinearStatistics;
    }
    result.proven_nonnegative = proves_nonnegative(root);
    return result;
}

}  // namespace laddu::compile
