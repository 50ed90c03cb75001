// The generation types as laddu-format JSON (json.hpp). GenerationJson is the friend of the
// proposal classes that reads their representation; every value read is rebuilt through the
// public constructors, which validate it.
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/base/json_numbers.hpp>
#include <laddu/generation/json.hpp>
#include <laddu/generation/t_distribution.hpp>

#include "piecewise_density.hpp"
#include <nlohmann/json.hpp>

namespace laddu::generation {

namespace {

using Json = nlohmann::ordered_json;

// The field `key` of `object`, else a ModelError naming `what`.
const Json& field(const Json& object, const char* key, std::string_view what) {
    if (!object.is_object() || !object.contains(key)) {
        throw ModelError(fmt::format("{} JSON has no field '{}'", what, key));
    }
    return object.at(key);
}

double number(const Json& object, const char* key, std::string_view what) {
    return field(object, key, what).get<double>();
}

// A missing optional field is null, as serde reads an absent Option (TOML has no null).
std::optional<double> optional_number(const Json& object, const char* key, std::string_view what) {
    if (object.is_object() && !object.contains(key)) {
        return std::nullopt;
    }
    const Json& value = field(object, key, what);
    return value.is_null() ? std::nullopt : std::optional<double>(value.get<double>());
}

Json xyz(double x, double y, double z) {
    return Json{{"x", x}, {"y", y}, {"z", z}};
}

std::array<double, 3> read_xyz(const Json& v, std::string_view what) {
    return {number(v, "x", what), number(v, "y", what), number(v, "z", what)};
}

// Parses `text` and reads it with `read`, turning nlohmann's errors into ModelErrors.
template <typename T>
T parse(std::string_view text, std::string_view what, const std::function<T(const Json&)>& read) {
    Json value;
    try {
        value = Json::parse(text);
    } catch (const Json::exception& error) {
        throw ModelError(fmt::format("{} JSON does not parse: {}", what, error.what()));
    }
    try {
        return read(value);
    } catch (const Json::exception& error) {
        throw ModelError(
            fmt::format("{} JSON has a field of the wrong type: {}", what, error.what()));
    }
}

std::string kind_of(const Json& v, std::string_view what) {
    return field(v, "kind", what).get<std::string>();
}

}  // namespace

namespace detail {

struct GenerationJson {
    static Json scalar(const ScalarSource& s) {
        switch (s.kind_) {
        case ScalarSource::Kind::kFixed:
            return Json{{"kind", "fixed"}, {"value", s.low_}};
        case ScalarSource::Kind::kUniform:
            return Json{{"kind", "uniform"}, {"min", s.low_}, {"max", s.high_}};
        case ScalarSource::Kind::kHistogram:
            break;
        }
        return Json{{"kind", "histogram"},
                    {"edges", s.histogram_->edges()},
                    {"weights", s.histogram_->counts()}};
    }

    static ScalarSource read_scalar(const Json& v) {
        const std::string kind = kind_of(v, "ScalarSource");
        if (kind == "fixed") {
            return ScalarSource::fixed(number(v, "value", "ScalarSource"));
        }
        if (kind == "uniform") {
            return ScalarSource::uniform(number(v, "min", "ScalarSource"),
                                         number(v, "max", "ScalarSource"));
        }
        if (kind == "histogram") {
            return ScalarSource::histogram(
                field(v, "edges", "ScalarSource").get<std::vector<double>>(),
                field(v, "weights", "ScalarSource").get<std::vector<double>>());
        }
        throw ModelError(fmt::format("ScalarSource JSON: unknown kind '{}' (expected fixed, "
                                     "uniform or histogram)",
                                     kind));
    }

    static Json initial(const InitialMomentum& m) {
        const FourMomentum& p = m.p4_;
        switch (m.kind_) {
        case InitialMomentum::Kind::kP4:
            return Json{{"P4", {{"e", p.e}, {"px", p.px}, {"py", p.py}, {"pz", p.pz}}}};
        case InitialMomentum::Kind::kMomentum:
            return Json{{"Momentum", xyz(p.px, p.py, p.pz)}};
        case InitialMomentum::Kind::kEnergy:
            break;
        }
        return Json{{"EnergyDirection",
                     {{"energy", scalar(*m.energy_)}, {"direction", xyz(p.px, p.py, p.pz)}}}};
    }

