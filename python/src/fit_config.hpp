// ganesh's fit configurations and minimiser terminators (python/laddu_cpp/ganesh.py) read into
// fit::FitOptions: LBFGSBConfig, NelderMeadConfig, their line searches and the L-BFGS-B /
// Nelder-Mead terminators, and ganesh's other minimisers' configs and terminators (CMA-ES,
// particle swarm, differential evolution, simulated annealing, conjugate gradient, trust region).
// The Python classes validate their values; what depends on the likelihood (parameter names, the
// number of bounds and simplex vertices) is checked here.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/fit/fit.hpp>
#include <laddu/likelihood/likelihood.hpp>

#include "conversions.hpp"
#include "ganesh_callbacks.hpp"

namespace laddu::python {

/// Reads `config.line_search` (None, MoreThuenteLineSearch or HagerZhangLineSearch).
inline fit::LineSearchOptions read_line_search(const pybind11::object& search) {
    namespace py = pybind11;
    fit::LineSearchOptions out;
    if (search.is_none()) {
        return out;
    }
    const py::module_ ganesh = py::module_::import("laddu_cpp.ganesh");
    const auto real = [&](const char* name) {
        return cast_arg<double>(search.attr(name), name, "a float");
    };
    const auto whole = [&](const char* name) {
        return cast_arg<std::size_t>(search.attr(name), name, "a non-negative int");
    };
    if (py::isinstance(search, ganesh.attr("MoreThuenteLineSearch"))) {
        out.kind = fit::LineSearchKind::kMoreThuente;
        out.c1 = real("c1");
        out.c2 = real("c2");
        out.max_iterations = whole("max_iterations");
        out.max_zoom = whole("max_zoom");
    } else if (py::isinstance(search, ganesh.attr("HagerZhangLineSearch"))) {
        out.kind = fit::LineSearchKind::kHagerZhang;
        out.delta = real("delta");
        out.sigma = real("sigma");
        out.epsilon = real("epsilon");
        out.theta = real("theta");
        out.gamma = real("gamma");
        out.max_iterations = whole("max_iterations");
        out.max_bisects = whole("max_bisects");
    } else {
        throw py::type_error("line_search must be ld.ganesh.MoreThuenteLineSearch, "
                             "ld.ganesh.HagerZhangLineSearch or None, got " +
                             python_type_name(search));
    }
    return out;
}

/// ganesh's LBFGSBConfig options into `options`.
inline void read_lbfgsb_config(const pybind11::object& config,
                               const likelihood::Likelihood& likelihood, fit::FitOptions& options) {
    namespace py = pybind11;
    check_config_names(config, "LBFGSBConfig", likelihood.parameter_names());
    options.minimizer.memory =
        cast_arg<std::size_t>(config.attr("history_size"), "history_size", "a positive int");
    options.minimizer.max_step = cast_arg<double>(config.attr("max_step"), "max_step", "a float");
    options.uncertainties =
        cast_arg<std::string>(config.attr("error_mode"), "error_mode", "a str") != "skip";
    options.minimizer.line_search = read_line_search(config.attr("line_search"));
    const py::object bounds = config.attr("bounds");
    if (bounds.is_none()) {
        return;
    }
    const auto pairs = cast_arg<std::vector<std::pair<double, double>>>(
        bounds, "LBFGSBConfig.bounds", "a list of (lower, upper) pairs");
    const std::vector<expr::Parameter>& parameters = likelihood.parameters();
    if (pairs.size() != parameters.size()) {
        throw py::value_error(fmt::format(
            "LBFGSBConfig.bounds has {} (lower, upper) pairs; the likelihood has {} parameters "
            "([{}])",
            pairs.size(), parameters.size(), fmt::join(likelihood.parameter_names(), ", ")));
    }
    const std::vector<expr::Bounds> own = likelihood.bounds();
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        if (parameters[k].periodic &&
            (pairs[k].first != own[k].lower || pairs[k].second != own[k].upper)) {
            throw py::value_error(fmt::format(
                "LBFGSBConfig.bounds cannot change the period of the periodic parameter '{}' "
                "([{}, {}]); pass its own bounds for it",
                likelihood.parameter_names()[k], own[k].lower, own[k].upper));
        }
        options.bounds.push_back(expr::Bounds{pairs[k].first, pairs[k].second});
    }
}

