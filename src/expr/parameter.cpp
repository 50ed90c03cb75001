#include <cmath>
#include <vector>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/base/random.hpp>
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
    if (options.initial_range) {
        if (options.initial) {
            throw ModelError(fmt::format("parameter '{}': give an initial value or an initial "
                                         "range, not both",
                                         name));
        }
        const Bounds& r = *options.initial_range;
        if (!(r.lower <= r.upper)) {
            throw ModelError(
                fmt::format("parameter '{}': the initial range ({}, {}) needs low <= high", name,
                            r.lower, r.upper));
        }
        check_inside("initial range low", r.lower);
        check_inside("initial range high", r.upper);
    }
    return Parameter{std::move(name),  options.initial, options.bounds, options.fixed,
                     options.periodic, options.unit,    options.latex,  options.initial_range};
}

double Parameter::default_value() const {
    if (fixed) {
        return *fixed;
    }
    if (initial) {
        return *initial;
    }
    if (initial_range) {
        return 0.5 * (initial_range->lower + initial_range->upper);
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
    if (initial_range) {
        parts.push_back(
            fmt::format("initial in [{}, {}]", initial_range->lower, initial_range->upper));
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

std::vector<double> sample_initial(std::span<const Parameter> parameters, std::uint64_t seed) {
    WyRand random(seed);
    std::vector<double> values;
    values.reserve(parameters.size());
    for (const Parameter& p : parameters) {
        values.push_back(p.initial_range && !p.is_fixed()
                             ? random.uniform(p.initial_range->lower, p.initial_range->upper)
                             : p.default_value());
    }
    return values;
}

}  // namespace laddu::expr
