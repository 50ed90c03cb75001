// laddu's lazily read Parquet data for Python: ld.read_parquet(path, memory="2 GiB",
// cache="fastest"|"resident"|"streaming", nulls="error"|"nan") returns an ld.EventData over a
// data::ParquetSource with that data::MemoryPolicy (without memory= or cache= it still returns a
// resident ld.Dataset). NLL and ExtendedNLL accept either; the memory budget joins the term's
// Execution unless that sets its own.
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/base/error.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/runtime/memory_pool.hpp>

#include "bindings.hpp"
#include "conversions.hpp"
#include "event_data.hpp"
#include "memory.hpp"

namespace py = pybind11;

namespace laddu::python {

data::EventData to_event_data(const py::handle& value, const char* what,
                              std::optional<runtime::MemoryPlan>& memory) {
    if (py::isinstance<data::Dataset>(value)) {
        return data::EventData(value.cast<const data::Dataset&>());
    }
    if (py::isinstance<LazyEvents>(value)) {
        const auto& lazy = value.cast<const LazyEvents&>();
        if (lazy.memory) {
            memory = lazy.memory;
        }
        return lazy.events;
    }
    throw py::type_error(std::string(what) +
                         " must be an ld.Dataset or an ld.EventData (from "
                         "ld.read_parquet(..., cache=)), not '" +
                         std::string(py::str(py::type::of(value).attr("__name__"))) + "'");
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

// laddu's memory= of read_parquet: a MemoryBudget, a byte count or budget text, as
// Execution(memory=); bad values are a ValueError.
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

// laddu's cache= names, compared trimmed and lower-case; another is a ValueError, as in laddu.
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

py::object read_parquet(const py::object& paths, const py::object& memory,
                        const std::optional<std::string>& cache, const std::string& nulls) {
    data::ParquetReadOptions options;
    if (nulls == "nan") {
        options.nulls = data::NullPolicy::kNan;
    } else if (nulls != "error") {
        throw py::value_error("nulls must be 'error' or 'nan', got '" + nulls + "'");
    }
    const std::vector<std::string> patterns = path_list(paths);
    const std::optional<runtime::MemoryPlan> budget = memory_plan(memory);
    if (!budget && !cache) {
        data::Dataset dataset;
        {
            const py::gil_scoped_release release;
            dataset = data::read_parquet(patterns, options);
        }
        return py::cast(dataset);
    }
    const data::MemoryPolicy policy = cache_policy(cache.value_or("fastest"));
    LazyEvents lazy{data::EventData(data::Dataset{}), budget};
    {
        const py::gil_scoped_release release;
        lazy.events = data::EventData::from_source(
            std::make_shared<data::ParquetSource>(patterns, options), policy);
    }
    return py::cast(lazy);
}

}  // namespace

std::string fs_path(const py::handle& path) {
    return py::module_::import("os").attr("fsencode")(path).cast<std::string>();
}

void bind_event_data(py::module_& module) {
    py::class_<LazyEvents>(module, "EventData",
                           "Events read from Parquet when needed, with laddu's cache policy "
                           "(from ld.read_parquet(..., memory=, cache=)).")
        .def("__len__", [](const LazyEvents& e) { return e.events.num_events(); })
        .def_property_readonly("n_events",
                               [](const LazyEvents& e) { return e.events.num_events(); })
        .def("p4_names", [](const LazyEvents& e) { return e.events.schema().p4_names(); })
        .def("scalar_names", [](const LazyEvents& e) { return e.events.schema().scalar_names(); })
        .def_property_readonly(
            "cache",
            [](const LazyEvents& e) {
                return std::string(data::memory_policy_name(e.events.policy()));
            },
            "'fastest', 'resident' or 'streaming'.")
        .def_property_readonly("memory",
                               [](const LazyEvents& e) -> py::object {
                                   if (!e.memory) {
                                       return py::none();
                                   }
                                   return py::str(e.memory->to_string());
                               })
        .def(
            "with_cache",
            [](const LazyEvents& e, const std::string& cache) {
                return LazyEvents{e.events.with_policy(cache_policy(cache)), e.memory};
            },
            py::arg("cache"))
        .def(
            "to_dataset",
            [](const LazyEvents& e) {
                const py::gil_scoped_release release;
                return e.events.materialize();
            },
            "Every event in memory, as an ld.Dataset.")
        .def("__repr__", [](const LazyEvents& e) {
            return "EventData(" + std::to_string(e.events.num_events()) + " events, cache='" +
                   std::string(data::memory_policy_name(e.events.policy())) + "')";
        });

    module.def("read_parquet", &read_parquet, py::arg("path"), py::kw_only(),
               py::arg("memory") = py::none(), py::arg("cache") = std::nullopt,
               py::arg("nulls") = "error",
               "Reads Parquet files (a path, a glob or a list of them). Without memory= or "
               "cache= the events are read into an ld.Dataset; with either, an ld.EventData "
               "is read when needed under cache='fastest' (default), 'resident' or "
               "'streaming' and the memory budget.");
}

}  // namespace laddu::python
