// `laddu-cpp generate`: events of a model's reaction as Parquet, flat in phase space or
// accept-rejected against the model intensity.
#include <chrono>
#include <complex>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/generation/accept_reject.hpp>
#include <laddu/generation/ksks.hpp>
#include <laddu/runtime/prepared_model.hpp>

#include "cli_common.hpp"
#include "commands.hpp"
#include "model_file.hpp"
#include "progress.hpp"

namespace laddu::cli {

namespace {

constexpr const char* kGenerateUsage =
    "usage: laddu-cpp generate --model MODEL --output FILE [--events N] [--seed S]\n"
    "                          [--params P] [--phase-space] [--threads T]\n"
    "Generates events of the model's reaction (beam + target -> X + recoil, X -> two daughters;\n"
    "the [generator] table of the model file sets beam energy, m(X) window and masses) and\n"
    "writes them as Parquet. By default the flat events are accept-rejected against the model\n"
    "intensity at its parameter values (model-file values, overridden by --params).\n"
    "  --model MODEL   a model file (TOML) or a built-in model: kmatrix_benchmark\n"
    "  --output FILE   the Parquet file to write\n"
    "  --events N      events to write (default 10000; at most what fits in the available\n"
    "                  memory, 304 bytes per event)\n"
    "  --seed S        seed (default 1); the output depends only on it\n"
    "  --params P      name=value[,name=value...] or a JSON file (e.g. fit --json output)\n"
    "  --phase-space   write the flat phase-space events (no accept-reject)\n"
    "  --threads T     threads for the intensity (default: all; at most 1024)\n"
    "Exit code 0; 2 for errors (one line on stderr); 1 for an internal error.\n";

// Memory per generated event: 19 doubles (four four-momenta, two scalars, the weight), held
// twice (the kept rounds and their concatenation; the flat events and their renamed copy).
constexpr std::uint64_t kBytesPerEvent = std::uint64_t{2} * 19 * sizeof(double);

struct Options {
    std::string model;
    std::string output;
    std::size_t events = 10000;
    std::uint64_t seed = 1;
    std::string params;
    bool phase_space = false;
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
        } else if (arg == "--threads") {
            o.execution.threads = parse_threads(arg, reader.value(arg));
        } else {
            throw reader.unknown(arg);
        }
    }
    if (o.model.empty() || o.output.empty()) {
        throw UsageError("--model and --output are required (see laddu-cpp generate --help)");
    }
    check_memory("--events", o.events, kBytesPerEvent,
                 "lower --events, or run generate several times with different --seed values "
                 "and give every file to fit --data");
    return o;
}

// Flat events with the reaction's column names (generate_ksks writes beam, proton, kshort1,
// kshort2, pol_magnitude, pol_angle).
data::Dataset flat_events(const ModelFile& file, std::size_t events, std::uint64_t seed) {
    const GeneratorSpec& g = file.generator;
    const data::Dataset flat =
        generation::generate_ksks(events, {.beam_energy_min = g.beam_energy_min,
                                           .beam_energy_max = g.beam_energy_max,
                                           .kk_mass_max = g.mass_max,
                                           .pol_magnitude_min = g.pol_magnitude_min,
                                           .pol_magnitude_max = g.pol_magnitude_max,
                                           .kaon_mass = g.daughter_mass,
                                           .proton_mass = g.recoil_mass,
                                           .seed = seed});
    const ReactionSpec& r = file.reaction;
    const std::vector<std::pair<std::string, std::string>> p4s = {{"beam", r.beam},
                                                                  {"proton", r.recoil},
                                                                  {"kshort1", r.daughters[0]},
                                                                  {"kshort2", r.daughters[1]}};
    std::vector<data::P4Input> p4_inputs;
    for (const auto& [from, to] : p4s) {
        p4_inputs.push_back({to, flat.column(from + "_e"), flat.column(from + "_px"),
                             flat.column(from + "_py"), flat.column(from + "_pz")});
    }
    const std::vector<data::ScalarInput> scalars = {{r.pol_magnitude, flat.column("pol_magnitude")},
                                                    {r.pol_angle, flat.column("pol_angle")}};
    return data::Dataset::from_arrays(p4_inputs, scalars);
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
        if (o.phase_space) {
            const data::Dataset flat = flat_events(file, o.events, o.seed);
            data::write_parquet(flat, o.output);
            std::printf("wrote %zu phase-space events to %s\n", flat.size(), o.output.c_str());
            return 0;
        }
        const ModelPoint point =
            apply_params(file.model, o.params.empty() ? std::map<std::string, double>{}
                                                      : parse_params(o.params));
        const compile::CompiledModel compiled = compile::compile_model(point.model);
        const auto intensity = [&](const data::Dataset& pool) {
            const runtime::PreparedModel prepared =
                runtime::PreparedModel::prepare(compiled, pool, o.execution);
            const std::vector<std::complex<double>> values = prepared.evaluate(point.free_values);
            std::vector<double> out(values.size());
            for (std::size_t i = 0; i < values.size(); ++i) {
                out[i] = values[i].real();
            }
            return out;
        };
        std::size_t generated = 0;
        ProgressLine progress(stderr);
        const auto source = [&](std::uint64_t round, std::size_t size) {
            generated += size;
            progress.update(
                fmt::format("generate: round {}, {} flat events so far", round + 1, generated));
            return flat_events(file, size, o.seed * 1000003ULL + round);
        };
        const data::Dataset events =
            generation::generate_unweighted(o.events, source, intensity, {.seed = o.seed});
        progress.finish();
        data::write_parquet(events, o.output);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf(
            "wrote %zu events (accept-reject against %s, %zu flat events) to %s in %.1f s\n",
            events.size(), file.source.c_str(), generated, o.output.c_str(), seconds);
        return 0;
    });
}

}  // namespace laddu::cli
