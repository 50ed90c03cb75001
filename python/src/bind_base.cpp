// laddu exceptions become Python classes of the same names, all subclasses of laddu_cpp.Error
// (itself a RuntimeError), so `except ld.DataError` works exactly as in C++.
#include <string>
#include <string_view>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/error.hpp>

#include "bindings.hpp"

namespace py = pybind11;

namespace laddu::python {

namespace {

// Messages can quote bytes from files and paths that are not UTF-8; PyErr_SetString would fail
// to decode them and leave an empty message, so undecodable bytes become \xNN escapes instead.
void set_error(const py::object& type, const std::exception& e) {
    const std::string_view what = e.what();
    py::object message = py::reinterpret_steal<py::object>(PyUnicode_DecodeUTF8(
        what.data(), static_cast<py::ssize_t>(what.size()), "backslashreplace"));
    if (!message) {
        throw py::error_already_set();
    }
    PyErr_SetObject(type.ptr(), message.ptr());
}

}  // namespace

void bind_base(py::module_& module) {
    // Leaked on purpose: exception classes must outlive every module reference (pybind11 docs).
    static auto* error = new py::exception<Error>(module, "Error", PyExc_RuntimeError);
    static auto* model_error = new py::exception<ModelError>(module, "ModelError", error->ptr());
    static auto* compile_error =
        new py::exception<CompileError>(module, "CompileError", error->ptr());
    static auto* data_error = new py::exception<DataError>(module, "DataError", error->ptr());
    static auto* evaluation_error =
        new py::exception<EvaluationError>(module, "EvaluationError", error->ptr());
    static auto* backend_error =
        new py::exception<BackendError>(module, "BackendError", error->ptr());
    static auto* fit_error = new py::exception<FitError>(module, "FitError", error->ptr());
    static auto* internal_error =
        new py::exception<InternalError>(module, "InternalError", error->ptr());

    py::register_exception_translator([](std::exception_ptr thrown) {
        try {
            if (thrown) {
                std::rethrow_exception(thrown);
            }
        } catch (const ModelError& e) {
            set_error(*model_error, e);
        } catch (const CompileError& e) {
            set_error(*compile_error, e);
        } catch (const DataError& e) {
            set_error(*data_error, e);
        } catch (const EvaluationError& e) {
            set_error(*evaluation_error, e);
        } catch (const BackendError& e) {
            set_error(*backend_error, e);
        } catch (const FitError& e) {
            set_error(*fit_error, e);
        } catch (const InternalError& e) {
            set_error(*internal_error, e);
        } catch (const Error& e) {
            set_error(*error, e);
        }
    });

    // Raises the C++ exception of the given kind: lets the Python tests prove the mapping.
    module.def(
        "_raise_error",
        [](const std::string& kind_name, const std::string& message) {
            for (const ErrorKind kind :
                 {ErrorKind::kModel, ErrorKind::kCompile, ErrorKind::kData, ErrorKind::kEvaluation,
                  ErrorKind::kBackend, ErrorKind::kFit, ErrorKind::kInternal}) {
                if (error_kind_name(kind) == kind_name) {
                    throw_error(kind, message);
                }
            }
            throw py::value_error("unknown error kind '" + kind_name + "'");
        },
        py::arg("kind"), py::arg("message"));

    module.def(
        "accurate_sum", [](const std::vector<double>& values) { return accurate_sum(values); },
        py::arg("values"), "Compensated (Sum2) sum of a sequence of floats.");
}

}  // namespace laddu::python
