// `laddu-cpp generate`: events of a model's channel as Parquet, from generation's
// ChannelGenerator: unit-weight events accept-rejected against the model intensity (or phase
// space), or weighted events streamed to the file.
#include <chrono>
#include <complex>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/generation/channel_generator.hpp>
#include <laddu/runtime/prepared_model.hpp>

#include "cli_common.hpp"
#include "commands.hpp"
#include "model_file.hpp"
#include "progress.hpp"

namespace laddu::cli {

namespace {

constexpr const char* kGenerateUsage =
    "usage: laddu-cpp generate --model MODEL --output FILE [--events N] [--seed S]\n"
    "                          [--params P] [--phase-space] [--weighted] [--threads T]\n"
    "Generates events of the model's channel and writes them as Parquet: the [channel] table\n"
    "of the model file (edges, vertices and laddu's generation proposals), or else the\n"
    "reaction beam + target -> X + recoil, X -> two daughters of the [reaction] and [generator]\n"
    "tables. By default the events have unit weights, accept-rejected against the model\n"
    "intensity at its parameter values (model-file values, overridden by --params).\n"
    "  --model MODEL   a model file (TOML) or a built-in model: kmatrix_benchmark\n"
    "  --output FILE   the Parquet file to write\n"
    "  --events N      events to write (default 10000; unit-weight events: at most what fits\n"
    "                  in the available memory, 512 bytes per event)\n"
    "  --seed S        seed (default 1); the output depends only on it, not on --threads\n"
    "  --params P      name=value[,name=value...] or a JSON file (e.g. fit --json output)\n"
    "  --phase-space   phase-space events: no model\n"
    "  --weighted      weighted events (phase-space weight, times the intensity unless\n"
    "                  --phase-space), streamed to the file in batches: any --events\n"
    "  --threads T     threads (default: all; at most 1024)\n"
    "Exit code 0; 2 for errors (one line on stderr); 1 for an internal error.\n";

// Memory per unit-weight event: its output columns and its proposal while it is accept-rejected
// (a batch holds them all; docs/generation.md).
constexpr std::uint64_t kBytesPerEvent = 512;

struct Options {
    std::string model;
    std::string output;
    std::size_t events = 10000;
    std::uint64_t seed = 1;
    std::string params;
    bool phase_space = false;
    bool weighted = false;
    runtime::Execution execution;
};

Options parse(std::span<const std::string_view> args) {
    Options o;
    ArgReader reader("generate", args);
    while (reader.more()) {
        const std::string_view arg = reader.next();
        if (arg == "--model") {
            o.model = reader.value(arg);
        } else if (arg == "--output" || arg == "-o") {
            o.output = reader.value(arg);
        } else if (arg == "--events") {
            o.events = parse_count(arg, reader.value(arg), kMaxEvents);
        } else if (arg == "--seed") {
            o.seed = parse_seed(arg, reader.value(arg));
        } else if (arg == "--params") {
            o.params = reader.value(arg);
        } else if (arg == "--phase-space") {
            o.phase_space = true;
        } else if (arg == "--weighted") {
            o.weighted = true;
        } else if (arg == "--threads") {
            o.execution.threads = parse_threads(arg, reader.value(arg));
        } else {
            throw reader.unknown(arg);
        }
    }
    if (o.model.empty() || o.output.empty()) {
        throw UsageError("--model and --output are required (see laddu-cpp generate --help)");
    }
    if (!o.weighted) {
        check_memory("--events", o.events, kBytesPerEvent,
                     "lower --events, pass --weighted (streamed), or run generate several times "
                     "with different --seed values and give every file to fit --data");
    }
    return o;
}

physics::Edge edge(const std::string& name, std::optional<double> mass, bool output) {
    physics::Edge e{.name = name, .output = output};
    if (mass) {
        physics::ParticleProperties p;
        p.mass = *mass;
        e.particle = p;
    }
    return e;
}

// The [reaction]/[generator] channel: a photon beam along z on a target at rest, X with a mass
// uniform between the daughters' threshold and mass_max (0: the limit at the lowest beam
// energy), t uniform, X decaying isotropically; pol_magnitude uniform on its range, pol_angle
// uniform on [−π, π].
ChannelSpec reaction_channel(const ModelFile& file) {
    const ReactionSpec& r = file.reaction;
    const GeneratorSpec& g = file.generator;
    using generation::InitialMomentum;
    using generation::ScalarSource;
    const double lowest_root_s =
        std::sqrt(g.recoil_mass * g.recoil_mass + 2.0 * g.beam_energy_min * g.recoil_mass);
    const double mass_max = g.mass_max > 0.0 ? g.mass_max : lowest_root_s - g.recoil_mass;
    physics::Channel channel(file.name.empty() ? "reaction" : file.name,
                             {edge(r.beam, 0.0, true), edge("target", g.recoil_mass, false),
                              edge("X", std::nullopt, false), edge(r.recoil, g.recoil_mass, true),
                              edge(r.daughters[0], g.daughter_mass, true),
                              edge(r.daughters[1], g.daughter_mass, true)},
                             {{"production", {r.beam, "target"}, {"X", r.recoil}},
                              {"decay", {"X"}, {r.daughters[0], r.daughters[1]}}});
    generation::ChannelProposals proposals;
    proposals.edges[r.beam].initial_momentum =
        g.beam_energy_max > g.beam_energy_min
            ? InitialMomentum::energy_source(
                  ScalarSource::uniform(g.beam_energy_min, g.beam_energy_max), {0.0, 0.0, 1.0})
            : InitialMomentum::energy(g.beam_energy_min, {0.0, 0.0, 1.0});
    proposals.edges["target"].initial_momentum = InitialMomentum::momentum({0.0, 0.0, 0.0});
    proposals.edges["X"].mass_proposal =
        generation::MassProposal::uniform(2.0 * g.daughter_mass, mass_max);
    proposals.vertices.emplace(
        "production",
        generation::VertexProposal::t_exchange(
            r.beam, "X", generation::TDistribution::single(generation::TComponent::uniform())));
    proposals.vertices.emplace("decay", generation::VertexProposal::isotropic());
    std::vector<std::pair<std::string, ScalarSource>> scalars{
        {r.pol_magnitude, g.pol_magnitude_max > g.pol_magnitude_min
                              ? ScalarSource::uniform(g.pol_magnitude_min, g.pol_magnitude_max)
                              : ScalarSource::fixed(g.pol_magnitude_min)},
        {r.pol_angle, ScalarSource::uniform(-std::numbers::pi, std::numbers::pi)}};
    return {std::move(channel), std::move(proposals), std::move(scalars)};
}

}  // namespace

int generate(std::span<const std::string_view> args) {
    return run_command("generate", [&] {
        if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
            std::fputs(kGenerateUsage, stdout);
            return 0;
        }
        const Options o = parse(args);
        const auto t0 = std::chrono::steady_clock::now();
        const ModelFile file = load_model(o.model);
        const ChannelSpec spec = file.channel ? *file.channel : reaction_channel(file);
        generation::ChannelGenerator generator(spec.channel, spec.proposals);
        for (const auto& [name, source] : spec.scalars) {
            generator.add_scalar(name, source);
        }
        generation::ModelWeights intensity;
        if (!o.phase_space) {
            const ModelPoint point = apply_params(file.model, o.params);
            const auto compiled =
                std::make_shared<const compile::CompiledModel>(compile::compile_model(point.model));
            intensity = [compiled, point, execution = o.execution](const data::Dataset& events) {
                const runtime::PreparedModel prepared =
                    runtime::PreparedModel::prepare(*compiled, events, execution);
                const std::vector<std::complex<double>> values =
                    prepared.evaluate(point.free_values);
                std::vector<double> out(values.size());
                for (std::size_t i = 0; i < values.size(); ++i) {
                    out[i] = values[i].real();
                }
                return out;
            };
        }
        const std::string against =
            o.phase_space ? std::string("phase space") : fmt::format("{}", file.source);
        ProgressLine progress(stderr);
        progress.update(fmt::format("generate: {} {} events of {}", o.events,
                                    o.weighted ? "weighted" : "unit-weight", spec.channel.name()));
        const auto seconds = [&] {
            return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        };
        if (o.weighted) {
            const generation::GenerationReport report = generator.weighted_to(
                {.events = o.events, .seed = o.seed, .threads = o.execution.threads}, o.output,
                intensity);
            progress.finish();
            std::printf("wrote %zu weighted events (%s; sum of weights %.6g) to %s in %.1f s\n",
                        report.produced, against.c_str(), report.sum_weights, o.output.c_str(),
                        seconds());
            return 0;
        }
        const auto [events, report] = generator.unweighted(
            {.events = o.events, .seed = o.seed, .threads = o.execution.threads}, intensity);
        data::write_parquet(events, o.output);
        progress.finish();  // after the file: a failed write prints only its error
        std::printf("wrote %zu events (accept-reject against %s: %zu proposals, acceptance "
                    "%.3g) to %s in %.1f s\n",
                    events.size(), against.c_str(), report.proposals + report.pilot_proposals,
                    report.acceptance_rate(), o.output.c_str(), seconds());
        return 0;
    });
}

}  // namespace laddu::cli
