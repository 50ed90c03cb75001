// laddu's file-backed datasets for Python: ld.read_parquet(path, memory=, cache=, nulls=) and
// ld.Dataset(ld.ParquetSource(path, nulls=)) return an ld.Dataset over a data::ParquetSource
// (ld.read_root(path, tree=, memory=, cache=) and ld.RootSource(path, tree=) over a RootSource)
// that reads the files when the events are traversed, under cache='fastest' (default),
// 'resident' or 'streaming' and the memory budget; NLL and ExtendedNLL apply the budget to the
// term's Execution unless that sets its own. Also the conversions from an ld.Dataset argument.
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/base/error.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/data/root.hpp>
#include <laddu/runtime/memory_pool.hpp>

#include "bindings.hpp"
#include "conversions.hpp"
#include "event_data.hpp"
#include "memory.hpp"

namespace py = pybind11;

namespace laddu::python {

PyDataset resident(data::Dataset dataset) {
    return PyDataset{data::EventData(dataset), std::nullopt};
}

data::EventData to_event_data(const py::handle& value, const char* what,
                              std::optional<runtime::MemoryPlan>& memory) {
    if (!py::isinstance<PyDataset>(value)) {
        throw py::type_error(std::string(what) + " must be an ld.Dataset, got " +
                             python_type_name(value));
    }
    const auto& dataset = value.cast<const PyDataset&>();
    if (dataset.memory) {
        memory = dataset.memory;
    }
    return dataset.events;
}

void record_decision(const py::handle& dataset, const runtime::MemoryReport& report) {
    if (py::isinstance<PyDataset>(dataset)) {
        *dataset.cast<const PyDataset&>().decision = report;
    }
}

data::Dataset to_resident(const py::handle& value, const char* what) {
    std::optional<runtime::MemoryPlan> ignored;
    const data::EventData events = to_event_data(value, what, ignored);
    const py::gil_scoped_release release;
    return events.materialize();
}

data::Dataset to_resident(const PyDataset& dataset) {
    const py::gil_scoped_release release;
    return dataset.events.materialize();
}

runtime::Execution with_data_memory(const std::optional<runtime::Execution>& execution,
                                    const std::optional<runtime::MemoryPlan>& memory) {
    runtime::Execution out = execution.value_or(runtime::Execution{});
    if (memory && out.memory.is_unlimited()) {
        out.memory = *memory;
        // The execution's pool has no budget; the data's budget needs a pool of its own.
        out.memory_pool = std::make_shared<runtime::MemoryPool>(out.memory);
    }
    return out;
}

std::optional<runtime::MemoryPlan> memory_plan(const py::object& memory) {
    if (memory.is_none()) {
        return std::nullopt;
    }
    if (py::isinstance<py::bool_>(memory)) {
        throw py::value_error("memory budget must be a MemoryBudget, byte count, or string such "
                              "as '8 GiB' or '60% available'");
    }
    return host_budget(memory);
}

data::MemoryPolicy cache_policy(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0) {
        text.remove_prefix(1);
    }
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) {
        text.remove_suffix(1);
    }
    std::string name(text);
    for (char& c : name) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (name != "fastest" && name != "resident" && name != "streaming") {
        throw py::value_error("cache must be 'fastest', 'resident', or 'streaming'");
    }
    return data::parse_memory_policy(name);
}

namespace {

std::vector<std::string> path_list(const py::object& paths) {
    std::vector<std::string> patterns;
    if (py::isinstance<py::str>(paths) || py::isinstance<py::bytes>(paths) ||
        py::hasattr(paths, "__fspath__")) {
        patterns.push_back(fs_path(paths));
    } else {
        for (const py::handle p : paths) {
            patterns.push_back(fs_path(p));
        }
    }
    return patterns;
}

// laddu's ParquetSource(path, nulls=): the files a file-backed Dataset reads. Opening it reads
// every file's footer (the schema, the row counts, and a check that each file has the columns).
struct PyParquetSource {
    std::shared_ptr<const data::ParquetSource> source;
};

PyParquetSource parquet_source(const py::object& paths, const std::string& nulls) {
    data::ParquetReadOptions options;
    if (nulls == "nan") {
        options.nulls = data::NullPolicy::kNan;
    } else if (nulls != "error") {
        throw py::value_error("nulls must be 'error' or 'nan'");
    }
    const std::vector<std::string> patterns = path_list(paths);
    const py::gil_scoped_release release;
    return PyParquetSource{std::make_shared<const data::ParquetSource>(patterns, options)};
}

PyDataset read_parquet(const py::object& paths, const py::object& memory, const std::string& cache,
                       const std::string& nulls) {
    const data::MemoryPolicy policy = cache_policy(cache);
    std::optional<runtime::MemoryPlan> budget = memory_plan(memory);
    return PyDataset{data::EventData::from_source(parquet_source(paths, nulls).source, policy),
                     std::move(budget)};
}

// laddu's RootSource(path, tree=): one TTree (the first file's first one unless named) in each
// file. Opening it reads every file's TTree metadata and checks the columns.
struct PyRootSource {
    std::shared_ptr<const data::RootSource> source;
};

PyRootSource root_source(const py::object& paths, const std::optional<std::string>& tree) {
    data::RootReadOptions options;
    if (tree) {
        if (tree->empty()) {
            throw py::value_error("tree must be a non-empty TTree name or path, or None");
        }
        options.tree = *tree;
    }
    const std::vector<std::string> patterns = path_list(paths);
    const py::gil_scoped_release release;
    return PyRootSource{std::make_shared<const data::RootSource>(patterns, options)};
}

PyDataset read_root(const py::object& paths, const std::optional<std::string>& tree,
                    const py::object& memory, const std::string& cache) {
    const data::MemoryPolicy policy = cache_policy(cache);
    std::optional<runtime::MemoryPlan> budget = memory_plan(memory);
    return PyDataset{data::EventData::from_source(root_source(paths, tree).source, policy),
                     std::move(budget)};
}

}  // namespace

