#include "reference.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include <laddu/expr/traversal.hpp>

#include "reference/expr_reference.hpp"
#include "reference/program_reference.hpp"

namespace laddu::compile::testing {

using expr::Expr;
using expr::NodeKind;

std::vector<Complex> evaluate_reference(const Expr& root,
                                        const std::map<std::string, double>& params,
                                        const Event& event) {
    // The shared evaluator takes four-momenta whole; a flat event names their components.
    laddu::testing::Event split;
    for (const Expr& node : expr::topological_order(root)) {
        if (node.kind() == NodeKind::kEventScalar) {
            split.scalars[node.node().name] = event.at(node.node().name);
        } else if (node.kind() == NodeKind::kEventP4Component) {
            const auto component = node.node().p4_component();
            split.p4[node.node().name][static_cast<std::size_t>(component)] =
                event.at(fmt::format("{}.{}", node.node().name, expr::to_string(component)));
        }
    }
    return laddu::testing::evaluate_all(root, split, params);
}

std::vector<Complex> execute_program(const ir::Program& program, const std::vector<Complex>& inputs,
                                     const std::vector<double>& params) {
    return laddu::testing::run_reference(program, params, inputs);
}

Event random_event(const Expr& root, std::mt19937& rng, double lo, double hi) {
    std::uniform_real_distribution<double> dist(lo, hi);
    Event event;
    for (const Expr& node : expr::topological_order(root)) {
        if (node.kind() == NodeKind::kEventScalar) {
            event.emplace(node.node().name, dist(rng));
        } else if (node.kind() == NodeKind::kEventP4Component) {
            event.emplace(
                fmt::format("{}.{}", node.node().name, expr::to_string(node.node().p4_component())),
                dist(rng));
        }
    }
    return event;
}

std::map<std::string, double> random_params(const expr::ParamLayout& layout, std::mt19937& rng) {
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::map<std::string, double> params;
    for (const expr::Parameter& p : layout.parameters()) {
        params.emplace(p.name, p.is_fixed() ? *p.fixed : dist(rng));
    }
    return params;
}

Complex run_compiled(const CompiledModel& model, const Event& event,
                     const std::map<std::string, double>& params) {
    std::vector<Complex> cache;
    if (model.has_precompute()) {
        std::vector<Complex> inputs;
        for (const ir::InputSlot& slot : model.precompute.inputs) {
            inputs.emplace_back(event.at(slot.name));
        }
        cache = execute_program(model.precompute, inputs, {});
    }
    std::vector<double> free;
    for (const std::string& name : model.parameters.free_names()) {
        free.push_back(params.at(name));
    }
    return execute_program(model.evaluate, cache, free).at(0);
}

bool close(Complex a, Complex b, double tolerance) {
    return std::abs(a - b) <= tolerance * std::max(1.0, std::abs(b));
}

}  // namespace laddu::compile::testing
