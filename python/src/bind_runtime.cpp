// Execution options and model evaluation: ld.Execution("cpu", threads=, precision=,
// autodiff=, memory=), Model.evaluate(dataset, parameters=, real=) returning a numpy array.
// Evaluations release the GIL. ld.capabilities() says which backends this build has: the build
// system passes LADDU_HAVE_JIT and the notes on the JIT and MPI (python/CMakeLists.txt).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/runtime/execution.hpp>
#include <laddu/runtime/prepared_model.hpp>

#include "bindings.hpp"
#include "conversions.hpp"
#include "parameters.hpp"

namespace py = pybind11;

namespace laddu::python {

namespace {

// Model.evaluate keeps its work: one compiled model per Model object and one prepared state per
// (Dataset object, execution settings). Both sit in weak-keyed dictionaries, so they live
// exactly as long as the model and the dataset objects (models and datasets are immutable).
struct CompiledEvaluations {
    std::shared_ptr<const compile::CompiledModel> compiled;
    py::object by_dataset;  ///< WeakKeyDictionary: dataset -> {execution key: PreparedEvaluation}
};

struct PreparedEvaluation {
    std::shared_ptr<const runtime::PreparedModel> prepared;
};

// Settings that change what prepare builds; the collective is held by the prepared state, so its
// address cannot be reused while the entry lives.
std::string execution_key(const runtime::Execution& e) {
    return fmt::format("{}|{}|{}|{}|{}|{}|{}", static_cast<int>(e.device), e.threads,
                       static_cast<int>(e.precision), static_cast<int>(e.autodiff),
                       static_cast<int>(e.jit), e.memory.to_string(),
                       static_cast<const void*>(e.collective.get()));
}

std::shared_ptr<const runtime::PreparedModel>
prepared_evaluation(const py::object& cache, const py::object& model_object,
                    const py::object& dataset_object, const expr::Model& model,
                    const data::Dataset& dataset, const runtime::Execution& execution) {
    if (!cache.contains(model_object)) {
        CompiledEvaluations entry;
        {
            const py::gil_scoped_release release;
            entry.compiled =
                std::make_shared<const compile::CompiledModel>(compile::compile_model(model));
        }
        entry.by_dataset = py::module_::import("weakref").attr("WeakKeyDictionary")();
        cache[model_object] = py::cast(std::move(entry));
    }
    const py::object compiled_object = cache[model_object];
    const auto& compiled = compiled_object.cast<const CompiledEvaluations&>();
    if (!compiled.by_dataset.contains(dataset_object)) {
        compiled.by_dataset[dataset_object] = py::dict();
    }
    const py::dict by_execution = compiled.by_dataset[dataset_object];
    const std::string key = execution_key(execution);
    if (by_execution.contains(key)) {
        return by_execution[py::str(key)].cast<const PreparedEvaluation&>().prepared;
    }
    PreparedEvaluation entry;
    {
        const std::shared_ptr<const compile::CompiledModel> program = compiled.compiled;
        const py::gil_scoped_release release;
        entry.prepared = std::make_shared<const runtime::PreparedModel>(
            runtime::PreparedModel::prepare(*program, dataset, execution));
    }
    std::shared_ptr<const runtime::PreparedModel> prepared = entry.prepared;
    by_execution[py::str(key)] = py::cast(std::move(entry));
    return prepared;
}

runtime::Execution make_execution(const std::string& device, std::size_t threads,
                                  const std::string& precision, const std::string& autodiff,
                                  const py::object& memory, bool mpi,
                                  const std::string& partitioning) {
    runtime::Execution execution;
    apply_mpi(execution, mpi, partitioning);
    if (device == "cpu") {
        execution.jit = runtime::JitPolicy::kDisabled;
    } else if (device == "auto") {
        execution.jit = runtime::JitPolicy::kAuto;
    } else if (device == "jit") {
        execution.jit = runtime::JitPolicy::kEnabled;
    } else {
        throw py::value_error("device must be 'auto', 'cpu' or 'jit', got '" + device + "'");
    }
    execution.threads = threads;
    if (precision == "f64") {
        execution.precision = ir::Precision::kF64;
    } else if (precision == "f32") {
        execution.precision = ir::Precision::kF32;
    } else {
        throw py::value_error("precision must be 'f64' or 'f32', got '" + precision + "'");
    }
    if (autodiff == "auto") {
        execution.autodiff = runtime::AutodiffMode::kAuto;
    } else if (autodiff == "forward") {
        execution.autodiff = runtime::AutodiffMode::kForward;
    } else if (autodiff == "reverse") {
        execution.autodiff = runtime::AutodiffMode::kReverse;
    } else {
        throw py::value_error("autodiff must be 'auto', 'forward' or 'reverse', got '" + autodiff +
                              "'");
    }
    if (py::isinstance<py::str>(memory)) {
        execution.memory =
            runtime::MemoryPlan::parse(cast_arg<std::string>(memory, "memory", "a str"));
    } else if (py::isinstance<py::int_>(memory)) {
        execution.memory = runtime::MemoryPlan::bytes(
            cast_arg<std::size_t>(memory, "memory", "a byte count (an int from 0 to 2**64 - 1)"));
    } else if (!memory.is_none()) {
        throw py::type_error("memory must be a byte count, a text such as '2 GiB' or "
                             "'70% available', or None");
    }
    return execution;
}

// laddu's capabilities() keys first, with the same types; then laddu-cpp's details.
py::dict capabilities() {
    py::dict result;
    result["backend"] = "local";
    result["jit"] = static_cast<bool>(LADDU_HAVE_JIT);
    result["gpu"] = false;
    result["mpi"] = static_cast<bool>(LADDU_HAVE_DISTRIBUTED);
    result["likelihood"] = true;
    result["fit"] = true;
    result["generation"] = true;
    result["interpreter"] = true;
    result["jit_detail"] = LADDU_JIT_BUILD_NOTE;
    result["mpi_detail"] = LADDU_MPI_BUILD_NOTE;
    result["gpu_detail"] = "laddu-cpp has no GPU backend";
    return result;
}

}  // namespace

void bind_runtime(py::module_& module) {
    module.def("capabilities", &capabilities,
               "What this build of laddu_cpp can do, as laddu.capabilities(): 'backend' "
               "('local'), 'jit', 'gpu', 'mpi', 'likelihood', 'fit', 'generation' (bools), "
               "then 'interpreter' (always True) and 'jit_detail', 'mpi_detail', 'gpu_detail': "
               "the LLVM or MPI version built in, or why the backend is missing.");
    py::class_<runtime::Execution>(module, "Execution", "Where and how models are evaluated.")
        .def(py::init(&make_execution), py::arg("device") = "cpu", py::kw_only(),
             py::arg("threads") = 0, py::arg("precision") = "f64", py::arg("autodiff") = "auto",
             py::arg("memory") = py::none(), py::arg("mpi") = false,
             py::arg("partitioning") = "contiguous")
        .def_property_readonly("threads", &runtime::Execution::resolved_threads)
        .def_property_readonly("precision",
                               [](const runtime::Execution& e) {
                                   return e.precision == ir::Precision::kF32 ? "f32" : "f64";
                               })
        .def_property_readonly("memory",
                               [](const runtime::Execution& e) { return e.memory.to_string(); })
        .def_property_readonly("backend",
                               [](const runtime::Execution& e) {
                                   switch (e.jit) {
                                   case runtime::JitPolicy::kAuto:
                                       return "auto";
                                   case runtime::JitPolicy::kEnabled:
                                       return "jit";
                                   case runtime::JitPolicy::kDisabled:
                                       return "cpu";
                                   }
                                   return "cpu";
                               })
        .def_property_readonly("autodiff", [](const runtime::Execution& e) {
            switch (e.autodiff) {
            case runtime::AutodiffMode::kAuto:
                return "auto";
            case runtime::AutodiffMode::kForward:
                return "forward";
            case runtime::AutodiffMode::kReverse:
                return "reverse";
            }
            return "auto";
        });

    // Model.evaluate is defined here, next to the runtime it needs.
    py::class_<CompiledEvaluations>(module, "_CompiledEvaluations",
                                    "What Model.evaluate compiled for one model (internal).")
        .def_property_readonly(
            "datasets", [](const CompiledEvaluations& c) { return py::len(c.by_dataset); },
            "How many datasets have a prepared state for this model.");
    py::class_<PreparedEvaluation>(module, "_PreparedEvaluation",
                                   "What Model.evaluate prepared for one dataset (internal).");
    module.attr("_evaluation_cache") = py::module_::import("weakref").attr("WeakKeyDictionary")();
    py::class_<expr::Model> model =
        py::reinterpret_borrow<py::class_<expr::Model>>(module.attr("Model"));
    model.def(
        "evaluate",
        [module](const py::object& self, const py::object& dataset, const py::object& parameters,
                 bool real, const std::optional<runtime::Execution>& execution) -> py::object {
            const auto& m = cast_arg<const expr::Model&>(self, "self", "an ld.Model");
            const auto& events =
                cast_arg<const data::Dataset&>(dataset, "dataset", "an ld.Dataset");
            const std::vector<double> params = free_parameter_vector(m.parameters(), parameters);
            const std::shared_ptr<const runtime::PreparedModel> prepared =
                prepared_evaluation(module.attr("_evaluation_cache"), self, dataset, m, events,
                                    execution.value_or(runtime::Execution{}));
            std::vector<std::complex<double>> values;
            {
                const py::gil_scoped_release release;
                values = prepared->evaluate(params);
            }
            if (real) {
                py::array_t<double> out(static_cast<py::ssize_t>(values.size()));
                double* p = out.mutable_data();
                for (std::size_t i = 0; i < values.size(); ++i) {
                    p[i] = values[i].real();
                }
                return out;
            }
            py::array_t<std::complex<double>> out(static_cast<py::ssize_t>(values.size()));
            std::copy(values.begin(), values.end(), out.mutable_data());
            return out;
        },
        py::arg("dataset"), py::kw_only(), py::arg("parameters") = py::none(),
        py::arg("real") = true, py::arg("execution") = std::nullopt,
        "The model value per event (a float array, or complex with real=False). parameters is "
        "a sequence in free-parameter order, a dict by name (others at their defaults), or None "
        "(defaults). The compiled model and the prepared dataset are kept for the next call "
        "while both objects live.");
}

}  // namespace laddu::python