    static InitialMomentum read_initial(const Json& v) {
        constexpr std::string_view kWhat = "InitialMomentum";
        if (v.is_object() && v.contains("P4")) {
            const Json& p = v.at("P4");
            return InitialMomentum::p4({number(p, "e", kWhat), number(p, "px", kWhat),
                                        number(p, "py", kWhat), number(p, "pz", kWhat)});
        }
        if (v.is_object() && v.contains("Momentum")) {
            return InitialMomentum::momentum(read_xyz(v.at("Momentum"), kWhat));
        }
        if (v.is_object() && v.contains("EnergyDirection")) {
            const Json& e = v.at("EnergyDirection");
            return InitialMomentum::energy_source(read_scalar(field(e, "energy", kWhat)),
                                                  read_xyz(field(e, "direction", kWhat), kWhat));
        }
        throw ModelError("InitialMomentum JSON is none of {\"P4\": ...}, {\"Momentum\": ...} and "
                         "{\"EnergyDirection\": ...}");
    }

    static Json component(const TComponent& c) {
        switch (c.kind_) {
        case TComponent::Kind::kUniform:
            return "Uniform";
        case TComponent::Kind::kExponential:
            return Json{{"Exponential", {{"slope", c.a_}}}};
        case TComponent::Kind::kPole:
            return Json{{"Pole", {{"exchange_mass", c.a_}, {"power", c.b_}}}};
        case TComponent::Kind::kHistogram:
            break;
        }
        // laddu's Histogram: flow bins empty, errors √|count|.
        std::vector<double> errors;
        for (const double count : c.histogram_->counts()) {
            errors.push_back(std::sqrt(std::abs(count)));
        }
        return Json{{"Histogram",
                     {{"histogram",
                       {{"counts", c.histogram_->counts()},
                        {"bin_edges", c.histogram_->edges()},
                        {"underflow", 0.0},
                        {"overflow", 0.0},
                        {"errors", errors}}}}}};
    }

    static TComponent read_component(const Json& v) {
        constexpr std::string_view kWhat = "t distribution component";
        if (v == "Uniform") {
            return TComponent::uniform();
        }
        if (v.is_object() && v.contains("Exponential")) {
            return TComponent::exponential(number(v.at("Exponential"), "slope", kWhat));
        }
        if (v.is_object() && v.contains("Pole")) {
            const Json& p = v.at("Pole");
            return TComponent::pole(number(p, "exchange_mass", kWhat), number(p, "power", kWhat));
        }
        if (v.is_object() && v.contains("Histogram")) {
            const Json& h = field(v.at("Histogram"), "histogram", kWhat);
            return TComponent::histogram(field(h, "bin_edges", kWhat).get<std::vector<double>>(),
                                         field(h, "counts", kWhat).get<std::vector<double>>());
        }
        throw ModelError(fmt::format("{} JSON is none of \"Uniform\", {{\"Exponential\": ...}}, "
                                     "{{\"Pole\": ...}} and {{\"Histogram\": ...}}",
                                     kWhat));
    }

    static Json vertex(const VertexProposal& p) {
        if (p.kind() == VertexProposal::Kind::kIsotropic) {
            return Json{{"kind", "two_body_decay"}};
        }
        const TDistribution& t = p.distribution();
        Json components = Json::array();
        for (const auto& [weight, component_value] : t.components()) {
            components.push_back(Json::array({weight, component(component_value)}));
        }
        const auto nullable = [](std::optional<double> x) {
            return x ? Json(*x) : Json(nullptr);
        };
        return Json{{"kind", "two_body_scattering"},
                    {"proposal",
                     {{"incoming_edge", p.incoming_edge()},
                      {"outgoing_edge", p.outgoing_edge()},
                      {"distribution",
                       {{"components", components},
                        {"t_min", nullable(t.t_min())},
                        {"t_max", nullable(t.t_max())}}}}}};
    }

