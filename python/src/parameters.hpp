// Parameter vectors from Python: a sequence in free order, a partial dict by name, or None.
#pragma once

#include <vector>

#include <pybind11/pybind11.h>

#include <laddu/expr/model.hpp>

namespace laddu::python {

/// The free-parameter vector for `layout` from `parameters`: None gives the defaults; a dict
/// sets the named free parameters and keeps the others at their defaults (an unknown or fixed
/// name is a ModelError listing the free names); a sequence must have one value per free
/// parameter (ValueError naming both counts).
[[nodiscard]] std::vector<double> free_parameter_vector(const expr::ParamLayout& layout,
                                                        const pybind11::object& parameters);

}  // namespace laddu::python
