// Conversions shared by the bindings.
#pragma once

#include <pybind11/pybind11.h>

#include <laddu/expr/expr.hpp>

namespace laddu::python {

/// An ld.Expr, or a Python int, float or complex lifted to a constant; a bool or anything else
/// is a TypeError naming its type.
[[nodiscard]] expr::Expr to_expr(const pybind11::handle& value);

}  // namespace laddu::python
