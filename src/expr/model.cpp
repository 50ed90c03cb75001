#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/expr/tags.hpp>
#include <laddu/expr/traversal.hpp>

namespace laddu::expr {

ParamLayout::ParamLayout(std::vector<Parameter> parameters) : parameters_(std::move(parameters)) {
    std::unordered_map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
        if (!seen.emplace(parameters_[i].name, i).second) {
            throw ModelError(
                fmt::format("parameter '{}' appears twice in the layout", parameters_[i].name));
        }
        (parameters_[i].is_fixed() ? fixed_ : free_).push_back(i);
    }
}

std::vector<std::string> ParamLayout::free_names() const {
    std::vector<std::string> names;
    names.reserve(free_.size());
    for (const std::size_t i : free_) {
        names.push_back(parameters_[i].name);
    }
    return names;
}

std::vector<std::string> ParamLayout::names() const {
    std::vector<std::string> result;
    result.reserve(parameters_.size());
    for (const Parameter& p : parameters_) {
        result.push_back(p.name);
    }
    return result;
}

bool ParamLayout::contains(std::string_view name) const {
    return std::any_of(parameters_.begin(), parameters_.end(),
                       [&](const Parameter& p) { return p.name == name; });
}

std::size_t ParamLayout::index_of(std::string_view name) const {
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
        if (parameters_[i].name == name) {
            return i;
        }
    }
    throw ModelError(fmt::format(
        "unknown parameter '{}'; known parameters: {}", name,
        parameters_.empty() ? std::string("(none)") : fmt::format("{}", fmt::join(names(), ", "))));
}

std::optional<std::size_t> ParamLayout::free_index_of(std::string_view name) const {
    const std::size_t index = index_of(name);
    for (std::size_t i = 0; i < free_.size(); ++i) {
        if (free_[i] == index) {
            return i;
        }
    }
    return std::nullopt;
}

std::vector<double> ParamLayout::defaults() const {
    std::vector<double> values;
    values.reserve(parameters_.size());
    for (const Parameter& p : parameters_) {
        values.push_back(p.default_value());
    }
    return values;
}

std::vector<double> ParamLayout::free_defaults() const {
    std::vector<double> values;
    values.reserve(free_.size());
    for (const std::size_t i : free_) {
        values.push_back(parameters_[i].default_value());
    }
    return values;
}

ParamLayout collect_parameters(const Expr& root) {
    std::vector<Parameter> parameters;
    std::unordered_map<std::string, std::size_t> by_name;
    for (const Expr& node : topological_order(root)) {
        if (node.kind() != NodeKind::kParameter) {
            continue;
        }
        const Parameter& p = *node.node().parameter;
        auto [it, inserted] = by_name.emplace(p.name, parameters.size());
        if (inserted) {
            parameters.push_back(p);
        } else if (!(parameters[it->second] == p)) {
            throw ModelError(fmt::format(
                "parameter '{}' has conflicting definitions: {} and {}; give both uses the same "
                "definition or different names",
                p.name, parameters[it->second].describe(), p.describe()));
        }
    }
    return ParamLayout(std::move(parameters));
}

Model::Model(Expr intensity) : expression_(std::move(intensity)) {
    if (!expression_.value_kind().is_scalar()) {
        throw ModelError(fmt::format("a model's intensity must be a Real or Complex scalar, got {}",
                                     to_string(expression_.value_kind())));
    }
    layout_ = collect_parameters(expression_);
}

Model Model::redefine(std::string_view name, const Parameter& definition) const {
    Expr rewritten = rewrite_bottom_up(expression_, [&](const Expr& node) {
        if (node.kind() == NodeKind::kParameter && node.node().parameter->name == name) {
            Expr replacement = parameter(definition);
            for (const std::string& tag : node.tags()) {
                replacement = replacement.tagged(tag);
            }
            return replacement;
        }
        return node;
    });
    return Model(std::move(rewritten));
}

Model Model::fix(std::string_view name, double value) const {
    Parameter definition = layout_.parameters()[layout_.index_of(name)];
    definition.fixed = value;
    return redefine(name, Parameter::make(definition.name,
                                          ParameterOptions{definition.initial, definition.bounds,
                                                           definition.fixed, definition.periodic,
                                                           definition.unit, definition.latex,
                                                           definition.initial_range}));
}

Model Model::free(std::string_view name) const {
    Parameter definition = layout_.parameters()[layout_.index_of(name)];
    if (definition.fixed && !definition.initial && !definition.initial_range) {
        definition.initial = definition.fixed;  // start a freed parameter where it was fixed
    }
    definition.fixed.reset();
    return redefine(name, definition);
}

Model Model::project(const std::vector<std::string>& tags) const {
    return Model(expr::project(expression_, tags));
}

}  // namespace laddu::expr
