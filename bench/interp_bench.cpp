// The interpreter's hot path, issue workload (a): an evaluate program that sums 16 cached
// complex amplitudes times complex couplings (from 32 real parameters), takes norm_sqr and
// reduces Σ w · ln(f) over the cache. Arguments: events, threads, precision (0 f64, 1 f32),
// program shape (0: kAddN of 16 kMul, 1: one kDot of 16 pairs).
// Bytes/s counts the cache bytes read: 16 · 16 (amplitudes) + 8 (weight) per event.
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <laddu/interp/interpreter.hpp>
#include <laddu/ir/builder.hpp>
#include <laddu/runtime/event_cache.hpp>
#include <laddu/runtime/reduce.hpp>
#include <laddu/runtime/thread_pool.hpp>

namespace {

using laddu::ir::OpCode;
using laddu::ir::ValueId;
using laddu::ir::ValueKind;

constexpr std::uint32_t kAmplitudes = 16;
constexpr std::int64_t kBytesPerEvent = kAmplitudes * 16 + 8;

// Σ_k g_k A_k as kAddN of kMul (as_dot = false) or as one kDot (as_dot = true).
laddu::ir::Program make_program(bool as_dot) {
    laddu::ir::Builder b;
    std::vector<ValueId> couplings;
    std::vector<ValueId> amplitudes;
    for (std::uint32_t k = 0; k < kAmplitudes; ++k) {
        amplitudes.push_back(b.load(b.add_input(fmt::format("A{}", k), ValueKind::kComplex)));
        couplings.push_back(b.complex(b.param(2 * k), b.param(2 * k + 1)));
    }
    ValueId sum{};
    if (as_dot) {
        sum = b.dot(couplings, amplitudes);
    } else {
        std::vector<ValueId> terms;
        for (std::uint32_t k = 0; k < kAmplitudes; ++k) {
            terms.push_back(b.binary(OpCode::kMul, couplings[k], amplitudes[k]));
        }
        sum = b.add_n(terms);
    }
    b.add_output(b.unary(OpCode::kNormSqr, sum), "intensity");
    return b.finish();
}

const laddu::ir::Program& intensity_program(bool as_dot) {
    static const laddu::ir::Program with_add_n = make_program(false);
    static const laddu::ir::Program with_dot = make_program(true);
    return as_dot ? with_dot : with_add_n;
}

// One cache per event count and program, built once and shared by its benchmarks (a cache
// records the hash of its program, so the two program shapes need their own).
const laddu::runtime::EventCache& cache_for(std::size_t events, bool as_dot) {
    static std::map<std::pair<std::size_t, bool>, std::unique_ptr<laddu::runtime::EventCache>>
        caches;
    auto& slot = caches[{events, as_dot}];
    if (!slot) {
        auto cache = laddu::runtime::EventCache::allocate(intensity_program(as_dot), events);
        std::mt19937_64 rng(1);
        std::uniform_real_distribution<double> part(-1.0, 1.0);
        for (std::size_t k = 0; k < kAmplitudes; ++k) {
            for (double& v : cache.mutable_re(k)) {
                v = part(rng);
            }
            for (double& v : cache.mutable_im(k)) {
                v = part(rng);
            }
        }
        slot = std::make_unique<laddu::runtime::EventCache>(std::move(cache));
    }
    return *slot;
}

void BM_InterpLogLikelihood(benchmark::State& state) {
    const auto events = static_cast<std::size_t>(state.range(0));
    const auto threads = static_cast<std::size_t>(state.range(1));
    const auto precision =
        state.range(2) == 0 ? laddu::interp::Precision::kF64 : laddu::interp::Precision::kF32;
    const bool as_dot = state.range(3) != 0;
    const auto& cache = cache_for(events, as_dot);
    const auto interp = laddu::interp::Interpreter::prepare(intensity_program(as_dot), precision);
    laddu::runtime::ThreadPool pool(threads);
    std::vector<double> params(2 * kAmplitudes);
    for (std::size_t i = 0; i < params.size(); ++i) {
        params[i] = 0.1 + 0.01 * static_cast<double>(i);
    }
    for (auto _ : state) {
        benchmark::DoNotOptimize(laddu::runtime::reduce(
            interp, params, cache, laddu::runtime::ReductionTransform::kLogPositiveReal, &pool));
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
    state.SetBytesProcessed(state.iterations() * state.range(0) * kBytesPerEvent);
    state.SetLabel(fmt::format("{}, {} thread{}", laddu::interp::precision_name(precision), threads,
                               threads == 1 ? "" : "s"));
}

BENCHMARK(BM_InterpLogLikelihood)
    ->ArgsProduct({{10'000, 1'000'000, 4'000'000}, {1, 2}, {0, 1}, {0, 1}})
    ->ArgNames({"events", "threads", "f32", "dot"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
