// Reverse mode: the primal program is copied unchanged, then adjoints are accumulated in
// reverse instruction order. A complex root's full gradient needs two sweeps (seeds 1 and i,
// for Re f and Im f); both run in the same traversal so they share every local partial and
// every adjoint kSolve.

#include <map>
#include <vector>

#include <laddu/autodiff/gradient.hpp>

#include "activity.hpp"
#include "emitter.hpp"
#include "outputs.hpp"
#include "partials.hpp"

namespace laddu::autodiff {

namespace {

using detail::Emitter;
using detail::Partial;
using detail::Term;
using ir::OpCode;
using ir::ValueId;

class ReversePass {
public:
    ReversePass(const ir::Program& primal, const detail::Activity& activity)
        : primal_(primal), activity_(activity), emitter_(primal) {}

    ir::Program run(Component component) {
        for (const ir::Instruction& inst : primal_.instructions) {
            emitter_.copy(inst, primal_.operands_of(inst));
        }
        const ValueId root = primal_.outputs.front();
        const bool complex_root = primal_.at(root).kind == ir::ValueKind::kComplex;
        std::vector<ValueId> seeds;
        if (component != Component::kImag) {
            seeds.push_back(emitter_.real(1.0));
        }
        if (complex_root && component != Component::kReal) {
            seeds.push_back(emitter_.complex_constant(0.0, 1.0));
        }
        contributions_.assign(seeds.size(), std::vector<std::vector<ValueId>>(primal_.size()));
        parameter_adjoints_.assign(seeds.size(),
                                   std::vector<std::vector<ValueId>>(primal_.parameter_count));
        for (std::size_t s = 0; s < seeds.size(); ++s) {
            contributions_[s][ir::to_index(root)].push_back(seeds[s]);
        }
        for (std::uint32_t index = static_cast<std::uint32_t>(primal_.size()); index-- > 0;) {
            if (activity_.needed[index] && !activity_.params[index].empty()) {
                visit(index);
            }
        }
        std::vector<ValueId> gradients;
        for (std::uint32_t k = 0; k < primal_.parameter_count; ++k) {
            std::vector<Term> parts;
            parts.reserve(seeds.size());
            for (std::size_t s = 0; s < seeds.size(); ++s) {
                parts.push_back(emitter_.sum(parameter_adjoints_[s][k]));
            }
            const bool full_complex = complex_root && component == Component::kFull;
            if (full_complex) {
                gradients.push_back(parts[0] || parts[1] ? emitter_.complex(parts[0], parts[1])
                                                         : emitter_.complex_constant(0.0, 0.0));
            } else {
                gradients.push_back(parts.empty() ? emitter_.real(0.0)
                                                  : parts[0].value_or(emitter_.real(0.0)));
            }
        }
        detail::add_gradient_outputs(emitter_, primal_, root, gradients);
        return emitter_.finish();
    }

private:
    std::size_t sweeps() const { return contributions_.size(); }

    void contribute(std::size_t sweep, ValueId target, Term value) {
        if (value) {
            contributions_[sweep][ir::to_index(target)].push_back(*value);
        }
    }

    void visit(std::uint32_t index) {
        const ir::Instruction& inst = primal_.instructions[index];
        const std::span<const ValueId> operands = primal_.operands_of(inst);
        if (inst.op == OpCode::kSolve) {
            visit_solve(index);
            return;
        }
        std::vector<Term> adjoints(sweeps());
        bool any = false;
        for (std::size_t s = 0; s < sweeps(); ++s) {
            adjoints[s] = emitter_.sum(contributions_[s][index]);
            any = any || adjoints[s].has_value();
        }
        if (!any) {
            return;
        }
        if (inst.op == OpCode::kParam) {
            for (std::size_t s = 0; s < sweeps(); ++s) {
                if (adjoints[s]) {
                    parameter_adjoints_[s][inst.attr].push_back(*adjoints[s]);
                }
            }
            return;
        }
        if (inst.op == OpCode::kExtract) {
            auto& elements = vector_contributions_[ir::to_index(operands[0])];
            if (elements.empty()) {
                const std::uint32_t width = primal_.at(operands[0]).width();
                elements.assign(sweeps(), std::vector<std::vector<ValueId>>(width));
            }
            for (std::size_t s = 0; s < sweeps(); ++s) {
                if (adjoints[s]) {
                    elements[s][inst.attr].push_back(*adjoints[s]);
                }
            }
            return;
        }
        std::vector<bool> active(operands.size());
        for (std::size_t j = 0; j < operands.size(); ++j) {
            active[j] = activity_.is_active(operands[j]);
        }
        const std::vector<Partial> partials =
            detail::local_partials(emitter_, inst, operands, ir::value_id(index), active);
        for (std::size_t j = 0; j < operands.size(); ++j) {
            if (partials[j].form == detail::Form::kZero) {
                continue;
            }
            const Term coefficient = detail::adjoint_coefficient(emitter_, partials[j]);
            const ir::ValueKind kind = primal_.at(operands[j]).kind;
            for (std::size_t s = 0; s < sweeps(); ++s) {
                if (adjoints[s]) {
                    contribute(s, operands[j],
                               detail::apply_reverse(emitter_, partials[j], coefficient,
                                                     *adjoints[s], kind));
                }
            }
        }
    }

