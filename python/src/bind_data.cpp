// laddu's dataset API for Python: ld.Dataset.from_arrays(p4s={name: (N, 4)}, scalars={...},
// weights=...), ld.read_parquet, p4_names(), scalar_names(), len(), weights(), sum_weights(),
// slicing, bootstrap, subsample, write_to(ld.ParquetSink(path, precision=)); read_parquet is in
// bind_event_data.cpp.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/base/error.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/data/parquet.hpp>

#include "bindings.hpp"
#include "conversions.hpp"

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
        const auto name = cast_arg<std::string>(key, "a p4s key", "a column name (str)");
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
        const auto name = cast_arg<std::string>(key, "a scalars key", "a column name (str)");
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
    // Columns of different lengths are a ValueError, as in laddu (data::Dataset would throw
    // DataError); a p4 span holds 4 numbers per event.
    std::optional<std::pair<std::string, std::size_t>> first;
    const auto check_length = [&first](const std::string& name, std::size_t events) {
        if (!first) {
            first.emplace(name, events);
        } else if (events != first->second) {
            throw py::value_error(fmt::format("column '{}' has {} events but column '{}' has {}; "
                                              "all dataset columns must have the same number "
                                              "of events",
                                              name, events, first->first, first->second));
        }
    };
    for (const auto& p4 : p4_inputs) {
        check_length(p4.name, p4.values.size() / 4);
    }
    for (const auto& scalar : scalar_inputs) {
        check_length(scalar.name, scalar.values.size());
    }
    if (!weights.is_none()) {
        check_length("weights", weight_span.size());
    }
    return data::Dataset::from_arrays(p4_inputs, scalar_inputs, weight_span);
}

// laddu's Dataset.from_batches(factory): factory(plan) with plan = {chunk_size, rank, nranks}
// returns an iterable of batches, each a mapping of from_arrays' arguments {"p4s": {...},
// "scalars": {...}, "weights": ...}. Every batch must have the first one's schema. The factory
// is called once and the batches are read into memory (laddu calls it once per traversal).
data::Dataset from_batches(const py::object& factory, std::size_t chunk_size) {
    if (PyCallable_Check(factory.ptr()) == 0) {
        throw py::type_error("from_batches takes a callable factory(plan) that yields batches");
    }
    py::dict plan;
    plan["chunk_size"] = chunk_size;
    plan["rank"] = 0;
    plan["nranks"] = 1;
    std::vector<data::Dataset> parts;
    std::size_t index = 0;
    for (const py::handle batch : factory(plan)) {
        if (!py::isinstance<py::dict>(batch)) {
            throw py::type_error(
                fmt::format("batch {} is a '{}'; each batch is a dict with keys "
                            "'p4s', 'scalars' and 'weights' (as from_arrays)",
                            index, std::string(py::str(py::type::of(batch).attr("__name__")))));
        }
        const auto columns = batch.cast<py::dict>();
        for (const auto& [key, value] : columns) {
            const auto name = cast_arg<std::string>(key, "a batch key", "a str");
            if (name != "p4s" && name != "scalars" && name != "weights") {
                throw py::value_error(fmt::format("batch {} has the unknown key '{}'; the keys "
                                                  "are 'p4s', 'scalars' and 'weights'",
                                                  index, name));
            }
        }
        const auto entry = [&columns](const char* key) -> py::object {
            return columns.contains(key) ? py::object(columns[key]) : py::object(py::none());
        };
        const py::object p4s = entry("p4s");
        const py::object scalars = entry("scalars");
        parts.push_back(from_arrays(
            p4s.is_none() ? py::dict() : cast_arg<py::dict>(p4s, "a batch's 'p4s'", "a dict"),
            scalars.is_none() ? py::dict()
                              : cast_arg<py::dict>(scalars, "a batch's 'scalars'", "a dict"),
            entry("weights")));
        if (parts.size() > 1 && !(parts.back().schema() == parts.front().schema())) {
            throw DataError(fmt::format("batch {} has a different schema from batch 0 (p4s [{}], "
                                        "scalars [{}] instead of [{}], [{}])",
                                        index, fmt::join(parts.back().p4_names(), ", "),
                                        fmt::join(parts.back().scalar_names(), ", "),
                                        fmt::join(parts.front().p4_names(), ", "),
                                        fmt::join(parts.front().scalar_names(), ", ")));
        }
        ++index;
    }
    if (parts.empty()) {
        throw DataError("the from_batches factory yielded no batches");
    }
    return data::Dataset::concatenate(parts);
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
        .def_static("from_batches", &from_batches, py::arg("factory"), py::kw_only(),
                    py::arg("chunk_size") = data::kDefaultChunkSize,
                    "From factory(plan) yielding batches {'p4s':, 'scalars':, 'weights':}.")
        .def("concat", &data::Dataset::concat, py::arg("other"),
             "This dataset followed by `other` (same schema).")
        .def("__add__", &data::Dataset::concat, py::arg("other"))
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
                 if (step == 1) {
                     return d.slice(static_cast<std::size_t>(start),
                                    static_cast<std::size_t>(length));
                 }
                 if (step < 0) {
                     throw py::value_error("dataset slices keep the event order: the step must "
                                           "be positive");
                 }
                 return d.select([start, step, stop](const data::EventBatch&, std::size_t row) {
                     const auto r = static_cast<py::ssize_t>(row);
                     return r >= start && r < stop && (r - start) % step == 0;
                 });
             })
        .def("bootstrap", &data::Dataset::bootstrap, py::arg("seed") = 0,
             "Weights multiplied by k ~ Poisson(1) per event (laddu's bootstrap).")
        .def("subsample", &data::Dataset::subsample, py::arg("fraction"), py::arg("seed") = 0)
        .def(
            "write_to",
            [](const data::Dataset& d, const ParquetSink& sink) {
                data::ParquetWriteOptions options;
                if (sink.precision == "f32") {
                    options.precision = data::ColumnType::kFloat32;
                }
                const py::gil_scoped_release release;
                data::write_parquet(d, sink.path, options);
            },
            py::arg("sink"))
        .def("__repr__", [](const data::Dataset& d) {
            return "Dataset(" + std::to_string(d.size()) + " events)";
        });

    py::class_<ParquetSink>(module, "ParquetSink", "Where Dataset.write_to writes a Parquet file.")
        .def(py::init([](const py::object& path, const std::string& precision) {
                 // Checked here, as laddu does, not when the first file is written.
                 if (precision != "f64" && precision != "f32") {
                     throw py::value_error("precision must be 'f32' or 'f64'");
                 }
                 return ParquetSink{fs_path(path), precision};
             }),
             py::arg("path"), py::kw_only(), py::arg("precision") = "f64")
        .def_property_readonly("path",
                               [](const ParquetSink& sink) {
                                   return py::module_::import("os").attr("fsdecode")(
                                       py::bytes(sink.path));
                               })
        .def_readonly("precision", &ParquetSink::precision);
}

}  // namespace laddu::python
