// Full-fit wall time of the K-matrix closure toy (tests/support/kmatrix_toy.hpp): generation,
// likelihood preparation, and an extended-NLL fit (with the Hessian) per minimiser, printed as
// JSON.
//
// usage: bench_fit [--events N] [--mc N] [--seed S] [--threads T] [--repeat R]
// Each fit runs R times (default 3) from the same perturbed start; the JSON has the median
// wall time, the evaluation counts and the time per value-and-gradient evaluation.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <laddu/fit/fit.hpp>
#include <laddu/likelihood/likelihood.hpp>
#include <laddu/likelihood/nll.hpp>

#include "support/kmatrix_toy.hpp"

namespace {

double since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
    try {
        std::size_t events = 10000;
        std::size_t mc = 100000;
        std::uint64_t seed = 1;
        std::size_t threads = 0;
        std::size_t repeat = 3;
        for (int i = 1; i + 1 < argc; i += 2) {
            const std::string_view arg = argv[i];
            const std::size_t value = std::stoull(argv[i + 1]);
            if (arg == "--events") {
                events = value;
            } else if (arg == "--mc") {
                mc = value;
            } else if (arg == "--seed") {
                seed = value;
            } else if (arg == "--threads") {
                threads = value;
            } else if (arg == "--repeat") {
                repeat = std::max<std::size_t>(1, value);
            } else {
                throw std::invalid_argument(fmt::format("unknown option '{}'", arg));
            }
        }
        laddu::runtime::Execution execution;
        execution.threads = threads;
        auto t = std::chrono::steady_clock::now();
        const laddu::testing::KMatrixToy toy = laddu::testing::make_kmatrix_toy(
            {.events = events, .mc = mc, .seed = seed, .execution = execution});
        const double generate_seconds = since(t);
        t = std::chrono::steady_clock::now();
        const auto nll = std::make_shared<laddu::likelihood::ExtendedNLL>(toy.model, toy.data,
                                                                          toy.accepted, execution);
        laddu::likelihood::Likelihood total;
        total.add(nll);
        const double prepare_seconds = since(t);
        const std::vector<double> start = laddu::testing::kmatrix_toy_start(toy, seed);
        // One value-and-gradient evaluation, timed alone.
        t = std::chrono::steady_clock::now();
        constexpr int kEvaluations = 20;
        for (int k = 0; k < kEvaluations; ++k) {
            (void)total.value_and_gradient(start);
        }
        const double evaluation_seconds = since(t) / kEvaluations;
        std::string fits;
        for (const auto& [name, method] :
             {std::pair{"lbfgsb", laddu::fit::Method::kLbfgsb},
              std::pair{"variable-metric", laddu::fit::Method::kVariableMetric}}) {
            laddu::fit::FitOptions options;
            options.minimizer.method = method;
            std::vector<double> walls;
            laddu::fit::FitResult result;
            for (std::size_t r = 0; r < repeat; ++r) {
                result = laddu::fit::fit(total, start, options);
                walls.push_back(result.wall_seconds);
            }
            std::sort(walls.begin(), walls.end());
            fits += fmt::format(
                "{}{{\"method\": \"{}\", \"converged\": {}, \"median_seconds\": {:.4f}, "
                "\"iterations\": {}, \"value_evaluations\": {}, \"gradient_evaluations\": {}, "
                "\"nll\": {:.6f}}}",
                fits.empty() ? "" : ", ", name, result.converged, walls[walls.size() / 2],
                result.iterations, result.value_evaluations, result.gradient_evaluations,
                result.value);
        }
        fmt::print("{{\"model\": \"kmatrix closure toy (10 free couplings, extended NLL)\", "
                   "\"data_events\": {}, \"accepted_mc\": {}, \"threads\": {}, "
                   "\"generate_seconds\": {:.3f}, \"prepare_seconds\": {:.3f}, "
                   "\"value_and_gradient_seconds\": {:.6f}, \"backend\": \"{}\", "
                   "\"fast_normalization\": {}, \"fits\": [{}]}}\n",
                   toy.data.size(), toy.accepted.size(), execution.resolved_threads(),
                   generate_seconds, prepare_seconds, evaluation_seconds, nll->backend(),
                   nll->uses_fast_normalization(), fits);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_fit: %s\n", e.what());
        return 2;
    }
}