    // X = A⁻¹B with adjoint X̄: Λ = A⁻ᴴ X̄, B̄ = Λ, Ā = -Λ Xᴴ. Computed as Λ̃ = solve(Aᵀ, conj X̄)
    // (the primal matrix's operands transposed, no conjugated copy), Λ = conj(Λ̃); all sweeps'
    // columns share one kSolve.
    void visit_solve(std::uint32_t index) {
        const auto found = vector_contributions_.find(index);
        if (found == vector_contributions_.end()) {
            return;
        }
        const ir::Instruction& inst = primal_.instructions[index];
        const std::span<const ValueId> operands = primal_.operands_of(inst);
        const std::uint32_t n = ir::solve_size(inst.attr);
        const std::uint32_t m = ir::solve_rhs_count(inst.attr);
        const std::uint32_t nn = n * n;
        const std::uint32_t nm = n * m;
        std::vector<ValueId> system;
        for (std::uint32_t r = 0; r < n; ++r) {
            for (std::uint32_t c = 0; c < n; ++c) {
                system.push_back(operands[c * n + r]);
            }
        }
        std::vector<std::size_t> sweeps_in;
        const ValueId zero = emitter_.real(0.0);
        for (std::size_t s = 0; s < sweeps(); ++s) {
            std::vector<Term> column(nm);
            bool any = false;
            for (std::uint32_t e = 0; e < nm; ++e) {
                column[e] = emitter_.sum(found->second[s][e]);
                any = any || column[e].has_value();
            }
            if (!any) {
                continue;
            }
            sweeps_in.push_back(s);
            for (const Term& t : column) {
                system.push_back(t ? emitter_.conj(*t) : zero);
            }
        }
        if (sweeps_in.empty()) {
            return;
        }
        const ValueId lambda =
            emitter_.solve(n, m * static_cast<std::uint32_t>(sweeps_in.size()), system);
        const ValueId x = ir::value_id(index);
        std::map<std::uint32_t, ValueId> x_elements;
        const auto x_at = [&](std::uint32_t e) {
            auto [it, inserted] = x_elements.try_emplace(e, x);
            if (inserted) {
                it->second = emitter_.extract(x, e);
            }
            return it->second;
        };
        for (std::uint32_t q = 0; q < sweeps_in.size(); ++q) {
            const std::size_t s = sweeps_in[q];
            std::vector<ValueId> lam(nm);
            for (std::uint32_t e = 0; e < nm; ++e) {
                lam[e] = emitter_.extract(lambda, q * nm + e);
            }
            for (std::uint32_t col = 0; col < m; ++col) {
                for (std::uint32_t r = 0; r < n; ++r) {
                    const ValueId b = operands[nn + col * n + r];
                    if (activity_.is_active(b)) {
                        const ValueId w = lam[col * n + r];
                        contribute(s, b, emitter_.is_real(b) ? emitter_.re(w) : emitter_.conj(w));
                    }
                }
            }
            for (std::uint32_t r = 0; r < n; ++r) {
                for (std::uint32_t j = 0; j < n; ++j) {
                    const ValueId a = operands[r * n + j];
                    if (!activity_.is_active(a)) {
                        continue;
                    }
                    std::vector<Term> lhs;
                    std::vector<Term> rhs;
                    for (std::uint32_t col = 0; col < m; ++col) {
                        lhs.emplace_back(lam[col * n + r]);
                        rhs.emplace_back(x_at(col * n + j));
                    }
                    const ValueId w = *emitter_.combine(lhs, rhs);
                    contribute(
                        s, a,
                        emitter_.neg(emitter_.is_real(a) ? emitter_.re(w) : emitter_.conj(w)));
                }
            }
        }
    }

    const ir::Program& primal_;
    const detail::Activity& activity_;
    Emitter emitter_;
    std::vector<std::vector<std::vector<ValueId>>> contributions_;       // [sweep][value]
    std::vector<std::vector<std::vector<ValueId>>> parameter_adjoints_;  // [sweep][parameter]
    std::map<std::uint32_t, std::vector<std::vector<std::vector<ValueId>>>>
        vector_contributions_;  // [solve][sweep][element]
};

}  // namespace

ir::Program reverse(const ir::Program& primal, Component component) {
    detail::check_primal(primal, "reverse");
    const detail::Activity activity = detail::analyse_activity(primal);
    return ReversePass(primal, activity).run(component);
}

}  // namespace laddu::autodiff
