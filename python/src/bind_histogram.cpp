// laddu's Histogram for Python (laddu/src/python/histogram.rs: the same constructor, static
// methods, properties, keyword-only arguments and defaults), plus laddu-cpp's extensions:
// Histogram.from_dataset (an expression histogrammed over a Dataset with its event weights) and
// HistogramNd. Invalid histograms raise ld.DataError (an ld.LadduError, as laddu raises);
// arguments of the wrong type raise TypeError, as laddu's do. Histogram.plot is pure Python
// (laddu_cpp/_plotting.py).
#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/base/error.hpp>
#include <laddu/data/histogram.hpp>

#include "bindings.hpp"
#include "conversions.hpp"

namespace py = pybind11;

namespace laddu::python {

namespace {

using data::Histogram;
using data::HistogramNd;

using FloatSequence = std::vector<double>;

// laddu's float_vec: a one-dimensional float sequence or numeric NumPy array, else a TypeError.
// Items are read by index (a py::handle bound by a range-for over a sequence would dangle).
FloatSequence float_vector(const py::handle& value, const std::string& what) {
    if (py::isinstance<py::array>(value)) {
        const auto array = py::reinterpret_borrow<py::array>(value);
        const char kind = array.dtype().kind();
        if (array.ndim() != 1 || (kind != 'f' && kind != 'i' && kind != 'u')) {
            throw py::type_error(fmt::format(
                "{} must be a one-dimensional float sequence or numeric NumPy array, got an "
                "array of dtype {} with {} dimensions",
                what, std::string(py::str(array.dtype())), array.ndim()));
        }
        const auto converted = py::array_t < double,
                   py::array::c_style | py::array::forcecast > ::ensure(array);
        return {converted.data(), converted.data() + converted.size()};
    }
    if (py::isinstance<py::str>(value) || py::isinstance<py::bytes>(value) ||
        !py::isinstance<py::sequence>(value)) {
        throw py::type_error(fmt::format("{} must be a one-dimensional float sequence or numeric "
                                         "NumPy array, got {}",
                                         what, python_type_name(value)));
    }
    const auto sequence = py::reinterpret_borrow<py::sequence>(value);
    const std::size_t n = sequence.size();
    FloatSequence out;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        const py::object item = sequence[i];
        if (py::isinstance<py::str>(item) || py::isinstance<py::bytes>(item)) {
            throw py::type_error(
                fmt::format("{}[{}] must be a float, got {}", what, i, python_type_name(item)));
        }
        const double x = PyFloat_AsDouble(item.ptr());
        if (x == -1.0 && PyErr_Occurred()) {
            if (!PyErr_ExceptionMatches(PyExc_TypeError)) {
                throw py::error_already_set();  // the item's own exception (e.g. from __float__)
            }
            PyErr_Clear();
            throw py::type_error(
                fmt::format("{}[{}] must be a float, got {}", what, i, python_type_name(item)));
        }
        out.push_back(x);
    }
    return out;
}

std::optional<FloatSequence> optional_floats(const py::object& value, const std::string& what) {
    if (value.is_none()) {
        return std::nullopt;
    }
    return float_vector(value, what);
}

std::optional<std::span<const double>> as_span(const std::optional<FloatSequence>& values) {
    if (!values) {
        return std::nullopt;
    }
    return std::span<const double>(*values);
}

// A list of edge lists, one per axis.
std::vector<FloatSequence> edge_lists(const py::handle& value) {
    if (py::isinstance<py::str>(value) || py::isinstance<py::bytes>(value) ||
        !py::isinstance<py::sequence>(value)) {
        throw py::type_error(
            fmt::format("bin_edges must be a list with one edge sequence per axis, got {}",
                        python_type_name(value)));
    }
    const auto sequence = py::reinterpret_borrow<py::sequence>(value);
    std::vector<FloatSequence> out;
    for (std::size_t axis = 0; axis < sequence.size(); ++axis) {
        const py::object item = sequence[axis];
        out.push_back(float_vector(item, fmt::format("bin_edges[{}]", axis)));
    }
    return out;
}

// The value columns of HistogramNd.from_values: an (N, D) array as numpy.histogramdd takes it, a
// 1-D array for a single axis, or a sequence of D one-dimensional columns.
std::vector<FloatSequence> value_columns(const py::handle& value) {
    if (py::isinstance<py::array>(value)) {
        const auto array = py::reinterpret_borrow<py::array>(value);
        if (array.ndim() == 1) {
            return {float_vector(array, "columns")};
        }
        if (array.ndim() == 2) {
            const py::array columns = array.attr("T");
            std::vector<FloatSequence> out;
            for (py::ssize_t d = 0; d < columns.shape(0); ++d) {
                const py::object column = columns[py::int_(d)];
                out.push_back(float_vector(column, fmt::format("columns[:, {}]", d)));
            }
            return out;
        }
        throw py::type_error(
            fmt::format("columns must be an (N, D) array or a list of D one-dimensional "
                        "arrays, got an array with {} dimensions",
                        array.ndim()));
    }
    if (py::isinstance<py::str>(value) || py::isinstance<py::bytes>(value) ||
        !py::isinstance<py::sequence>(value)) {
        throw py::type_error(fmt::format(
            "columns must be an (N, D) array or a list of D one-dimensional arrays, got {}",
            python_type_name(value)));
    }
    const auto sequence = py::reinterpret_borrow<py::sequence>(value);
    std::vector<FloatSequence> out;
    for (std::size_t d = 0; d < sequence.size(); ++d) {
        const py::object item = sequence[d];
        out.push_back(float_vector(item, fmt::format("columns[{}]", d)));
    }
    return out;
}

std::vector<std::span<const double>> spans(const std::vector<FloatSequence>& columns) {
    return {columns.begin(), columns.end()};
}

// A flat row-major vector as a NumPy array of the histogram's shape.
py::array_t<double> shaped(const std::vector<double>& values,
                           const std::vector<std::size_t>& shape) {
    py::array_t<double> out(std::vector<py::ssize_t>(shape.begin(), shape.end()));
    std::copy(values.begin(), values.end(), out.mutable_data());
    return out;
}

std::string format_float(double x) {
    return py::str(py::float_(x));
}

Histogram from_dataset(const py::object& expr, const py::object& dataset, const py::object& bins,
                       const std::optional<std::pair<double, double>>& limits,
                       const py::object& bin_edges) {
    const py::object dataset_type = py::module_::import("laddu_cpp._core").attr("Dataset");
    if (!py::isinstance(dataset, dataset_type)) {
        throw py::type_error(
            fmt::format("dataset must be an ld.Dataset, got {}", python_type_name(dataset)));
    }
    const bool uniform = !bins.is_none() || limits.has_value();
    if (uniform == !bin_edges.is_none()) {
        throw DataError(
            "Histogram.from_dataset needs either bins= and limits= or bin_edges=, not both or "
            "neither");
    }
    std::optional<Histogram> histogram;
    if (uniform) {
        if (bins.is_none() || !limits) {
            throw DataError("Histogram.from_dataset needs both bins= and limits=(low, high)");
        }
        const auto count = cast_arg<std::size_t>(bins, "bins", "a nonnegative int");
        histogram = Histogram::uniform(count, limits->first, limits->second);
    } else {
        histogram = Histogram::with_edges(float_vector(bin_edges, "bin_edges"));
    }
    // Dataset.evaluate compiles the expression and runs it over the events (file-backed ones
    // window by window); the real part is histogrammed, with the dataset's event weights.
    const FloatSequence values =
        float_vector(dataset.attr("evaluate")(expr, py::arg("real") = true), "the values");
    const FloatSequence weights = float_vector(dataset.attr("weights")(), "the weights");
    if (weights.size() != values.size()) {
        throw InternalError("Histogram.from_dataset: values and weights differ in length");
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (!std::isfinite(values[i])) {
            throw DataError(fmt::format(
                "the expression is {} for event {}; select events where it is finite first "
                "(Dataset.select)",
                values[i], i));
        }
        histogram->fill(values[i], weights[i]);
    }
    return *histogram;
}

void bind_histogram_1d(py::module_& module) {
    py::class_<Histogram>(module, "Histogram",
                          "A weighted one-dimensional histogram with explicit flow bins.\n\n"
                          "Histogram(counts, *, bin_edges, underflow=0.0, overflow=0.0, "
                          "errors=None): strictly increasing edges, one more than counts; errors "
                          "default to sqrt(|count|). A value v is in bin k when edges[k] <= v < "
                          "edges[k+1]; v >= edges[-1] is overflow (unlike numpy.histogram).")
        .def(py::init([](const py::object& counts, const py::object& bin_edges, double underflow,
                         double overflow, const py::object& errors) {
                 Histogram h(float_vector(counts, "counts"), float_vector(bin_edges, "bin_edges"),
                             underflow, overflow);
                 if (const auto e = optional_floats(errors, "errors")) {
                     h.set_errors(*e);
                 }
                 return h;
             }),
             py::arg("counts"), py::kw_only(), py::arg("bin_edges"), py::arg("underflow") = 0.0,
             py::arg("overflow") = 0.0, py::arg("errors") = py::none())
        .def_static(
            "from_values",
            [](const py::object& values, std::size_t bins, std::pair<double, double> limits,
               const py::object& weights) {
                const FloatSequence v = float_vector(values, "values");
                const auto w = optional_floats(weights, "weights");
                return Histogram::from_values(v, bins, limits.first, limits.second, as_span(w));
            },
            py::arg("values"), py::kw_only(), py::arg("bins"), py::arg("limits"),
            py::arg("weights") = py::none(),
            "Histogram samples into `bins` equal-width bins over limits=(low, high), with "
            "optional per-sample weights (default 1).")
        .def_static(
            "from_values_with_edges",
            [](const py::object& values, const py::object& bin_edges, const py::object& weights) {
                const FloatSequence v = float_vector(values, "values");
                const auto w = optional_floats(weights, "weights");
                return Histogram::from_values_with_edges(v, float_vector(bin_edges, "bin_edges"),
                                                         as_span(w));
            },
            py::arg("values"), py::kw_only(), py::arg("bin_edges"), py::arg("weights") = py::none(),
            "Histogram samples using explicit bin edges.")
        .def_static(
            "from_dataset",
            [](const py::object& expr, const py::object& dataset, const py::object& bins,
               const std::optional<std::pair<double, double>>& limits,
               const py::object& bin_edges) {
                return from_dataset(expr, dataset, bins, limits, bin_edges);
            },
            py::arg("expr"), py::arg("dataset"), py::kw_only(), py::arg("bins") = py::none(),
            py::arg("limits") = py::none(), py::arg("bin_edges") = py::none(),
            "laddu-cpp extension: histogram the real part of `expr` evaluated over `dataset` "
            "(parameters at their defaults), each event with its dataset weight. Give bins= and "
            "limits=(low, high), or bin_edges=. An event where the expression is not finite is "
            "an ld.DataError.")
        .def_property(
            "counts", [](const Histogram& h) { return h.counts(); },
            [](Histogram& h, const py::object& counts) {
                h.set_counts(float_vector(counts, "counts"));
            },
            "list of float: regular-bin contents (setting keeps the uncertainties).")
        .def_property(
            "errors", [](const Histogram& h) { return h.errors(); },
            [](Histogram& h, const py::object& errors) {
                h.set_errors(float_vector(errors, "errors"));
            },
            "list of float: uncertainty of each regular bin.")
        .def("set_bin", &Histogram::set_bin, py::arg("index"), py::kw_only(),
             py::arg("count") = py::none(), py::arg("error") = py::none(),
             "Set the count and/or uncertainty of one regular bin (all or nothing).")
        .def("fill", &Histogram::fill, py::arg("value"), py::kw_only(), py::arg("weight") = 1.0,
             py::arg("error") = py::none(),
             "Add a value with an optional weight. If `error` is omitted, the weight contributes "
             "to the bin uncertainty in quadrature.")
        .def_property_readonly(
            "bin_edges", [](const Histogram& h) { return h.bin_edges(); }, "list of float")
        .def_property_readonly("underflow", &Histogram::underflow,
                               "float: weight below the first edge.")
        .def_property_readonly("overflow", &Histogram::overflow,
                               "float: weight at or above the last edge.")
        .def_property_readonly("bins", &Histogram::bins, "int: number of regular bins.")
        .def_property_readonly("limits", &Histogram::limits, "tuple of float: (low, high).")
        .def("total_weight", &Histogram::total_weight, py::kw_only(),
             py::arg("include_flow") = false,
             "Sum of the regular bins, plus underflow and overflow with include_flow=True.")
        .def("bin_index", &Histogram::bin_index, py::arg("value"),
             "The regular-bin index containing `value`, or None for flow and NaN.")
        .def("bin_center", &Histogram::bin_center, py::arg("index"),
             "A regular bin's center, or None for an invalid index.")
        .def("normalized", &Histogram::normalized, py::kw_only(), py::arg("include_flow") = false,
             "A copy normalized to unit total weight (regular bins, or with flow).")
        .def("density", &Histogram::density, py::kw_only(), py::arg("signed") = false,
             "A copy divided by total weight and bin width; signed=True allows negative "
             "weights.")
        .def("to_json", &Histogram::to_json, "This histogram as laddu's JSON string.")
        .def_static(
            "from_json", [](const std::string& json) { return Histogram::from_json(json); },
            py::arg("json"), "A histogram from a JSON string (laddu's or to_json's).")
        .def("__repr__", [](const Histogram& h) {
            return fmt::format("Histogram(bins={}, limits=({}, {}), total_weight={})", h.bins(),
                               format_float(h.limits().first), format_float(h.limits().second),
                               format_float(h.total_weight()));
        });
}

void bind_histogram_nd(py::module_& module) {
    py::class_<HistogramNd>(
        module, "HistogramNd",
        "laddu-cpp extension (laddu has no N-dimensional histogram): a weighted histogram over "
        "several axes.\n\nHistogramNd(bin_edges): empty, one strictly increasing edge sequence "
        "per axis. Each axis bins as Histogram does (edges[k] <= v < edges[k+1]; the last edge "
        "is outside, unlike numpy.histogramdd). counts and errors (sqrt of the sum of squared "
        "weights) are arrays of shape `shape`; the weight of points outside the grid is "
        "`outside`.")
        .def(py::init(
                 [](const py::object& bin_edges) { return HistogramNd(edge_lists(bin_edges)); }),
             py::arg("bin_edges"))
        .def_static(
            "from_values",
            [](const py::object& columns, const py::object& bin_edges, const py::object& weights) {
                const std::vector<FloatSequence> cols = value_columns(columns);
                const auto w = optional_floats(weights, "weights");
                return HistogramNd::from_values(spans(cols), edge_lists(bin_edges), as_span(w));
            },
            py::arg("columns"), py::kw_only(), py::arg("bin_edges"),
            py::arg("weights") = py::none(),
            "Histogram points given as an (N, D) array (as numpy.histogramdd) or a list of D "
            "columns, with bin_edges a list of D edge sequences and optional weights.")
        .def(
            "fill",
            [](HistogramNd& h, const py::object& point, double weight) {
                h.fill(float_vector(point, "point"), weight);
            },
            py::arg("point"), py::kw_only(), py::arg("weight") = 1.0,
            "Add one point (a coordinate per axis) with a weight.")
        .def_property_readonly(
            "counts", [](const HistogramNd& h) { return shaped(h.counts(), h.shape()); },
            "numpy.ndarray of shape `shape`: the weight in each bin.")
        .def_property_readonly(
            "errors", [](const HistogramNd& h) { return shaped(h.errors(), h.shape()); },
            "numpy.ndarray of shape `shape`: sqrt(sum of squared weights) per bin.")
        .def_property_readonly(
            "shape",
            [](const HistogramNd& h) {
                py::tuple out(h.shape().size());
                for (std::size_t i = 0; i < h.shape().size(); ++i) {
                    out[i] = py::int_(h.shape()[i]);
                }
                return out;
            },
            "tuple of int: bins per axis.")
        .def_property_readonly("ndim", &HistogramNd::ndim, "int: number of axes.")
        .def_property_readonly(
            "bin_edges", [](const HistogramNd& h) { return h.bin_edges(); },
            "list of list of float: the edges of each axis.")
        .def_property_readonly("outside", &HistogramNd::outside,
                               "float: weight of the points outside the grid.")
        .def("total_weight", &HistogramNd::total_weight, py::kw_only(),
             py::arg("include_flow") = false,
             "Sum of the bins, plus the outside weight with include_flow=True.")
        .def(
            "bin_volumes", [](const HistogramNd& h) { return shaped(h.bin_volumes(), h.shape()); },
            "numpy.ndarray of shape `shape`: the product of each bin's widths.")
        .def(
            "bin_index",
            [](const HistogramNd& h, const py::object& point) -> py::object {
                const std::optional<std::size_t> flat = h.bin_index(float_vector(point, "point"));
                if (!flat) {
                    return py::none();
                }
                py::tuple out(h.ndim());
                std::size_t rest = *flat;
                for (std::size_t axis = h.ndim(); axis-- > 0;) {
                    out[axis] = py::int_(rest % h.shape()[axis]);
                    rest /= h.shape()[axis];
                }
                return out;
            },
            py::arg("point"),
            "The per-axis bin indices (a tuple, usable as counts[index]) of a point, or None "
            "outside the grid.")
        .def("density", &HistogramNd::density, py::kw_only(), py::arg("signed") = false,
             "A copy divided by total weight and bin volume (integrates to 1 over the grid).")
        .def("__repr__", [](const HistogramNd& h) {
            std::string shape;
            for (std::size_t i = 0; i < h.shape().size(); ++i) {
                shape += (i ? ", " : "") + std::to_string(h.shape()[i]);
            }
            if (h.shape().size() == 1) {
                shape += ",";
            }
            return fmt::format("HistogramNd(shape=({}), total_weight={})", shape,
                               format_float(h.total_weight()));
        });
}

}  // namespace

void bind_histogram(py::module_& module) {
    bind_histogram_1d(module);
    bind_histogram_nd(module);
}

}  // namespace laddu::python
