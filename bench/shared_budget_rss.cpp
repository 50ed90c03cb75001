// An NLL's data and accepted Monte Carlo within one memory budget: peak RSS against the budget,
// and the value and gradient against an unlimited run, bit for bit.
//
// Writes (or reuses) two Parquet files of K_S K_S events, the data and the accepted MC, and
// builds an NLL of the K-matrix benchmark model over them (MemoryPolicy::kFastest, the MC
// normalised by a pass over its prepared model unless --normalization auto) under the runtime
// budget --memory, which by default is smaller than the two caches together but larger than
// either. Two child processes each build the NLL and evaluate its value and gradient: one under
// the budget, one unlimited. Each reports its VmHWM (/proc/self/status) before the NLL and after
// the passes; the budgeted run fails when its peak grew by more than the budget, or when its
// bits differ from the unlimited run's. With --fit N, each child fits the NLL (L-BFGS-B, at most N
// iterations, no Hessian) instead of the passes, and the fitted value and parameters are
// compared.
//
//   shared_budget_rss [--data N] [--mc N] [--memory "300 MiB"] [--threads T] [--passes P]
//                     [--fit N] [--normalization mc|auto] [--dir PATH]
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
#include <laddu/fit/fit.hpp>
#include <laddu/likelihood/likelihood.hpp>
#include <laddu/likelihood/nll.hpp>
#include <laddu/runtime/memory_pool.hpp>

#include "../tests/support/ksks_events.hpp"
#include "child_process.hpp"

namespace {

using namespace laddu;  // NOLINT(google-build-using-namespace): a small program

struct Options {
    std::size_t data = 500'000;
    std::size_t mc = 1'000'000;
    std::string memory = "300 MiB";
    std::size_t threads = 2;
    int passes = 2;
    std::size_t fit_iterations = 0;  ///< 0: the passes; else a fit of at most this many iterations
    runtime::NormalizationMode normalization = runtime::NormalizationMode::kGeneral;
    std::string dir = std::filesystem::temp_directory_path().string();
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
        if (arg == "--data") {
            o.data = std::stoul(value());
        } else if (arg == "--mc") {
            o.mc = std::stoul(value());
        } else if (arg == "--memory") {
            o.memory = value();
        } else if (arg == "--threads") {
            o.threads = std::stoul(value());
        } else if (arg == "--passes") {
            o.passes = std::stoi(value());
        } else if (arg == "--fit") {
            o.fit_iterations = std::stoul(value());
        } else if (arg == "--normalization") {
            o.normalization = value() == "auto" ? runtime::NormalizationMode::kAuto
                                                : runtime::NormalizationMode::kGeneral;
        } else if (arg == "--dir") {
            o.dir = value();
        } else {
            throw std::runtime_error("unknown argument " + arg);
        }
    }
    return o;
}

std::string events_file(const Options& o, std::size_t events, std::uint64_t seed) {
    const std::string path = (std::filesystem::path(o.dir) /
                              fmt::format("laddu-shared-budget-{}-{}.parquet", events, seed))
                                 .string();
    if (!std::filesystem::exists(path)) {
        std::printf("writing %zu events to %s\n", events, path.c_str());
        (void)bench::in_child([&] {
            data::ParquetWriteOptions options;
            options.compression = data::Compression::kSnappy;
            data::write_parquet(testing::generate_ksks(events, seed).dataset(), path, options);
            return std::vector<double>{};
        });
    }
    return path;
}

// In a child: VmHWM before the NLL, once it is built and after the passes, the value and the
// gradient (with --fit: the fitted value and parameters, then the iterations and the value and
// gradient evaluations), then per prepared model its policy (0 resident, 1 streaming), held
// bytes and planned peak.
std::vector<double> run(const Options& o, const std::string& data_file, const std::string& mc_file,
                        const runtime::MemoryPlan& memory) {
    const auto open = [](const std::string& file) {
        return data::EventData::from_source(
            std::make_shared<data::ParquetSource>(std::vector<std::string>{file}),
            data::MemoryPolicy::kFastest);
    };
    const expr::Model model = amplitudes::kmatrix_benchmark_model();
    runtime::Execution execution;
    execution.threads = o.threads;
    execution.jit = runtime::JitPolicy::kDisabled;
    execution.memory = memory;
    execution.memory_pool = std::make_shared<runtime::MemoryPool>(memory);
    // The budget leaves out the process itself and the compiled model (docs/runtime.md): compile
    // it once first, so the peak before the NLL includes the compiler's, as the NLL's compile
    // reuses that memory.
    (void)compile::compile_model(model);
    const double before = bench::peak_rss_mib();
    execution.normalization = o.normalization;
    const auto nll = std::make_shared<const likelihood::NLL>(model, open(data_file), open(mc_file),
                                                             execution, "nll");
    const double built = bench::peak_rss_mib();
    const std::vector<double> params(nll->parameters().size(), 0.25);
    std::vector<double> out{before, built};
    if (o.fit_iterations > 0) {
        const likelihood::Likelihood total({nll});
        fit::FitOptions options;
        options.minimizer.max_iterations = o.fit_iterations;
        options.uncertainties = false;
        const fit::FitResult result = fit::fit(total, params, options);
        out.push_back(bench::peak_rss_mib());
        out.push_back(result.value);
        out.insert(out.end(), result.values.begin(), result.values.end());
        out.push_back(static_cast<double>(result.iterations));
        out.push_back(static_cast<double>(result.value_evaluations));
        out.push_back(static_cast<double>(result.gradient_evaluations));
    } else {
        runtime::Evaluation e;
        for (int pass = 0; pass < o.passes; ++pass) {
            e = nll->value_and_gradient(params);
        }
        out.push_back(bench::peak_rss_mib());
        out.push_back(e.value);
        out.insert(out.end(), e.gradient.begin(), e.gradient.end());
    }
    for (const runtime::MemoryReport& r : execution.memory_pool->reports()) {
        out.push_back(r.policy == data::MemoryPolicy::kResident ? 0.0 : 1.0);
        out.push_back(static_cast<double>(r.held_bytes));
        out.push_back(static_cast<double>(r.peak_bytes));
        out.push_back(static_cast<double>(r.cache_bytes));
    }
    return out;
}

