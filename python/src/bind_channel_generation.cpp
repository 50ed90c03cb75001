// laddu's channel-driven generation for Python: MassProposal, ScalarSource, InitialMomentum,
// VertexProposal (proposals hooked into Edge/Vertex by bind_physics.cpp), Generator.weighted and
// Generator.unweighted returning (ld.Dataset, GenerationReport) with optional model weights
// (ld.Model.evaluate on the generated events), and Channel.validate_generation(). Names,
// signatures, defaults and the ValueErrors laddu raises for bad arguments follow laddu 0.21.4's
// python/generation.rs; failures inside the engine are ld.ModelError (an ld.LadduError).
// The histogram constructors take an ld.Histogram or any object with laddu's Histogram
// attributes `bin_edges` and `counts` (laddu's own Histogram included).
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/base/error.hpp>
#include <laddu/generation/channel_generator.hpp>
#include <laddu/generation/json.hpp>
#include <laddu/runtime/execution.hpp>

#include "channel_generation.hpp"
#include "conversions.hpp"
#include "event_data.hpp"
#include "memory.hpp"

namespace py = pybind11;

namespace laddu::python {

namespace {

using generation::InitialMomentum;
using generation::MassProposal;
using generation::ScalarSource;
using generation::TComponent;
using generation::TDistribution;
using generation::VertexProposal;

using Vec3 = std::array<double, 3>;

// (edges, counts) of a laddu-style Histogram object.
std::pair<std::vector<double>, std::vector<double>> histogram_arrays(const py::handle& histogram) {
    if (!py::hasattr(histogram, "bin_edges") || !py::hasattr(histogram, "counts")) {
        throw py::type_error("histogram must have laddu's Histogram attributes bin_edges and "
                             "counts, got " +
                             python_type_name(histogram));
    }
    return {cast_arg<std::vector<double>>(histogram.attr("bin_edges"), "histogram.bin_edges",
                                          "a sequence of floats"),
            cast_arg<std::vector<double>>(histogram.attr("counts"), "histogram.counts",
                                          "a sequence of floats")};
}

ScalarSource histogram_source(const py::handle& histogram) {
    auto [edges, counts] = histogram_arrays(histogram);
    return ScalarSource::histogram(std::move(edges), std::move(counts));
}

// laddu's to_json()/from_json(json) (json.hpp's text); laddu raises ValueError for JSON it cannot
// read, and so does ours.
template <typename T>
void def_json(py::class_<T>& cls, T (*read)(std::string_view)) {
    cls.def("to_json", [](const T& v) { return generation::to_json(v); })
        .def_static(
            "from_json",
            [read](const std::string& json) {
                try {
                    return read(json);
                } catch (const ModelError& error) {
                    throw py::value_error(error.what());
                }
            },
            py::arg("json"));
}

// The GenerationReport fields laddu's Python class exposes.
void bind_report(py::module_& module) {
    using generation::GenerationReport;
    using generation::ProvenEnvelopeReport;
    py::class_<ProvenEnvelopeReport>(module, "ProvenEnvelopeReport",
                                     "A proven bound of the phase-space proposal weight "
                                     "(Generator.phase_space_envelope).")
        .def_property_readonly("weight_interval",
                               [](const ProvenEnvelopeReport& r) {
                                   return py::make_tuple(r.weight_interval.lo(),
                                                         r.weight_interval.hi());
                               })
        .def_readonly("maximum_weight", &ProvenEnvelopeReport::maximum_weight)
        .def_readonly("continuous_dimensions", &ProvenEnvelopeReport::continuous_dimensions)
        .def_readonly("piecewise_regions", &ProvenEnvelopeReport::piecewise_regions)
        .def_readonly("subdivisions", &ProvenEnvelopeReport::subdivisions)
        .def("__repr__", [](const ProvenEnvelopeReport& r) {
            return fmt::format("ProvenEnvelopeReport(weight_interval={}, maximum_weight={})",
                               r.weight_interval.to_string(), r.maximum_weight);
        });
    py::class_<GenerationReport> report(module, "GenerationReport",
                                        "Diagnostics from a generation run (counts and weight "
                                        "statistics).");
    report.def_readonly("requested", &GenerationReport::requested)
        .def_readonly("produced", &GenerationReport::produced)
        .def_readonly("proposals", &GenerationReport::proposals)
        .def_readonly("rejected", &GenerationReport::rejected)
        .def_property_readonly("acceptance_rate", &GenerationReport::acceptance_rate)
        .def_readonly("envelope", &GenerationReport::envelope)
        .def_readonly("maximum_weight", &GenerationReport::maximum_weight)
        .def_readonly("minimum_weight", &GenerationReport::minimum_weight)
        .def_readonly("sum_weights", &GenerationReport::sum_weights)
        .def_readonly("seed", &GenerationReport::seed)
        // laddu's Rust report fields that its Python class leaves out (laddu-cpp extras).
        .def_readonly("pilot_proposals", &GenerationReport::pilot_proposals)
        .def_readonly("envelope_updates", &GenerationReport::envelope_updates)
        .def_readonly("sum_squared_weights", &GenerationReport::sum_squared_weights)
        .def_property_readonly("envelope_kind",
                               [](const GenerationReport& r) -> py::object {
                                   if (!r.envelope_kind) {
                                       return py::none();
                                   }
                                   switch (*r.envelope_kind) {
                                   case generation::EnvelopeKind::kStrict:
                                       return py::str("strict");
                                   case generation::EnvelopeKind::kPilot:
                                       return py::str("pilot");
                                   case generation::EnvelopeKind::kProvenPhaseSpace:
                                       break;
                                   }
                                   return py::str("proven_phase_space");
                               })
        .def_readonly("chunk_events", &GenerationReport::chunk_events)
        .def_readonly("estimated_peak_bytes", &GenerationReport::estimated_peak_bytes)
        // laddu-cpp does not track an allocator high-water mark.
        .def_property_readonly("actual_high_water_bytes",
                               [](const GenerationReport&) { return py::none(); })
        .def_property_readonly("proven_weight_interval",
                               [](const GenerationReport& r) -> py::object {
                                   if (!r.proven) {
                                       return py::none();
                                   }
                                   return py::make_tuple(r.proven->weight_interval.lo(),
                                                         r.proven->weight_interval.hi());
                               })
        .def_property_readonly("proven_continuous_dimensions",
                               [](const GenerationReport& r) -> std::optional<std::size_t> {
                                   if (!r.proven) {
                                       return std::nullopt;
                                   }
                                   return r.proven->continuous_dimensions;
                               })
        .def_property_readonly("proven_piecewise_regions",
                               [](const GenerationReport& r) -> std::optional<std::size_t> {
                                   if (!r.proven) {
                                       return std::nullopt;
                                   }
                                   return r.proven->piecewise_regions;
                               })
        .def_property_readonly("proven_subdivisions",
                               [](const GenerationReport& r) -> std::optional<std::size_t> {
                                   if (!r.proven) {
                                       return std::nullopt;
                                   }
                                   return r.proven->subdivisions;
                               })
        .def("__repr__", [](const GenerationReport& r) {
            return fmt::format("GenerationReport(produced={}, proposals={}, "
                               "acceptance_rate={:.3f})",
                               r.produced, r.proposals, r.acceptance_rate());
        });
    def_json(report, generation::generation_report_from_json);
}

void bind_proposals(py::module_& module) {
    py::class_<MassProposal> mass(module, "MassProposal",
                                  "A fixed mass, or a uniform mass on [value, high) when high is "
                                  "given.");
    mass.def(py::init([](double value, std::optional<double> high) {
                 if (!std::isfinite(value) || (high && !std::isfinite(*high))) {
                     throw py::value_error("mass limits must be finite");
                 }
                 if (high) {
                     if (!(*high > value)) {
                         throw py::value_error("uniform mass requires low < high");
                     }
                     return MassProposal::uniform(value, *high);
                 }
                 if (value < 0.0) {
                     throw py::value_error("fixed mass must be non-negative");
                 }
                 return MassProposal::fixed(value);
             }),
             py::arg("value"), py::kw_only(), py::arg("high") = py::none())
        .def("__repr__",
             [](const MassProposal& m) { return "MassProposal(" + m.describe() + ")"; });
    def_json(mass, generation::mass_proposal_from_json);

    py::class_<ScalarSource> scalar(
        module, "ScalarSource",
        "A fixed, uniform or histogram distribution of a generated scalar "
        "column.");
    scalar.def_static("fixed", &ScalarSource::fixed, py::arg("value"), "Use one fixed value.")
        .def_static("uniform", &ScalarSource::uniform, py::arg("low"), py::arg("high"),
                    "Sample uniformly from [low, high).")
        .def_static("histogram", &histogram_source, py::arg("histogram"),
                    "Sample from a piecewise-constant histogram (an object with bin_edges and "
                    "counts).")
        .def("__repr__",
             [](const ScalarSource& s) { return "ScalarSource(" + s.describe() + ")"; });
    def_json(scalar, generation::scalar_source_from_json);

    py::class_<InitialMomentum> initial(module, "InitialMomentum",
                                        "A fixed or sampled initial-state momentum prescription.");
    initial
        .def_static(
            "p4",
            [](const std::array<double, 4>& v) {
                return InitialMomentum::p4({v[0], v[1], v[2], v[3]});
            },
            py::arg("values"), "A fixed four-vector in (E, px, py, pz) order.")
        .def_static("momentum", &InitialMomentum::momentum, py::arg("values"),
                    "A fixed three-momentum; the energy follows from the particle mass.")
        .def_static("energy", &InitialMomentum::energy, py::arg("energy"), py::kw_only(),
                    py::arg("direction"), "A fixed energy along a direction.")
        .def_static(
            "uniform_energy",
            [](double low, double high, const Vec3& direction) {
                if (!std::isfinite(low) || !std::isfinite(high) || high <= low) {
                    throw py::value_error("uniform energy requires finite low < high");
                }
                return InitialMomentum::energy_source(ScalarSource::uniform(low, high), direction);
            },
            py::kw_only(), py::arg("low"), py::arg("high"), py::arg("direction"),
            "An energy uniform in [low, high) along a direction.")
        .def_static(
            "histogram_energy",
            [](const py::handle& histogram, const Vec3& direction) {
                return InitialMomentum::energy_source(histogram_source(histogram), direction);
            },
            py::arg("histogram"), py::kw_only(), py::arg("direction"),
            "An energy drawn from a histogram along a direction.")
        .def("__repr__",
             [](const InitialMomentum& m) { return "InitialMomentum(" + m.describe() + ")"; });
    def_json(initial, generation::initial_momentum_from_json);

    py::class_<VertexProposal> vertex(module, "VertexProposal",
                                      "A phase-space proposal for one channel vertex.");
    vertex.def_static("isotropic", &VertexProposal::isotropic, "An isotropic 1 -> 2 decay.")
        .def_static(
            "t_exchange",
            [](std::string incoming, std::string outgoing, std::optional<double> slope,
               double uniform_fraction, std::optional<double> t_min, std::optional<double> t_max) {
                if (!std::isfinite(uniform_fraction) || uniform_fraction < 0.0 ||
                    uniform_fraction > 1.0) {
                    throw py::value_error("uniform_fraction must be between 0 and 1");
                }
                if (slope && !std::isfinite(*slope)) {
                    throw py::value_error("t slope must be finite");
                }
                // laddu: no slope or a fraction of 1 is uniform; a fraction in (0, 1) mixes the
                // uniform component first, then the exponential.
                TDistribution distribution = TDistribution::single(TComponent::uniform());
                if (slope && uniform_fraction < 1.0) {
                    distribution =
                        uniform_fraction > 0.0
                            ? TDistribution::mixture(
                                  {{uniform_fraction, TComponent::uniform()},
                                   {1.0 - uniform_fraction, TComponent::exponential(*slope)}})
                            : TDistribution::single(TComponent::exponential(*slope));
                }
                return VertexProposal::t_exchange(std::move(incoming), std::move(outgoing),
                                                  distribution.with_limits(t_min, t_max));
            },
            py::kw_only(), py::arg("incoming"), py::arg("outgoing"), py::arg("slope") = py::none(),
            py::arg("uniform_fraction") = 0.0, py::arg("t_min") = py::none(),
            py::arg("t_max") = py::none(),
            "A 2 -> 2 proposal with t = (incoming - outgoing)^2 exponential in t with `slope` "
            "(uniform without one), mixed with a uniform fraction, optionally limited to "
            "[t_min, t_max].")
        .def_static(
            "t_exchange_pole",
            [](std::string incoming, std::string outgoing, double exchange_mass, double power) {
                if (!std::isfinite(exchange_mass) || exchange_mass < 0.0 || !std::isfinite(power) ||
                    power <= 0.0) {
                    throw py::value_error("pole exchange_mass must be finite and non-negative "
                                          "and power must be finite and positive");
                }
                return VertexProposal::t_exchange(
                    std::move(incoming), std::move(outgoing),
                    TDistribution::single(TComponent::pole(exchange_mass, power)));
            },
            py::kw_only(), py::arg("incoming"), py::arg("outgoing"), py::arg("exchange_mass"),
            py::arg("power"), "A 2 -> 2 proposal with t density (exchange_mass^2 - t)^-power.")
        .def_static(
            "t_exchange_histogram",
            [](std::string incoming, std::string outgoing, const py::handle& histogram) {
                auto [edges, counts] = histogram_arrays(histogram);
                double total = 0.0;
                for (const double c : counts) {
                    if (c < 0.0) {
                        total = -1.0;
                        break;
                    }
                    total += c;
                }
                if (!(total > 0.0)) {
                    throw py::value_error("t-exchange histogram counts must be non-negative "
                                          "with positive total weight");
                }
                return VertexProposal::t_exchange(std::move(incoming), std::move(outgoing),
                                                  TDistribution::single(TComponent::histogram(
                                                      std::move(edges), std::move(counts))));
            },
            py::kw_only(), py::arg("incoming"), py::arg("outgoing"), py::arg("histogram"),
            "A 2 -> 2 proposal with a piecewise-constant t density from a histogram.")
        .def("__repr__",
             [](const VertexProposal& v) { return "VertexProposal(" + v.describe() + ")"; });
    def_json(vertex, generation::vertex_proposal_from_json);
}

// The thread count of an ld.Execution (None: all hardware threads).
std::size_t execution_threads(const py::object& execution) {
    if (execution.is_none()) {
        return 0;
    }
    return cast_arg<runtime::Execution>(execution, "execution", "an ld.Execution")
        .resolved_threads();
}

// Model.evaluate on generated events (every edge and scalar, as laddu's evaluator sees them),
// with the GIL taken back; None without a model (then `parameters` must be None too).
generation::ModelWeights model_weights(const py::module_& module, const py::object& model,
                                       const py::object& parameters, const py::object& execution) {
    if (model.is_none()) {
        if (!parameters.is_none()) {
            throw py::value_error("parameters require a model");
        }
        return {};
    }
    if (!py::isinstance(model, module.attr("Model"))) {
        throw py::type_error("model must be an ld.Model or None, got " + python_type_name(model));
    }
    return [model, parameters, execution](const data::Dataset& generated) {
        const py::gil_scoped_acquire gil;
        const py::object values =
            model.attr("evaluate")(resident(generated), py::arg("parameters") = parameters,
                                   py::arg("execution") = execution, py::arg("real") = true);
        return values.cast<std::vector<double>>();
    };
}

// The byte budget of memory= (None or unlimited: none).
std::optional<std::size_t> memory_bytes(const py::object& memory) {
    if (memory.is_none()) {
        return std::nullopt;
    }
    const runtime::MemoryPlan plan = host_budget(memory);
    if (plan.is_unlimited()) {
        return std::nullopt;
    }
    return plan.resolve();
}

// The WeightedConfig of Generator.weighted and weighted_to.
generation::WeightedConfig weighted_config(std::size_t events, const py::object& execution,
                                           const py::object& memory, std::uint64_t seed,
                                           bool diagnostics) {
    generation::WeightedConfig config{.events = events,
                                      .seed = seed,
                                      .threads = execution_threads(execution),
                                      .diagnostics = diagnostics};
    config.memory_bytes = memory_bytes(memory);
    return config;
}

void bind_generator(py::module_& module) {
    using generation::ChannelGenerator;
    py::class_<ChannelGenerator>(module, "Generator",
                                 "A phase-space event generator compiled from a Channel.")
        .def(py::init([](const BoundChannel& channel, const py::object& scalars) {
                 ChannelGenerator generator(channel, channel.proposals);
                 if (!scalars.is_none()) {
                     const auto items =
                         cast_arg<py::dict>(scalars, "scalars", "a dict of str to ld.ScalarSource");
                     for (const auto& [name, source] : items) {
                         generator.add_scalar(cast_arg<std::string>(name, "a scalars key", "a str"),
                                              cast_arg<ScalarSource>(source, "a scalars value",
                                                                     "an ld.ScalarSource"));
                     }
                 }
                 return generator;
             }),
             py::arg("channel"), py::kw_only(), py::arg("scalars") = py::none())
        .def(
            "phase_space_envelope",
            [](const ChannelGenerator& self) {
                const py::gil_scoped_release release;
                return self.phase_space_envelope();
            },
            "A proven upper bound of every phase-space proposal weight (no model): interval "
            "arithmetic over a branch-and-bound search of √s, the generated masses and t "
            "(ld.ProvenEnvelopeReport); ld.ModelError when no finite bound exists.")
        .def(
            "unweighted",
            [module](const ChannelGenerator& self, std::size_t events, const py::object& model,
                     const py::object& parameters, const py::object& execution,
                     const py::object& memory, std::uint64_t seed,
                     std::optional<std::size_t> max_proposals, std::optional<double> max_weight,
                     bool proven_envelope, std::size_t pilot_proposals, double safety_factor,
                     bool grow_envelope, bool diagnostics) {
                // laddu's ValueErrors, in its order.
                if (model.is_none() && !parameters.is_none()) {
                    throw py::value_error("parameters require a model");
                }
                if (proven_envelope && max_weight) {
                    throw py::value_error("proven_envelope and max_weight are mutually exclusive");
                }
                if (proven_envelope && !model.is_none()) {
                    throw py::value_error("proven_envelope is valid only when model is omitted");
                }
                if (proven_envelope && grow_envelope) {
                    throw py::value_error("proven_envelope cannot be combined with grow_envelope");
                }
                generation::UnweightedConfig config{.events = events,
                                                    .seed = seed,
                                                    .threads = execution_threads(execution),
                                                    .max_proposals = max_proposals,
                                                    .max_weight = max_weight,
                                                    .proven_envelope = proven_envelope,
                                                    .pilot_proposals = pilot_proposals,
                                                    .safety_factor = safety_factor,
                                                    .grow_envelope = grow_envelope,
                                                    .diagnostics = diagnostics,
                                                    .chunk_events = 0,
                                                    .memory_bytes = memory_bytes(memory)};
                const generation::ModelWeights weights =
                    model_weights(module, model, parameters, execution);
                std::pair<data::Dataset, generation::GenerationReport> result;
                {
                    const py::gil_scoped_release release;
                    result = self.unweighted(config, weights);
                }
                return py::make_tuple(resident(std::move(result.first)), result.second);
            },
            py::arg("events"), py::arg("model") = py::none(), py::kw_only(),
            py::arg("parameters") = py::none(), py::arg("execution") = py::none(),
            py::arg("memory") = py::none(), py::arg("seed") = 0,
            py::arg("max_proposals") = py::none(), py::arg("max_weight") = py::none(),
            py::arg("proven_envelope") = false, py::arg("pilot_proposals") = 10'000,
            py::arg("safety_factor") = 2.0, py::arg("grow_envelope") = false,
            py::arg("diagnostics") = false,
            "(dataset, report): `events` unit-weight events accepted with probability "
            "w / envelope, w the proposal weight (times model.evaluate(...) at `parameters`, "
            "each > 0, with a model). The envelope is max_weight, phase_space_envelope()'s "
            "proven bound with proven_envelope=True (no model), or the largest weight of "
            "pilot_proposals pilot proposals × safety_factor (after laddu's importance "
            "adaptation of one mass proposal and the default decays); a weight above it is an "
            "ld.ModelError, or with grow_envelope=True grows the envelope to weight × "
            "safety_factor and thins the events accepted so far. max_proposals bounds the "
            "production proposals (ld.ModelError when exhausted). Events depend only on the "
            "seed, not on the threads of execution.")
        .def(
            "weighted",
            [module](const ChannelGenerator& self, std::size_t events, const py::object& model,
                     const py::object& parameters, const py::object& execution,
                     const py::object& memory, std::uint64_t seed, bool diagnostics) {
                const generation::ModelWeights weights =
                    model_weights(module, model, parameters, execution);
                const generation::WeightedConfig config =
                    weighted_config(events, execution, memory, seed, diagnostics);
                std::pair<data::Dataset, generation::GenerationReport> result;
                {
                    const py::gil_scoped_release release;
                    result = self.weighted(config, weights);
                }
                return py::make_tuple(resident(std::move(result.first)), result.second);
            },
            py::arg("events"), py::kw_only(), py::arg("model") = py::none(),
            py::arg("parameters") = py::none(), py::arg("execution") = py::none(),
            py::arg("memory") = py::none(), py::arg("seed") = 0, py::arg("diagnostics") = false,
            "(dataset, report): `events` weighted events (p4 columns named after the output "
            "edges, the scalar columns) whose weights are the phase-space/proposal weights, "
            "times model.evaluate(...) at `parameters` (real parts, each > 0) when a model is "
            "given. Threads come from execution (default: all); events depend only on the "
            "seed.")
        .def(
            "weighted_to",
            [module](const ChannelGenerator& self, const py::object& sink, std::size_t events,
                     const py::object& model, const py::object& parameters,
                     const py::object& execution, const py::object& memory, std::uint64_t seed,
                     bool diagnostics) {
                const bool parquet = py::isinstance<ParquetSink>(sink);
                if (!parquet && !py::isinstance<RootSink>(sink)) {
                    throw py::type_error("Generator sink must be a ParquetSink or RootSink");
                }
                const generation::ModelWeights weights =
                    model_weights(module, model, parameters, execution);
                const generation::WeightedConfig config =
                    weighted_config(events, execution, memory, seed, diagnostics);
                if (parquet) {
                    const auto& target = sink.cast<const ParquetSink&>();
                    const py::gil_scoped_release release;
                    return self.weighted_to(config, target.path, weights, target.options());
                }
                const auto& target = sink.cast<const RootSink&>();
                const py::gil_scoped_release release;
                return self.weighted_to(config, target.path, weights, target.options());
            },
            py::arg("sink"), py::arg("events"), py::kw_only(), py::arg("model") = py::none(),
            py::arg("parameters") = py::none(), py::arg("execution") = py::none(),
            py::arg("memory") = py::none(), py::arg("seed") = 0, py::arg("diagnostics") = false,
            "report: weighted()'s events written to an ld.ParquetSink or ld.RootSink in batches "
            "(laddu's "
            "generate_weighted_to, a laddu-cpp extra in Python): at most 65,536 events, or what "
            "`memory` holds, are resident at once; the file appears only when complete.")
        .def_property_readonly("output_names", &ChannelGenerator::output_names)
        .def("__repr__", [](const ChannelGenerator& g) {
            return fmt::format("Generator(outputs=[{}], scalars={})",
                               fmt::join(g.output_names(), ", "), g.scalars().size());
        });

    auto channel = py::reinterpret_borrow<py::class_<BoundChannel>>(module.attr("Channel"));
    channel.def(
        "validate_generation",
        [](const BoundChannel& c) { generation::validate_generation(c, c.proposals); },
        "ModelError naming the edge or vertex unless the channel can be generated: initial "
        "momenta, masses or mass proposals, vertex proposals and at least one output edge.");
}

}  // namespace

std::optional<MassProposal> mass_proposal_arg(const py::handle& value) {
    if (value.is_none()) {
        return std::nullopt;
    }
    return cast_arg<MassProposal>(value, "Edge mass_proposal", "an ld.MassProposal or None");
}

std::optional<InitialMomentum> initial_momentum_arg(const py::handle& value) {
    if (value.is_none()) {
        return std::nullopt;
    }
    return cast_arg<InitialMomentum>(value, "Edge initial_momentum",
                                     "an ld.InitialMomentum or None");
}

std::optional<VertexProposal> vertex_proposal_arg(const py::handle& value) {
    if (value.is_none()) {
        return std::nullopt;
    }
    return cast_arg<VertexProposal>(value, "Vertex generation", "an ld.VertexProposal or None");
}

void bind_channel_generation(py::module_& module) {
    bind_report(module);
    bind_proposals(module);
    bind_generator(module);
}

}  // namespace laddu::python
