// laddu/expr/model.hpp: a model is an intensity expression plus its parameter layout.
//
// Model(expr) collects every parameter in first-appearance order of a post-order walk (children
// in order), rejects two definitions of one name that disagree, and splits the parameters into
// free and fixed ones. fix() and free() return new models; the expression is rewritten so that
// every node of the parameter carries the new definition.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <laddu/expr/expr.hpp>
#include <laddu/expr/parameter.hpp>

namespace laddu::expr {

/// All parameters of a model in stable order, with the free/fixed split.
class ParamLayout {
public:
    ParamLayout() = default;

    /// Builds a layout from definitions in order; throws ModelError on duplicate names.
    explicit ParamLayout(std::vector<Parameter> parameters);

    /// Every parameter, free and fixed, in layout order.
    [[nodiscard]] const std::vector<Parameter>& parameters() const { return parameters_; }

    /// Number of parameters (free and fixed).
    [[nodiscard]] std::size_t size() const { return parameters_.size(); }

    /// Number of free parameters.
    [[nodiscard]] std::size_t free_count() const { return free_.size(); }

    /// Layout indices of the free parameters, in free order (the evaluate program's order).
    [[nodiscard]] const std::vector<std::size_t>& free_indices() const { return free_; }

    /// Layout indices of the fixed parameters.
    [[nodiscard]] const std::vector<std::size_t>& fixed_indices() const { return fixed_; }

    /// Names of the free parameters, in free order.
    [[nodiscard]] std::vector<std::string> free_names() const;

    /// Names of every parameter, in layout order.
    [[nodiscard]] std::vector<std::string> names() const;

    /// True when a parameter of this name exists.
    [[nodiscard]] bool contains(std::string_view name) const;

    /// Layout index of `name`; throws ModelError listing the known names when there is none.
    [[nodiscard]] std::size_t index_of(std::string_view name) const;

    /// Position of `name` among the free parameters, or nullopt when it is fixed.
    [[nodiscard]] std::optional<std::size_t> free_index_of(std::string_view name) const;

    /// Default values of every parameter (fixed value, initial, bounds midpoint or 0).
    [[nodiscard]] std::vector<double> defaults() const;

    /// Default values of the free parameters, in free order.
    [[nodiscard]] std::vector<double> free_defaults() const;

private:
    std::vector<Parameter> parameters_;
    std::vector<std::size_t> free_;
    std::vector<std::size_t> fixed_;
};

/// Collects the parameters of `root` (see the banner); throws ModelError on conflicts.
[[nodiscard]] ParamLayout collect_parameters(const Expr& root);

/// An intensity expression (Real or Complex scalar) and its parameters.
class Model {
public:
    /// Throws ModelError when `intensity` is not a scalar or has conflicting parameters.
    explicit Model(Expr intensity);

    /// The intensity expression.
    [[nodiscard]] const Expr& expression() const { return expression_; }

    /// The parameter layout.
    [[nodiscard]] const ParamLayout& parameters() const { return layout_; }

    /// A model in which `name` is fixed at `value` (ModelError for unknown names).
    [[nodiscard]] Model fix(std::string_view name, double value) const;

    /// A model in which `name` is free (ModelError for unknown names).
    [[nodiscard]] Model free(std::string_view name) const;

    /// The model restricted to the amplitudes tagged with one of `tags` (see project()).
    [[nodiscard]] Model project(const std::vector<std::string>& tags) const;

private:
    Model redefine(std::string_view name, const Parameter& definition) const;

    Expr expression_;
    ParamLayout layout_;
};

}  // namespace laddu::expr
