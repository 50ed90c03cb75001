// Fitting from Python: Likelihood.fit(initial=, method=, max_steps=, progress=) returning a
// FitResult (values, uncertainties, covariance, converged, ...), and fit_restarts. The GIL is
// released while the minimiser runs (a progress callback re-acquires it for each call).
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/base/error.hpp>
#include <laddu/expr/parameter.hpp>
#include <laddu/fit/adam.hpp>
#include <laddu/fit/fit.hpp>
#include <laddu/fit/minimizer.hpp>
#include <laddu/likelihood/likelihood.hpp>

#include "bindings.hpp"
#include "conversions.hpp"
#include "fit_config.hpp"
#include "ganesh_callbacks.hpp"

namespace py = pybind11;

namespace laddu::python {

namespace {

fit::Method parse_method(const std::string& method) {
    if (method == "lbfgsb" || method == "l-bfgs-b") {
        return fit::Method::kLbfgsb;
    }
    if (method == "nelder_mead" || method == "nelder-mead") {
        return fit::Method::kNelderMead;
    }
    if (method == "migrad" || method == "variable_metric") {
        return fit::Method::kVariableMetric;
    }
    const std::vector<std::pair<const char*, fit::Method>> others{
        {"cmaes", fit::Method::kCmaes},
        {"pso", fit::Method::kParticleSwarm},
        {"differential_evolution", fit::Method::kDifferentialEvolution},
        {"simulated_annealing", fit::Method::kSimulatedAnnealing},
        {"conjugate_gradient", fit::Method::kConjugateGradient},
        {"trust_region", fit::Method::kTrustRegion}};
    for (const auto& [name, value] : others) {
        if (method == name) {
            return value;
        }
    }
    throw py::value_error("method must be 'lbfgsb', 'nelder_mead', 'migrad', 'cmaes', 'pso', "
                          "'differential_evolution', 'simulated_annealing', "
                          "'conjugate_gradient' or 'trust_region', got '" +
                          method + "'");
}

std::vector<double> start_values(const likelihood::Likelihood& likelihood,
                                 const py::object& initial) {
    if (initial.is_none()) {
        return likelihood.default_parameters();
    }
    if (py::isinstance(initial, py::module_::import("laddu_cpp.ganesh").attr("VectorInit"))) {
        return start_values(likelihood, initial.attr("values").attr("tolist")());  // as laddu
    }
    if (py::isinstance<py::dict>(initial)) {
        return likelihood.values_from(
            cast_arg<std::map<std::string, double>>(initial, "initial", "a dict of str to float"));
    }
    auto values = cast_arg<std::vector<double>>(initial, "initial",
                                                "a sequence of floats, a dict by name or None");
    if (values.size() != likelihood.size()) {
        throw py::value_error(
            fmt::format("expected {} initial values ([{}]), got {}", likelihood.size(),
                        fmt::join(likelihood.parameter_names(), ", "), values.size()));
    }
    return values;
}

// A fit's status line for ganesh's callbacks (terminators, observers): the objective and point.
std::string status_text(const fit::Progress& p) {
    std::string text = fmt::format("fx={:.12g} x=[", p.value);
    for (std::size_t k = 0; k < p.x.size(); ++k) {
        text += fmt::format("{}{:.9g}", k == 0 ? "" : ", ", p.x[k]);
    }
    return text + "]";
}

// laddu's fit(config=, terminators=) on top of method=/max_steps=/progress=: a config names
// its method (ld.ganesh.LBFGSBConfig(), NelderMeadConfig(), MigradConfig()) and carries its
// options (fit_config.hpp); MaxSteps(n) caps the iterations; the L-BFGS-B and Nelder-Mead
// terminators of ld.ganesh set the minimiser's stopping rules; any other terminator is a
// callable (step, StatusSnapshot) -> bool, True to stop.
fit::FitOptions make_options(const likelihood::Likelihood& likelihood, std::string method,
                             std::size_t max_steps, const std::optional<py::function>& progress,
                             const py::object& config = py::none(),
                             const py::object& terminators = py::none(),
                             const py::object& observers = py::none()) {
    fit::FitOptions options;
    if (!config.is_none()) {
        if (!py::hasattr(config, "method")) {
            throw py::type_error("config must be an ld.ganesh config (LBFGSBConfig, "
                                 "NelderMeadConfig, MigradConfig, CMAESConfig, PSOConfig, "
                                 "DifferentialEvolutionConfig, SimulatedAnnealingConfig, "
                                 "ConjugateGradientConfig or TrustRegionConfig), got " +
                                 python_type_name(config));
        }
        method = cast_arg<std::string>(config.attr("method"), "config.method", "a str");
    }
    options.minimizer.method = parse_method(method);
    if (!config.is_none()) {
        const py::module_ ganesh = py::module_::import("laddu_cpp.ganesh");
        if (py::isinstance(config, ganesh.attr("LBFGSBConfig"))) {
            read_lbfgsb_config(config, likelihood, options);
        } else if (py::isinstance(config, ganesh.attr("NelderMeadConfig"))) {
            read_nelder_mead_config(config, likelihood, options);
        } else {
            read_other_minimizer_config(config, likelihood, options);
        }
    }

    // ganesh's callbacks: terminators (step, StatusSnapshot) -> bool (True stops) and
    // observers (step, StatusSnapshot); progress (laddu-cpp) is (iteration, value, x) -> bool.
    struct Callbacks {
        std::vector<py::object> progress;
        std::vector<py::object> terminators;
        std::vector<py::object> observers;
    };

    auto callbacks = std::make_unique<Callbacks>();
    if (progress) {
        callbacks->progress.push_back(*progress);
    }
    if (!terminators.is_none()) {
        if (!py::isinstance<py::sequence>(terminators) || py::isinstance<py::str>(terminators)) {
            throw py::type_error("terminators must be a sequence (list) of ld.ganesh terminators "
                                 "or callables, got " +
                                 python_type_name(terminators));
        }
        const auto sequence = py::reinterpret_borrow<py::sequence>(terminators);
        bool gradient_rule_replaced = false;
        for (std::size_t i = 0; i < sequence.size(); ++i) {
            const py::object t = sequence[i];
            if (read_minimizer_terminator(t, options, gradient_rule_replaced) ||
                read_other_minimizer_terminator(t, options)) {
                continue;
            }
            if (py::hasattr(t, "steps")) {
                max_steps = std::min(max_steps,
                                     cast_arg<std::size_t>(t.attr("steps"), "a terminator's steps",
                                                           "a non-negative int"));
            } else if (PyCallable_Check(t.ptr()) != 0) {
                callbacks->terminators.push_back(py::reinterpret_borrow<py::object>(t));
            } else {
                throw py::type_error("a terminator is ld.ganesh.MaxSteps(n), an L-BFGS-B or "
                                     "Nelder-Mead terminator of ld.ganesh, or a callable "
                                     "(step, StatusSnapshot) -> bool; got " +
                                     python_type_name(t));
            }
        }
    }
    if (!observers.is_none()) {
        callbacks->observers = ganesh_observers(observers);
    }
    options.minimizer.max_iterations = max_steps;
    if (!callbacks->progress.empty() || !callbacks->terminators.empty() ||
        !callbacks->observers.empty()) {
        // The minimiser copies its options while the GIL is released: share the Python
        // callables instead of copying them (a copy touches their reference counts), and let
        // the last owner take the GIL to release them.
        const std::shared_ptr<const Callbacks> shared(callbacks.release(),
                                                      [](const Callbacks* owned) {
                                                          const py::gil_scoped_acquire gil;
                                                          delete owned;
                                                      });
        options.minimizer.progress = [shared](const fit::Progress& p) {
            bool keep_going = true;
            if (!shared->progress.empty()) {
                const py::gil_scoped_acquire gil;
                for (const py::object& callback : shared->progress) {
                    const py::object answer =
                        callback(p.iteration, p.value, std::vector<double>(p.x.begin(), p.x.end()));
                    keep_going =
                        keep_going &&
                        (answer.is_none() || cast_arg<bool>(answer, "a progress callback's answer",
                                                            "True, False or None"));
                }
            }
            if (shared->observers.empty() && shared->terminators.empty()) {
                return keep_going;
            }
            const std::string text = status_text(p);
            call_ganesh_callbacks(shared->observers, false, p.iteration, false, text);
            return !call_ganesh_callbacks(shared->terminators, true, p.iteration, false, text) &&
                   keep_going;
        };
    }
    return options;
}

py::array_t<double> matrix(const std::vector<double>& values, std::size_t n) {
    py::array_t<double> out({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(n)});
    std::copy(values.begin(), values.end(), out.mutable_data());
    return out;
}

}  // namespace

void bind_fit(py::module_& module) {
    py::class_<fit::FitResult>(module, "FitResult", "The outcome of a fit.")
        .def_readonly("parameter_names", &fit::FitResult::names)
        .def_property_readonly("x", [](const fit::FitResult& r) { return r.values; })
        .def_readonly("x0", &fit::FitResult::start, "The start point (ganesh's x0).")
        .def_property_readonly(
            "std", [](const fit::FitResult& r) { return r.uncertainties; },
            "The uncertainties (ganesh's std; also errors, uncertainties).")
        .def_property_readonly(
            "evals",
            [](const fit::FitResult& r) {
                return py::module_::import("laddu_cpp.ganesh")
                    .attr("EvalCounts")(r.value_evaluations, r.gradient_evaluations, 0);
            },
            "ganesh's EvalCounts: objective (f) and gradient (g) evaluations, Hessian (h) 0 (the "
            "Hessian is built from gradients, counted in g).")
        .def_readonly("values", &fit::FitResult::values)
        .def_readonly("uncertainties", &fit::FitResult::uncertainties)
        .def_property_readonly("errors", [](const fit::FitResult& r) { return r.uncertainties; })
        .def_property_readonly(
            "covariance",
            [](const fit::FitResult& r) { return matrix(r.covariance, r.names.size()); })
        .def_property_readonly(
            "correlation",
            [](const fit::FitResult& r) { return matrix(r.correlation, r.names.size()); })
        .def_readonly("fx", &fit::FitResult::value)
        .def_readonly("converged", &fit::FitResult::converged)
        .def_property_readonly("termination",
                               [](const fit::FitResult& r) {
                                   return std::string(fit::termination_name(r.termination));
                               })
        .def_property_readonly(
            "message",
            [](const fit::FitResult& r) {
                return py::module_::import("laddu_cpp.ganesh")
                    .attr("StatusMessage")(r.converged, r.message);
            },
            "ganesh's StatusMessage (success, text), which is also the text (a str).")
        .def_readonly("iterations", &fit::FitResult::iterations)
        .def_readonly("value_evaluations", &fit::FitResult::value_evaluations)
        .def_readonly("gradient_evaluations", &fit::FitResult::gradient_evaluations)
        .def_readonly("wall_seconds", &fit::FitResult::wall_seconds)
        .def(
            "as_dict",
            [](const fit::FitResult& r) {
                py::dict out;
                for (std::size_t i = 0; i < r.names.size(); ++i) {
                    out[py::str(r.names[i])] = py::make_tuple(r.values[i], r.uncertainties[i]);
                }
                return out;
            },
            "{name: (value, uncertainty)}")
        .def("__str__", &fit::FitResult::to_string)
        .def("__repr__", [](const fit::FitResult& r) {
            return fmt::format("FitResult(converged={}, fx={}, {} parameters)",
                               r.converged ? "True" : "False", r.value, r.names.size());
        });

    auto likelihood_class =
        py::reinterpret_borrow<py::class_<likelihood::Likelihood>>(module.attr("Likelihood"));
    likelihood_class.def(
        "fit",
        [](const likelihood::Likelihood& self, const py::object& initial, const std::string& method,
           std::size_t max_steps, const std::optional<py::function>& progress,
           const py::object& config, const py::object& terminators, const py::object& observers) {
            const std::vector<double> start = start_values(self, initial);
            const fit::FitOptions options =
                make_options(self, method, max_steps, progress, config, terminators, observers);
            const py::gil_scoped_release release;
            return fit::fit(self, start, options);
        },
        py::arg("initial") = py::none(), py::kw_only(), py::arg("method") = "lbfgsb",
        py::arg("max_steps") = 5000, py::arg("progress") = std::nullopt,
        py::arg("config") = py::none(), py::arg("terminators") = py::none(),
        py::arg("observers") = py::none(),
        "Minimises the likelihood from `initial` (a sequence, a partial dict by name, an "
        "ld.ganesh.VectorInit, or None for the defaults). A fit that does not converge returns "
        "converged=False. config= (an ld.ganesh config: LBFGSBConfig, NelderMeadConfig, "
        "MigradConfig, and, beyond laddu, CMAESConfig, PSOConfig, DifferentialEvolutionConfig, "
        "SimulatedAnnealingConfig, ConjugateGradientConfig, TrustRegionConfig) overrides "
        "method; terminators=[ld.ganesh.MaxSteps(n) or callables "
        "(step, StatusSnapshot) -> bool, True stops], observers=[callables (step, "
        "StatusSnapshot), e.g. ld.ganesh.ProgressObserver(interval=10)], as laddu. progress "
        "(laddu-cpp), if given, is called as progress(iteration, value, x) and may return False "
        "to stop.");
    likelihood_class.def(
        "fit_stochastic",
        [](const likelihood::Likelihood& self, const py::object& initial, const py::object& config,
           double fraction, std::uint64_t seed, const py::object& terminators,
           const py::object& observers) {
            if (!(fraction > 0.0 && fraction <= 1.0)) {
                throw py::value_error("fraction must be in (0, 1]");
            }
            const py::module_ ganesh = py::module_::import("laddu_cpp.ganesh");
            fit::AdamOptions options;
            if (!config.is_none()) {
                if (!py::isinstance(config, ganesh.attr("AdamConfig"))) {
                    throw py::type_error("config must be an ld.ganesh.AdamConfig or None, got " +
                                         python_type_name(config));
                }
                check_config_names(config, "AdamConfig", self.parameter_names());
                options.alpha = cast_arg<double>(config.attr("alpha"), "alpha", "a float");
                options.beta_1 = cast_arg<double>(config.attr("beta_1"), "beta_1", "a float");
                options.beta_2 = cast_arg<double>(config.attr("beta_2"), "beta_2", "a float");
                options.epsilon = cast_arg<double>(config.attr("epsilon"), "epsilon", "a float");
            }
            std::vector<py::object> callables;
            for (const py::handle t : terminators) {
                if (py::isinstance(t, ganesh.attr("MaxSteps"))) {
                    options.max_steps =
                        std::min(options.max_steps,
                                 cast_arg<std::size_t>(t.attr("steps"), "steps", "an int"));
                } else if (py::isinstance(t, ganesh.attr("AdamEMATerminator"))) {
                    options.ema_beta = cast_arg<double>(t.attr("beta_c"), "beta_c", "a float");
                    options.ema_eps_loss =
                        cast_arg<double>(t.attr("eps_loss"), "eps_loss", "a float");
                    options.ema_patience =
                        cast_arg<std::size_t>(t.attr("patience"), "patience", "an int");
                } else if (PyCallable_Check(t.ptr()) != 0) {
                    callables.push_back(py::reinterpret_borrow<py::object>(t));
                } else {
                    throw py::type_error("terminators must be ld.ganesh.MaxSteps, "
                                         "ld.ganesh.AdamEMATerminator or callables (step, "
                                         "StatusSnapshot) -> bool");
                }
            }
            const std::vector<py::object> watchers = ganesh_observers(observers);
            if (!callables.empty() || !watchers.empty()) {
                options.progress = [callables, watchers](const fit::Progress& p) {
                    (void)call_ganesh_callbacks(watchers, false, p.iteration, false, "Adam step");
                    return !call_ganesh_callbacks(callables, true, p.iteration, false, "Adam step");
                };
            }
            const std::vector<double> start = start_values(self, initial);
            const py::gil_scoped_release release;
            return fit::fit_stochastic(self, start, fraction, seed, options);
        },
        py::arg("initial") = py::none(), py::kw_only(), py::arg("config") = py::none(),
        py::arg("fraction") = 0.1, py::arg("seed") = 0, py::arg("terminators") = py::list(),
        py::arg("observers") = py::list(),
        "Minimises with Adam on mini-batches (laddu's fit_stochastic): each evaluation uses the "
        "data events subsample(fraction, seed + k) keeps (the k-th evaluation), scaled by "
        "1/fraction, and the whole accepted MC. Stops on ld.ganesh.AdamEMATerminator settings "
        "(the default rule), MaxSteps (default 10000) or a callable; returns a FitResult "
        "without uncertainties.");
    likelihood_class.def(
        "fit_restarts",
        [](const likelihood::Likelihood& self, std::size_t restarts, const py::object& initial,
           const py::object& config, std::uint64_t seed, const py::object& terminators,
           const std::string& method) {
            if (restarts == 0) {
                throw py::value_error("restarts must be positive");
            }
            std::vector<fit::FitResult> fits;
            for (std::size_t k = 0; k < restarts; ++k) {
                // laddu's starts: the given initial first, then its sample_initial(seed + k·φ).
                const std::vector<double> start =
                    k == 0 && !initial.is_none()
                        ? start_values(self, initial)
                        : expr::sample_initial(self.parameters(),
                                               seed + static_cast<std::uint64_t>(k) *
                                                          0x9E3779B97F4A7C15ULL);
                const fit::FitOptions options =
                    make_options(self, method, 5000, std::nullopt, config, terminators);
                const py::gil_scoped_release release;
                fits.push_back(fit::fit(self, start, options));
            }
            return fits;
        },
        py::arg("restarts"), py::arg("initial") = py::none(), py::kw_only(),
        py::arg("config") = py::none(), py::arg("seed") = 0, py::arg("terminators") = py::none(),
        py::arg("method") = "lbfgsb",
        "laddu's fit_restarts: `restarts` fits in turn, the first from `initial` when given, the "
        "others (and the first without `initial`) from sample_parameters(seed + k * "
        "0x9E3779B97F4A7C15), each parameter with an initial (low, high) range drawn from it. "
        "Returns the FitResults in order (pick the lowest fx).");
}

}  // namespace laddu::python
