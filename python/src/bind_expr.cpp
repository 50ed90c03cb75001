// laddu's expression vocabulary for Python: ld.scalar, ld.parameter, operators (with int, float
// and complex literals, ** and @), methods .real() .norm_sqr() ..., ld.Model. Names follow
// laddu-architecture.md section 2.2 so laddu scripts move over with the import line changed.
#include <cmath>
#include <complex>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/complex.h>
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/base/error.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/json.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/expr/parameter.hpp>
#include <laddu/expr/print.hpp>
#include <laddu/expr/tags.hpp>

#include "bindings.hpp"
#include "conversions.hpp"

namespace py = pybind11;

namespace laddu::python {

using expr::Expr;

Expr to_expr(const py::handle& value) {
    if (py::isinstance<Expr>(value)) {
        return value.cast<Expr>();
    }
    if (py::isinstance<py::bool_>(value)) {
        throw py::type_error("a bool is not an expression; use 1.0 or 0.0");
    }
    if (py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)) {
        // float(value): an int beyond the float range is Python's own OverflowError.
        return expr::constant(py::float_(py::reinterpret_borrow<py::object>(value)).cast<double>());
    }
    if (PyComplex_Check(value.ptr()) != 0) {
        return expr::constant(value.cast<std::complex<double>>());
    }
    throw py::type_error("cannot use an object of type '" +
                         std::string(py::str(py::type::of(value).attr("__name__"))) +
                         "' as an expression (expected Expr, int, float or complex)");
}

namespace {

// laddu's from_json raises ValueError for input it cannot read; so does ours, with the message.
template <typename F>
auto from_json_or_value_error(const F& read) {
    try {
        return read();
    } catch (const ModelError& error) {
        throw py::value_error(error.what());
    }
}

Expr power(const Expr& base, const py::object& exponent) {
    if (py::isinstance<py::int_>(exponent) && !py::isinstance<py::bool_>(exponent)) {
        long long n = 0;
        try {
            n = exponent.cast<long long>();
        } catch (const py::cast_error&) {  // beyond long long (was a RuntimeError)
            throw py::value_error("integer exponent out of the int32 range");
        }
        if (n < INT32_MIN || n > INT32_MAX) {
            throw py::value_error("integer exponent out of the int32 range");
        }
        return expr::powi(base, static_cast<std::int32_t>(n));
    }
    return expr::pow(base, to_expr(exponent));
}

// laddu's `initial` is a float (the start value) or a (low, high) range that sample_parameters
// and fit_restarts draw starts from (its midpoint is the default start).
void set_initial(expr::ParameterOptions& options, const py::object& initial) {
    if (initial.is_none()) {
        return;
    }
    if (py::isinstance<py::tuple>(initial) || py::isinstance<py::list>(initial)) {
        const auto range =
            cast_arg<std::vector<double>>(initial, "initial", "a float or a (low, high) pair");
        if (range.size() != 2) {
            throw py::value_error("initial must be a float or a (low, high) pair");
        }
        options.initial_range = expr::Bounds{range[0], range[1]};
        return;
    }
    options.initial = cast_arg<double>(initial, "initial", "a float or a (low, high) pair");
}

// laddu's bounds=(low, high), where None on either side means unbounded there.
std::optional<expr::Bounds> bounds_value(const py::object& bounds) {
    if (bounds.is_none()) {
        return std::nullopt;
    }
    const auto pair = cast_arg<std::vector<std::optional<double>>>(
        bounds, "bounds", "a (low, high) pair of floats or None");
    if (pair.size() != 2) {
        throw py::value_error("bounds must be a (low, high) pair (None for an open side)");
    }
    constexpr double kInf = std::numeric_limits<double>::infinity();
    return expr::Bounds{pair[0].value_or(-kInf), pair[1].value_or(kInf)};
}

Expr make_parameter(const std::string& name, const py::object& initial, const py::object& bounds,
                    std::optional<double> fixed, bool periodic, const std::string& unit,
                    const std::optional<std::string>& latex) {
    expr::ParameterOptions options;
    set_initial(options, initial);
    options.bounds = bounds_value(bounds);
    options.fixed = fixed;
    options.periodic = periodic;
    options.unit = unit;
    options.latex = latex.value_or("");
    return expr::parameter(name, options);
}

std::vector<Expr> to_exprs(const py::iterable& values) {
    std::vector<Expr> out;
    for (const py::handle item : values) {
        out.push_back(to_expr(item));
    }
    return out;
}

Expr make_matrix(const py::iterable& rows) {
    std::vector<Expr> elements;
    std::uint32_t n_rows = 0;
    std::optional<std::size_t> n_cols;
    for (const py::handle row : rows) {
        std::vector<Expr> items = to_exprs(py::reinterpret_borrow<py::iterable>(row));
        if (n_cols && *n_cols != items.size()) {
            throw ModelError("matrix rows must have equal lengths: row 0 has " +
                             std::to_string(*n_cols) + " elements, row " + std::to_string(n_rows) +
                             " has " + std::to_string(items.size()));
        }
        n_cols = items.size();
        elements.insert(elements.end(), items.begin(), items.end());
        ++n_rows;
    }
    if (n_rows == 0 || !n_cols || *n_cols == 0) {
        throw ModelError("a matrix needs at least one row and one column");
    }
    return expr::matrix(n_rows, static_cast<std::uint32_t>(*n_cols), std::move(elements));
}

// `a @ b` is matmul, matvec or dot, chosen by the operands' shapes as laddu does.
Expr at_product(const Expr& a, const Expr& b) {
    const bool a_matrix = a.value_kind().shape == expr::Shape::kMatrix;
    const bool b_matrix = b.value_kind().shape == expr::Shape::kMatrix;
    if (a_matrix && b_matrix) {
        return expr::matmul(a, b);
    }
    if (a_matrix) {
        return expr::matvec(a, b);
    }
    return expr::dot(a, b);
}

}  // namespace

