// One entry point per stage's bindings, called in order by module.cpp.
#pragma once

#include <pybind11/pybind11.h>

namespace laddu::python {

/// Exceptions (laddu_cpp.Error and its subclasses) and base utilities.
void bind_base(pybind11::module_& module);

/// Expressions, parameters and Model (laddu's expression vocabulary).
void bind_expr(pybind11::module_& module);

/// Vec3/Vec4, Channel, angular functions, line shapes, Kopf K-matrices, ld.particles.
void bind_physics(pybind11::module_& module);

/// Dataset, ParquetSink, read_parquet.
void bind_data(pybind11::module_& module);

/// Execution and Model.evaluate (needs bind_expr and bind_data first).
void bind_runtime(pybind11::module_& module);

/// NLL, ExtendedNLL, penalties and Likelihood.
void bind_likelihood(pybind11::module_& module);

/// FitResult and Likelihood.fit / fit_restarts (needs bind_likelihood first).
void bind_fit(pybind11::module_& module);

}  // namespace laddu::python
