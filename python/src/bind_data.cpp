// laddu's dataset API for Python: ld.Dataset (resident from from_arrays, read on traversal
// from from_batches' factory or read_parquet's files), p4_names(), scalar_names(), len(),
// weights(), sum_weights(), slicing, bootstrap, subsample, write_to(ld.ParquetSink(path,
// precision=)). read_parquet is in bind_event_data.cpp; select, evaluate and bin_by in
// bind_select.cpp.
#include <cstdint>
#include <memory>
#include <mutex>
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
#include <laddu/data/event_data.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/data/root.hpp>

#include "bindings.hpp"
#include "conversions.hpp"
#include "event_data.hpp"
#include "memory.hpp"

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

// A batch dict of from_batches ({"p4s": {...}, "scalars": {...}, "weights": ...}) as events;
// `index` names the batch in errors.
data::Dataset batch_from_dict(const py::handle& batch, std::size_t index) {
    if (!py::isinstance<py::dict>(batch)) {
        throw py::type_error(fmt::format("batch {} is a '{}'; each batch is a dict with keys "
                                         "'p4s', 'scalars' and 'weights' (as from_arrays)",
                                         index, python_type_name(batch)));
    }
    const auto columns = batch.cast<py::dict>();
    for (const auto& [key, value] : columns) {
        const auto name = cast_arg<std::string>(key, "a batch key", "a str");
        if (name != "p4s" && name != "scalars" && name != "weights") {
            throw py::value_error(fmt::format("batch {} has the unknown key '{}'; the keys are "
                                              "'p4s', 'scalars' and 'weights'",
                                              index, name));
        }
    }
    const auto entry = [&columns](const char* key) -> py::object {
        return columns.contains(key) ? py::object(columns[key]) : py::object(py::none());
    };
    const py::object p4s = entry("p4s");
    const py::object scalars = entry("scalars");
    return from_arrays(
        p4s.is_none() ? py::dict() : cast_arg<py::dict>(p4s, "a batch's 'p4s'", "a dict"),
        scalars.is_none() ? py::dict()
                          : cast_arg<py::dict>(scalars, "a batch's 'scalars'", "a dict"),
        entry("weights"));
}

// A Python callable shared with C++ sources, released under the GIL whatever thread drops it.
std::shared_ptr<const py::object> shared_callable(py::object callable) {
    return {new py::object(std::move(callable)), [](const py::object* owned) {
                const py::gil_scoped_acquire gil;
                delete owned;
            }};
}

// laddu's Dataset.from_batches source: every read calls factory(chunk_size=, rank=, nranks=)
// for a fresh iterable of batch dicts, converted under the GIL as they are pulled, cut to the
// plan's chunk size and ranges and projected. A Python error in the factory or a batch that
// does not match the declared schema is a DataError naming the batch.
class PythonBatchSource final : public data::EventSource {
public:
    PythonBatchSource(std::shared_ptr<const py::object> factory,
                      std::shared_ptr<const data::Schema> schema,
                      std::optional<std::uint64_t> length)
        : factory_(std::move(factory)), schema_(std::move(schema)), length_(length) {}

    [[nodiscard]] const data::Schema& schema() const override { return *schema_; }

    // Without length= the count is one traversal, made once.
    [[nodiscard]] std::uint64_t num_events() const override {
        std::call_once(counted_, [this] {
            if (length_) {
                return;
            }
            std::uint64_t n = 0;
            const auto stream = open(data::ReadPlan{}, /*checked=*/false);
            while (const auto batch = stream->next()) {
                n += batch->size();
            }
            length_ = n;
        });
        return *length_;
    }

    [[nodiscard]] std::unique_ptr<data::BatchStream>
    read(const data::ReadPlan& plan) const override {
        return open(plan, /*checked=*/true);
    }

private:
    class Stream final : public data::BatchStream {
    public:
        Stream(const PythonBatchSource& source, data::ReadPlan plan, py::object iterator)
            : factory_(source.factory_), schema_(source.schema_),
              projected_(plan.columns.empty() ? nullptr
                                              : std::make_shared<const data::Schema>(
                                                    source.schema_->project(plan.columns))),
              plan_(std::move(plan)), iterator_(shared_callable(std::move(iterator))),
              expected_(source.length_) {}

        std::optional<data::EventBatch> next() override {
            while (true) {
                if (offset_ < current_.size()) {
                    if (auto piece = cut()) {
                        return piece;
                    }
                    continue;
                }
                if (!pull()) {
                    if (expected_ && position_ != *expected_) {
                        throw DataError(fmt::format("the from_batches factory yielded {} events "
                                                    "but length={} was declared",
                                                    position_, *expected_));
                    }
                    return std::nullopt;
                }
            }
        }

