// The Hermitian-form analysis: expands the intensity into sum_g |sum_a c_a A_a|^2.
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
        const NodeFacts& f = facts_.of(e);
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
                for (LinearTerm& t : *inner) {
                    if (t.coefficient) {
                        t.coefficient = expr::conj(*t.coefficient);
                    }
                    if (t.amplitude) {
                        t.amplitude = expr::conj(*t.amplitude);
                    }
                }
                return inner;
            }
            return std::nullopt;
        }
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
            if (!part || acc.size() * part->size() > kMaxNormalizationTerms) {
                return std::nullopt;
            }
            Expansion next;
            for (const LinearTerm& a : acc) {
                for (const LinearTerm& b : *part) {
                    next.push_back(
                        {product(a.coefficient, b.coefficient), product(a.amplitude, b.amplitude)});
                }
            }
            acc = std::move(next);
        }
        return acc;
    }

private:
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
        const NodeFacts& f = facts_.of(e);
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

}  // namespace

std::optional<NormalizationDecomposition> decompose_intensity(const Expr& root,
                                                              const GraphFacts& facts) {
    std::vector<Expr> terms;
    if (root.kind() == NodeKind::kNaryAdd) {
        terms.assign(root.children().begin(), root.children().end());
    } else {
        terms.push_back(root);
    }
    Expander expander(facts);
    NormalizationDecomposition result;
    for (const Expr& term : terms) {
        auto inners = norm_sqr_factors(term);
        if (!inners) {
            return std::nullopt;
        }
        auto expansion = expander.expand_product(*inners);
        if (!expansion || result.amplitudes.size() + expansion->size() > kMaxNormalizationTerms) {
            return std::nullopt;
        }
        // Terms with one coefficient merge their amplitudes (keyed by the hash-consed
        // coefficient), so the Hermitian matrix has one row per coupling, not per product.
        std::vector<std::pair<Expr, std::vector<Expr>>> merged;
        for (const auto& t : *expansion) {
            const Expr amplitude = t.amplitude ? *t.amplitude : expr::constant(1.0);
            const Expr coefficient = t.coefficient ? *t.coefficient : expr::constant(1.0);
            if (expr::is_constant(coefficient) && expr::constant_value(coefficient) == 0.0) {
                continue;
            }
            auto it = std::find_if(merged.begin(), merged.end(),
                                   [&](const auto& m) { return m.first == coefficient; });
            if (it == merged.end()) {
                merged.push_back({coefficient, {amplitude}});
            } else {
                it->second.push_back(amplitude);
            }
        }
        for (auto& [coefficient, amplitudes] : merged) {
            const Expr a = amplitudes.size() == 1 ? amplitudes.front() : expr::nary_add(amplitudes);
            result.coefficients.push_back(expr::as_complex(coefficient));
            result.amplitudes.push_back(expr::as_complex(a));
            result.group.push_back(result.group_count);
        }
        ++result.group_count;
    }
    if (result.amplitudes.empty()) {
        return std::nullopt;
    }
    return result;
}

}  // namespace laddu::compile
