// Model files of the laddu-cpp command: declarative TOML descriptions of an amplitude model
// (docs/cli.md has the schema and the reasons for TOML).
//
//   [model]        name, description, intensity = "<amplitude name>"
//   [reaction]     beam, recoil, daughters = [a, b] (four-momentum columns), polarization
//   [generator]    phase-space settings of `laddu-cpp generate` (beam energy, m(X) window, ...)
//   [channel]      a channel with laddu's generation proposals, which generate uses instead
//                  (channel_file.hpp)
//   [parameters]   "<name>" = { value, bounds = [lo, hi], fixed, periodic, unit }
//   [amplitudes]   "<name>" = { type = "breit_wigner" | "flatte" | "zlm" | "ylm" | "coupling" |
//                  "product" | "sum" | "norm_sqr" | "incoherent_sum" | "real" | "imag" |
//                  "kmatrix_benchmark", ..., tag = "<tag>" }
//
// Every error is a ModelError whose message is one line "FILE:LINE:COLUMN: KEY: what is wrong",
// naming the TOML key and its source position.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/generation/channel_generator.hpp>
#include <laddu/physics/channel.hpp>

namespace laddu::cli {

/// The reaction beam + target → X + recoil, X → daughters[0] + daughters[1]: the names of the
/// four-momentum columns, and the polarisation scalars when the model uses Z_lm.
struct ReactionSpec {
    std::string beam = "beam";
    std::string recoil = "proton";
    std::vector<std::string> daughters = {"kshort1", "kshort2"};
    std::string pol_magnitude = "pol_magnitude";
    std::string pol_angle = "pol_angle";
};

/// Phase-space settings for `laddu-cpp generate` without a [channel] table (a photon beam on a
/// target at rest, X → two daughters of equal mass; generate.cpp builds the channel; also the
/// demo's generation::KsKsOptions).
struct GeneratorSpec {
    double beam_energy_min = 8.0;  ///< GeV
    double beam_energy_max = 9.0;  ///< GeV
    double mass_max = 2.0;         ///< upper end of m(X) in GeV (0: the kinematic limit)
    double daughter_mass = 0.497611;
    double recoil_mass = 0.93827208816;
    double pol_magnitude_min = 0.3;
    double pol_magnitude_max = 0.4;
};

/// The [channel] table: a channel and how to generate it (channel_file.hpp), for generate.
struct ChannelSpec {
    physics::Channel channel;
    generation::ChannelProposals proposals;
    std::vector<std::pair<std::string, generation::ScalarSource>> scalars;
};

/// One named amplitude of a model file and the expression it built.
struct NamedAmplitude {
    std::string name;
    std::string type;
    expr::Expr expression;
    int line = 0;  ///< where it is defined (0 for built-in models)
};

/// A loaded model file.
struct ModelFile {
    std::string source;  ///< the file path, or "builtin:<name>"
    std::string name;
    std::string description;
    std::string intensity;  ///< the name of the intensity amplitude
    expr::Model model{expr::constant(0.0)};
    std::vector<std::string> tags;  ///< the tags the model uses (fit fractions), sorted
    ReactionSpec reaction;
    GeneratorSpec generator;
    std::optional<ChannelSpec> channel;      ///< the [channel] table, if the file has one
    std::vector<NamedAmplitude> amplitudes;  ///< in file order
};

/// Parses TOML text; `source` names it in error messages. Throws ModelError (see the banner).
[[nodiscard]] ModelFile parse_model_file(std::string_view text, const std::string& source);

/// Reads and parses a model file; ModelError for a missing or unreadable file.
[[nodiscard]] ModelFile load_model_file(const std::string& path);

/// The built-in model `name` ("kmatrix_benchmark", waves tagged), or nullopt.
[[nodiscard]] std::optional<ModelFile> builtin_model(std::string_view name);

/// builtin_model(spec) when `spec` names a built-in, else load_model_file(spec).
[[nodiscard]] ModelFile load_model(const std::string& spec);

/// The names of the built-in models.
[[nodiscard]] std::vector<std::string> builtin_model_names();

}  // namespace laddu::cli