    private:
        // The next batch from Python into current_; false when the iterable is exhausted.
        bool pull() {
            data::Dataset events;
            {
                const py::gil_scoped_acquire gil;
                try {
                    py::object batch =
                        py::reinterpret_steal<py::object>(PyIter_Next(iterator_->ptr()));
                    if (!batch) {
                        if (PyErr_Occurred() != nullptr) {
                            throw py::error_already_set();
                        }
                        return false;
                    }
                    events = batch_from_dict(batch, index_);
                } catch (py::error_already_set& e) {
                    throw DataError(fmt::format("the from_batches factory failed at batch {}: {}",
                                                index_, e.what()));
                } catch (const py::builtin_exception& e) {
                    throw DataError(
                        fmt::format("from_batches batch {} is invalid: {}", index_, e.what()));
                }
            }
            if (!(events.schema() == *schema_)) {
                throw DataError(fmt::format(
                    "from_batches batch {} has p4s [{}], scalars [{}] (weights: {}) but the "
                    "declared schema has p4s [{}], scalars [{}] (weights: {})",
                    index_, fmt::join(events.p4_names(), ", "),
                    fmt::join(events.scalar_names(), ", "), events.schema().has_weight(),
                    fmt::join(schema_->p4_names(), ", "), fmt::join(schema_->scalar_names(), ", "),
                    schema_->has_weight()));
            }
            ++index_;
            current_ = events.batch().with_schema(schema_);
            first_ = position_;
            position_ += current_.size();
            offset_ = 0;
            return true;
        }

        // The next piece of current_ inside the plan's ranges and chunk size, or nullopt when
        // the rest of current_ is outside them.
        std::optional<data::EventBatch> cut() {
            std::uint64_t begin = first_ + offset_;
            const std::uint64_t end = first_ + current_.size();
            if (!plan_.ranges.empty()) {
                while (range_ < plan_.ranges.size() && plan_.ranges[range_].second <= begin) {
                    ++range_;
                }
                if (range_ == plan_.ranges.size() || plan_.ranges[range_].first >= end) {
                    offset_ = current_.size();
                    return std::nullopt;
                }
                begin = std::max(begin, plan_.ranges[range_].first);
            }
            std::uint64_t stop = std::min<std::uint64_t>(end, begin + plan_.chunk_size);
            if (!plan_.ranges.empty()) {
                stop = std::min(stop, plan_.ranges[range_].second);
            }
            const data::EventBatch piece = current_.slice(static_cast<std::size_t>(begin - first_),
                                                          static_cast<std::size_t>(stop - begin));
            offset_ = static_cast<std::size_t>(stop - first_);
            return projected_ ? data::project_batch(piece, projected_) : piece;
        }

        std::shared_ptr<const py::object> factory_;  ///< keeps the factory alive while reading
        std::shared_ptr<const data::Schema> schema_;
        std::shared_ptr<const data::Schema> projected_;
        data::ReadPlan plan_;
        std::shared_ptr<const py::object> iterator_;
        std::optional<std::uint64_t> expected_;
        data::EventBatch current_;
        std::uint64_t first_ = 0;     ///< the index of current_'s first event
        std::uint64_t position_ = 0;  ///< events pulled so far
        std::size_t offset_ = 0;      ///< rows of current_ already emitted or skipped
        std::size_t range_ = 0;
        std::size_t index_ = 0;  ///< the next batch's number
    };

    std::unique_ptr<data::BatchStream> open(const data::ReadPlan& plan, bool checked) const {
        if (checked) {
            data::check_read_plan(plan, num_events());
        }
        const auto [rank, size] = mpi_rank_and_size();
        const py::gil_scoped_acquire gil;
        py::object iterator;
        try {
            const py::object iterable =
                (*factory_)(py::arg("chunk_size") = plan.chunk_size, py::arg("rank") = rank,
                            py::arg("nranks") = size);
            iterator = py::reinterpret_steal<py::object>(PyObject_GetIter(iterable.ptr()));
            if (!iterator) {
                throw py::error_already_set();
            }
        } catch (py::error_already_set& e) {
            throw DataError(fmt::format("the from_batches factory failed: {}", e.what()));
        }
        return std::make_unique<Stream>(*this, plan, std::move(iterator));
    }

    std::shared_ptr<const py::object> factory_;
    std::shared_ptr<const data::Schema> schema_;
    mutable std::optional<std::uint64_t> length_;
    mutable std::once_flag counted_;
};

