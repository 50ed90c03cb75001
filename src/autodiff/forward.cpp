// Forward mode: one tangent per (value, parameter it depends on), emitted right after the
// value so every tangent of an instruction shares the instruction's partials.

#include <algorithm>
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

class ForwardPass {
public:
    ForwardPass(const ir::Program& primal, const detail::Activity& activity)
        : primal_(primal), activity_(activity), emitter_(primal) {
        map_.reserve(primal.size());
        tangents_.resize(primal.size());
        vector_tangents_.resize(primal.size());
    }

    ir::Program run(Component component) {
        for (std::uint32_t index = 0; index < primal_.size(); ++index) {
            visit(index);
        }
        const ValueId root = primal_.outputs.front();
        const bool complex_root = primal_.at(root).kind == ir::ValueKind::kComplex;
        std::vector<ValueId> gradients;
        gradients.reserve(primal_.parameter_count);
        for (std::uint32_t k = 0; k < primal_.parameter_count; ++k) {
            gradients.push_back(output(tangent(root, k), complex_root, component));
        }
        detail::add_gradient_outputs(emitter_, primal_, mapped(root), gradients);
        return emitter_.finish();
    }

private:
    struct VectorTangent {
        ValueId solve;
        std::uint32_t offset;
    };

    ValueId mapped(ValueId id) const { return map_[ir::to_index(id)]; }

    // The slot of parameter k in the value's dependence list, or nothing.
    std::optional<std::size_t> slot(ValueId id, std::uint32_t k) const {
        const std::vector<std::uint32_t>& deps = activity_.params[ir::to_index(id)];
        const auto it = std::lower_bound(deps.begin(), deps.end(), k);
        if (it == deps.end() || *it != k) {
            return std::nullopt;
        }
        return static_cast<std::size_t>(it - deps.begin());
    }

    Term tangent(ValueId id, std::uint32_t k) const {
        const auto s = slot(id, k);
        const std::vector<Term>& list = tangents_[ir::to_index(id)];
        return s && *s < list.size() ? list[*s] : std::nullopt;
    }

    std::optional<VectorTangent> vector_tangent(ValueId id, std::uint32_t k) const {
        const auto s = slot(id, k);
        const auto& list = vector_tangents_[ir::to_index(id)];
        return s && *s < list.size() ? list[*s] : std::nullopt;
    }

    ValueId output(Term t, bool complex_root, Component component) {
        switch (component) {
        case Component::kFull:
            if (!complex_root) {
                return t.value_or(emitter_.real(0.0));
            }
            return t ? emitter_.widen(*t) : emitter_.complex_constant(0.0, 0.0);
        case Component::kReal:
            return t ? emitter_.re(*t) : emitter_.real(0.0);
        case Component::kImag:
            if (t) {
                if (Term part = emitter_.im(*t)) {
                    return *part;
                }
            }
            return emitter_.real(0.0);
        }
        return emitter_.real(0.0);
    }

    void visit(std::uint32_t index) {
        const ir::Instruction& inst = primal_.instructions[index];
        const std::span<const ValueId> old_operands = primal_.operands_of(inst);
        std::vector<ValueId> operands;
        operands.reserve(old_operands.size());
        for (const ValueId operand : old_operands) {
            operands.push_back(mapped(operand));
        }
        const std::vector<std::uint32_t>& deps = activity_.params[index];
        const bool differentiate = activity_.needed[index] && !deps.empty();
        if (differentiate && inst.op == OpCode::kSolve) {
            visit_solve(index, operands);
            return;
        }
        map_.push_back(emitter_.copy(inst, operands));
        if (!differentiate) {
            return;
        }
        std::vector<Term>& out = tangents_[index];
        out.resize(deps.size());
        if (inst.op == OpCode::kParam) {
            out[0] = emitter_.real(1.0);
            return;
        }
        if (inst.op == OpCode::kExtract) {
            for (std::size_t s = 0; s < deps.size(); ++s) {
                if (auto vt = vector_tangent(old_operands[0], deps[s])) {
                    out[s] = emitter_.extract(vt->solve, vt->offset + inst.attr);
                }
            }
            return;
        }
        std::vector<bool> active(old_operands.size());
        for (std::size_t j = 0; j < old_operands.size(); ++j) {
            active[j] = activity_.is_active(old_operands[j]);
        }
        const std::vector<Partial> partials =
            detail::local_partials(emitter_, inst, operands, map_.back(), active);
        const bool all_linear = std::all_of(partials.begin(), partials.end(), [](const Partial& p) {
            return p.form == detail::Form::kLinear || p.form == detail::Form::kZero;
        });
        std::vector<Term> coefficients(partials.size());
        std::vector<Term> terms(partials.size());
        for (std::size_t s = 0; s < deps.size(); ++s) {
            for (std::size_t j = 0; j < partials.size(); ++j) {
                const bool zero = partials[j].form == detail::Form::kZero;
                terms[j] = zero ? std::nullopt : tangent(old_operands[j], deps[s]);
                coefficients[j] = partials[j].coefficient;
            }
            if (all_linear) {
                out[s] = emitter_.combine(coefficients, terms);
            } else {
                // Non-holomorphic instructions are unary.
                out[s] = detail::apply_forward(emitter_, partials[0], terms[0]);
            }
        }
    }

