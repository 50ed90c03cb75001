#include "parameters.hpp"

#include <string>

#include <fmt/format.h>
#include <pybind11/stl.h>

#include <laddu/base/error.hpp>

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
            const auto name = key.cast<std::string>();
            const auto index = layout.free_index_of(name);
            if (!index) {
                throw ModelError(fmt::format("'{}' is not a free parameter of this model; free "
                                             "parameters: [{}]",
                                             name, fmt::join(layout.free_names(), ", ")));
            }
            values[*index] = value.cast<double>();
        }
        return values;
    }
    const auto given = parameters.cast<std::vector<double>>();
    if (given.size() != values.size()) {
        throw py::value_error(fmt::format("expected {} parameter values (free parameters: [{}]), "
                                          "got {}",
                                          values.size(), fmt::join(layout.free_names(), ", "),
                                          given.size()));
    }
    return given;
}

}  // namespace laddu::python