// laddu's Dataset.from_batches(batch_factory, *, schema, length=None, memory=None,
// cache='fastest'): schema = {"p4s": [...], "scalars": [...], "weights": bool}.
PyDataset from_batches(const py::object& factory, const py::dict& schema,
                       std::optional<std::uint64_t> length, const py::object& memory,
                       const std::string& cache) {
    if (PyCallable_Check(factory.ptr()) == 0) {
        throw py::type_error("batch_factory must be callable");
    }
    const auto names = [&schema](const char* key) {
        if (!schema.contains(key)) {
            throw py::value_error(fmt::format("schema is missing '{}'", key));
        }
        return cast_arg<std::vector<std::string>>(schema[key], fmt::format("schema['{}']", key),
                                                  "a sequence of column names");
    };
    const bool has_weight = schema.contains("weights") &&
                            cast_arg<bool>(schema["weights"], "schema['weights']", "a bool");
    auto declared =
        std::make_shared<const data::Schema>(names("p4s"), names("scalars"), has_weight);
    auto source =
        std::make_shared<PythonBatchSource>(shared_callable(factory), std::move(declared), length);
    return PyDataset{data::EventData::from_source(std::move(source), cache_policy(cache)),
                     memory_plan(memory)};
}

py::array_t<double> to_numpy(std::span<const double> values) {
    py::array_t<double> out(static_cast<py::ssize_t>(values.size()));
    std::copy(values.begin(), values.end(), out.mutable_data());
    return out;
}

}  // namespace