void bind_expr(py::module_& module) {
    py::class_<Expr> cls(module, "Expr", "An immutable expression (a node of the model graph).");
    cls.def(py::init([](const py::object& value) { return to_expr(value); }), py::arg("value"))
        .def("__add__", [](const Expr& a, const py::object& b) { return a + to_expr(b); })
        .def("__radd__", [](const Expr& a, const py::object& b) { return to_expr(b) + a; })
        .def("__sub__", [](const Expr& a, const py::object& b) { return a - to_expr(b); })
        .def("__rsub__", [](const Expr& a, const py::object& b) { return to_expr(b) - a; })
        .def("__mul__", [](const Expr& a, const py::object& b) { return a * to_expr(b); })
        .def("__rmul__", [](const Expr& a, const py::object& b) { return to_expr(b) * a; })
        .def("__truediv__", [](const Expr& a, const py::object& b) { return a / to_expr(b); })
        .def("__rtruediv__", [](const Expr& a, const py::object& b) { return to_expr(b) / a; })
        .def("__pow__", &power)
        .def("__rpow__",
             [](const Expr& a, const py::object& b) { return expr::pow(to_expr(b), a); })
        .def("__neg__", [](const Expr& a) { return -a; })
        .def("__pos__", [](const Expr& a) { return a; })
        .def("__matmul__",
             [](const Expr& a, const py::object& b) { return at_product(a, to_expr(b)); })
        .def("__getitem__", [](const Expr& a, std::uint32_t i) { return a[i]; })
        .def("at", &Expr::at, py::arg("row"), py::arg("col"))
        .def("__eq__",
             [](const Expr& a, const py::object& b) {
                 return py::isinstance<Expr>(b) && a == b.cast<Expr>();
             })
        .def("__hash__", [](const Expr& a) { return a.structural_hash(); })
        .def("__repr__", [](const Expr& a) { return "Expr(" + expr::to_string(a) + ")"; })
        .def("__str__", [](const Expr& a) { return expr::to_string(a); })
        .def("real", [](const Expr& a) { return expr::real(a); })
        .def("imag", [](const Expr& a) { return expr::imag(a); })
        .def("conj", [](const Expr& a) { return expr::conj(a); })
        .def("norm_sqr", [](const Expr& a) { return expr::norm_sqr(a); })
        .def("abs", [](const Expr& a) { return expr::abs(a); })
        .def("arg", [](const Expr& a) { return expr::arg(a); })
        .def("sqrt", [](const Expr& a) { return expr::sqrt(a); })
        .def("exp", [](const Expr& a) { return expr::exp(a); })
        .def("log", [](const Expr& a) { return expr::log(a); })
        .def("sin", [](const Expr& a) { return expr::sin(a); })
        .def("cos", [](const Expr& a) { return expr::cos(a); })
        .def("tan", [](const Expr& a) { return expr::tan(a); })
        .def("asin", [](const Expr& a) { return expr::asin(a); })
        .def("acos", [](const Expr& a) { return expr::acos(a); })
        .def("atan", [](const Expr& a) { return expr::atan(a); })
        .def("sinh", [](const Expr& a) { return expr::sinh(a); })
        .def("cosh", [](const Expr& a) { return expr::cosh(a); })
        .def("tanh", [](const Expr& a) { return expr::tanh(a); })
        .def("powi", [](const Expr& a, std::int32_t n) { return expr::powi(a, n); })
        .def("as_complex", [](const Expr& a) { return expr::as_complex(a); })
        .def("tagged", &Expr::tagged, py::arg("tag"),
             "This expression marked as the coherent amplitude `tag` (for projections).")
        .def(
            "project",
            [](const Expr& a, const std::vector<std::string>& keep) {
                return expr::project(a, keep);
            },
            py::arg("tags"), "Keep the amplitudes tagged with `tags`, zero the other tagged ones.")
        .def_property_readonly("tags",
                               [](const Expr& a) {
                                   return std::vector<std::string>(a.tags().begin(),
                                                                   a.tags().end());
                               })
        .def_property_readonly("kind", [](const Expr& a) { return to_string(a.value_kind()); })
        .def(
            "to_json", [](const Expr& a) { return expr::to_json(a); },
            "The expression graph as JSON, in laddu's format.")
        .def_static(
            "from_json",
            [](const std::string& json) {
                return from_json_or_value_error([&] { return expr::expr_from_json(json); });
            },
            py::arg("json"), "The expression a to_json() string (laddu's or ours) describes.");
    py::implicitly_convertible<double, Expr>();
    py::implicitly_convertible<std::complex<double>, Expr>();

    module.def(
        "scalar", [](const std::string& name) { return expr::scalar(name); }, py::arg("name"),
        "The event scalar column `name`.");
    module.def("constant", [](const py::object& v) { return to_expr(v); }, py::arg("value"));
    module.def("parameter", &make_parameter, py::arg("name"), py::kw_only(),
               py::arg("initial") = py::none(), py::arg("bounds") = py::none(),
               py::arg("fixed") = std::nullopt, py::arg("periodic") = false, py::arg("unit") = "",
               py::arg("latex") = std::nullopt,
               "A real parameter. initial is a float or a (low, high) range (start: midpoint); "
               "latex is its label in Expr.latex().");
    module.def(
        "complex",
        [](const py::object& re, const py::object& im) {
            return expr::complex(to_expr(re), to_expr(im));
        },
        py::arg("re"), py::arg("im"));
    module.def(
        "polar_complex",
        [](const py::object& r, const py::object& phi) {
            return expr::polar_complex(to_expr(r), to_expr(phi));
        },
        py::arg("magnitude"), py::arg("phase"));
    module.def(
        "cis", [](const py::object& phi) { return expr::cis(to_expr(phi)); }, py::arg("phase"));
    module.def(
        "atan2",
        [](const py::object& y, const py::object& x) {
            return expr::atan2(to_expr(y), to_expr(x));
        },
        py::arg("y"), py::arg("x"));
    module.def("acos", [](const py::object& x) { return expr::acos(to_expr(x)); }, py::arg("x"));
    module.def(
        "vector", [](const py::iterable& items) { return expr::vector(to_exprs(items)); },
        py::arg("elements"));
    module.def("matrix", &make_matrix, py::arg("rows"));
    module.def("dot", [](const py::object& a, const py::object& b) {
        return expr::dot(to_expr(a), to_expr(b));
    });
    module.def("matmul", [](const py::object& a, const py::object& b) {
        return expr::matmul(to_expr(a), to_expr(b));
    });
    module.def("matvec", [](const py::object& a, const py::object& b) {
        return expr::matvec(to_expr(a), to_expr(b));
    });
    module.def(
        "solve",
        [](const py::object& m, const py::object& b) {
            return expr::solve(to_expr(m), to_expr(b));
        },
        py::arg("matrix"), py::arg("rhs"));

    py::class_<expr::Model>(module, "Model", "A model: an intensity expression and its parameters.")
        .def(py::init([](const py::object& e) { return expr::Model(to_expr(e)); }),
             py::arg("expression"))
        .def_property_readonly("expression", &expr::Model::expression)
        .def(
            "to_json", [](const expr::Model& m) { return expr::to_json(m); },
            "The model as JSON, in laddu's format (the graph of its intensity).")
        .def_static(
            "from_json",
            [](const std::string& json) {
                return from_json_or_value_error([&] { return expr::model_from_json(json); });
            },
            py::arg("json"), "The model a to_json() string (laddu's or ours) describes.")
        // laddu's Model.parameter_names lists the free parameters only (the order of parameter
        // vectors and of default_parameters); fixed ones are left out.
        .def_property_readonly("parameter_names",
                               [](const expr::Model& m) { return m.parameters().free_names(); })
        .def_property_readonly("free_parameter_names",
                               [](const expr::Model& m) { return m.parameters().free_names(); })
        .def_property_readonly("default_parameters",
                               [](const expr::Model& m) { return m.parameters().free_defaults(); })
        .def_property_readonly("n_free",
                               [](const expr::Model& m) { return m.parameters().free_count(); })
        .def("fix", &expr::Model::fix, py::arg("name"), py::arg("value"))
        .def("free", &expr::Model::free, py::arg("name"))
        .def("projection", &expr::Model::project, py::arg("tags"))
        .def_property_readonly(
            "amplitude_tags",
            [](const expr::Model& m) { return expr::collect_tags(m.expression()); },
            "Every tag in the model's expression, sorted (laddu-cpp; laddu has no accessor).")
        .def("__str__", [](const expr::Model& m) { return expr::to_string(m.expression()); })
        .def("__repr__", [](const expr::Model& m) {
            return "Model(" + std::to_string(m.parameters().size()) + " parameters)";
        });
}

}  // namespace laddu::python
