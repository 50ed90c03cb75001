// What a fit is used for afterwards, from Python: projections (laddu's
// likelihood.projection(term, tags=).weights(θ), or nll.projection(tags=)), fit fractions
// (nll.fit_fraction(θ, tags) and FitResult.fit_fraction(term, tags) with the propagated
// uncertainty), bootstrap fits (ld.bootstrap_fit) and sample_parameters(seed). Evaluations
// release the GIL.
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/base/assert.hpp>
#include <laddu/base/error.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/expr/parameter.hpp>
#include <laddu/fit/bootstrap.hpp>
#include <laddu/fit/fit.hpp>
#include <laddu/fit/fit_fraction.hpp>
#include <laddu/likelihood/likelihood.hpp>
#include <laddu/likelihood/nll.hpp>

#include "bindings.hpp"
#include "conversions.hpp"
#include "event_data.hpp"
#include "parameters.hpp"

namespace py = pybind11;

namespace laddu::python {

namespace {

using likelihood::UnbinnedNll;

py::array_t<double> to_numpy(const std::vector<double>& values) {
    py::array_t<double> out(static_cast<py::ssize_t>(values.size()));
    std::copy(values.begin(), values.end(), out.mutable_data());
    return out;
}

std::vector<double> defaults_of(const std::vector<expr::Parameter>& parameters) {
    std::vector<double> out;
    for (const expr::Parameter& p : parameters) {
        out.push_back(p.default_value());
    }
    return out;
}

// laddu's LikelihoodProjection: one term's projection weights over its accepted MC, with the
// parameter vector in the order of `names` (the likelihood's, or the term's own).
class Projection {
public:
    Projection(std::shared_ptr<const UnbinnedNll> term, std::vector<std::string> tags,
               std::vector<std::string> names, std::vector<double> defaults)
        : term_(std::move(term)), tags_(std::move(tags)), names_(std::move(names)),
          defaults_(std::move(defaults)) {
        for (const std::string& name : term_->parameter_names()) {
            const auto it = std::find(names_.begin(), names_.end(), name);
            LADDU_ASSERT(it != names_.end()) << "term parameter " << name;
            index_.push_back(static_cast<std::size_t>(it - names_.begin()));
        }
    }

    [[nodiscard]] std::vector<double> term_values(const py::object& parameters) const {
        const std::vector<double> all = parameter_values(names_, defaults_, parameters);
        std::vector<double> out;
        for (const std::size_t i : index_) {
            out.push_back(all[i]);
        }
        return out;
    }

    [[nodiscard]] const UnbinnedNll& term() const { return *term_; }