void bind_data(py::module_& module) {
    py::class_<PyDataset>(module, "Dataset",
                          "Weighted events with laddu's column names: resident (from_arrays) or "
                          "read from files or a factory when traversed (read_parquet, "
                          "from_batches).")
        .def_static(
            "from_arrays",
            [](const py::dict& p4s, const py::dict& scalars, const py::object& weights) {
                return resident(from_arrays(p4s, scalars, weights));
            },
            py::kw_only(), py::arg("p4s") = py::dict(), py::arg("scalars") = py::dict(),
            py::arg("weights") = py::none(),
            "From arrays: p4s={name: (N, 4) array of (E, px, py, pz)}, scalars={name: (N,)}, "
            "weights=(N,) (default 1). A resident dataset.")
        .def_static("from_batches", &from_batches, py::arg("batch_factory"), py::kw_only(),
                    py::arg("schema"), py::arg("length") = py::none(),
                    py::arg("memory") = py::none(), py::arg("cache") = "fastest",
                    "A dataset read from batch_factory(chunk_size=, rank=, nranks=) on every "
                    "traversal; it returns a fresh iterable of dicts {'p4s': {...}, 'scalars': "
                    "{...}, 'weights': ...} with the columns schema={'p4s': [...], 'scalars': "
                    "[...], 'weights': bool} declares. length= gives the event count (otherwise "
                    "one traversal counts them).")
        .def(
            "concat",
            [](const PyDataset& d, const PyDataset& other) {
                return resident(to_resident(d).concat(to_resident(other)));
            },
            py::arg("other"), "This dataset followed by `other` (same schema), in memory.")
        .def("__add__",
             [](const PyDataset& d, const PyDataset& other) {
                 return resident(to_resident(d).concat(to_resident(other)));
             })
        .def("__len__", [](const PyDataset& d) { return d.events.num_events(); })
        .def_property_readonly("n_events", [](const PyDataset& d) { return d.events.num_events(); })
        .def("p4_names", [](const PyDataset& d) { return d.events.schema().p4_names(); })
        .def("scalar_names", [](const PyDataset& d) { return d.events.schema().scalar_names(); })
        .def("weights",
             [](const PyDataset& d) {
                 std::vector<double> w;
                 {
                     const py::gil_scoped_release release;
                     w = d.events.weights();
                 }
                 return to_numpy(w);
             })
        .def("sum_weights",
             [](const PyDataset& d) {
                 const py::gil_scoped_release release;
                 return d.events.sum_weights();
             })
        .def_property_readonly(
            "memory_policy",
            [](const PyDataset& d) {
                return std::string(data::memory_policy_name(d.events.policy()));
            },
            "The cache= policy: 'fastest', 'resident' or 'streaming'.")
        .def_property_readonly(
            "memory",
            [](const PyDataset& d) -> py::object {
                return d.memory ? py::object(py::str(d.memory->to_string())) : py::none();
            },
            "The memory= budget given when the dataset was made, or None.")
        .def(
            "memory_decision",
            [](const PyDataset& d) -> py::object {
                return *d.decision ? py::object(memory_decision(**d.decision)) : py::none();
            },
            "What the planner last decided when a model was prepared on these events (evaluate, "
            "select, bin_by, Model.evaluate, an NLL), as a dict like "
            "Execution.memory_decisions() items; None before that.")
        .def_property_readonly(
            "is_resident", [](const PyDataset& d) { return d.events.dataset() != nullptr; },
            "True when the events are in memory, False when they are read on traversal.")
        .def(
            "with_cache",
            [](const PyDataset& d, const std::string& cache) {
                return PyDataset{d.events.with_policy(cache_policy(cache)), d.memory};
            },
            py::arg("cache"), "The same events under another cache= policy.")
        .def(
            "to_resident",
            [](const PyDataset& d) {
                const py::gil_scoped_release release;
                return PyDataset{data::EventData(d.events.materialize(), d.events.policy()),
                                 d.memory};
            },
            "Every event read into memory.")
        .def(
            "column",
            [](const PyDataset& d, const std::string& name) {
                return to_numpy(to_resident(d).column(name));
            },
            py::arg("name"))
        .def(
            "p4",
            [](const PyDataset& self, const std::string& name) {
                const data::Dataset d = to_resident(self);
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
             [](const PyDataset& d, const py::slice& slice) {
                 py::ssize_t start = 0, stop = 0, step = 0, length = 0;
                 if (!slice.compute(static_cast<py::ssize_t>(d.events.num_events()), &start, &stop,
                                    &step, &length)) {
                     throw py::error_already_set();
                 }
                 if (step < 0) {
                     throw py::value_error("dataset slices keep the event order: the step must "
                                           "be positive");
                 }
                 std::vector<std::uint64_t> rows(static_cast<std::size_t>(length));
                 for (std::size_t i = 0; i < rows.size(); ++i) {
                     rows[i] =
                         static_cast<std::uint64_t>(start + static_cast<py::ssize_t>(i) * step);
                 }
                 return PyDataset{d.events.take(std::move(rows)), d.memory};
             })
        .def(
            "bootstrap",
            [](const PyDataset& d, std::uint64_t seed) {
                return PyDataset{d.events.bootstrap(seed), d.memory};
            },
            py::arg("seed") = 0,
            "Weights multiplied by k ~ Poisson(1) per event (laddu's bootstrap); lazy for "
            "file-backed data.")
        .def(
            "subsample",
            [](const PyDataset& d, double fraction, std::uint64_t seed) {
                return PyDataset{d.events.subsample(fraction, seed), d.memory};
            },
            py::arg("fraction"), py::arg("seed") = 0,
            "The events kept with probability `fraction` (laddu's subsample); lazy for "
            "file-backed data.")
        .def(
            "write_to",
            [](const PyDataset& d, const py::object& sink) {
                if (py::isinstance<ParquetSink>(sink)) {
                    const auto& parquet = sink.cast<const ParquetSink&>();
                    const py::gil_scoped_release release;
                    data::write_parquet(d.events, parquet.path, parquet.options());
                    return;
                }
                if (py::isinstance<RootSink>(sink)) {
                    const auto& root = sink.cast<const RootSink&>();
                    const py::gil_scoped_release release;
                    data::write_root(d.events, root.path, root.options());
                    return;
                }
                throw py::type_error("Dataset sink must be a ParquetSink or RootSink");
            },
            py::arg("sink"),
            "Writes every event to an ld.ParquetSink or ld.RootSink, batch by batch.")
        .def("__repr__", [](const PyDataset& d) {
            return fmt::format("Dataset(n_events={}, memory_policy=\"{}\", memory={})",
                               d.events.num_events(), data::memory_policy_name(d.events.policy()),
                               d.memory ? "\"" + d.memory->to_string() + "\"" : "None");
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

    py::class_<RootSink>(module, "RootSink",
                         "Where Dataset.write_to writes a ROOT file: one flat TTree of float64 "
                         "(or float32) branches.")
        .def(py::init(
                 [](const py::object& path, const std::string& tree, const std::string& precision) {
                     if (precision != "f64" && precision != "f32") {
                         throw py::value_error("precision must be 'f32' or 'f64'");
                     }
                     return RootSink{fs_path(path), tree, precision};
                 }),
             py::arg("path"), py::kw_only(), py::arg("tree") = "tree", py::arg("precision") = "f64")
        .def_property_readonly("path",
                               [](const RootSink& sink) {
                                   return py::module_::import("os").attr("fsdecode")(
                                       py::bytes(sink.path));
                               })
        .def_readonly("tree", &RootSink::tree)
        .def_readonly("precision", &RootSink::precision)
        .def("__repr__", [](const RootSink& sink) {
            return fmt::format("RootSink(path={:?}, tree={:?}, precision={:?})", sink.path,
                               sink.tree, sink.precision);
        });
}

}  // namespace laddu::python
