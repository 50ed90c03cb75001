// The compiled half of laddu's cross sections (laddu_cpp/_cross_section.py is the rest): one
// term's accepted and generated Monte Carlo integrals, likelihood::CrossSectionIntegrals, as the
// internal class _TermCrossSection. Parameters are the term's; the Python layer maps a
// likelihood's parameters onto them. Evaluations release the GIL.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/likelihood/cross_section.hpp>
#include <laddu/likelihood/nll.hpp>

#include "bindings.hpp"
#include "event_data.hpp"

namespace py = pybind11;

namespace laddu::python {

namespace {

using likelihood::CrossSectionIntegrals;

py::array_t<double> to_array(const std::vector<double>& values) {
    py::array_t<double> out(static_cast<py::ssize_t>(values.size()));
    std::copy(values.begin(), values.end(), out.mutable_data());
    return out;
}

// A member taking the term's parameters and returning a double, with the GIL released.
template <typename Method>
auto scalar(Method method) {
    return [method](const CrossSectionIntegrals& c, const std::vector<double>& params) {
        const py::gil_scoped_release release;
        return (c.*method)(params);
    };
}

template <typename Method>
auto array(Method method) {
    return [method](const CrossSectionIntegrals& c, const std::vector<double>& params) {
        std::vector<double> values;
        {
            const py::gil_scoped_release release;
            values = (c.*method)(params);
        }
        return to_array(values);
    };
}

}  // namespace

void bind_cross_section(py::module_& module) {
    py::class_<likelihood::DifferentialBins>(
        module, "_DifferentialBins",
        "Events binned for a differential cross section (internal): a row-major bin per event "
        "of the data, accepted MC and generated MC (-1 outside), and the bin volumes.")
        .def(py::init([](std::vector<std::int64_t> data, std::vector<std::int64_t> accepted,
                         std::vector<std::int64_t> generated, std::vector<double> volumes) {
                 return likelihood::DifferentialBins{std::move(data), std::move(accepted),
                                                     std::move(generated), std::move(volumes)};
             }),
             py::arg("data"), py::arg("accepted"), py::arg("generated"), py::arg("volumes"));
    module.def(
        "_flat_bin_indices",
        [](const std::vector<std::vector<double>>& coordinates,
           const std::vector<std::vector<double>>& edges) {
            const std::vector<std::int64_t> flat = likelihood::flat_bin_indices(coordinates, edges);
            py::array_t<std::int64_t> out(static_cast<py::ssize_t>(flat.size()));
            std::copy(flat.begin(), flat.end(), out.mutable_data());
            return out;
        },
        py::arg("coordinates"), py::arg("edges"),
        "Row-major bin per event over several axes, -1 outside (internal).");
    module.def("_bin_volumes", &likelihood::bin_volumes, py::arg("edges"),
               "The row-major bins' volumes (internal).");
    module.def(
        "_differential_cross_section",
        [](const CrossSectionIntegrals& full,
           const std::vector<const CrossSectionIntegrals*>& parts,
           const likelihood::DifferentialBins& bins, const std::vector<double>& params,
           double luminosity) {
            likelihood::DifferentialValues values;
            {
                const py::gil_scoped_release release;
                values =
                    likelihood::differential_cross_section(full, parts, bins, params, luminosity);
            }
            std::vector<py::array_t<double>> components;
            for (const std::vector<double>& c : values.components) {
                components.push_back(to_array(c));
            }
            return py::make_tuple(to_array(values.data), to_array(values.model), components);
        },
        py::arg("full"), py::arg("components"), py::arg("bins"), py::arg("params"),
        py::arg("luminosity"), "(data, model, [component]) per bin (internal).");

    py::class_<CrossSectionIntegrals>(
        module, "_TermCrossSection",
        "One term's accepted and generated MC integrals (internal; ld.CrossSectionIntegrals "
        "maps a likelihood's parameters onto the term's).")
        .def(py::init([](std::shared_ptr<likelihood::UnbinnedNll> term, const py::object& generated,
                         const std::vector<std::string>& tags) {
                 std::optional<runtime::MemoryPlan> memory;
                 const data::EventData events = to_event_data(generated, "generated_mc", memory);
                 const py::gil_scoped_release release;
                 return CrossSectionIntegrals(std::move(term), events, tags);
             }),
             py::arg("term"), py::arg("generated_mc"), py::arg("tags"))
        .def(
            "for_replica",
            [](const CrossSectionIntegrals& c, std::shared_ptr<likelihood::UnbinnedNll> replica) {
                return c.for_replica(std::move(replica));
            },
            py::arg("replica"))
        .def_property_readonly("name", &CrossSectionIntegrals::name)
        .def_property_readonly("tags", &CrossSectionIntegrals::tags)
        .def_property_readonly("data_weight_sum", &CrossSectionIntegrals::data_weight_sum)
        .def_property_readonly("has_absolute_rate", &CrossSectionIntegrals::has_absolute_rate)
        .def_property_readonly("held_bytes", &CrossSectionIntegrals::held_bytes)
        .def("accepted_integral", scalar(&CrossSectionIntegrals::accepted_integral),
             py::arg("params"))
        .def("generated_integral", scalar(&CrossSectionIntegrals::generated_integral),
             py::arg("params"))
        .def("full_accepted_integral", scalar(&CrossSectionIntegrals::full_accepted_integral),
             py::arg("params"))
        .def("acceptance", scalar(&CrossSectionIntegrals::acceptance), py::arg("params"))
        .def("corrected_yield", scalar(&CrossSectionIntegrals::corrected_yield), py::arg("params"))
        .def(
            "acceptance_corrected_yield",
            [](const CrossSectionIntegrals& c, const std::vector<double>& params, double yield) {
                const py::gil_scoped_release release;
                return c.acceptance_corrected_yield(params, yield);
            },
            py::arg("params"), py::arg("accepted_yield"))
        .def(
            "observed_cross_section",
            [](const CrossSectionIntegrals& c, const std::vector<double>& params, double lum) {
                const py::gil_scoped_release release;
                return c.observed_cross_section(params, lum);
            },
            py::arg("params"), py::arg("luminosity"))
        .def(
            "fitted_cross_section",
            [](const CrossSectionIntegrals& c, const std::vector<double>& params, double lum) {
                const py::gil_scoped_release release;
                return c.fitted_cross_section(params, lum);
            },
            py::arg("params"), py::arg("luminosity"))
        .def("accepted_intensities", array(&CrossSectionIntegrals::accepted_intensities),
             py::arg("params"))
        .def("generated_intensities", array(&CrossSectionIntegrals::generated_intensities),
             py::arg("params"))
        .def("accepted_weights",
             [](const CrossSectionIntegrals& c) { return to_array(c.accepted_weights()); })
        .def("generated_weights",
             [](const CrossSectionIntegrals& c) { return to_array(c.generated_weights()); })
        .def(
            "binned",
            [](const CrossSectionIntegrals& c, const std::vector<double>& params,
               const likelihood::DifferentialBins& bins) {
                likelihood::BinnedIntegrals sums;
                {
                    const py::gil_scoped_release release;
                    sums = c.binned(params, bins);
                }
                return py::make_tuple(to_array(sums.data), to_array(sums.accepted),
                                      to_array(sums.generated));
            },
            py::arg("params"), py::arg("bins"));
}

}  // namespace laddu::python
