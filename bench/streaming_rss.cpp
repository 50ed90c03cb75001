// Streaming a data set larger than the memory budget: peak RSS stays under the budget and the
// NLL terms equal a resident run bit for bit.
//
// Writes (or reuses) a Parquet file of K_S K_S events (row groups of --row-group rows: 65536,
// or 1048576 as write_parquet and `laddu-cpp generate` write them), prepares the K-matrix
// benchmark model on it with MemoryPolicy::kStreaming and the budget, and times reduce
// (Σ w ln I) and reduce_with_gradient. The file is written and the resident comparison run in
// child processes, so neither counts in this process's peak RSS (getrusage ru_maxrss). The
// runtime's budget (Execution::memory) is the process budget less what the process holds
// before prepare and --slack MiB; the run fails when the peak RSS exceeds the process budget or
// grows past the pre-prepare peak by more than the runtime's budget.
//
// --memory gives the runtime's budget instead (the process budget is then that plus what the
// process holds before prepare and the slack).
//
//   streaming_rss [--events N] [--budget "256 MiB" | --memory "64 MiB"] [--threads T]
//                 [--passes P] [--file PATH] [--row-group R] [--slack MiB]
//                 [--jit auto|on|off] [--no-compare]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <laddu/amplitudes/kmatrix_benchmark.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/runtime/prepared_model.hpp>

#include "../tests/support/ksks_events.hpp"
#include "child_process.hpp"
#include <sys/resource.h>

namespace {

using namespace laddu;  // NOLINT(google-build-using-namespace): a small program

struct Options {
    std::size_t events = 2'000'000;
    std::string budget = "256 MiB";
    std::string memory;  ///< the runtime's budget, when given
    std::size_t threads = 2;
    int passes = 2;
    std::string file;
    std::size_t row_group = 65536;
    std::size_t slack_mib = 16;
    runtime::JitPolicy jit = runtime::JitPolicy::kDisabled;
    bool compare = true;
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                throw std::runtime_error("missing value after " + arg);
            }
            return argv[++i];
        };
        if (arg == "--events") {
            o.events = std::stoul(value());
        } else if (arg == "--budget") {
            o.budget = value();
        } else if (arg == "--memory") {
            o.memory = value();
        } else if (arg == "--threads") {
            o.threads = std::stoul(value());
        } else if (arg == "--passes") {
            o.passes = std::stoi(value());
        } else if (arg == "--file") {
            o.file = value();
        } else if (arg == "--row-group") {
            o.row_group = std::stoul(value());
        } else if (arg == "--slack") {
            o.slack_mib = std::stoul(value());
        } else if (arg == "--jit") {
            const std::string v = value();
            o.jit = v == "on"     ? runtime::JitPolicy::kEnabled
                    : v == "auto" ? runtime::JitPolicy::kAuto
                                  : runtime::JitPolicy::kDisabled;
        } else if (arg == "--no-compare") {
            o.compare = false;
        } else {
            throw std::runtime_error("unknown argument " + arg);
        }
    }
    if (o.file.empty()) {
        o.file = (std::filesystem::temp_directory_path() /
                  fmt::format("laddu-streaming-rss-{}-rg{}.parquet", o.events, o.row_group))
                     .string();
    }
    return o;
}

// This process's resident set now, from /proc/self/statm.
double current_rss_mib() {
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    unsigned long resident = 0;
    if (f != nullptr) {
        if (std::fscanf(f, "%lu %lu", &pages, &resident) != 2) {
            resident = 0;
        }
        std::fclose(f);
    }
    return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1048576.0;
}

double cpu_seconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto seconds = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
    };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

void write_events(const Options& o) {
    const testing::KsKsEvents events = testing::generate_ksks(o.events, 2026);
    data::ParquetWriteOptions options;
    options.compression = data::Compression::kSnappy;
    options.row_group_size = o.row_group;
    data::write_parquet(events.dataset(), o.file, options);
}