/// ganesh's NelderMeadConfig options into `options`.
inline void read_nelder_mead_config(const pybind11::object& config,
                                    const likelihood::Likelihood& likelihood,
                                    fit::FitOptions& options) {
    namespace py = pybind11;
    check_config_names(config, "NelderMeadConfig", likelihood.parameter_names());
    fit::NelderMeadOptions& nm = options.minimizer.nelder_mead;
    const auto real = [&](const char* name) {
        return cast_arg<double>(config.attr(name), name, "a float");
    };
    nm.reflection = real("reflection");
    nm.expansion = real("expansion");
    nm.contraction = real("contraction");
    nm.shrink = real("shrink");
    nm.initial_step = real("initial_step");
    nm.initial_zero_step = real("initial_zero_step");
    nm.expansion_method = cast_arg<std::string>(config.attr("expansion_method"), "expansion_method",
                                                "a str") == "greedy_expansion"
                              ? fit::SimplexExpansion::kGreedyExpansion
                              : fit::SimplexExpansion::kGreedyMinimization;
    const py::object simplex = config.attr("initial_simplex");
    if (simplex.is_none()) {
        return;
    }
    nm.vertices = cast_arg<std::vector<std::vector<double>>>(
        simplex, "NelderMeadConfig.initial_simplex", "a list of vertices (lists of floats)");
    const std::size_t n = likelihood.size();
    if (nm.vertices.size() != n + 1 ||
        std::any_of(nm.vertices.begin(), nm.vertices.end(),
                    [n](const std::vector<double>& v) { return v.size() != n; })) {
        throw py::value_error(fmt::format(
            "NelderMeadConfig.initial_simplex must have {} vertices of {} values (the "
            "likelihood's parameters [{}]), got {} vertices",
            n + 1, n, fmt::join(likelihood.parameter_names(), ", "), nm.vertices.size()));
    }
}

/// The minimiser terminators of `terminators` (those of ld.ganesh's L-BFGS-B and Nelder-Mead
/// families) into `options`; true when `t` was one. A family's terminators replace laddu-cpp's
/// rule of that family: the value-change rule (LBFGSBFTerminator), the gradient rule
/// (LBFGSBGTerminator, LBFGSBInfNormGTerminator), the simplex rule (NelderMead*Terminator);
/// `gradient_rule_replaced` starts false and tracks the second.
inline bool read_minimizer_terminator(const pybind11::handle& t, fit::FitOptions& options,
                                      bool& gradient_rule_replaced) {
    namespace py = pybind11;
    const py::module_ ganesh = py::module_::import("laddu_cpp.ganesh");
    fit::MinimizerOptions& m = options.minimizer;
    const bool lbfgsb = m.method == fit::Method::kLbfgsb;
    const bool nelder_mead = m.method == fit::Method::kNelderMead;
    const auto family = [&](bool fits, const char* name) {
        if (!fits) {
            throw py::type_error(fmt::format(
                "ld.ganesh.{} does not fit this fit's method; L-BFGS-B (LBFGSBConfig) takes "
                "LBFGSBFTerminator, LBFGSBGTerminator and LBFGSBInfNormGTerminator, Nelder-Mead "
                "(NelderMeadConfig) NelderMeadFTerminator and NelderMeadXTerminator; any fit "
                "takes MaxSteps and callables",
                name));
        }
    };
    const auto eps = [&]() {
        return cast_arg<double>(t.attr("eps_abs"), "eps_abs", "a float");
    };
    if (py::isinstance(t, ganesh.attr("LBFGSBFTerminator"))) {
        family(lbfgsb, "LBFGSBFTerminator");
        m.value_tolerance = -1.0;
        m.value_change_tolerance = std::max(m.value_change_tolerance, eps());
        return true;
    }
    const bool g = py::isinstance(t, ganesh.attr("LBFGSBGTerminator"));
    if (g || py::isinstance(t, ganesh.attr("LBFGSBInfNormGTerminator"))) {
        family(lbfgsb, g ? "LBFGSBGTerminator" : "LBFGSBInfNormGTerminator");
        if (!gradient_rule_replaced) {
            m.gradient_tolerance = -1.0;
            gradient_rule_replaced = true;
        }
        double& tolerance = g ? m.gradient_norm_tolerance : m.gradient_tolerance;
        tolerance = std::max(tolerance, eps());
        return true;
    }
    const bool f = py::isinstance(t, ganesh.attr("NelderMeadFTerminator"));
    if (f || py::isinstance(t, ganesh.attr("NelderMeadXTerminator"))) {
        family(nelder_mead, f ? "NelderMeadFTerminator" : "NelderMeadXTerminator");
        const auto kind = cast_arg<std::string>(t.attr("kind"), "kind", "a str");
        const double tolerance = cast_arg<double>(t.attr("tolerance"), "tolerance", "a float");
        using C = fit::SimplexCriterion;
        const C criterion = kind == "stddev"     ? C::kValueStdDev
                            : kind == "absolute" ? C::kValueAbsolute
                            : kind == "amoeba"   ? C::kValueAmoeba
                            : kind == "diameter" ? C::kPointDiameter
                            : kind == "higham"   ? C::kPointHigham
                            : kind == "rowan"    ? C::kPointRowan
                                                 : C::kPointSinger;
        m.nelder_mead.terminators.push_back(fit::SimplexTerminator{criterion, tolerance});
        return true;
    }
    return false;
}

