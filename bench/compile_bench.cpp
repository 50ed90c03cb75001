// Compile time of the K-matrix benchmark stand-in (src/compile/test_support/kmatrix_model.hpp):
// 34 free parameters, four K-matrix solves (5x5, 2x2, 4x4, 3x3), Z_lm factors. Target: < 20 ms.
#include <benchmark/benchmark.h>

#include <laddu/compile/compiled_model.hpp>

#include "test_support/kmatrix_model.hpp"

namespace {

void BM_CompileKmatrixModel(benchmark::State& state) {
    const laddu::expr::Model model = laddu::compile::testing::kmatrix_benchmark_model();
    for (auto _ : state) {
        laddu::compile::CompiledModel compiled = laddu::compile::compile_model(model);
        benchmark::DoNotOptimize(compiled.evaluate.instructions.data());
    }
    const laddu::compile::CompiledModel compiled = laddu::compile::compile_model(model);
    state.counters["cache_columns"] = static_cast<double>(compiled.cache_plan.columns.size());
    state.counters["cache_bytes_per_event"] =
        static_cast<double>(compiled.cache_plan.bytes_per_event());
    state.counters["evaluate_instructions"] = static_cast<double>(compiled.evaluate.size());
}

BENCHMARK(BM_CompileKmatrixModel)->Unit(benchmark::kMillisecond);

void BM_BuildKmatrixModel(benchmark::State& state) {
    for (auto _ : state) {
        laddu::expr::Model model = laddu::compile::testing::kmatrix_benchmark_model();
        benchmark::DoNotOptimize(model.expression().id());
    }
}

BENCHMARK(BM_BuildKmatrixModel)->Unit(benchmark::kMillisecond);

}  // namespace
