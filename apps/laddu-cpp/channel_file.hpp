// Reading the [channel] table of a model file (ChannelSpec in model_file.hpp): a physics::Channel
// with laddu's generation proposals, for `laddu-cpp generate` (docs/cli.md has the schema).
// Proposals are written in laddu's JSON form as TOML tables (generation/json.hpp), e.g.
//   [channel]
//   name = "gamma p -> K_S K_S p"
//   edges = [
//     { name = "beam", particle = "PHOTON", initial_momentum = { EnergyDirection = {
//         energy = { kind = "uniform", min = 8.0, max = 9.0 },
//         direction = { x = 0.0, y = 0.0, z = 1.0 } } } },
//     { name = "target", mass = 0.938272, output = false,
//       initial_momentum = { Momentum = { x = 0.0, y = 0.0, z = 0.0 } } },
//     { name = "X", output = false, mass_proposal = { kind = "uniform", low = 1.0, high = 2.0 } },
//     ...]
//   vertices = [{ name = "production", incoming = ["beam", "target"], outgoing = ["X", "proton"],
//                 generation = { kind = "two_body_scattering", proposal = { ... } } }, ...]
//   scalars = { pol_magnitude = { kind = "uniform", min = 0.3, max = 0.4 } }
#pragma once

#include "model_file.hpp"
#include "toml_fields.hpp"
#include <toml++/toml.h>

namespace laddu::cli {

/// Reads the [channel] table `t` through `fields` (the model file's getters); every error
/// names its key: an unknown key, a value of the wrong type, an unknown particle, a proposal its
/// JSON reader refuses, a channel whose topology or proposals cannot be generated
/// (validate_generation).
[[nodiscard]] ChannelSpec read_channel(const toml::table& t, const TomlFields& fields);

}  // namespace laddu::cli
