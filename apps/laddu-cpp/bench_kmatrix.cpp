// `laddu-cpp bench kmatrix`: laddu's K-matrix benchmark (crates/laddu/benches/
// kmatrix_benchmark.rs): the benchmark model's NLL with data and accepted MC both the given
// file, evaluated at PARAMS.json (free parameters by laddu's names; missing ones 0.25, as the
// benchmark sets them), timed as medians over --repeat runs, printed as one JSON object.
// With --mpi (run under mpirun) every rank evaluates its share of the events (the partitioning's
// whole reduction chunks) and rank 0 alone prints; the NLL is bit-identical to one process.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <laddu/amplitudes/kmatrix_benchmark.hpp>
#include <laddu/base/error.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/likelihood/nll.hpp>
#include <laddu/runtime/collective.hpp>
#include <laddu/runtime/execution.hpp>
#if LADDU_HAVE_DISTRIBUTED
#include <laddu/distributed/mpi_collective.hpp>
#include <laddu/distributed/partition.hpp>
#endif

#include "cli_common.hpp"
#include "commands.hpp"
#include <nlohmann/json.hpp>

namespace laddu::cli {

namespace {

constexpr const char* kBenchUsage =
    "usage: laddu-cpp bench kmatrix --data FILE.parquet [--params PARAMS.json] [--threads N]\n"
    "                               [--precision f64|f32] [--jit auto|on|off]\n"
    "                               [--backend cpu|gpu] [--device N]\n"
    "                               [--autodiff auto|forward|reverse] [--repeat R] [--json]\n"
    "                               [--mpi [--partitioning contiguous|rows|file_groups]]\n"
    "Builds laddu's K-matrix benchmark model, uses FILE as data and accepted MC, and prints the\n"
    "NLL, its gradient by parameter name, and median timings as one JSON object.\n"
    "--mpi (under mpirun): the ranks share the events; rank 0 prints, with \"ranks\" and\n"
    "\"partitioning\" in the JSON. --threads is at most 1024, --repeat at most 1000000.\n"
    "--backend gpu evaluates on OpenCL device N (--device, default 0; `clinfo -l` lists them);\n"
    "preparation stays on the CPU.\n"
    "Exit code 0; 2 for errors (one line on stderr); 1 for an internal error.\n";

constexpr std::uint64_t kMaxRepeat = 1000000;

struct Options {
    std::string data;
    std::optional<std::string> params;
    runtime::Execution execution;
    std::size_t repeat = 5;
    bool mpi = false;
    std::string partitioning = "contiguous";
};

// Throws UsageError with a one-line message for any malformed argument.
Options parse(std::span<const std::string_view> args) {
    Options options;
    options.execution.jit = runtime::JitPolicy::kAuto;
    ArgReader reader("bench kmatrix", args);
    while (reader.more()) {
        const std::string_view arg = reader.next();
        const auto value = [&] {
            return reader.value(arg);
        };
        if (arg == "--data") {
            options.data = value();
        } else if (arg == "--params") {
            options.params = value();
        } else if (arg == "--threads") {
            options.execution.threads = parse_threads(arg, value());
        } else if (arg == "--precision") {
            const std::string v = value();
            if (v != "f64" && v != "f32") {
                throw UsageError(fmt::format("--precision must be f64 or f32, got '{}'", v));
            }
            options.execution.precision = v == "f32" ? ir::Precision::kF32 : ir::Precision::kF64;
        } else if (arg == "--jit") {
            const std::string v = value();
            if (v == "auto") {
                options.execution.jit = runtime::JitPolicy::kAuto;
            } else if (v == "on") {
                options.execution.jit = runtime::JitPolicy::kEnabled;
            } else if (v == "off") {
                options.execution.jit = runtime::JitPolicy::kDisabled;
            } else {
                throw UsageError(fmt::format("--jit must be auto, on or off, got '{}'", v));
            }
        } else if (arg == "--backend") {
            const std::string v = value();
            if (v != "cpu" && v != "gpu") {
                throw UsageError(fmt::format("--backend must be cpu or gpu, got '{}'", v));
            }
            options.execution.device = v == "gpu" ? runtime::Device::kGpu : runtime::Device::kCpu;
        } else if (arg == "--device") {
            options.execution.device_index =
                static_cast<std::size_t>(parse_integer(arg, value(), 0, 1U << 16U));
        } else if (arg == "--autodiff") {
            const std::string v = value();
            if (v == "auto") {
                options.execution.autodiff = runtime::AutodiffMode::kAuto;
            } else if (v == "forward") {
                options.execution.autodiff = runtime::AutodiffMode::kForward;
            } else if (v == "reverse") {
                options.execution.autodiff = runtime::AutodiffMode::kReverse;
            } else {
                throw UsageError(
                    fmt::format("--autodiff must be auto, forward or reverse, got '{}'", v));
            }
        } else if (arg == "--repeat") {
            options.repeat = parse_count(arg, value(), kMaxRepeat);
        } else if (arg == "--json") {
            // JSON is the only output format; accepted for laddu's command line.
        } else if (arg == "--mpi") {
#if LADDU_HAVE_DISTRIBUTED
            options.mpi = true;
#else
            throw UsageError("--mpi: this laddu-cpp was built without MPI (libopenmpi-dev)");
#endif
        } else if (arg == "--partitioning") {
            options.partitioning = value();
        } else {
            throw reader.unknown(arg);
        }
    }
    if (options.data.empty()) {
        throw UsageError("--data FILE.parquet is required (see laddu-cpp bench kmatrix --help)");
    }
    if (options.partitioning != "contiguous" && options.partitioning != "rows" &&
        options.partitioning != "file_groups") {
        throw UsageError(
            fmt::format("--partitioning must be contiguous, rows or file_groups, got '{}'",
                        options.partitioning));
    }
    if (!options.mpi && options.partitioning != "contiguous") {
        throw UsageError("--partitioning needs --mpi");
    }
    return options;
}

// Free parameters in model order: 0.25 unless PARAMS.json names them; unknown names fail.
std::vector<double> read_parameters(const std::optional<std::string>& path,
                                    const std::vector<std::string>& names) {
    std::vector<double> values(names.size(), 0.25);
    if (!path) {
        return values;
    }
    std::ifstream in(*path);
    if (!in) {
        throw DataError(fmt::format("cannot open parameter file '{}'", *path));
    }
    nlohmann::json json;
    try {
        in >> json;
    } catch (const nlohmann::json::exception& e) {
        throw DataError(fmt::format("parameter file '{}' is not valid JSON: {}", *path, e.what()));
    }
    if (!json.is_object()) {
        throw DataError(
            fmt::format("parameter file '{}' must hold one object {{name: value}}", *path));
    }
    for (const auto& [name, value] : json.items()) {
        const auto it = std::find(names.begin(), names.end(), name);
        if (it == names.end()) {
            throw ModelError(fmt::format("'{}' in '{}' is not a free parameter of the K-matrix "
                                         "benchmark model; free parameters: [{}]",
                                         name, *path, fmt::join(names, ", ")));
        }
        if (!value.is_number()) {
            throw DataError(fmt::format("parameter '{}' in '{}' must be a number", name, *path));
        }
        values[static_cast<std::size_t>(it - names.begin())] = value.get<double>();
    }
    return values;
}

template <typename Fn>
double median_seconds(std::size_t repeat, Fn fn) {
    std::vector<double> times;
    for (std::size_t r = 0; r < repeat; ++r) {
        const auto start = std::chrono::steady_clock::now();
        fn();
        times.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

// Runs the benchmark; only rank 0 of an MPI run prints.
int run_benchmark(const Options& options) {
    runtime::Execution execution = options.execution;
    bool root = true;
#if LADDU_HAVE_DISTRIBUTED
    if (options.mpi) {
        execution.collective =
            distributed::mpi_collective(distributed::parse_partitioning(options.partitioning));
        root = execution.collective->rank() == 0;
    }
#endif
    const runtime::Collective* collective = execution.collective.get();
    const expr::Model model = amplitudes::kmatrix_benchmark_model();
    // Under MPI the file is a lazily read source: each rank decodes only the row groups
    // holding its chunks (ReadPlan::ranges), while the NLL is prepared.
    const data::EventData events = [&]() -> data::EventData {
        if (!options.mpi) {
            return data::read_parquet(options.data);
        }
        // Opening the file is local: a file missing on one rank must fail every rank, not leave
        // the others waiting in the NLL's first collective.
        std::shared_ptr<const data::ParquetSource> source;
        runtime::collectively(collective, [&] {
            source = std::make_shared<data::ParquetSource>(std::vector<std::string>{options.data});
        });
        return data::EventData::from_source(source);
    }();
    const auto start = std::chrono::steady_clock::now();
    const likelihood::NLL nll(model, events, events, execution);
    const double prepare_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::vector<std::string> names = model.parameters().free_names();
    const std::vector<double> params = read_parameters(options.params, names);

    double value = 0.0;
    runtime::Evaluation evaluation;
    const double per_value = median_seconds(options.repeat, [&] { value = nll.value(params); });
    const double per_gradient =
        median_seconds(options.repeat, [&] { evaluation = nll.value_and_gradient(params); });

    nlohmann::ordered_json out;
    out["nll"] = value;
    nlohmann::ordered_json gradient = nlohmann::ordered_json::object();
    for (std::size_t k = 0; k < names.size(); ++k) {
        gradient[names[k]] = evaluation.gradient.at(k);
    }
    out["gradient"] = gradient;
    out["events"] = events.num_events();
    out["prepare_seconds"] = prepare_seconds;
    out["seconds_per_value"] = per_value;
    out["seconds_per_value_and_gradient"] = per_gradient;
    out["threads"] = options.execution.resolved_threads();
    out["fast_normalization"] = nll.uses_fast_normalization();
    out["precision"] = options.execution.precision == ir::Precision::kF32 ? "f32" : "f64";
    out["backend"] = std::string(nll.backend());
    if (options.execution.device == runtime::Device::kGpu) {
        out["device"] = options.execution.device_index;
    }
    out["ranks"] = collective != nullptr ? collective->size() : 1;
    out["partitioning"] = options.mpi ? options.partitioning : "none";
    if (root) {
        std::puts(out.dump().c_str());
    }
    return kExitOk;
}

}  // namespace

int bench_kmatrix(std::span<const std::string_view> args) {
    return run_command("bench kmatrix", [&] {
        if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
            std::fputs(kBenchUsage, stdout);
            return kExitOk;
        }
        // An error on any rank is reported by that rank, which then ends every rank
        // (run_command): a rank that returned quietly would leave the others waiting.
        return run_benchmark(parse(args));
    });
}

}  // namespace laddu::cli
