// ganesh's Python callbacks, shared by Likelihood.sample and Likelihood.fit_stochastic:
// terminators and observers are callables (step, StatusSnapshot), a terminator returning True
// to stop.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

namespace laddu::python {

/// ganesh configs' parameter_names: laddu labels results with the likelihood's names, so a
/// config's names (if given) must be those; ValueError naming both otherwise.
inline void check_config_names(const pybind11::object& config, const char* what,
                               const std::vector<std::string>& names) {
    if (config.is_none() || config.attr("parameter_names").is_none()) {
        return;
    }
    const auto given = config.attr("parameter_names").cast<std::vector<std::string>>();
    if (given != names) {
        std::string expected;
        for (const std::string& name : names) {
            expected += (expected.empty() ? "" : ", ") + name;
        }
        throw pybind11::value_error(std::string(what) +
                                    ".parameter_names must be the likelihood's parameter names [" +
                                    expected + "] (or None)");
    }
}

/// The observers of `observers` (a sequence of callables); TypeError for anything else.
inline std::vector<pybind11::object> ganesh_observers(const pybind11::object& observers) {
    std::vector<pybind11::object> out;
    for (const pybind11::handle o : observers) {
        if (PyCallable_Check(o.ptr()) == 0) {
            throw pybind11::type_error("observers must be callables (step, StatusSnapshot)");
        }
        out.push_back(pybind11::reinterpret_borrow<pybind11::object>(o));
    }
    return out;
}

/// Calls each of `callables` with (step, StatusSnapshot(step, success, message)) under the GIL.
/// As terminators: true when one returned True (TypeError when one returns a non-bool); as
/// observers their results are ignored.
inline bool call_ganesh_callbacks(const std::vector<pybind11::object>& callables, bool terminators,
                                  std::size_t step, bool success, const std::string& message) {
    const pybind11::gil_scoped_acquire gil;
    const pybind11::object status = pybind11::module_::import("laddu_cpp.ganesh")
                                        .attr("StatusSnapshot")(step, success, message);
    for (const pybind11::object& callable : callables) {
        const pybind11::object result = callable(step, status);
        if (!terminators) {
            continue;
        }
        if (!pybind11::isinstance<pybind11::bool_>(result)) {
            throw pybind11::type_error("a Python terminator must return a bool");
        }
        if (result.cast<bool>()) {
            return true;
        }
    }
    return false;
}

}  // namespace laddu::python