    static VertexProposal read_vertex(const Json& v) {
        constexpr std::string_view kWhat = "VertexProposal";
        const std::string kind = kind_of(v, kWhat);
        if (kind == "two_body_decay") {
            return VertexProposal::isotropic();
        }
        if (kind != "two_body_scattering") {
            throw ModelError(fmt::format("VertexProposal JSON: unknown kind '{}' (expected "
                                         "two_body_decay or two_body_scattering)",
                                         kind));
        }
        const Json& p = field(v, "proposal", kWhat);
        const Json& d = field(p, "distribution", kWhat);
        std::vector<std::pair<double, TComponent>> parts;
        for (const Json& entry : field(d, "components", kWhat)) {
            if (!entry.is_array() || entry.size() != 2) {
                throw ModelError("VertexProposal JSON: a t component is not [weight, component]");
            }
            parts.emplace_back(entry[0].get<double>(), read_component(entry[1]));
        }
        return VertexProposal::t_exchange(field(p, "incoming_edge", kWhat).get<std::string>(),
                                          field(p, "outgoing_edge", kWhat).get<std::string>(),
                                          TDistribution::mixture(std::move(parts))
                                              .with_limits(optional_number(d, "t_min", kWhat),
                                                           optional_number(d, "t_max", kWhat)));
    }
};

}  // namespace detail

using detail::GenerationJson;

std::string to_json(const MassProposal& proposal) {
    if (proposal.is_fixed()) {
        return laddu_json_numbers(Json{{"kind", "fixed"}, {"mass", proposal.low()}}.dump());
    }
    return laddu_json_numbers(
        Json{{"kind", "uniform"}, {"low", proposal.low()}, {"high", *proposal.high()}}.dump());
}

MassProposal mass_proposal_from_json(std::string_view json) {
    return parse<MassProposal>(json, "MassProposal", [](const Json& v) {
        const std::string kind = kind_of(v, "MassProposal");
        if (kind == "fixed") {
            return MassProposal::fixed(number(v, "mass", "MassProposal"));
        }
        if (kind == "uniform") {
            return MassProposal::uniform(number(v, "low", "MassProposal"),
                                         number(v, "high", "MassProposal"));
        }
        throw ModelError(
            fmt::format("MassProposal JSON: unknown kind '{}' (expected fixed or uniform)", kind));
    });
}

std::string to_json(const ScalarSource& source) {
    return laddu_json_numbers(GenerationJson::scalar(source).dump());
}

ScalarSource scalar_source_from_json(std::string_view json) {
    return parse<ScalarSource>(json, "ScalarSource", GenerationJson::read_scalar);
}

std::string to_json(const InitialMomentum& momentum) {
    return laddu_json_numbers(GenerationJson::initial(momentum).dump());
}

InitialMomentum initial_momentum_from_json(std::string_view json) {
    return parse<InitialMomentum>(json, "InitialMomentum", GenerationJson::read_initial);
}

std::string to_json(const VertexProposal& proposal) {
    return laddu_json_numbers(GenerationJson::vertex(proposal).dump());
}

VertexProposal vertex_proposal_from_json(std::string_view json) {
    return parse<VertexProposal>(json, "VertexProposal", GenerationJson::read_vertex);
}

namespace {

constexpr std::array<std::pair<EnvelopeKind, const char*>, 3> kEnvelopeKinds{
    {{EnvelopeKind::kStrict, "Strict"},
     {EnvelopeKind::kPilot, "Pilot"},
     {EnvelopeKind::kProvenPhaseSpace, "ProvenPhaseSpace"}}};

}  // namespace

std::string to_json(const GenerationReport& r) {
    Json kind = nullptr;
    if (r.envelope_kind) {
        for (const auto& [value, name] : kEnvelopeKinds) {
            if (value == *r.envelope_kind) {
                kind = name;
            }
        }
    }
    const auto proven = [&](auto get) {
        return r.proven ? Json(get(*r.proven)) : Json(nullptr);
    };
    return laddu_json_numbers(Json{
        {"requested", r.requested},
        {"produced", r.produced},
        {"proposals", r.proposals},
        {"pilot_proposals", r.pilot_proposals},
        {"rejected", r.rejected},
        {"envelope", r.envelope ? Json(*r.envelope) : Json(nullptr)},
        {"envelope_kind", kind},
        {"envelope_updates", r.envelope_updates},
        {"proven_weight_interval", proven([](const ProvenEnvelopeReport& p) {
             return Json::array({p.weight_interval.lo(), p.weight_interval.hi()});
         })},
        {"proven_continuous_dimensions",
         proven([](const ProvenEnvelopeReport& p) { return p.continuous_dimensions; })},
        {"proven_piecewise_regions",
         proven([](const ProvenEnvelopeReport& p) { return p.piecewise_regions; })},
        {"proven_subdivisions",
         proven([](const ProvenEnvelopeReport& p) { return p.subdivisions; })},
        {"maximum_weight", r.maximum_weight},
        {"minimum_weight", r.minimum_weight},
        {"sum_weights", r.sum_weights},
        {"sum_squared_weights", r.sum_squared_weights},
        {"seed", r.seed},
        {"chunk_events", r.chunk_events},
        {"estimated_peak_bytes", r.estimated_peak_bytes},
        {"actual_high_water_bytes",
         nullptr}}.dump());
}

GenerationReport generation_report_from_json(std::string_view json) {
    return parse<GenerationReport>(json, "GenerationReport", [](const Json& v) {
        constexpr std::string_view kWhat = "GenerationReport";
        const auto count = [&](const char* key) {
            return field(v, key, kWhat).get<std::size_t>();
        };
        GenerationReport r;
        r.requested = count("requested");
        r.produced = count("produced");
        r.proposals = count("proposals");
        r.pilot_proposals = count("pilot_proposals");
        r.rejected = count("rejected");
        r.envelope = optional_number(v, "envelope", kWhat);
        const Json& kind = field(v, "envelope_kind", kWhat);
        if (!kind.is_null()) {
            const auto name = kind.get<std::string>();
            const auto* found = std::find_if(kEnvelopeKinds.begin(), kEnvelopeKinds.end(),
                                             [&](const auto& k) { return name == k.second; });
            if (found == kEnvelopeKinds.end()) {
                throw ModelError(fmt::format("GenerationReport JSON: unknown envelope_kind '{}' "
                                             "(expected Strict, Pilot or ProvenPhaseSpace)",
                                             name));
            }
            r.envelope_kind = found->first;
        }
        r.envelope_updates = count("envelope_updates");
        const Json& interval = field(v, "proven_weight_interval", kWhat);
        if (!interval.is_null()) {
            ProvenEnvelopeReport p;
            if (!interval.is_array() || interval.size() != 2) {
                throw ModelError(
                    "GenerationReport JSON: proven_weight_interval is not [low, high]");
            }
            p.weight_interval = Interval(interval[0].get<double>(), interval[1].get<double>());
            p.maximum_weight = p.weight_interval.hi();
            p.continuous_dimensions = count("proven_continuous_dimensions");
            p.piecewise_regions = count("proven_piecewise_regions");
            p.subdivisions = count("proven_subdivisions");
            r.proven = p;
        }
        r.maximum_weight = number(v, "maximum_weight", kWhat);
        r.minimum_weight = number(v, "minimum_weight", kWhat);
        r.sum_weights = number(v, "sum_weights", kWhat);
        r.sum_squared_weights = number(v, "sum_squared_weights", kWhat);
        r.seed = field(v, "seed", kWhat).get<std::uint64_t>();
        r.chunk_events = count("chunk_events");
        r.estimated_peak_bytes = field(v, "estimated_peak_bytes", kWhat).get<std::uint64_t>();
        return r;
    });
}

}  // namespace laddu::generation
