// Parameter vectors from Python: a sequence in free order, a partial dict by name, or None.
#pragma once

#include <string>
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

/// Parameter values for `names` from a sequence or 1-D ndarray (one per name), a partial dict
/// (the others at `defaults`; an unknown name is a ModelError listing `names`), or None (the
/// defaults). A wrong length is a ValueError naming both counts.
[[nodiscard]] std::vector<double> parameter_values(const std::vector<std::string>& names,
                                                   const std::vector<double>& defaults,
                                                   const pybind11::object& parameters);

}  // namespace laddu::python
