#include "collect_coefficients.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include <laddu/compile/facts.hpp>
#include <laddu/expr/node_map.hpp>
#include <laddu/expr/traversal.hpp>

#include "rewrite_support.hpp"

namespace laddu::compile {
namespace {

using expr::Expr;
using expr::NodeKind;

Expr sum_of(std::vector<Expr> terms) {
    return terms.size() == 1 ? terms.front() : expr::nary_add(std::move(terms));
}

Expr product_of(std::vector<Expr> factors) {
    return factors.size() == 1 ? factors.front() : expr::nary_mul(std::move(factors));
}

// A commutative product's identity: the same factors in any order give one key (only looked
// up, never built into the graph).
Expr product_key(std::vector<Expr> factors) {
    return detail::commutative_key(product_of(std::move(factors)));
}

// Σ_k coefficient_k · (Σ terms_k) + Σ rest, coefficients parameter-only, terms event-only.
class LinearForm {
public:
    void add(const Expr& coefficient, const Expr& key, const Expr& term) {
        auto [it, fresh] = index_.try_emplace(key.id(), coefficients_.size());
        if (fresh) {
            keys_.push_back(key);  // keeps the address unique while the map uses it
            coefficients_.push_back(coefficient);
            terms_.emplace_back();
        }
        terms_[it->second].push_back(term);
    }

    void add_rest(const Expr& term) { rest_.push_back(term); }

    void append(const LinearForm& other) {
        distributed_ = distributed_ || other.distributed_;
        for (std::size_t k = 0; k < other.coefficients_.size(); ++k) {
            for (const Expr& term : other.terms_[k]) {
                add(other.coefficients_[k], other.keys_[k], term);
            }
        }
        rest_.insert(rest_.end(), other.rest_.begin(), other.rest_.end());
    }

    // The form with every coefficient multiplied by the parameter-only `scale` (when not
    // empty) and every term by the event-only `factors` (when not empty).
    [[nodiscard]] LinearForm scaled(const std::vector<Expr>& scale,
                                    const std::vector<Expr>& factors) const {
        const auto times = [&](const std::vector<Expr>& by, const Expr& x) {
            std::vector<Expr> all = by;
            all.push_back(x);
            return all;
        };
        LinearForm out;
        out.distributed_ = distributed_ || !factors.empty();
        for (std::size_t k = 0; k < coefficients_.size(); ++k) {
            const Expr coefficient =
                scale.empty() ? coefficients_[k] : product_of(times(scale, coefficients_[k]));
            const Expr key = scale.empty() ? keys_[k] : product_key(times(scale, keys_[k]));
            for (const Expr& term : terms_[k]) {
                out.add(coefficient, key,
                        factors.empty() ? term : product_of(times(factors, term)));
            }
        }
        for (const Expr& term : rest_) {
            const Expr moved = factors.empty() ? term : product_of(times(factors, term));
            if (scale.empty()) {
                out.add_rest(moved);
            } else {
                out.add(product_of(scale), product_key(scale), moved);
            }
        }
        return out;
    }

    // Whether building the form saves anything over the node as written: event-only factors
    // were distributed into a sum, or a coefficient collects several terms. (Otherwise the
    // node keeps its own operand order and rounding.)
    [[nodiscard]] bool collects() const noexcept {
        return distributed_ || std::any_of(terms_.begin(), terms_.end(),
                                           [](const auto& terms) { return terms.size() > 1; });
    }

    [[nodiscard]] Expr build() const {
        std::vector<Expr> parts;
        for (std::size_t k = 0; k < coefficients_.size(); ++k) {
            const Expr sum = sum_of(terms_[k]);
            parts.push_back(detail::is_constant_equal(sum, 1.0)
                                ? coefficients_[k]
                                : expr::nary_mul({coefficients_[k], sum}));
        }
        if (!rest_.empty()) {
            parts.push_back(sum_of(rest_));
        }
        return sum_of(std::move(parts));
    }

private:
    std::vector<Expr> keys_;
    std::vector<Expr> coefficients_;
    std::vector<std::vector<Expr>> terms_;
    std::vector<Expr> rest_;
    std::unordered_map<const void*, std::size_t> index_;
    bool distributed_ = false;
};

class Collector {
public:
    explicit Collector(const Expr& root) : facts_(analyse(root)) {
        for (const Expr& node : expr::topological_order(root)) {
            for (const Expr& child : node.children()) {
                ++uses_[child.id()];
            }
        }
    }

    Expr run(const Expr& root) { return visit(root).expr; }

private:
    struct Result {
        Expr expr;
        std::optional<LinearForm> form;
    };

    // Memoised on the original node (kept alive in the map). The nodes not yet seen are
    // visited children first, so visit_node() finds every child memoised and never recurses.
    const Result& visit(const Expr& e) {
        if (auto it = memo_.find(e.id()); it != memo_.end()) {
            return it->second.second;
        }
        const auto seen = [this](const Expr& x) {
            return memo_.contains(x.id());
        };
        for (const Expr& node : expr::topological_order(e, seen)) {
            visit_node(node);
        }
        return memo_.at(e.id()).second;
    }