// Σ w ln I and its gradient: the data term of an NLL.
std::vector<double> evaluate(const runtime::PreparedModel& model, std::span<const double> params) {
    std::vector<double> out{model.reduce(params, runtime::ReductionTransform::kLogPositiveReal)};
    const runtime::Evaluation g =
        model.reduce_with_gradient(params, runtime::ReductionTransform::kLogPositiveReal);
    out.push_back(g.value);
    out.insert(out.end(), g.gradient.begin(), g.gradient.end());
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const Options o = parse(argc, argv);
        if (!std::filesystem::exists(o.file)) {
            std::printf("writing %zu events to %s\n", o.events, o.file.c_str());
            (void)bench::in_child([&] {
                write_events(o);
                return std::vector<double>{};
            });
        }
        const compile::CompiledModel compiled =
            compile::compile_model(amplitudes::kmatrix_benchmark_model());
        // Every free parameter 0.25, as `laddu-cpp bench kmatrix` without --params.
        const std::vector<double> params(compiled.parameters.free_count(), 0.25);
        auto source = std::make_shared<data::ParquetSource>(std::vector<std::string>{o.file});
        runtime::Execution execution;
        execution.threads = o.threads;
        execution.jit = o.jit;
        // The budget bounds the whole process: the runtime gets what the program does not
        // already hold (libraries, the compiled model), less --slack MiB for what its
        // accounting leaves out (allocator arenas and fragmentation).
        const double rss_before = bench::peak_rss_mib();
        const std::size_t slack = o.slack_mib << 20;
        const auto held = static_cast<std::size_t>(current_rss_mib() * 1048576.0);
        std::size_t total = 0;
        if (o.memory.empty()) {
            total = runtime::MemoryPlan::parse(o.budget).resolve();
            execution.memory =
                runtime::MemoryPlan::bytes(total > held + slack ? total - held - slack : 0);
        } else {
            execution.memory = runtime::MemoryPlan::parse(o.memory);
            total = held + slack + execution.memory.resolve();
        }
        const std::string budget_text =
            o.memory.empty() ? o.budget
                             : fmt::format("{:.1f} MiB", static_cast<double>(total) / 1048576.0);

        const auto t0 = std::chrono::steady_clock::now();
        const auto model = runtime::PreparedModel::prepare(
            compiled, data::EventData::from_source(source, data::MemoryPolicy::kStreaming),
            execution);
        const auto t1 = std::chrono::steady_clock::now();
        const runtime::MemoryReport& m = model.memory_report();
        const data::ParquetFileReader reader = data::ParquetFileReader::open(o.file);
        std::printf("events %zu, file %.1f MiB in row groups of %llu rows, budget %s for the "
                    "process: %.1f MiB held before prepare, %zu MiB slack, %.1f MiB for the "
                    "runtime; backend %s, threads %zu\n",
                    model.events(),
                    static_cast<double>(std::filesystem::file_size(o.file)) / 1048576.0,
                    static_cast<unsigned long long>(reader.row_group_rows(0)), budget_text.c_str(),
                    static_cast<double>(held) / 1048576.0, o.slack_mib,
                    static_cast<double>(m.budget_bytes) / 1048576.0,
                    std::string(model.backend()).c_str(), o.threads);
        std::printf("resident cache would need %.1f MiB (%.1fx the budget): %zu B/event cache, "
                    "%zu B/event source\n",
                    static_cast<double>(m.cache_bytes) / 1048576.0,
                    static_cast<double>(m.cache_bytes) / static_cast<double>(m.budget_bytes),
                    m.cache_bytes_per_event, m.source_bytes_per_event);
        std::printf("decision: %s\n", m.decision.c_str());
        std::printf("planned peak %.1f MiB: read buffers %.1f MiB, kernel scratch %.1f MiB\n",
                    static_cast<double>(m.peak_bytes) / 1048576.0,
                    static_cast<double>(m.read_buffer_bytes) / 1048576.0,
                    static_cast<double>(m.scratch_bytes) / 1048576.0);
        std::printf("window %zu events (%zu chunks); prepare (one weight scan) %.2f s\n",
                    m.window_events, m.window_events / runtime::kReductionChunk,
                    std::chrono::duration<double>(t1 - t0).count());

        std::vector<double> streamed;
        double value_s = 1e300;
        double gradient_s = 1e300;
        double value_cpu = 1e300;
        double gradient_cpu = 1e300;
        for (int pass = 0; pass < o.passes; ++pass) {
            const double cpu_a = cpu_seconds();
            const auto a = std::chrono::steady_clock::now();
            const double value =
                model.reduce(params, runtime::ReductionTransform::kLogPositiveReal);
            const auto b = std::chrono::steady_clock::now();
            const double cpu_b = cpu_seconds();
            const runtime::Evaluation g =
                model.reduce_with_gradient(params, runtime::ReductionTransform::kLogPositiveReal);
            const auto c = std::chrono::steady_clock::now();
            const double cpu_c = cpu_seconds();
            value_s = std::min(value_s, std::chrono::duration<double>(b - a).count());
            gradient_s = std::min(gradient_s, std::chrono::duration<double>(c - b).count());
            value_cpu = std::min(value_cpu, cpu_b - cpu_a);
            gradient_cpu = std::min(gradient_cpu, cpu_c - cpu_b);
            streamed = {value};
            streamed.push_back(g.value);
            streamed.insert(streamed.end(), g.gradient.begin(), g.gradient.end());
        }
        const double events = static_cast<double>(model.events());
        std::printf("reduce: %.2f s/pass (%.2f CPU s), %.2f M events/s\n", value_s, value_cpu,
                    events / value_s / 1e6);
        std::printf("reduce_with_gradient (%zu params): %.2f s/pass (%.2f CPU s), %.2f M "
                    "events/s\n",
                    params.size(), gradient_s, gradient_cpu, events / gradient_s / 1e6);
        const double rss_peak = bench::peak_rss_mib();
        const double budget_mib = static_cast<double>(total) / 1048576.0;
        const double runtime_mib = static_cast<double>(m.budget_bytes) / 1048576.0;
        const double grown = rss_peak - rss_before;
        const bool within = rss_peak < budget_mib && grown <= runtime_mib;
        std::printf("peak RSS before prepare %.1f MiB, after the passes %.1f MiB (budget %.1f "
                    "MiB): %s\n",
                    rss_before, rss_peak, budget_mib,
                    rss_peak < budget_mib ? "under the budget" : "OVER THE BUDGET");
        std::printf("peak RSS grew by %.1f MiB: %.0f%% of the runtime's %.1f MiB budget "
                    "(planned %.1f MiB)%s\n",
                    grown, 100.0 * grown / runtime_mib, runtime_mib,
                    static_cast<double>(m.peak_bytes) / 1048576.0,
                    grown <= runtime_mib ? "" : ": OVER THE RUNTIME BUDGET");
        std::printf("sum w ln I = %a (%.17g)\n", streamed[0], streamed[0]);
        int status = within ? 0 : 1;
        if (streamed[0] != streamed[1]) {
            std::printf("reduce and reduce_with_gradient values differ\n");
            status = 1;
        }
        if (o.compare) {
            const std::vector<double> resident = bench::in_child([&] {
                runtime::Execution unlimited = execution;
                unlimited.memory = {};
                const auto r = runtime::PreparedModel::prepare(
                    compiled, data::EventData::from_source(source, data::MemoryPolicy::kResident),
                    unlimited);
                return evaluate(r, params);
            });
            const bool same = resident.size() == streamed.size() &&
                              std::memcmp(resident.data(), streamed.data(),
                                          streamed.size() * sizeof(double)) == 0;
            std::printf("resident run (child process): sum w ln I = %a; value and %zu gradient "
                        "components %s\n",
                        resident.empty() ? 0.0 : resident[0], params.size(),
                        same ? "bit-identical to streaming" : "DIFFER from streaming");
            status = same ? status : 1;
        }
        return status;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "streaming_rss: %s\n", e.what());
        return 2;
    }
}
