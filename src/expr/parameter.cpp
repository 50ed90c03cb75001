#include <cmath>
#include <vector>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/expr/parameter.hpp>

namespace laddu::expr {

Parameter Parameter::make(std::string name, const ParameterOptions& options) {
    if (name.empty()) {
        throw ModelError("a parameter needs a non-empty name");
    }
    if (options.bounds && !(options.bounds->lower < options.bounds->upper)) {
        throw ModelError(fmt::format("parameter '{}': bounds [{}, {}] need lower < upper", name,
                                     options.bounds->lower, options.bounds->upper));
    }
    auto check_inside = [&](const char* what, std::optional<double> value) {
        if (!value) {
            return;
        }
        if (!std::isfinite(*value)) {
            throw ModelError(
                fmt::format("parameter '{}': {} value {} is not finite", name, what, *value));
        }
        if (options.bounds && (*value < options.bounds->lower || *value > options.bounds->upper)) {
            throw ModelError(fmt::format("parameter '{}': {} value {} is outside bounds [{}, {}]",
                                         name, what, *value, options.bounds->lower,
                                         options.bounds->upper));
        }
    };
    check_inside("initial", options.initial);
    check_inside("fixed", options.fixed);
    return Parameter{std::move(name),  options.initial, options.bounds, options.fixed,
                     options.periodic, options.unit,    options.latex};
}

double Parameter::default_value() const {
    if (fixed) {
        return *fixed;
    }
    if (initial) {
        return *initial;
    }
    if (bounds && std::isfinite(bounds->lower) && std::isfinite(bounds->upper)) {
        return 0.5 * (bounds->lower + bounds->upper);
    }
    return 0.0;
}

std::string Parameter::describe() const {
    std::string text = name;
    std::vector<std::string> parts;
    if (fixed) {
        parts.push_back(fmt::format("fixed {}", *fixed));
    }
    if (initial) {
        parts.push_back(fmt::format("initial {}", *initial));
    }
    if (bounds) {
        parts.push_back(fmt::format("bounds [{}, {}]", bounds->lower, bounds->upper));
    }
    if (periodic) {
        parts.emplace_back("periodic");
    }
    if (!unit.empty()) {
        parts.push_back(fmt::format("unit {}", unit));
    }
    if (parts.empty()) {
        parts.emplace_back("free");
    }
    return fmt::format("{} ({})", text, fmt::join(parts, ", "));
}

}  // namespace laddu::expr
