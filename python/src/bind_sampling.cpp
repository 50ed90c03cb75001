// MCMC from Python (laddu's Likelihood.sample and walker_positions): the ld.ganesh settings
// objects (AIESInit, AIESConfig, AIESMove, ESSInit, ESSConfig, ESSMove, ChainStorage, MaxSteps,
// AutocorrelationTerminator, defined in laddu_cpp/ganesh.py) are read by attribute and run
// through fit::sample_aies or fit::sample_ess; the result is an MCMCSummary. The log density is
// −NLL, −∞ outside the parameters' bounds (as laddu's). The GIL is released while sampling;
// callbacks re-acquire it.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/base/error.hpp>
#include <laddu/fit/ensemble_sampler.hpp>
#include <laddu/fit/ensemble_slice_sampler.hpp>
#include <laddu/likelihood/likelihood.hpp>
#include <laddu/runtime/thread_pool.hpp>

#include "bindings.hpp"
#include "conversions.hpp"
#include "ganesh_callbacks.hpp"

namespace py = pybind11;

namespace laddu::python {

namespace {

/// MCMCSummary: the chain and what ganesh reports with it.
struct McmcSummary {
    fit::McmcChain chain;
    std::vector<std::string> names;  ///< the likelihood's parameter names
};

fit::ChainStorage read_storage(const py::object& storage) {
    fit::ChainStorage s;
    if (storage.is_none()) {
        return s;
    }
    const auto kind = cast_arg<std::string>(storage.attr("kind"), "ChainStorage.kind", "a str");
    if (kind == "rolling") {
        s.kind = fit::ChainStorage::Kind::kRolling;
        s.window = cast_arg<std::size_t>(storage.attr("window"), "ChainStorage.window", "an int");
    } else if (kind == "sampled") {
        s.kind = fit::ChainStorage::Kind::kSampled;
        s.keep_every =
            cast_arg<std::size_t>(storage.attr("keep_every"), "ChainStorage.keep_every", "an int");
        s.max_samples = cast_arg<std::optional<std::size_t>>(
            storage.attr("max_samples"), "ChainStorage.max_samples", "an int or None");
    }
    return s;
}

fit::AiesOptions read_config(const py::object& config, std::uint64_t seed) {
    fit::AiesOptions options;
    options.seed = seed;
    if (config.is_none()) {
        return options;
    }
    options.stretch_scale =
        cast_arg<double>(config.attr("stretch_scale"), "AIESConfig.stretch_scale", "a float");
    const py::object moves = config.attr("moves");
    if (!moves.is_none()) {
        for (const py::handle move : moves) {
            const auto kind = cast_arg<std::string>(move.attr("kind"), "AIESMove.kind", "a str");
            fit::AiesMove m;
            m.kind = kind == "walk" ? fit::AiesMove::Kind::kWalk : fit::AiesMove::Kind::kStretch;
            m.scale = cast_arg<double>(move.attr("scale"), "AIESMove.scale", "a float");
            options.moves.emplace_back(
                m, cast_arg<double>(move.attr("weight"), "AIESMove.weight", "a float"));
        }
    }
    options.storage = read_storage(config.attr("chain_storage"));
    return options;
}

fit::EssOptions read_ess_config(const py::object& config, std::uint64_t seed) {
    fit::EssOptions options;
    options.seed = seed;
    if (config.is_none()) {
        return options;
    }
    options.bracket_width =
        cast_arg<double>(config.attr("bracket_width"), "ESSConfig.bracket_width", "a float");
    options.max_shrink_steps = cast_arg<std::size_t>(config.attr("max_shrink_steps"),
                                                     "ESSConfig.max_shrink_steps", "an int");
    options.adaptive_steps =
        cast_arg<std::size_t>(config.attr("adaptive_steps"), "ESSConfig.adaptive_steps", "an int");
    options.direction_scale =
        cast_arg<double>(config.attr("direction_scale"), "ESSConfig.direction_scale", "a float");
    const py::object moves = config.attr("moves");
    if (!moves.is_none()) {
        const auto sequence = py::reinterpret_borrow<py::sequence>(moves);
        for (std::size_t i = 0; i < py::len(sequence); ++i) {
            const py::object move = sequence[i];
            const auto kind = cast_arg<std::string>(move.attr("kind"), "ESSMove.kind", "a str");
            fit::EssMove m;
            if (kind == "gaussian") {
                m.kind = fit::EssMove::Kind::kGaussian;
            } else if (kind == "global") {
                m.kind = fit::EssMove::Kind::kGlobal;
            } else if (kind != "differential") {
                throw py::value_error("ESSMove.kind must be differential, gaussian or global");
            }
            m.scale = cast_arg<double>(move.attr("scale"), "ESSMove.scale", "a float");
            m.rescale_covariance = cast_arg<double>(move.attr("rescale_covariance"),
                                                    "ESSMove.rescale_covariance", "a float");
            m.components =
                cast_arg<std::size_t>(move.attr("components"), "ESSMove.components", "an int");
            options.moves.emplace_back(
                m, cast_arg<double>(move.attr("weight"), "ESSMove.weight", "a float"));
        }
    }
    options.storage = read_storage(config.attr("chain_storage"));
    return options;
}

McmcSummary sample(const likelihood::Likelihood& self, const py::object& init,
                   const py::object& config, std::uint64_t seed, const py::object& terminators,
                   const py::object& observers, std::size_t threads) {
    const py::module_ ganesh = py::module_::import("laddu_cpp.ganesh");
    // The init picks the sampler; the config must belong to it.
    const bool ess = py::isinstance(init, ganesh.attr("ESSInit"));
    if (!ess && !py::isinstance(init, ganesh.attr("AIESInit"))) {
        throw py::type_error("init must be an ld.ganesh.AIESInit (affine-invariant ensemble "
                             "sampler) or ld.ganesh.ESSInit (ensemble slice sampler), got " +
                             python_type_name(init));
    }
    const char* config_class = ess ? "ESSConfig" : "AIESConfig";
    if (!config.is_none() && !py::isinstance(config, ganesh.attr(config_class))) {
        throw py::type_error(fmt::format("init is an ld.ganesh.{}, so config must be an "
                                         "ld.ganesh.{} or None, got {}",
                                         ess ? "ESSInit" : "AIESInit", config_class,
                                         python_type_name(config)));
    }
    if (!py::isinstance<py::iterable>(terminators) || !py::isinstance<py::iterable>(observers)) {
        throw py::type_error("terminators and observers must be sequences");
    }
    const auto walkers = cast_arg<std::vector<std::vector<double>>>(
        init.attr("walkers"), "init.walkers", "an (n_walkers, n_parameters) array");
    for (const auto& walker : walkers) {
        if (walker.size() != self.size()) {
            throw py::value_error(fmt::format("each walker needs {} values ([{}]), got {}",
                                              self.size(), fmt::join(self.parameter_names(), ", "),
                                              walker.size()));
        }
    }
    if (threads == 0 || threads > runtime::kMaxThreads) {
        throw py::value_error(
            fmt::format("threads must be between 1 and {}, got {}", runtime::kMaxThreads, threads));
    }
    if (ess && threads != 1) {
        throw py::value_error(
            "threads applies to the affine-invariant sampler (ld.ganesh.AIESInit) "
            "only; the ensemble slice sampler evaluates one walker at a time");
    }
    fit::AiesOptions options = ess ? fit::AiesOptions{} : read_config(config, seed);
    options.threads = threads;
    const fit::EssOptions ess_options = ess ? read_ess_config(config, seed) : fit::EssOptions{};
    check_config_names(config, config_class, self.parameter_names());
    fit::SamplerStop stop;
    fit::AutocorrelationCheck check;
    py::object autocorrelation = py::none();
    for (const py::handle t : terminators) {
        if (py::isinstance(t, ganesh.attr("MaxSteps"))) {
            const auto steps = cast_arg<std::size_t>(t.attr("steps"), "MaxSteps.steps", "an int");
            stop.max_steps = stop.max_steps ? std::min(*stop.max_steps, steps) : steps;
        } else if (py::isinstance(t, ganesh.attr("AutocorrelationTerminator"))) {
            check.n_check = cast_arg<std::size_t>(t.attr("n_check"), "n_check", "an int");
            check.n_taus_threshold =
                cast_arg<std::size_t>(t.attr("n_taus_threshold"), "n_taus_threshold", "an int");
            check.dtau_threshold =
                cast_arg<double>(t.attr("dtau_threshold"), "dtau_threshold", "a float");
            check.discard = cast_arg<double>(t.attr("discard"), "discard", "a float");
            check.terminate = cast_arg<bool>(t.attr("terminate"), "terminate", "a bool");
            if (!t.attr("sokal_window").is_none()) {
                check.sokal_window =
                    cast_arg<double>(t.attr("sokal_window"), "sokal_window", "a float");
            }
            if (cast_arg<bool>(t.attr("verbose"), "verbose", "a bool")) {
                check.report = [](const std::string& text) {
                    const py::gil_scoped_acquire gil;
                    py::print(text);
                };
            }
            autocorrelation = py::reinterpret_borrow<py::object>(t);
            stop.autocorrelation = &check;
        } else if (PyCallable_Check(t.ptr()) != 0) {
            const std::vector<py::object> callable{py::reinterpret_borrow<py::object>(t)};
            stop.terminators.emplace_back([callable](const fit::SamplerStatus& status) {
                return call_ganesh_callbacks(callable, true, status.step, status.success,
                                             status.message);
            });
        } else {
            throw py::type_error("terminators must be ld.ganesh.MaxSteps, "
                                 "ld.ganesh.AutocorrelationTerminator or callables "
                                 "(step, StatusSnapshot) -> bool");
        }
    }
    const std::vector<py::object> watchers = ganesh_observers(observers);
    if (!watchers.empty()) {
        stop.observers.emplace_back([watchers](const fit::SamplerStatus& status) {
            return call_ganesh_callbacks(watchers, false, status.step, status.success,
                                         status.message);
        });
    }
    const std::vector<expr::Bounds> bounds = self.bounds();
    const auto log_density = [&self, &bounds](std::span<const double> x) {
        for (std::size_t i = 0; i < x.size(); ++i) {
            if (!(x[i] >= bounds[i].lower && x[i] <= bounds[i].upper)) {
                return -std::numeric_limits<double>::infinity();
            }
        }
        return -self.value(x);
    };
    McmcSummary summary;
    {
        const py::gil_scoped_release release;
        summary.chain = ess ? fit::sample_ess(log_density, walkers, ess_options, stop)
                            : fit::sample_aies(log_density, walkers, options, stop);
    }
    summary.names = self.parameter_names();
    if (!autocorrelation.is_none()) {
        autocorrelation.attr("taus") = check.taus;
    }
    return summary;
}

}  // namespace

void bind_sampling(py::module_& module) {
    py::class_<McmcSummary>(module, "MCMCSummary",
                            "An MCMC result: the retained chains (walkers, samples, parameters) "
                            "and the run's counts and message.")
        .def_property_readonly("chain",
                               [](const McmcSummary& s) {
                                   const fit::McmcChain& c = s.chain;
                                   py::array_t<double> out({static_cast<py::ssize_t>(c.walkers),
                                                            static_cast<py::ssize_t>(c.steps),
                                                            static_cast<py::ssize_t>(c.dimension)});
                                   std::copy(c.values.begin(), c.values.end(), out.mutable_data());
                                   return out;
                               })
        .def_property_readonly("dimension",
                               [](const McmcSummary& s) {
                                   return py::make_tuple(s.chain.walkers, s.chain.steps,
                                                         s.chain.dimension);
                               })
        .def_property_readonly("evals",
                               [](const McmcSummary& s) {
                                   return py::module_::import("laddu_cpp.ganesh")
                                       .attr("EvalCounts")(s.chain.evaluations, 0, 0);
                               })
        .def_property_readonly("message",
                               [](const McmcSummary& s) {
                                   return py::module_::import("laddu_cpp.ganesh")
                                       .attr("StatusMessage")(s.chain.success, s.chain.message);
                               })
        .def_readonly("parameter_names", &McmcSummary::names)
        // laddu-cpp extras.
        .def_property_readonly(
            "acceptance_fraction", [](const McmcSummary& s) { return s.chain.acceptance; },
            "Per walker: accepted proposals / steps.")
        .def(
            "autocorrelation_times",
            [](const McmcSummary& s, double discard, double sokal_window) {
                if (!(discard >= 0.0 && discard < 1.0)) {
                    throw py::value_error("discard must be in [0, 1)");
                }
                return fit::integrated_autocorrelation_times(
                    s.chain, static_cast<std::size_t>(discard * static_cast<double>(s.chain.steps)),
                    sokal_window);
            },
            py::kw_only(), py::arg("discard") = 0.5, py::arg("sokal_window") = 7.0,
            "Integrated autocorrelation time of each parameter (Sokal's window, the "
            "autocorrelation averaged over walkers) after discarding that fraction of samples.")
        .def("__repr__", [](const McmcSummary& s) {
            return fmt::format("MCMCSummary(walkers={}, samples={}, parameters={}, message={:?})",
                               s.chain.walkers, s.chain.steps, s.chain.dimension, s.chain.message);
        });

    auto likelihood_class =
        py::reinterpret_borrow<py::class_<likelihood::Likelihood>>(module.attr("Likelihood"));
    likelihood_class.def(
        "sample", &sample, py::arg("init"), py::kw_only(), py::arg("config") = py::none(),
        py::arg("seed") = 0, py::arg("terminators") = py::list(), py::arg("observers") = py::list(),
        py::arg("threads") = 1,
        "Samples exp(−NLL) within the parameters' bounds from init: the "
        "affine-invariant ensemble sampler for an ld.ganesh.AIESInit (config: "
        "ld.ganesh.AIESConfig), the ensemble slice sampler for an "
        "ld.ganesh.ESSInit (config: ld.ganesh.ESSConfig); terminators: ld.ganesh.MaxSteps, "
        "ld.ganesh.AutocorrelationTerminator or callables (step, "
        "StatusSnapshot) -> bool; observers: callables (step, StatusSnapshot). threads "
        "(laddu-cpp; AIES only): walkers whose proposals are evaluated at once, which pays on "
        "small data sets with an Execution(threads=1) likelihood; any count gives the same "
        "chain. Returns an ld.ganesh.MCMCSummary.");
    likelihood_class.def(
        "walker_positions",
        [](const likelihood::Likelihood& self, const py::object& center, std::size_t n_walkers,
           double scale, std::uint64_t seed) {
            std::vector<double> values;
            if (py::isinstance<py::dict>(center)) {
                values = self.values_from(cast_arg<std::map<std::string, double>>(
                    center, "center", "a dict of str to float"));
            } else {
                values = cast_arg<std::vector<double>>(center, "center",
                                                       "a sequence of floats or a dict by name");
            }
            if (values.size() != self.size()) {
                throw py::value_error(
                    fmt::format("center needs {} values, got {}", self.size(), values.size()));
            }
            const std::vector<expr::Bounds> bounds = self.bounds();
            const auto rows = fit::walker_positions(values, bounds, self.parameter_names(),
                                                    n_walkers, scale, seed);
            py::array_t<double> out(
                {static_cast<py::ssize_t>(rows.size()), static_cast<py::ssize_t>(values.size())});
            double* data = out.mutable_data();
            for (const auto& row : rows) {
                data = std::copy(row.begin(), row.end(), data);
            }
            return out;
        },
        py::arg("center"), py::arg("n_walkers"), py::kw_only(), py::arg("scale") = 1e-3,
        py::arg("seed") = 0,
        "(n_walkers, n_parameters) starting points in a uniform cloud of half-width scale · "
        "max(|center|, 1) around center, inside the bounds.");
}

}  // namespace laddu::python