// r[first_report..] holds 4 numbers per prepared model.
void print(const char* name, const std::vector<double>& r, std::size_t first_report,
           const char* const* labels) {
    constexpr double kMiB = 1048576.0;
    std::printf("%s: VmHWM %.1f MiB before the NLL, %.1f MiB once it is built, %.1f MiB at the "
                "end: grew %.1f MiB\n",
                name, r[0], r[1], r[2], r[2] - r[0]);
    for (std::size_t i = first_report, k = 0; i + 3 < r.size(); i += 4, ++k) {
        std::printf("  %s: %s, cache %.1f MiB, holds %.1f MiB, planned peak %.1f MiB\n", labels[k],
                    r[i] == 0.0 ? "resident" : "streaming", r[i + 3] / kMiB, r[i + 1] / kMiB,
                    r[i + 2] / kMiB);
    }
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const Options o = parse(argc, argv);
        const std::string data_file = events_file(o, o.data, 2026);
        const std::string mc_file = events_file(o, o.mc, 2027);
        const runtime::MemoryPlan budget = runtime::MemoryPlan::parse(o.memory);
        const double budget_mib = static_cast<double>(budget.resolve()) / 1048576.0;
        std::printf("data %zu events, accepted MC %zu events, K-matrix benchmark model, %s "
                    "normalisation, threads %zu, runtime budget %.1f MiB\n",
                    o.data, o.mc,
                    o.normalization == runtime::NormalizationMode::kGeneral ? "MC-pass" : "auto",
                    o.threads, budget_mib);
        const std::vector<double> shared =
            bench::in_child([&] { return run(o, data_file, mc_file, budget); });
        const std::vector<double> unlimited =
            bench::in_child([&] { return run(o, data_file, mc_file, runtime::MemoryPlan{}); });
        const char* labels[] = {"the data", "the accepted MC"};
        // Each run reports 4 numbers per prepared model after the value and the gradient (a
        // fit: the parameters and 3 counts).
        const std::size_t models = o.normalization == runtime::NormalizationMode::kGeneral ? 2 : 1;
        const std::size_t counts = o.fit_iterations > 0 ? 3 : 0;
        const std::size_t n_gradient = shared.size() - 4 - 4 * models - counts;
        const double files_mib = static_cast<double>(std::filesystem::file_size(data_file) +
                                                     std::filesystem::file_size(mc_file)) /
                                 1048576.0;
        std::printf("the two Parquet files hold %.1f MiB, %.0f%% of the budget\n", files_mib,
                    100.0 * files_mib / budget_mib);
        if (counts > 0) {
            const double* c = shared.data() + 4 + n_gradient;
            std::printf("fit: %.0f iterations, %.0f value and %.0f gradient evaluations\n", c[0],
                        c[1], c[2]);
        }
        print("unlimited", unlimited, 4 + n_gradient + counts, labels);
        print("shared budget", shared, 4 + n_gradient + counts, labels);
        const double grown = shared[2] - shared[0];
        const bool within = grown <= budget_mib;
        std::printf("peak RSS grew by %.1f MiB under the %.1f MiB budget (%.0f%%)%s; unlimited "
                    "it grew by %.1f MiB\n",
                    grown, budget_mib, 100.0 * grown / budget_mib,
                    within ? "" : ": OVER THE BUDGET", unlimited[2] - unlimited[0]);
        const bool same = std::memcmp(shared.data() + 3, unlimited.data() + 3,
                                      (1 + n_gradient) * sizeof(double)) == 0;
        std::printf("NLL = %.17g; value and %zu %s %s\n", shared[3], n_gradient,
                    o.fit_iterations > 0 ? "fitted parameters" : "gradient components",
                    same ? "bit-identical to the unlimited run" : "DIFFER from the unlimited run");
        return within && same ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "shared_budget_rss: %s\n", e.what());
        return 2;
    }
}
