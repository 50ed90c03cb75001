// Monte Carlo generation for Python, returning ld.Dataset: ld.generate_ksks(n, ...) (flat
// γ p → K_S K_S p phase space), ld.NBodyPhaseSpace(parent_mass, masses).generate(n, seed=,
// names=, unweighted=) and ld.accept_reject(dataset, intensities, seed=, max_intensity=); laddu's
// channel-driven Generator and its proposals are in bind_channel_generation.cpp.
// Generation runs with the GIL released.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/base/error.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/generation/accept_reject.hpp>
#include <laddu/generation/ksks.hpp>
#include <laddu/generation/phase_space.hpp>

#include "bindings.hpp"
#include "channel_generation.hpp"
#include "event_data.hpp"

namespace py = pybind11;

namespace laddu::python {

namespace {

using generation::NBodyPhaseSpace;

// `n` phase-space events as a Dataset: four-momenta `names` (default p1, p2, ...) and the
// generator weights (all 1 when unweighted).
data::Dataset generate_phase_space(const NBodyPhaseSpace& space, std::size_t n, std::uint64_t seed,
                                   std::vector<std::string> names, bool unweighted) {
    const std::size_t bodies = space.masses().size();
    if (names.empty()) {
        for (std::size_t k = 0; k < bodies; ++k) {
            names.push_back("p" + std::to_string(k + 1));
        }
    }
    if (names.size() != bodies) {
        throw ModelError(fmt::format("{} names given for {} daughters", names.size(), bodies));
    }
    std::mt19937_64 rng(seed);
    std::vector<std::vector<double>> p4s(bodies, std::vector<double>(4 * n));
    std::vector<double> weights(n);
    for (std::size_t i = 0; i < n; ++i) {
        const generation::PhaseSpaceEvent event =
            unweighted ? space.generate_unweighted(rng) : space.generate(rng);
        for (std::size_t k = 0; k < bodies; ++k) {
            const generation::FourMomentum& p = event.momenta[k];
            double* row = p4s[k].data() + 4 * i;
            row[0] = p.e;
            row[1] = p.px;
            row[2] = p.py;
            row[3] = p.pz;
        }
        weights[i] = event.weight;
    }
    std::vector<data::P4ArrayInput> inputs;
    for (std::size_t k = 0; k < bodies; ++k) {
        inputs.push_back({names[k], p4s[k]});
    }
    return data::Dataset::from_arrays(std::span<const data::P4ArrayInput>(inputs), {}, weights);
}

}  // namespace

void bind_generation(py::module_& module) {
    module.def(
        "generate_ksks",
        [](std::size_t n, double beam_energy_min, double beam_energy_max, double kk_mass_max,
           double pol_magnitude_min, double pol_magnitude_max, std::uint64_t seed) {
            generation::KsKsOptions options;
            options.beam_energy_min = beam_energy_min;
            options.beam_energy_max = beam_energy_max;
            options.kk_mass_max = kk_mass_max;
            options.pol_magnitude_min = pol_magnitude_min;
            options.pol_magnitude_max = pol_magnitude_max;
            options.seed = seed;
            data::Dataset events;
            {
                const py::gil_scoped_release release;
                events = generation::generate_ksks(n, options);
            }
            return resident(std::move(events));
        },
        py::arg("n"), py::kw_only(), py::arg("beam_energy_min") = 8.0,
        py::arg("beam_energy_max") = 9.0, py::arg("kk_mass_max") = 0.0,
        py::arg("pol_magnitude_min") = 0.3, py::arg("pol_magnitude_max") = 0.4, py::arg("seed") = 0,
        "n unweighted flat-phase-space γ p → K_S K_S p events: p4s beam, proton, kshort1, "
        "kshort2 and scalars pol_magnitude, pol_angle (kk_mass_max=0: the kinematic limit).");

    py::class_<NBodyPhaseSpace>(module, "NBodyPhaseSpace",
                                "n-body phase space of a parent at rest (GENBOD).")
        .def(py::init<double, std::vector<double>>(), py::arg("parent_mass"), py::arg("masses"))
        .def_property_readonly("masses", &NBodyPhaseSpace::masses)
        .def_property_readonly("max_weight", &NBodyPhaseSpace::max_weight)
        .def(
            "generate",
            [](const NBodyPhaseSpace& self, std::size_t n, std::uint64_t seed,
               const std::vector<std::string>& names, bool unweighted) {
                data::Dataset events;
                {
                    const py::gil_scoped_release release;
                    events = generate_phase_space(self, n, seed, names, unweighted);
                }
                return resident(std::move(events));
            },
            py::arg("n"), py::kw_only(), py::arg("seed") = 0,
            py::arg("names") = std::vector<std::string>{}, py::arg("unweighted") = false,
            "n events in the parent frame as a Dataset with four-momenta `names` (default "
            "p1, p2, ...); weighted by the phase-space weight unless unweighted=True.");

    module.def(
        "accept_reject",
        [](const py::object& events_object, const py::object& intensities, std::uint64_t seed,
           double max_intensity) {
            const data::Dataset events = to_resident(events_object, "events");
            const auto values = py::array_t < double,
                       py::array::c_style | py::array::forcecast > ::ensure(intensities);
            if (!values || values.ndim() != 1) {
                throw py::value_error("intensities must be a one-dimensional array of floats");
            }
            const std::span<const double> span(values.data(),
                                               static_cast<std::size_t>(values.size()));
            data::Dataset kept;
            {
                const py::gil_scoped_release release;
                kept = generation::accept_reject(events, span, seed, max_intensity);
            }
            return resident(std::move(kept));
        },
        py::arg("events"), py::arg("intensities"), py::kw_only(), py::arg("seed") = 0,
        py::arg("max_intensity") = 0.0,
        "The events kept when u(seed, i) · I_max < I_i (max_intensity=0: the largest "
        "intensity), e.g. model.evaluate(events) as intensities.");

    bind_channel_generation(module);
}

}  // namespace laddu::python