    void visit_node(const Expr& e) {
        std::vector<Expr> children;
        bool changed = false;
        for (const Expr& child : e.children()) {
            children.push_back(visit(child).expr);
            changed = changed || children.back() != child;
        }
        Result result{changed ? e.with_children(children) : e, std::nullopt};
        // Only mixed nodes keep a form: the others' are one entry, made when a user asks
        // (form_for), not for every node of the graph.
        if (e.value_kind().is_scalar() && mixed(e)) {
            result.form = form_of(e);
            if (result.form && result.form->collects()) {
                Expr collected = result.form->build();
                if (collected.value_kind() != e.value_kind()) {
                    collected = detail::coerce_to(collected, e.value_kind());
                }
                for (const std::string& tag : e.tags()) {
                    collected = collected.tagged(tag);
                }
                result.expr = collected;
            }
        }
        memo_.emplace(e.id(), std::make_pair(e, std::move(result)));
    }

    bool mixed(const Expr& e) const {
        const NodeFacts f = facts_.of(e);
        return f.depends_on_parameters && f.depends_on_event;
    }

    bool parameter_only(const Expr& e) const {
        const NodeFacts f = facts_.of(e);
        return f.depends_on_parameters && !f.depends_on_event;
    }

    // The linear form of original scalar node `e`: a mixed node's own (nullptr when it has
    // none), else the one-entry form of a parameter-only or event-only value, made in `scratch`.
    const LinearForm* form_for(const Expr& e, LinearForm& scratch) {
        const Result& r = visit(e);
        if (mixed(e)) {
            return r.form ? &*r.form : nullptr;
        }
        scratch = LinearForm();
        if (parameter_only(e)) {
            scratch.add(r.expr, r.expr, expr::constant(1.0));
        } else {
            scratch.add_rest(r.expr);
        }
        return &scratch;
    }

    // The linear form of original mixed node `e`, or nullopt.
    std::optional<LinearForm> form_of(const Expr& e) {
        LinearForm form;
        if (e.kind() == NodeKind::kNaryAdd) {
            LinearForm scratch;
            for (const Expr& child : e.children()) {
                const LinearForm* c = form_for(child, scratch);
                if (c == nullptr) {
                    return std::nullopt;
                }
                form.append(*c);
            }
            return form;
        }
        if (e.kind() == NodeKind::kComponent) {
            return solve_component_form(e);
        }
        if (e.kind() != NodeKind::kNaryMul) {
            return std::nullopt;
        }
        std::vector<Expr> scale;
        std::vector<Expr> factors;
        const Expr* linear = nullptr;
        for (const Expr& child : e.children()) {
            const Expr& c = visit(child).expr;
            if (parameter_only(child)) {
                scale.push_back(c);
            } else if (!mixed(child)) {
                factors.push_back(c);
            } else if (linear == nullptr) {
                linear = &child;
            } else {
                return std::nullopt;  // a product of two mixed factors is quadratic
            }
        }
        if (linear == nullptr) {
            form.add(product_of(scale), product_key(scale), product_of(factors));
            return form;
        }
        const Result& inner = visit(*linear);
        if (!inner.form || (!factors.empty() && uses_[linear->id()] > 1)) {
            return std::nullopt;
        }
        return inner.form->scaled(scale, factors);
    }

    // solve(M, b)[i] with an event-only M and a literal b: Σ_j (M⁻¹)_ij b_j, where (M⁻¹)_ij is
    // the event-only solve(M, e_j)[i] (as the normalisation analysis writes it), distributed
    // into each b_j's terms.
    std::optional<LinearForm> solve_component_form(const Expr& e) {
        const Expr& s = e.children()[0];
        if (s.kind() != NodeKind::kSolve || facts_.of(s.children()[0]).depends_on_parameters ||
            s.children()[1].kind() != NodeKind::kVector) {
            return std::nullopt;
        }
        const Expr& m = visit(s.children()[0]).expr;
        const Expr& b = s.children()[1];
        const std::uint32_t n = m.value_kind().rows;
        const auto i = static_cast<std::uint32_t>(e.node().index);
        // (M⁻¹)_ij = ((Mᵀ)⁻¹)_ji: with a literal M every j reads the one solve of Mᵀ y = e_i,
        // row i of M⁻¹ (as lower.cpp's SolveRow does); otherwise column j of M⁻¹ from M x = e_j.
        std::optional<Expr> transposed;
        if (m.kind() == NodeKind::kMatrix) {
            std::vector<Expr> elements;
            for (std::uint32_t r = 0; r < n; ++r) {
                for (std::uint32_t c = 0; c < n; ++c) {
                    elements.push_back(m.children()[c * n + r]);
                }
            }
            transposed = detail::literal_aggregate(m.value_kind(), std::move(elements));
        }
        LinearForm form;
        LinearForm scratch;
        for (std::uint32_t j = 0; j < n; ++j) {
            const Expr& element = b.children()[j];
            const LinearForm* part = form_for(element, scratch);
            if (part == nullptr || (mixed(element) && uses_[element.id()] > 1)) {
                return std::nullopt;
            }
            const Expr inverse = transposed ? detail::inverse_element(*transposed, j, i)
                                            : detail::inverse_element(m, i, j);
            form.append(part->scaled({}, {inverse}));
        }
        return form;
    }

    GraphFacts facts_;
    expr::NodeMap<std::size_t> uses_;
    std::unordered_map<const void*, std::pair<Expr, Result>> memo_;
};

}  // namespace

expr::Expr collect_coefficients(const expr::Expr& root) {
    return Collector(root).run(root);
}

}  // namespace laddu::compile
