// laddu's likelihood vocabulary for Python: ld.NLL(model, data=, accepted_mc=), ld.ExtendedNLL,
// ld.RidgePenalty, ld.LassoPenalty, ld.Likelihood([terms]) (the Python subclass in _analysis.py
// adds execution= and diagnostics()); value / value_and_gradient take a sequence, an ndarray, or a
// partial dict by name. Evaluations release the GIL.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/base/error.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/likelihood/likelihood.hpp>
#include <laddu/likelihood/nll.hpp>
#include <laddu/likelihood/penalty.hpp>
#include <laddu/likelihood/term.hpp>
#include <laddu/runtime/prepared_model.hpp>

#include "bindings.hpp"
#include "event_data.hpp"
#include "memory.hpp"
#include "parameters.hpp"

namespace py = pybind11;

namespace laddu::python {

namespace {

using likelihood::Likelihood;
using likelihood::Term;
using likelihood::TermPtr;

std::vector<double> defaults_of(const std::vector<expr::Parameter>& parameters) {
    std::vector<double> out;
    out.reserve(parameters.size());
    for (const expr::Parameter& p : parameters) {
        out.push_back(p.default_value());
    }
    return out;
}

py::array_t<double> to_numpy(const std::vector<double>& values) {
    py::array_t<double> out(static_cast<py::ssize_t>(values.size()));
    std::copy(values.begin(), values.end(), out.mutable_data());
    return out;
}

py::tuple to_python(const runtime::Evaluation& evaluation) {
    return py::make_tuple(evaluation.value, to_numpy(evaluation.gradient));
}

template <typename T>
py::object optional_to_python(const std::optional<T>& value) {
    return value ? py::cast(*value) : py::none();
}

// One event set of UnbinnedNllInfo as a dict; _analysis.py turns it into laddu's
// DatasetDiagnostics.
py::dict events_info(const likelihood::PreparedEventsInfo& info) {
    py::dict out;
    out["events"] = info.events;
    out["local_events"] = info.local_events;
    out["sum_weights"] = optional_to_python(info.sum_weights);
    out["cache_columns"] = optional_to_python(info.cache_columns);
    out["resident_bytes"] = info.resident_bytes;
    if (!info.memory) {
        out["memory"] = py::none();
        return out;
    }
    out["memory"] = memory_decision(*info.memory);
    return out;
}

py::dict nll_info(const likelihood::UnbinnedNll& nll) {
    likelihood::UnbinnedNllInfo info;
    {
        const py::gil_scoped_release release;  // a deferred term prepares now
        info = nll.info();
    }
    py::dict out;
    out["prepare_seconds"] = info.prepare_seconds;
    out["backend"] = info.backend;
    out["fast_normalization"] = info.fast_normalization;
    out["normalization_strategy"] = info.normalization_strategy;
    out["normalization_terms"] = info.normalization_terms;
    out["normalization_bases"] = info.normalization_bases;
    out["normalization_groups"] = info.normalization_groups;
    out["normalization_has_residual"] = info.normalization_has_residual;
    out["normalization_bytes"] = info.normalization_bytes;
    out["normalization_from_data_cache"] = info.normalization_from_data_cache;
    out["data"] = events_info(info.data);
    out["accepted"] = events_info(info.accepted);
    return out;
}

// value / value_and_gradient / gradient on anything with names, defaults and the C++ calls.
template <typename Class, typename Object>
void bind_objective(Class& cls) {
    cls.def(
           "value",
           [](const Object& self, const py::object& parameters) {
               const std::vector<double> values = parameter_values(
                   self.parameter_names(), defaults_of(self.parameters()), parameters);
               const py::gil_scoped_release release;
               return self.value(values);
           },
           py::arg("parameters") = py::none())
        .def(
            "value_and_gradient",
            [](const Object& self, const py::object& parameters) {
                const std::vector<double> values = parameter_values(
                    self.parameter_names(), defaults_of(self.parameters()), parameters);
                runtime::Evaluation evaluation;
                {
                    const py::gil_scoped_release release;
                    evaluation = self.value_and_gradient(values);
                }
                return to_python(evaluation);
            },
            py::arg("parameters") = py::none())
        .def(
            "gradient",
            [](const Object& self, const py::object& parameters) {
                const std::vector<double> values = parameter_values(
                    self.parameter_names(), defaults_of(self.parameters()), parameters);
                runtime::Evaluation evaluation;
                {
                    const py::gil_scoped_release release;
                    evaluation = self.value_and_gradient(values);
                }
                return to_numpy(evaluation.gradient);
            },
            py::arg("parameters") = py::none())
        .def_property_readonly(
            "parameter_names",
            [](const Object& self) { return std::vector<std::string>(self.parameter_names()); })
        .def_property_readonly("default_parameters",
                               [](const Object& self) { return defaults_of(self.parameters()); })
        .def("__call__", [](const Object& self, const py::object& parameters) {
            const std::vector<double> values = parameter_values(
                self.parameter_names(), defaults_of(self.parameters()), parameters);
            const py::gil_scoped_release release;
            return self.value(values);
        });
}

// The constructor both unbinned NLLs share: (model, *, data, accepted_mc, execution, name).
template <typename Nll, typename Class>
void bind_unbinned_constructor(Class& cls, const char* default_name) {
    cls.def(
        py::init([](const expr::Model& model, const py::object& data, const py::object& accepted_mc,
                    const std::optional<runtime::Execution>& execution, const std::string& name,
                    bool defer) {
            std::optional<runtime::MemoryPlan> memory;
            const data::EventData events = to_event_data(data, "data", memory);
            const data::EventData accepted = to_event_data(accepted_mc, "accepted_mc", memory);
            const runtime::Execution resolved = with_data_memory(execution, memory);
            std::shared_ptr<Nll> nll;
            {
                const py::gil_scoped_release release;
                nll = std::make_shared<Nll>(model, events, accepted, resolved, name,
                                            defer ? likelihood::Preparation::kDeferred
                                                  : likelihood::Preparation::kNow);
            }
            if (defer) {
                return nll;
            }
            const likelihood::UnbinnedNllInfo info = nll->info();
            if (info.data.memory) {
                record_decision(data, *info.data.memory);
            }
            if (info.accepted.memory) {
                record_decision(accepted_mc, *info.accepted.memory);
            }
            return nll;
        }),
        py::arg("model"), py::kw_only(), py::arg("data"), py::arg("accepted_mc"),
        py::arg("execution") = std::nullopt, py::arg("name") = default_name,
        py::arg("_defer") = false);
}

}  // namespace

void bind_likelihood(py::module_& module) {
    py::class_<Term, std::shared_ptr<Term>> term(module, "LikelihoodTerm",
                                                 "A term of a likelihood (an NLL or a penalty).");
    term.def_property_readonly("name", [](const Term& t) { return t.name(); });
    bind_objective<decltype(term), Term>(term);

    py::class_<likelihood::UnbinnedNll, Term, std::shared_ptr<likelihood::UnbinnedNll>> unbinned(
        module, "UnbinnedNLL", "What NLL and ExtendedNLL share (data and accepted MC).");
    unbinned
        // A deferred term prepares on first use, which may read a from_batches source on the
        // runtime's threads: those need the GIL this thread releases.
        .def_property_readonly("uses_fast_normalization",
                               [](const likelihood::UnbinnedNll& self) {
                                   const py::gil_scoped_release release;
                                   return self.uses_fast_normalization();
                               })
        .def_property_readonly("backend",
                               [](const likelihood::UnbinnedNll& self) {
                                   const py::gil_scoped_release release;
                                   return std::string(self.backend());
                               })
        .def("_info", &nll_info,
             "What preparing the term decided (backend, normalisation, event sets), as a dict; "
             "Likelihood.diagnostics() reads it.");

    py::class_<likelihood::NLL, likelihood::UnbinnedNll, std::shared_ptr<likelihood::NLL>> nll(
        module, "NLL", "N_w ln(Σ_acc w I) − Σ_data w ln I (laddu's normalised NLL).");
    bind_unbinned_constructor<likelihood::NLL>(nll, "nll");
    nll.def(
        "nll",
        [](const likelihood::NLL& self, const py::object& parameters) {
            const std::vector<double> values = parameter_values(
                self.parameter_names(), defaults_of(self.parameters()), parameters);
            const py::gil_scoped_release release;
            return self.value(values);
        },
        py::arg("parameters") = py::none());

    py::class_<likelihood::ExtendedNLL, likelihood::UnbinnedNll,
               std::shared_ptr<likelihood::ExtendedNLL>>
        extended(module, "ExtendedNLL", "Σ_acc w I − Σ_data w ln I (laddu's extended NLL).");
    bind_unbinned_constructor<likelihood::ExtendedNLL>(extended, "extended_nll");

    py::class_<likelihood::RidgePenalty, Term, std::shared_ptr<likelihood::RidgePenalty>>(
        module, "RidgePenalty", "λ Σ θ² over the named parameters.")
        .def(py::init<std::vector<std::string>, double, std::string>(), py::arg("names"),
             py::kw_only(), py::arg("lambda_"), py::arg("name") = "ridge");
    py::class_<likelihood::LassoPenalty, Term, std::shared_ptr<likelihood::LassoPenalty>>(
        module, "LassoPenalty", "λ Σ |θ| over the named parameters.")
        .def(py::init<std::vector<std::string>, double, std::string>(), py::arg("names"),
             py::kw_only(), py::arg("lambda_"), py::arg("name") = "lasso");

    py::class_<Likelihood> cls(module, "Likelihood",
                               "A sum of terms sharing parameters by name (simultaneous fits).");
    cls.def(py::init([](const std::vector<std::shared_ptr<Term>>& terms) {
                return Likelihood(std::vector<TermPtr>(terms.begin(), terms.end()));
            }),
            py::arg("terms"));
    bind_objective<decltype(cls), Likelihood>(cls);
    cls.def_property_readonly("n_parameters", &Likelihood::size);
    cls.def_property_readonly(
        "_evaluation_counts",
        [](const Likelihood& self) {
            const likelihood::EvaluationCounts counts = self.evaluation_counts();
            return py::make_tuple(counts.objective, counts.gradient);
        },
        "(value calls, value-and-gradient calls) so far, fits included.");
    cls.def(
        "nll",
        [](const Likelihood& self, const py::object& parameters) {
            const std::vector<double> values =
                parameter_values(self.parameter_names(), self.default_parameters(), parameters);
            const py::gil_scoped_release release;
            return self.value(values);
        },
        py::arg("parameters") = py::none(), "The same as value() (laddu's name).");
    cls.def_property_readonly(
        "terms",
        [](const Likelihood& self) {
            // pybind11 holds terms as shared_ptr<Term>; the objects are never modified.
            std::vector<std::shared_ptr<Term>> out;
            for (const TermPtr& t : self.terms()) {
                out.push_back(std::const_pointer_cast<Term>(t));
            }
            return out;
        },
        "The terms, in order (the same Python objects that were passed in).");
}

}  // namespace laddu::python
