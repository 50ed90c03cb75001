// Building and compiling laddu's K-matrix benchmark model (amplitudes::kmatrix_benchmark_model):
// the cost a user pays once per fit before any event is touched.
#include <benchmark/benchmark.h>

#include <laddu/amplitudes/kmatrix_benchmark.hpp>
#include <laddu/compile/compiled_model.hpp>

namespace {

void BM_KMatrixModelBuild(benchmark::State& state) {
    for (auto _ : state) {
        benchmark::DoNotOptimize(laddu::amplitudes::kmatrix_benchmark_intensity());
    }
}

BENCHMARK(BM_KMatrixModelBuild)->Unit(benchmark::kMillisecond);

void BM_KMatrixModelCompile(benchmark::State& state) {
    const laddu::expr::Model model = laddu::amplitudes::kmatrix_benchmark_model();
    for (auto _ : state) {
        benchmark::DoNotOptimize(laddu::compile::compile_model(model));
    }
    const laddu::compile::CompiledModel compiled = laddu::compile::compile_model(model);
    state.counters["cache_columns"] = static_cast<double>(compiled.cache_plan.columns.size());
    state.counters["cache_bytes_per_event"] =
        static_cast<double>(compiled.cache_plan.bytes_per_event());
    state.counters["evaluate_instructions"] = static_cast<double>(compiled.evaluate.size());
}

BENCHMARK(BM_KMatrixModelCompile)->Unit(benchmark::kMillisecond);

}  // namespace
