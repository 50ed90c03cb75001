// Cost of compensated summation (the reduction every likelihood uses) against a plain sum.
#include <numeric>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include <laddu/base/accurate_sum.hpp>

namespace {

std::vector<double> make_values(std::size_t n) {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> dist(0.0, 1.0);
    std::vector<double> values(n);
    for (double& v : values) {
        v = dist(rng);
    }
    return values;
}

void BM_NaiveSum(benchmark::State& state) {
    const auto values = make_values(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) {
        benchmark::DoNotOptimize(std::accumulate(values.begin(), values.end(), 0.0));
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
    state.SetBytesProcessed(state.iterations() * state.range(0) * 8);
}

void BM_AccurateSum(benchmark::State& state) {
    const auto values = make_values(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) {
        benchmark::DoNotOptimize(laddu::accurate_sum(values));
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
    state.SetBytesProcessed(state.iterations() * state.range(0) * 8);
}

BENCHMARK(BM_NaiveSum)->Arg(1 << 12)->Arg(1 << 22);
BENCHMARK(BM_AccurateSum)->Arg(1 << 12)->Arg(1 << 22);

}  // namespace