    // X = A⁻¹B: dX = A⁻¹(dB - dA·X). All tangent columns of all parameters go into one extra
    // kSolve (one factorisation); when A does not depend on parameters they join the primal
    // kSolve instead, unless that would turn an invariant solve into a per-event one.
    void visit_solve(std::uint32_t index, const std::vector<ValueId>& operands) {
        const ir::Instruction& inst = primal_.instructions[index];
        const std::span<const ValueId> old_operands = primal_.operands_of(inst);
        const std::uint32_t n = ir::solve_size(inst.attr);
        const std::uint32_t m = ir::solve_rhs_count(inst.attr);
        const std::size_t nn = std::size_t{n} * n;
        const std::size_t nm = std::size_t{n} * m;
        const bool matrix_active =
            std::any_of(old_operands.begin(), old_operands.begin() + static_cast<long>(nn),
                        [&](ValueId id) { return activity_.is_active(id); });
        std::vector<ValueId> minus_x;
        if (matrix_active) {
            map_.push_back(emitter_.copy(inst, operands));
            for (std::uint32_t e = 0; e < nm; ++e) {
                minus_x.push_back(emitter_.neg(emitter_.extract(map_.back(), e)));
            }
        }
        const std::vector<std::uint32_t>& deps = activity_.params[index];
        std::vector<std::size_t> columns_of;  // dependence slots with a non-zero tangent
        std::vector<ValueId> rhs;
        bool rhs_invariant = true;
        const ValueId zero = emitter_.real(0.0);
        for (std::size_t s = 0; s < deps.size(); ++s) {
            std::vector<Term> column(nm);
            bool any = false;
            for (std::uint32_t col = 0; col < m; ++col) {
                for (std::uint32_t r = 0; r < n; ++r) {
                    std::vector<Term> coefficients{std::nullopt};
                    std::vector<Term> terms{
                        tangent(old_operands[nn + (std::size_t{col} * n) + r], deps[s])};
                    if (matrix_active) {
                        for (std::uint32_t j = 0; j < n; ++j) {
                            coefficients.emplace_back(minus_x[col * n + j]);
                            terms.push_back(tangent(old_operands[r * n + j], deps[s]));
                        }
                    }
                    column[col * n + r] = emitter_.combine(coefficients, terms);
                    any = any || column[col * n + r].has_value();
                }
            }
            if (!any) {
                continue;
            }
            columns_of.push_back(s);
            for (const Term& t : column) {
                rhs.push_back(t.value_or(zero));
                rhs_invariant =
                    rhs_invariant && emitter_.cls(rhs.back()) == ir::ValueClass::kInvariant;
            }
        }
        const auto count = static_cast<std::uint32_t>(columns_of.size());
        const bool fuse =
            !matrix_active && count > 0 && (inst.cls == ir::ValueClass::kEvent || rhs_invariant);
        ValueId tangent_solve{};
        std::uint32_t first_offset = 0;
        if (fuse) {
            std::vector<ValueId> fused = operands;
            fused.insert(fused.end(), rhs.begin(), rhs.end());
            map_.push_back(emitter_.solve(n, m * (1 + count), fused));
            tangent_solve = map_.back();
            first_offset = static_cast<std::uint32_t>(nm);
        } else {
            if (!matrix_active) {
                map_.push_back(emitter_.copy(inst, operands));
            }
            if (count > 0) {
                std::vector<ValueId> system(operands.begin(),
                                            operands.begin() + static_cast<long>(nn));
                system.insert(system.end(), rhs.begin(), rhs.end());
                tangent_solve = emitter_.solve(n, m * count, system);
            }
        }
        auto& out = vector_tangents_[index];
        out.resize(deps.size());
        for (std::uint32_t c = 0; c < count; ++c) {
            out[columns_of[c]] =
                VectorTangent{tangent_solve, first_offset + c * static_cast<std::uint32_t>(nm)};
        }
    }

    const ir::Program& primal_;
    const detail::Activity& activity_;
    Emitter emitter_;
    std::vector<ValueId> map_;
    std::vector<std::vector<Term>> tangents_;
    std::vector<std::vector<std::optional<VectorTangent>>> vector_tangents_;
};

}  // namespace

ir::Program forward(const ir::Program& primal, Component component) {
    detail::check_primal(primal, "forward");
    const detail::Activity activity = detail::analyse_activity(primal);
    return ForwardPass(primal, activity).run(component);
}

}  // namespace laddu::autodiff
