// Test helper: `ksks_tool write FILE N SEED` writes flat γ p → K_S K_S p events to Parquet;
// `ksks_tool nll FILE` prints the K-matrix benchmark NLL at the benchmark's default parameters
// (every free parameter 0.25) through the C++ API, for comparison with `laddu-cpp bench kmatrix`.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <laddu/amplitudes/kmatrix_benchmark.hpp>
#include <laddu/base/error.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/likelihood/nll.hpp>

#include "../support/ksks_events.hpp"

int main(int argc, char** argv) {
    try {
        const std::vector<std::string> args(argv + 1, argv + argc);
        if (args.size() == 4 && args[0] == "write") {
            const auto events =
                laddu::testing::generate_ksks(std::stoul(args[2]), std::stoull(args[3]));
            laddu::data::write_parquet(events.dataset(), args[1]);
            return 0;
        }
        if (args.size() == 2 && args[0] == "nll") {
            const auto dataset = laddu::data::read_parquet(args[1]);
            const auto model = laddu::amplitudes::kmatrix_benchmark_model();
            const laddu::likelihood::NLL nll(model, dataset, dataset);
            const std::vector<double> params(model.parameters().free_count(), 0.25);
            std::printf("%.17g\n", nll.value(params));
            return 0;
        }
        std::fputs("usage: ksks_tool write FILE N SEED | ksks_tool nll FILE\n", stderr);
    } catch (const laddu::Error& e) {
        std::fprintf(stderr, "ksks_tool: %s\n", e.what());
    }
    return 1;
}