/// The options of ganesh's other minimisers (ld.ganesh's CMAESConfig, PSOConfig,
/// DifferentialEvolutionConfig, SimulatedAnnealingConfig, ConjugateGradientConfig,
/// TrustRegionConfig) into `options`; false when `config` is none of them. The Python classes
/// validate their values; the position bounds' count is checked here.
inline bool read_other_minimizer_config(const pybind11::object& config,
                                        const likelihood::Likelihood& likelihood,
                                        fit::FitOptions& options) {
    namespace py = pybind11;
    const py::module_ ganesh = py::module_::import("laddu_cpp.ganesh");
    fit::MinimizerOptions& m = options.minimizer;
    const auto real = [&](const char* name) {
        return cast_arg<double>(config.attr(name), name, "a float");
    };
    const auto whole = [&](const char* name) {
        return cast_arg<std::size_t>(config.attr(name), name, "a non-negative int");
    };
    const auto text = [&](const char* name) {
        return cast_arg<std::string>(config.attr(name), name, "a str");
    };
    const auto seed = [&]() {
        return cast_arg<std::uint64_t>(config.attr("seed"), "seed", "a non-negative int");
    };
    const auto is = [&](const char* name) {
        if (!py::isinstance(config, ganesh.attr(name))) {
            return false;
        }
        check_config_names(config, name, likelihood.parameter_names());
        return true;
    };
    if (is("CMAESConfig")) {
        m.cmaes.population_size = whole("population_size");
        m.cmaes.initial_sigma = real("initial_sigma");
        m.cmaes.seed = seed();
    } else if (is("PSOConfig")) {
        fit::ParticleSwarmOptions& p = m.particle_swarm;
        p.particles = whole("particles");
        p.inertia = real("inertia");
        p.cognitive = real("cognitive");
        p.social = real("social");
        p.initial_scale = real("initial_scale");
        p.topology =
            text("topology") == "ring" ? fit::SwarmTopology::kRing : fit::SwarmTopology::kGlobal;
        p.ring_radius = whole("ring_radius");
        p.asynchronous = text("update_method") == "asynchronous";
        const py::object velocity = config.attr("velocity_scale");
        p.velocity_scale = velocity.is_none() ? 0.0 : real("velocity_scale");
        p.seed = seed();
        const py::object bounds = config.attr("position_bounds");
        if (!bounds.is_none()) {
            const auto pairs = cast_arg<std::vector<std::pair<double, double>>>(
                bounds, "PSOConfig.position_bounds", "a list of (lower, upper) pairs");
            if (pairs.size() != likelihood.size()) {
                throw py::value_error(fmt::format(
                    "PSOConfig.position_bounds has {} (lower, upper) pairs; the likelihood has {} "
                    "parameters ([{}])",
                    pairs.size(), likelihood.size(),
                    fmt::join(likelihood.parameter_names(), ", ")));
            }
            for (const auto& [lower, upper] : pairs) {
                p.position_bounds.push_back(expr::Bounds{lower, upper});
            }
        }
    } else if (is("DifferentialEvolutionConfig")) {
        fit::DifferentialEvolutionOptions& d = m.differential_evolution;
        d.population_size = whole("population_size");
        d.differential_weight = real("differential_weight");
        d.crossover_probability = real("crossover_probability");
        d.initial_scale = real("initial_scale");
        d.seed = seed();
    } else if (is("SimulatedAnnealingConfig")) {
        fit::SimulatedAnnealingOptions& a = m.simulated_annealing;
        a.initial_temperature = real("initial_temperature");
        a.cooling_rate = real("cooling_rate");
        a.proposal_scale = real("proposal_scale");
        a.seed = seed();
    } else if (is("ConjugateGradientConfig")) {
        using U = fit::ConjugateGradientUpdate;
        const std::string update = text("update");
        m.conjugate_gradient.update = update == "fletcher_reeves"         ? U::kFletcherReeves
                                      : update == "hestenes_stiefel_plus" ? U::kHestenesStiefelPlus
                                      : update == "dai_yuan"              ? U::kDaiYuan
                                      : update == "hager_zhang"           ? U::kHagerZhang
                                                                          : U::kPolakRibierePlus;
        m.line_search = read_line_search(config.attr("line_search"));
    } else if (is("TrustRegionConfig")) {
        fit::TrustRegionOptions& t = m.trust_region;
        t.subproblem = text("subproblem") == "cauchy_point"
                           ? fit::TrustRegionSubproblem::kCauchyPoint
                           : fit::TrustRegionSubproblem::kDogleg;
        t.initial_radius = real("initial_radius");
        t.max_radius = real("max_radius");
        t.eta = real("eta");
    } else {
        return false;
    }
    return true;
}

