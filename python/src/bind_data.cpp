// laddu's dataset API for Python: ld.Dataset.from_arrays(p4s={name: (N, 4)}, scalars={...},
// weights=...), ld.read_parquet, p4_names(), scalar_names(), len(), weights(), sum_weights(),
// slicing, bootstrap, subsample, write_to(ld.ParquetSink(path, precision=)).
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/base/error.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/data/parquet.hpp>

#include "bindings.hpp"

namespace py = pybind11;

namespace laddu::python {

namespace {

using DoubleArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

// A float array converted to contiguous float64 (float32 is promoted, as laddu does); the
// returned array keeps the converted buffer alive while C++ reads it.
DoubleArray as_float64(const py::handle& value, const std::string& what) {
    const py::array array = py::array::ensure(value);
    if (!array) {
        throw py::value_error(what + " must be an array of numbers");
    }
    if (array.dtype().kind() != 'f' && array.dtype().kind() != 'i' && array.dtype().kind() != 'u') {
        throw py::value_error(what + " must hold numbers, got dtype " +
                              std::string(py::str(array.dtype())));
    }
    return DoubleArray::ensure(array);
}

data::Dataset from_arrays(const py::dict& p4s, const py::dict& scalars, const py::object& weights) {
    std::vector<DoubleArray> keep;  // owns converted buffers until the dataset has copied them
    std::vector<data::P4ArrayInput> p4_inputs;
    std::vector<data::ScalarInput> scalar_inputs;
    for (const auto& [key, value] : p4s) {
        const auto name = key.cast<std::string>();
        DoubleArray array = as_float64(value, "p4s['" + name + "']");
        if (array.ndim() != 2 || array.shape(1) != 4) {
            std::string shape;
            for (py::ssize_t d = 0; d < array.ndim(); ++d) {
                shape += (d ? ", " : "") + std::to_string(array.shape(d));
            }
            throw py::value_error("p4s['" + name +
                                  "'] must have shape (N, 4) with columns (E, px, "
                                  "py, pz), got shape (" +
                                  shape + ")");
        }
        p4_inputs.push_back({name, {array.data(), static_cast<std::size_t>(array.size())}});
        keep.push_back(std::move(array));
    }
    for (const auto& [key, value] : scalars) {
        const auto name = key.cast<std::string>();
        DoubleArray array = as_float64(value, "scalars['" + name + "']");
        if (array.ndim() != 1) {
            throw py::value_error("scalars['" + name + "'] must be one-dimensional (N,), got " +
                                  std::to_string(array.ndim()) + " dimensions");
        }
        scalar_inputs.push_back({name, {array.data(), static_cast<std::size_t>(array.size())}});
        keep.push_back(std::move(array));
    }
    std::span<const double> weight_span;
    if (!weights.is_none()) {
        DoubleArray array = as_float64(weights, "weights");
        if (array.ndim() != 1) {
            throw py::value_error("weights must be one-dimensional (N,)");
        }
        weight_span = {array.data(), static_cast<std::size_t>(array.size())};
        keep.push_back(std::move(array));
    }
    return data::Dataset::from_arrays(p4_inputs, scalar_inputs, weight_span);
}

py::array_t<double> to_numpy(std::span<const double> values) {
    py::array_t<double> out(static_cast<py::ssize_t>(values.size()));
    std::copy(values.begin(), values.end(), out.mutable_data());
    return out;
}

// laddu's ParquetSink(path, precision='f64'|'f32').
struct ParquetSink {
    std::string path;
    std::string precision = "f64";
};

}  // namespace

void bind_data(py::module_& module) {
    py::class_<data::Dataset>(module, "Dataset", "Events in memory with laddu's column names.")
        .def_static("from_arrays", &from_arrays, py::kw_only(), py::arg("p4s") = py::dict(),
                    py::arg("scalars") = py::dict(), py::arg("weights") = py::none(),
                    "From arrays: p4s={name: (N, 4) array of (E, px, py, pz)}, "
                    "scalars={name: (N,)}, weights=(N,) (default 1).")
        .def("__len__", &data::Dataset::size)
        .def_property_readonly("n_events", &data::Dataset::size)
        .def("p4_names", [](const data::Dataset& d) { return d.p4_names(); })
        .def("scalar_names", [](const data::Dataset& d) { return d.scalar_names(); })
        .def("weights", [](const data::Dataset& d) { return to_numpy(d.weights()); })
        .def("sum_weights", &data::Dataset::sum_weights)
        .def(
            "column",
            [](const data::Dataset& d, const std::string& name) {
                return to_numpy(d.column(name));
            },
            py::arg("name"))
        .def(
            "p4",
            [](const data::Dataset& d, const std::string& name) {
                const std::size_t p = d.schema().require_p4(name);
                const std::size_t n = d.size();
                py::array_t<double> out({static_cast<py::ssize_t>(n), py::ssize_t{4}});
                auto view = out.mutable_unchecked<2>();
                for (std::size_t c = 0; c < 4; ++c) {
                    const std::span<const double> col = d.batch().p4_component(p, c);
                    for (std::size_t i = 0; i < n; ++i) {
                        view(static_cast<py::ssize_t>(i), static_cast<py::ssize_t>(c)) = col[i];
                    }
                }
                return out;
            },
            py::arg("name"), "The four-momentum `name` as an (N, 4) array.")
        .def("__getitem__",
             [](const data::Dataset& d, const py::slice& slice) {
                 py::ssize_t start = 0, stop = 0, step = 0, length = 0;
                 if (!slice.compute(static_cast<py::ssize_t>(d.size()), &start, &stop, &step,
                                    &length)) {
                     throw py::error_already_set();
                 }
                 if (step != 1) {
                     throw py::value_error("dataset slices must be contiguous (step 1)");
                 }
                 return d.slice(static_cast<std::size_t>(start), static_cast<std::size_t>(length));
             })
        .def("bootstrap", &data::Dataset::bootstrap, py::arg("seed"),
             "Weights multiplied by k ~ Poisson(1) per event (laddu's bootstrap).")
        .def("subsample", &data::Dataset::subsample, py::arg("fraction"), py::arg("seed") = 0)
        .def(
            "write_to",
            [](const data::Dataset& d, const ParquetSink& sink) {
                data::ParquetWriteOptions options;
                if (sink.precision == "f32") {
                    options.precision = data::ColumnType::kFloat32;
                } else if (sink.precision != "f64") {
                    throw py::value_error("precision must be 'f64' or 'f32', got '" +
                                          sink.precision + "'");
                }
                const py::gil_scoped_release release;
                data::write_parquet(d, sink.path, options);
            },
            py::arg("sink"))
        .def("__repr__", [](const data::Dataset& d) {
            return "Dataset(" + std::to_string(d.size()) + " events)";
        });

    py::class_<ParquetSink>(module, "ParquetSink", "Where Dataset.write_to writes a Parquet file.")
        .def(py::init([](const std::string& path, const std::string& precision) {
                 return ParquetSink{path, precision};
             }),
             py::arg("path"), py::kw_only(), py::arg("precision") = "f64")
        .def_readonly("path", &ParquetSink::path)
        .def_readonly("precision", &ParquetSink::precision);

    module.def(
        "read_parquet",
        [](const py::object& paths) {
            std::vector<std::string> patterns;
            const py::object fspath = py::module_::import("os").attr("fspath");
            if (py::isinstance<py::str>(paths) || py::hasattr(paths, "__fspath__")) {
                patterns.push_back(fspath(paths).cast<std::string>());
            } else {
                for (const py::handle p : paths) {
                    patterns.push_back(fspath(p).cast<std::string>());
                }
            }
            const py::gil_scoped_release release;
            return data::read_parquet(patterns);
        },
        py::arg("path"), "Reads Parquet files (a path, a glob or a list of them) into memory.");
}

}  // namespace laddu::python
