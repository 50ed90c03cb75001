// The interpreter on a coherent sum: |Σ_k g_k A_k|² over 16 complex per-event amplitudes A_k
// (event columns A<k>_re, A<k>_im) with complex couplings g_k (32 real parameters), reduced
// as Σ w · ln(f) by a PreparedModel with the JIT off. Arguments: events, threads, precision
// (0 f64, 1 f32). Bytes/s counts the cache bytes each pass reads (the memory report's cache
// bytes per event).
#include <map>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/runtime/prepared_model.hpp>

namespace {

namespace ld = laddu;

constexpr std::size_t kAmplitudes = 16;

const ld::compile::CompiledModel& coherent_sum() {
    static const ld::compile::CompiledModel compiled = [] {
        ld::expr::Expr sum = ld::expr::constant(std::complex<double>(0.0, 0.0));
        for (std::size_t k = 0; k < kAmplitudes; ++k) {
            const ld::expr::Expr g =
                ld::expr::complex(ld::expr::parameter(fmt::format("g{}_re", k)),
                                  ld::expr::parameter(fmt::format("g{}_im", k)));
            const ld::expr::Expr a = ld::expr::complex(ld::expr::scalar(fmt::format("A{}_re", k)),
                                                       ld::expr::scalar(fmt::format("A{}_im", k)));
            sum = sum + g * a;
        }
        return ld::compile::compile_model(ld::expr::Model(ld::expr::norm_sqr(sum)));
    }();
    return compiled;
}

// One dataset per event count, built once and shared by its benchmarks.
const ld::data::Dataset& dataset_for(std::size_t events) {
    static std::map<std::size_t, std::unique_ptr<ld::data::Dataset>> datasets;
    auto& slot = datasets[events];
    if (!slot) {
        std::mt19937_64 rng(1);
        std::uniform_real_distribution<double> part(-1.0, 1.0);
        std::vector<std::vector<double>> columns(2 * kAmplitudes, std::vector<double>(events));
        for (std::vector<double>& column : columns) {
            for (double& v : column) {
                v = part(rng);
            }
        }
        std::vector<ld::data::ScalarInput> scalars;
        for (std::size_t k = 0; k < kAmplitudes; ++k) {
            scalars.push_back({fmt::format("A{}_re", k), columns[2 * k]});
            scalars.push_back({fmt::format("A{}_im", k), columns[2 * k + 1]});
        }
        slot = std::make_unique<ld::data::Dataset>(ld::data::Dataset::from_arrays(
            std::span<const ld::data::P4Input>{}, scalars, std::vector<double>(events, 1.0)));
    }
    return *slot;
}

void BM_InterpLogLikelihood(benchmark::State& state) {
    const auto events = static_cast<std::size_t>(state.range(0));
    ld::runtime::Execution execution;
    execution.threads = static_cast<std::size_t>(state.range(1));
    execution.precision = state.range(2) == 0 ? ld::ir::Precision::kF64 : ld::ir::Precision::kF32;
    execution.jit = ld::runtime::JitPolicy::kDisabled;
    const auto model =
        ld::runtime::PreparedModel::prepare(coherent_sum(), dataset_for(events), execution);
    std::vector<double> params(2 * kAmplitudes);
    for (std::size_t i = 0; i < params.size(); ++i) {
        params[i] = 0.1 + 0.01 * static_cast<double>(i);
    }
    for (auto _ : state) {
        benchmark::DoNotOptimize(
            model.reduce(params, ld::runtime::ReductionTransform::kLogPositiveReal));
    }
    const auto bytes_per_event =
        static_cast<std::int64_t>(model.memory_report().cache_bytes_per_event);
    state.SetItemsProcessed(state.iterations() * state.range(0));
    state.SetBytesProcessed(state.iterations() * state.range(0) * bytes_per_event);
    state.SetLabel(fmt::format("{}, {} thread{}, {} B/event",
                               ld::ir::precision_name(execution.precision), execution.threads,
                               execution.threads == 1 ? "" : "s", bytes_per_event));
}

BENCHMARK(BM_InterpLogLikelihood)
    ->ArgsProduct({{10'000, 1'000'000, 4'000'000}, {1, 2}, {0, 1}})
    ->ArgNames({"events", "threads", "f32"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
