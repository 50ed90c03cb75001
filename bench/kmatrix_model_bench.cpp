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
}

BENCHMARK(BM_KMatrixModelCompile)->Unit(benchmark::kMillisecond);

}  // namespace
