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

// What a fused reduction's chunk costs to finish: `sums` sums of 8 (sum, compensation) lanes
// each (the K-matrix NLL's value and gradient: 35).
void BM_FinishLanes(benchmark::State& state) {
    const auto sums = static_cast<std::size_t>(state.range(0));
    const auto lanes = make_values(2 * laddu::kSumLanes * sums);
    std::vector<double> totals(sums);
    for (auto _ : state) {
        laddu::LaneSum::finish_lanes(lanes, totals);
        benchmark::DoNotOptimize(totals.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

BENCHMARK(BM_NaiveSum)->Arg(1 << 12)->Arg(1 << 22);
BENCHMARK(BM_FinishLanes)->Arg(1)->Arg(35);
BENCHMARK(BM_AccurateSum)->Arg(1 << 12)->Arg(1 << 22);

}  // namespace
