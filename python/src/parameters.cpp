#include "parameters.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <laddu/base/error.hpp>

#include "conversions.hpp"

namespace py = pybind11;

namespace laddu::python {

std::vector<double> free_parameter_vector(const expr::ParamLayout& layout,
                                          const py::object& parameters) {
    std::vector<double> values = layout.free_defaults();
    if (parameters.is_none()) {
        return values;
    }
    if (py::isinstance<py::dict>(parameters)) {
        for (const auto& [key, value] : parameters.cast<py::dict>()) {
            const auto name = cast_arg<std::string>(key, "a parameter name", "a str");
            const auto index = layout.free_index_of(name);
            if (!index) {
                throw ModelError(fmt::format("'{}' is not a free parameter of this model; free "
                                             "parameters: [{}]",
                                             name, fmt::join(layout.free_names(), ", ")));
            }
            values[*index] = cast_arg<double>(value, "parameter '" + name + "'", "a float");
        }
        return values;
    }
    const auto given = cast_arg<std::vector<double>>(
        parameters, "parameters", "a sequence of floats, a dict by name or None");
    if (given.size() != values.size()) {
        throw py::value_error(fmt::format("expected {} parameter values (free parameters: [{}]), "
                                          "got {}",
                                          values.size(), fmt::join(layout.free_names(), ", "),
                                          given.size()));
    }
    return given;
}

std::vector<double> parameter_values(const std::vector<std::string>& names,
                                     const std::vector<double>& defaults,
                                     const py::object& parameters) {
    if (parameters.is_none()) {
        return defaults;
    }
    if (py::isinstance<py::dict>(parameters)) {
        std::vector<double> values = defaults;
        for (const auto& [key, value] : parameters.cast<py::dict>()) {
            const auto name = cast_arg<std::string>(key, "a parameter name", "a str");
            const auto it = std::find(names.begin(), names.end(), name);
            if (it == names.end()) {
                throw ModelError(fmt::format("unknown parameter '{}'; parameters: [{}]", name,
                                             fmt::join(names, ", ")));
            }
            values[static_cast<std::size_t>(it - names.begin())] =
                cast_arg<double>(value, "parameter '" + name + "'", "a float");
        }
        return values;
    }
    if (py::isinstance<py::list>(parameters) || py::isinstance<py::tuple>(parameters)) {
        // The common case of a fit loop: read the floats directly (numpy conversion of a short
        // list costs more than a small evaluation).
        const auto sequence = py::reinterpret_borrow<py::sequence>(parameters);
        if (sequence.size() != names.size()) {
            throw py::value_error(fmt::format("expected {} parameter values ([{}]), got {}",
                                              names.size(), fmt::join(names, ", "),
                                              sequence.size()));
        }
        std::vector<double> values(names.size());
        for (std::size_t i = 0; i < values.size(); ++i) {
            values[i] = cast_arg<double>(sequence[i], "parameter '" + names[i] + "'", "a float");
        }
        return values;
    }
    using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;
    const Array array = Array::ensure(parameters);
    if (!array || array.ndim() != 1) {
        throw py::value_error(
            "parameters must be a 1-D sequence of floats, a dict by name, or None");
    }
    if (static_cast<std::size_t>(array.size()) != names.size()) {
        throw py::value_error(fmt::format("expected {} parameter values ([{}]), got {}",
                                          names.size(), fmt::join(names, ", "), array.size()));
    }
    return std::vector<double>(array.data(), array.data() + array.size());
}

}  // namespace laddu::python
