// laddu/generation/json.hpp: the generation proposals and the run report as JSON, in laddu's
// format (its serde text, so files written by either library read in the other).
//
// laddu 0.21.4 writes
//   MassProposal     {"kind":"uniform","low":1.0,"high":2.0} | {"kind":"fixed","mass":1.2}
//   ScalarSource     {"kind":"fixed","value":v} | {"kind":"uniform","min":a,"max":b}
//                    | {"kind":"histogram","edges":[...],"weights":[...]}
//   InitialMomentum  {"P4":{"e","px","py","pz"}} | {"Momentum":{"x","y","z"}}
//                    | {"EnergyDirection":{"energy":<ScalarSource>,"direction":{"x","y","z"}}}
//   VertexProposal   {"kind":"two_body_decay"}
//                    | {"kind":"two_body_scattering","proposal":{"incoming_edge","outgoing_edge",
//                       "distribution":{"components":[[w, <component>], ...],"t_min","t_max"}}}
//                    with components "Uniform", {"Exponential":{"slope"}},
//                    {"Pole":{"exchange_mass","power"}} and {"Histogram":{"histogram":<laddu
//                    Histogram: counts, bin_edges, underflow, overflow, errors>}}
//   GenerationReport every field by name, envelope_kind "Strict" | "Pilot" | "ProvenPhaseSpace"
// Reading goes through the constructors, so a value they refuse (a uniform interval with
// min ≥ max, which laddu's reader accepts) is a ModelError; so are text that does not parse, a
// missing field, an unknown kind and a field of the wrong type, each named. Numbers are written
// so that they read back to the same doubles.
#pragma once

#include <string>
#include <string_view>

#include <laddu/generation/channel_generator.hpp>
#include <laddu/generation/initial_momentum.hpp>
#include <laddu/generation/mass_proposal.hpp>
#include <laddu/generation/scalar_source.hpp>
#include <laddu/generation/vertex_proposal.hpp>

namespace laddu::generation {

/// `proposal` as laddu-format JSON (compact, one line).
[[nodiscard]] std::string to_json(const MassProposal& proposal);
/// The MassProposal `json` describes (see the banner for the errors).
[[nodiscard]] MassProposal mass_proposal_from_json(std::string_view json);

/// `source` as laddu-format JSON.
[[nodiscard]] std::string to_json(const ScalarSource& source);
/// The ScalarSource `json` describes.
[[nodiscard]] ScalarSource scalar_source_from_json(std::string_view json);

/// `momentum` as laddu-format JSON.
[[nodiscard]] std::string to_json(const InitialMomentum& momentum);
/// The InitialMomentum `json` describes.
[[nodiscard]] InitialMomentum initial_momentum_from_json(std::string_view json);

/// `proposal` as laddu-format JSON.
[[nodiscard]] std::string to_json(const VertexProposal& proposal);
/// The VertexProposal `json` describes.
[[nodiscard]] VertexProposal vertex_proposal_from_json(std::string_view json);

/// `report` as laddu-format JSON (actual_high_water_bytes is null: laddu-cpp does not track it).
[[nodiscard]] std::string to_json(const GenerationReport& report);
/// The GenerationReport `json` describes.
[[nodiscard]] GenerationReport generation_report_from_json(std::string_view json);

}  // namespace laddu::generation
