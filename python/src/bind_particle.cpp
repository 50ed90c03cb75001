// ld.Particle, the ld.particles catalogue, and the selection-rule classes (RuleSet, RuleCheck,
// RuleReport, PartialWave, AllowedPartialWave, SelectionRules) over physics::ParticleProperties.
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/physics/partial_waves.hpp>
#include <laddu/physics/particle.hpp>
#include <laddu/physics/particle_catalog.hpp>
#include <laddu/physics/selection_rules.hpp>

#include "bindings.hpp"
#include "conversions.hpp"

namespace py = pybind11;

namespace laddu::python {

physics::J quantum_extract_j(const py::handle& v);
physics::L quantum_extract_l(const py::handle& v);
physics::Parity quantum_extract_parity(const py::handle& v);
py::object quantum_s(physics::J j);

namespace {

using physics::ParticleProperties;
using physics::RuleSet;

template <class T>
T required(const std::optional<T>& value, const char* property) {
    if (!value) {
        throw py::value_error(std::string("particle does not define `") + property + "`");
    }
    return *value;
}

std::optional<physics::Parity> opt_parity(const py::object& v) {
    return v.is_none() ? std::nullopt : std::optional(quantum_extract_parity(v));
}

physics::RuleKind rule_kind(const std::string& name) {
    if (auto kind = physics::parse_rule_kind(name)) {
        return *kind;
    }
    throw py::value_error("unknown quantum rule `" + name + "`");
}

physics::UnknownPolicy unknown_policy(std::string name) {
    for (auto& c : name) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (name == "allow") {
        return physics::UnknownPolicy::kAllow;
    }
    if (name == "reject") {
        return physics::UnknownPolicy::kReject;
    }
    if (name == "warn") {
        return physics::UnknownPolicy::kWarn;
    }
    throw py::value_error("unknown policy must be 'allow', 'reject', or 'warn'");
}

#define LADDU_FIELD(cls, field)                                                                    \
    cls.def_property_readonly(                                                                     \
           #field, [](const ParticleProperties& p) { return required(p.field, #field); })          \
        .def_property_readonly(#field "_checked",                                                  \
                               [](const ParticleProperties& p) { return p.field; })

}  // namespace

void bind_particle(py::module_& m) {
    py::class_<ParticleProperties> cls(m, "Particle",
                                       "A particle's quantum numbers, each known or unknown.");
    cls.def(py::init([](std::optional<std::string> name, std::optional<std::string> species,
                        std::optional<std::string> antiparticle_species,
                        std::optional<bool> self_conjugate, const py::object& spin,
                        const py::object& parity, const py::object& c_parity,
                        const py::object& g_parity, std::optional<int> charge,
                        std::optional<physics::Isospin> isospin, std::optional<int> strangeness,
                        std::optional<int> charm, std::optional<int> bottomness,
                        std::optional<int> topness, std::optional<int> baryon_number,
                        std::optional<int> electron_lepton_number,
                        std::optional<int> muon_lepton_number, std::optional<int> tau_lepton_number,
                        std::optional<physics::Statistics> statistics, std::optional<double> mass,
                        std::optional<std::map<std::string, std::int64_t>> ids) {
                if (mass && (!std::isfinite(*mass) || *mass < 0.0)) {
                    throw py::value_error("particle mass must be finite and non-negative");
                }
                physics::ParticlePatch patch;
                patch.name = std::move(name);
                patch.species = std::move(species);
                patch.antiparticle_species = std::move(antiparticle_species);
                patch.self_conjugate = self_conjugate;
                if (!spin.is_none()) {
                    patch.spin = quantum_extract_j(spin);
                }
                patch.parity = opt_parity(parity);
                patch.c_parity = opt_parity(c_parity);
                patch.g_parity = opt_parity(g_parity);
                patch.charge = charge;
                patch.isospin = isospin;
                patch.strangeness = strangeness;
                patch.charm = charm;
                patch.bottomness = bottomness;
                patch.topness = topness;
                patch.baryon_number = baryon_number;
                patch.electron_lepton_number = electron_lepton_number;
                patch.muon_lepton_number = muon_lepton_number;
                patch.tau_lepton_number = tau_lepton_number;
                patch.statistics = statistics;
                patch.mass = mass;
                if (ids) {
                    patch.ids.emplace(ids->begin(), ids->end());
                }
                return physics::apply_patch({}, patch);
            }),
            py::arg("name") = py::none(), py::kw_only(), py::arg("species") = py::none(),
            py::arg("antiparticle_species") = py::none(), py::arg("self_conjugate") = py::none(),
            py::arg("spin") = py::none(), py::arg("parity") = py::none(),
            py::arg("c_parity") = py::none(), py::arg("g_parity") = py::none(),
            py::arg("charge") = py::none(), py::arg("isospin") = py::none(),
            py::arg("strangeness") = py::none(), py::arg("charm") = py::none(),
            py::arg("bottomness") = py::none(), py::arg("topness") = py::none(),
            py::arg("baryon_number") = py::none(), py::arg("electron_lepton_number") = py::none(),
            py::arg("muon_lepton_number") = py::none(), py::arg("tau_lepton_number") = py::none(),
            py::arg("statistics") = py::none(), py::arg("mass") = py::none(),
            py::arg("ids") = py::none())
        .def_static("unknown", [] { return ParticleProperties{}; })
        .def_static(
            "jp",
            [](const py::object& j, const py::object& parity) {
                return ParticleProperties::jp(quantum_extract_j(j), quantum_extract_parity(parity));
            },
            py::arg("j"), py::kw_only(), py::arg("parity"))
        .def_static(
            "jpc",
            [](const py::object& j, const py::object& parity, const py::object& c_parity) {
                return ParticleProperties::jpc(quantum_extract_j(j), quantum_extract_parity(parity),
                                               quantum_extract_parity(c_parity));
            },
            py::arg("j"), py::kw_only(), py::arg("parity"), py::arg("c_parity"))
        .def_static(
            "boson",
            [](const py::object& j) { return ParticleProperties::boson(quantum_extract_l(j)); },
            py::arg("j"))
        .def_static("lepton", &ParticleProperties::lepton, py::kw_only(), py::arg("electron") = 0,
                    py::arg("muon") = 0, py::arg("tau") = 0)
        .def_static("hadron", &ParticleProperties::hadron)
        .def_static("meson", &ParticleProperties::meson)
        .def_static("baryon", &ParticleProperties::baryon, py::arg("baryon_number") = 1)
        .def("__repr__",
             [](const ParticleProperties& p) {
                 return p.name ? "Particle(" + debug_quoted(*p.name) + ")"
                               : std::string("Particle()");
             })
        .def_property_readonly(
            "spin", [](const ParticleProperties& p) { return quantum_s(required(p.spin, "spin")); })
        .def_property_readonly("spin_checked",
                               [](const ParticleProperties& p) -> py::object {
                                   return p.spin ? quantum_s(*p.spin) : py::none();
                               })
        .def_property_readonly("ids", [](const ParticleProperties& p) {
            py::dict out;
            for (const auto& [k, v] : p.ids) {
                out[py::str(k)] = v;
            }
            return out;
        });
    LADDU_FIELD(cls, name);
    LADDU_FIELD(cls, species);
    LADDU_FIELD(cls, antiparticle_species);
    LADDU_FIELD(cls, self_conjugate);
    LADDU_FIELD(cls, parity);
    LADDU_FIELD(cls, c_parity);
    LADDU_FIELD(cls, g_parity);
    LADDU_FIELD(cls, charge);
    LADDU_FIELD(cls, isospin);
    LADDU_FIELD(cls, strangeness);
    LADDU_FIELD(cls, charm);
    LADDU_FIELD(cls, bottomness);
    LADDU_FIELD(cls, topness);
    LADDU_FIELD(cls, baryon_number);
    LADDU_FIELD(cls, electron_lepton_number);
    LADDU_FIELD(cls, muon_lepton_number);
    LADDU_FIELD(cls, tau_lepton_number);
    LADDU_FIELD(cls, statistics);
    LADDU_FIELD(cls, mass);

    py::module_ particles = m.def_submodule("particles", "laddu's built-in particle catalogue.");
    for (const auto& entry : physics::builtin_particles()) {
        particles.attr(std::string(entry.key).c_str()) = py::cast(entry.properties);
    }
}

void bind_rules(py::module_& m) {
    using physics::RuleCheck;
    using physics::RuleReport;
    py::class_<RuleCheck>(m, "RuleCheck", "One selection rule applied to one decay.")
        .def_property_readonly(
            "rule", [](const RuleCheck& c) { return std::string(physics::rule_name(c.rule)); })
        .def_property_readonly(
            "outcome",
            [](const RuleCheck& c) { return std::string(physics::outcome_name(c.outcome)); })
        .def_readonly("message", &RuleCheck::message)
        .def_readonly("missing", &RuleCheck::missing)
        .def_property_readonly("is_failure", &RuleCheck::is_failure)
        .def("__repr__", [](const RuleCheck& c) {
            return "RuleCheck(rule='" + std::string(physics::rule_name(c.rule)) + "', outcome='" +
                   std::string(physics::outcome_name(c.outcome)) + "')";
        });
    py::class_<RuleReport>(m, "RuleReport", "The checks of every enabled rule.")
        .def_property_readonly("is_allowed", &RuleReport::is_allowed)
        .def_readonly("checks", &RuleReport::checks)
        .def("__len__", [](const RuleReport& r) { return r.checks.size(); })
        .def("__bool__", &RuleReport::is_allowed);

    py::class_<RuleSet>(m, "RuleSet", "Enforced conservation rules with unknown-input policies.")
        .def_static("angular", &RuleSet::angular)
        .def_static("strong", &RuleSet::strong)
        .def_static("electromagnetic", &RuleSet::electromagnetic)
        .def_static("weak", &RuleSet::weak)
        .def(
            "enforce",
            [](const RuleSet& s, const std::string& r) { return s.enforce(rule_kind(r)); },
            py::arg("rule"))
        .def(
            "enforce_strict",
            [](const RuleSet& s, const std::string& r) { return s.enforce_strict(rule_kind(r)); },
            py::arg("rule"))
        .def(
            "disable",
            [](const RuleSet& s, const std::string& r) { return s.disable(rule_kind(r)); },
            py::arg("rule"))
        .def(
            "with_unknown_policy",
            [](const RuleSet& s, const std::string& r, const std::string& policy) {
                return s.with_unknown_policy(rule_kind(r), unknown_policy(policy));
            },
            py::arg("rule"), py::arg("policy"))
        .def_property_readonly("enabled_rules",
                               [](const RuleSet& s) {
                                   std::vector<std::string> out;
                                   for (const auto r : s.enabled_rules()) {
                                       out.emplace_back(physics::rule_name(r));
                                   }
                                   return out;
                               })
        .def(
            "evaluate",
            [](const RuleSet& s, const ParticleProperties& parent, const ParticleProperties& a,
               const ParticleProperties& b, const py::object& l, const py::object& spin) {
                return s.evaluate(parent, a, b, quantum_extract_l(l), quantum_extract_j(spin));
            },
            py::arg("parent"), py::kw_only(), py::arg("daughter_a"), py::arg("daughter_b"),
            py::arg("l"), py::arg("s"));

    using physics::PartialWave;
    py::class_<PartialWave>(m, "PartialWave", "A two-body partial wave (J, L, S).")
        .def(py::init([](const py::object& j, const py::object& l, const py::object& s) {
                 return PartialWave::make(quantum_extract_j(j), quantum_extract_l(l),
                                          quantum_extract_j(s));
             }),
             py::arg("j"), py::arg("l"), py::arg("s"))
        .def_property_readonly("j", [](const PartialWave& w) { return w.j; })
        .def_property_readonly("l", [](const PartialWave& w) { return w.l; })
        .def_property_readonly("s", [](const PartialWave& w) { return quantum_s(w.s); })
        .def_property_readonly("label", &PartialWave::label)
        .def("__repr__", [](const PartialWave& w) { return "PartialWave('" + w.label() + "')"; })
        .def("__eq__",
             [](const PartialWave& a, const py::object& b) {
                 return py::isinstance<PartialWave>(b) && a == b.cast<PartialWave>();
             })
        .def("__hash__", [](const PartialWave& w) { return py::hash(py::str(w.label())); });

    using physics::AllowedPartialWave;
    py::class_<AllowedPartialWave>(m, "AllowedPartialWave",
                                   "A wave the rules allow, with the inferred final-state P and C.")
        .def_readonly("wave", &AllowedPartialWave::wave)
        .def_readonly("parity", &AllowedPartialWave::parity)
        .def_readonly("c_parity", &AllowedPartialWave::c_parity);

    using physics::SelectionRules;
    py::class_<SelectionRules>(m, "SelectionRules", "Partial-wave enumeration under a RuleSet.")
        .def(py::init([](const RuleSet& rules, const py::object& max_l) {
                 return SelectionRules{rules, quantum_extract_l(max_l)};
             }),
             py::arg("rules"), py::arg("max_l"))
        .def_static(
            "strong",
            [](const py::object& l) { return SelectionRules::strong(quantum_extract_l(l)); },
            py::arg("max_l"))
        .def_static(
            "electromagnetic",
            [](const py::object& l) {
                return SelectionRules::electromagnetic(quantum_extract_l(l));
            },
            py::arg("max_l"))
        .def_static(
            "weak", [](const py::object& l) { return SelectionRules::weak(quantum_extract_l(l)); },
            py::arg("max_l"))
        .def("allowed_partial_waves", &SelectionRules::allowed_partial_waves, py::arg("parent"),
             py::kw_only(), py::arg("daughter_a"), py::arg("daughter_b"));
}

}  // namespace laddu::python