std::string fs_path(const py::handle& path) {
    return py::module_::import("os").attr("fsencode")(path).cast<std::string>();
}

void bind_event_data(py::module_& module) {
    py::class_<PyParquetSource>(module, "ParquetSource",
                                "Parquet files (a path, a glob or a list of them) for "
                                "ld.Dataset(source): read when the events are traversed.")
        .def(py::init(&parquet_source), py::arg("path"), py::kw_only(), py::arg("nulls") = "error")
        .def("__len__", [](const PyParquetSource& s) { return s.source->num_events(); })
        .def("p4_names", [](const PyParquetSource& s) { return s.source->schema().p4_names(); })
        .def("scalar_names",
             [](const PyParquetSource& s) { return s.source->schema().scalar_names(); })
        .def("__repr__", [](const PyParquetSource& s) {
            return "ParquetSource(" + std::to_string(s.source->num_events()) + " events)";
        });

    py::class_<PyRootSource>(module, "RootSource",
                             "One TTree in ROOT files (a path, a glob or a list of them) for "
                             "ld.Dataset(source): read when the events are traversed.")
        .def(py::init(&root_source), py::arg("path"), py::kw_only(), py::arg("tree") = py::none())
        .def("__len__", [](const PyRootSource& s) { return s.source->num_events(); })
        .def("p4_names", [](const PyRootSource& s) { return s.source->schema().p4_names(); })
        .def("scalar_names",
             [](const PyRootSource& s) { return s.source->schema().scalar_names(); })
        .def_property_readonly("tree", [](const PyRootSource& s) { return s.source->tree_name(); })
        .def("__repr__", [](const PyRootSource& s) {
            return "RootSource(" + std::to_string(s.source->num_events()) + " events, tree '" +
                   s.source->tree_name() + "')";
        });

    auto dataset = py::reinterpret_borrow<py::class_<PyDataset>>(module.attr("Dataset"));
    dataset.def(py::init([](const PyParquetSource& source) {
                    return PyDataset{data::EventData::from_source(source.source), std::nullopt};
                }),
                py::arg("source"), "A file-backed dataset over an ld.ParquetSource.");
    dataset.def(py::init([](const PyRootSource& source) {
                    return PyDataset{data::EventData::from_source(source.source), std::nullopt};
                }),
                py::arg("source"), "A file-backed dataset over an ld.RootSource.");

    module.def("read_parquet", &read_parquet, py::arg("path"), py::kw_only(),
               py::arg("memory") = py::none(), py::arg("cache") = "fastest",
               py::arg("nulls") = "error",
               "A file-backed ld.Dataset over Parquet files (a path, a glob or a list of them): "
               "the files' footers are read now, the events when they are traversed, under "
               "cache='fastest' (cached when the cache fits the memory budget, else streamed), "
               "'resident' or 'streaming'. nulls='nan' reads nulls as NaN.");

    module.def("read_root", &read_root, py::arg("path"), py::kw_only(),
               py::arg("tree") = py::none(), py::arg("memory") = py::none(),
               py::arg("cache") = "fastest",
               "A file-backed ld.Dataset over one TTree in ROOT files (a path, a glob or a list "
               "of them): tree names it ('name' or 'dir/name'; default: the first file's first "
               "TTree). The trees' metadata is read now, the baskets when the events are "
               "traversed, under cache='fastest', 'resident' or 'streaming'.");
}

}  // namespace laddu::python