    [[nodiscard]] const std::vector<std::string>& tags() const { return tags_; }

private:
    std::shared_ptr<const UnbinnedNll> term_;
    std::vector<std::string> tags_;
    std::vector<std::string> names_;
    std::vector<double> defaults_;
    std::vector<std::size_t> index_;  // per term parameter: its position in names_
};

std::vector<std::string> tag_list(const py::object& tags) {
    if (tags.is_none()) {
        return {};
    }
    if (py::isinstance<py::str>(tags)) {
        return {cast_arg<std::string>(tags, "tags", "a str, a sequence of str or None")};
    }
    return cast_arg<std::vector<std::string>>(tags, "tags", "a str, a sequence of str or None");
}

}  // namespace

void bind_projection(py::module_& module) {
    py::class_<Projection>(module, "LikelihoodProjection",
                           "A term's fitted model drawn over its accepted MC (optionally only "
                           "the amplitudes tagged `tags`).")
        .def_property_readonly("tags", &Projection::tags)
        .def(
            "weights",
            [](const Projection& self, const py::object& parameters) {
                const std::vector<double> values = self.term_values(parameters);
                std::vector<double> weights;
                {
                    const py::gil_scoped_release release;
                    weights = self.term().projection_weights(values, self.tags());
                }
                return to_numpy(weights);
            },
            py::arg("parameters") = py::none(),
            "Per accepted-MC event: w_j I_tags(θ) scaled so the full model sums to the data "
            "yield (NLL) or is the yield (ExtendedNLL).");

    auto nll = py::reinterpret_borrow<py::class_<UnbinnedNll>>(module.attr("UnbinnedNLL"));
    nll.def(
           "projection",
           [](const std::shared_ptr<UnbinnedNll>& self, const py::object& tags) {
               return Projection(self, tag_list(tags), self->parameter_names(),
                                 defaults_of(self->parameters()));
           },
           py::kw_only(), py::arg("tags") = py::none())
        .def(
            "projection_weights",
            [](const UnbinnedNll& self, const py::object& parameters, const py::object& tags) {
                const std::vector<double> values = parameter_values(
                    self.parameter_names(), defaults_of(self.parameters()), parameters);
                const std::vector<std::string> list = tag_list(tags);
                std::vector<double> weights;
                {
                    const py::gil_scoped_release release;
                    weights = self.projection_weights(values, list);
                }
                return to_numpy(weights);
            },
            py::arg("parameters") = py::none(), py::kw_only(), py::arg("tags") = py::none())
        .def(
            "fit_fraction",
            [](const UnbinnedNll& self, const py::object& parameters, const py::object& tags) {
                const std::vector<double> values = parameter_values(
                    self.parameter_names(), defaults_of(self.parameters()), parameters);
                const std::vector<std::string> list = tag_list(tags);
                runtime::Evaluation evaluation;
                {
                    const py::gil_scoped_release release;
                    evaluation = self.fit_fraction(values, list);
                }
                return py::make_tuple(evaluation.value, to_numpy(evaluation.gradient));
            },
            py::arg("parameters"), py::arg("tags"),
            "(Σ_acc w I_tags / Σ_acc w I, its gradient) at `parameters`.")
        .def_property_readonly("data_sum_weights",
                               [](const UnbinnedNll& self) {
                                   const py::gil_scoped_release release;
                                   return self.data_sum_weights();
                               })
        .def(
            "normalization_integral",
            [](const UnbinnedNll& self, const py::object& parameters) {
                const std::vector<double> values = parameter_values(
                    self.parameter_names(), defaults_of(self.parameters()), parameters);
                const py::gil_scoped_release release;
                return self.normalization_integral(values);
            },
            py::arg("parameters") = py::none());

    auto likelihood_class =
        py::reinterpret_borrow<py::class_<likelihood::Likelihood>>(module.attr("Likelihood"));
    likelihood_class
        .def(
            "_projection",
            [](const likelihood::Likelihood& self, const std::shared_ptr<UnbinnedNll>& term,
               const py::object& tags) {
                bool found = false;
                for (const likelihood::TermPtr& t : self.terms()) {
                    found = found || t.get() == term.get();
                }
                if (!found) {
                    throw ModelError(
                        fmt::format("the term '{}' is not part of this likelihood", term->name()));
                }
                return Projection(term, tag_list(tags), self.parameter_names(),
                                  self.default_parameters());
            },
            py::arg("term"), py::kw_only(), py::arg("tags") = py::none(),
            "The projection of one NLL term over its accepted MC; weights() takes this "
            "likelihood's parameters (Likelihood.projection in __init__.py wraps it).")
        .def(
            "sample_parameters",
            [](const likelihood::Likelihood& self, std::uint64_t seed) {
                return expr::sample_initial(self.parameters(), seed);
            },
            py::kw_only(), py::arg("seed") = 0,
            "laddu's start point for seed: each parameter with an initial (low, high) range drawn "
            "uniformly from it (fastrand's stream of seed, as laddu), the others at their "
            "defaults.");

    auto model_class = py::reinterpret_borrow<py::class_<expr::Model>>(module.attr("Model"));
    model_class.def(
        "sample_parameters",
        [](const expr::Model& self, std::uint64_t seed) {
            std::vector<expr::Parameter> free;
            for (const std::size_t i : self.parameters().free_indices()) {
                free.push_back(self.parameters().parameters()[i]);
            }
            return expr::sample_initial(free, seed);
        },
        py::kw_only(), py::arg("seed") = 0,
        "Free-parameter values: each initial (low, high) range drawn uniformly from it (laddu's "
        "fastrand stream of seed), the others at their defaults.");

    auto result_class =
        py::reinterpret_borrow<py::class_<fit::FitResult>>(module.attr("FitResult"));
    result_class.def(
        "fit_fraction",
        [](const fit::FitResult& self, const UnbinnedNll& term, const py::object& tags) {
            const std::vector<std::string> list = tag_list(tags);
            fit::FitFraction fraction;
            {
                const py::gil_scoped_release release;
                fraction = fit::fit_fraction(self, term, list);
            }
            return py::make_tuple(fraction.value, fraction.uncertainty);
        },
        py::arg("term"), py::arg("tags"),
        "(fit fraction of `tags` in `term`, uncertainty from the covariance).");

    py::class_<fit::BootstrapResult>(module, "BootstrapResult",
                                     "Refits on Poisson-bootstrap replicas of the data.")
        .def_readonly("seeds", &fit::BootstrapResult::seeds)
        .def_readonly("fits", &fit::BootstrapResult::fits)
        .def("mean", &fit::BootstrapResult::mean)
        .def("std", &fit::BootstrapResult::standard_deviation)
        .def("__len__", [](const fit::BootstrapResult& r) { return r.fits.size(); });

    module.def(
        "bootstrap_fit",
        [](const expr::Model& model, const py::object& data_object,
           const py::object& accepted_object, std::size_t samples, const py::object& initial,
           std::uint64_t seed, bool extended, const std::optional<runtime::Execution>& execution,
           bool uncertainties) {
            const std::vector<double> start = free_parameter_vector(model.parameters(), initial);
            fit::BootstrapOptions options;
            options.samples = samples;
            options.seed = seed;
            options.extended = extended;
            options.execution = execution.value_or(runtime::Execution{});
            fit::FitOptions fit_options;
            fit_options.uncertainties = uncertainties;
            const data::Dataset data = to_resident(data_object, "data");
            const data::Dataset accepted_mc = to_resident(accepted_object, "accepted_mc");
            const py::gil_scoped_release release;
            return fit::bootstrap_fits(model, data, accepted_mc, start, options, fit_options);
        },
        py::arg("model"), py::kw_only(), py::arg("data"), py::arg("accepted_mc"),
        py::arg("samples") = 100, py::arg("initial") = py::none(), py::arg("seed") = 0,
        py::arg("extended") = false, py::arg("execution") = std::nullopt,
        py::arg("uncertainties") = false,
        "Fits `model` to `samples` replicas data.bootstrap(seed + k) (accepted MC reused); "
        "the spread of the replica values estimates the uncertainties.");
}

}  // namespace laddu::python