/// The terminators of ganesh's other minimisers into `options` (true when `t` was one). As in
/// ganesh they join the method's default rules: each sets the looser of its threshold and the
/// current one (the earlier stop), and the on-by-default CMA-ES rules change nothing.
inline bool read_other_minimizer_terminator(const pybind11::handle& t, fit::FitOptions& options) {
    namespace py = pybind11;
    const py::module_ ganesh = py::module_::import("laddu_cpp.ganesh");
    fit::MinimizerOptions& m = options.minimizer;
    const auto of = [&](const char* name, fit::Method method, const char* config) {
        if (!py::isinstance(t, ganesh.attr(name))) {
            return false;
        }
        if (m.method != method) {
            throw py::type_error(fmt::format("ld.ganesh.{} stops {} only; this fit's config is "
                                             "another method",
                                             name, config));
        }
        return true;
    };
    const auto value = [&](const char* name) {
        return cast_arg<double>(t.attr(name), name, "a float");
    };
    if (of("SimulatedAnnealingTerminator", fit::Method::kSimulatedAnnealing,
           "SimulatedAnnealingConfig")) {
        double& threshold = m.simulated_annealing.min_temperature;
        threshold = std::max(threshold, value("min_temperature"));
    } else if (of("ConjugateGradientGTerminator", fit::Method::kConjugateGradient,
                  "ConjugateGradientConfig")) {
        double& threshold = m.conjugate_gradient.gradient_norm_tolerance;
        threshold = std::max(threshold, value("eps_abs"));
    } else if (of("TrustRegionGTerminator", fit::Method::kTrustRegion, "TrustRegionConfig")) {
        double& threshold = m.trust_region.gradient_norm_tolerance;
        threshold = std::max(threshold, value("eps_abs"));
    } else if (of("CMAESSigmaTerminator", fit::Method::kCmaes, "CMAESConfig")) {
        m.cmaes.sigma_tolerance = std::max(m.cmaes.sigma_tolerance, value("value"));
    } else if (of("CMAESTolFunTerminator", fit::Method::kCmaes, "CMAESConfig")) {
        m.cmaes.tol_fun = std::max(m.cmaes.tol_fun, value("value"));
    } else if (of("CMAESTolXTerminator", fit::Method::kCmaes, "CMAESConfig")) {
        m.cmaes.tol_x = std::max(m.cmaes.tol_x, value("value"));
    } else if (of("CMAESConditionCovTerminator", fit::Method::kCmaes, "CMAESConfig")) {
        m.cmaes.max_condition = std::min(m.cmaes.max_condition, value("value"));
    } else if (of("CMAESTolXUpTerminator", fit::Method::kCmaes, "CMAESConfig")) {
        m.cmaes.max_growth = std::min(m.cmaes.max_growth, value("value"));
    } else {
        return of("CMAESNoEffectAxisTerminator", fit::Method::kCmaes, "CMAESConfig") ||
               of("CMAESNoEffectCoordTerminator", fit::Method::kCmaes, "CMAESConfig") ||
               of("CMAESEqualFunValuesTerminator", fit::Method::kCmaes, "CMAESConfig") ||
               of("CMAESStagnationTerminator", fit::Method::kCmaes, "CMAESConfig");
    }
    return true;
}

}  // namespace laddu::python
