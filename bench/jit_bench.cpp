// JIT kernels against the batch interpreter on a 16-amplitude coherent sum
// (|Σ_k (p_2k + i p_2k+1) A_k|² over 16 cached complex amplitudes A_k) and on the programs of
// laddu's K-matrix benchmark model (amplitudes::kmatrix_benchmark_model(), on random cache
// columns); JIT compile latency; and that model's NLL on 1e5 generated K_S K_S events, value
// and value+gradient, through likelihood::NLL with the JIT on or off.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <benchmark/benchmark.h>

#include <laddu/amplitudes/kmatrix_benchmark.hpp>
#include <laddu/autodiff/gradient.hpp>
#include <laddu/base/aligned.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/interp/interpreter.hpp>
#include <laddu/ir/builder.hpp>
#include <laddu/jit/jit.hpp>
#include <laddu/likelihood/nll.hpp>

#include "support/ksks_events.hpp"

namespace {

using laddu::AlignedVector;
namespace ir = laddu::ir;
namespace jit = laddu::jit;
namespace interp = laddu::interp;

ir::Program coherent_sum(std::uint32_t amplitudes) {
    ir::Builder b;
    std::vector<ir::ValueId> terms;
    for (std::uint32_t k = 0; k < amplitudes; ++k) {
        const auto amp = b.load(b.add_input("amp" + std::to_string(k), ir::ValueKind::kComplex));
        const auto coupling = b.complex(b.param(2 * k), b.param(2 * k + 1));
        terms.push_back(b.binary(ir::OpCode::kMul, coupling, amp));
    }
    b.add_output(b.unary(ir::OpCode::kNormSqr, b.add_n(terms)), "intensity");
    return b.finish();
}

// About 1000 instructions: `count` Breit–Wigner-like terms c_k A_k / (m_k² - s - i m_k Γ_k).
ir::Program large_program(std::uint32_t count) {
    ir::Builder b;
    const auto s = b.load(b.add_input("s", ir::ValueKind::kReal));
    std::vector<ir::ValueId> terms;
    for (std::uint32_t k = 0; k < count; ++k) {
        const auto amp = b.load(b.add_input("amp" + std::to_string(k), ir::ValueKind::kComplex));
        const auto mass = b.param(4 * k);
        const auto width = b.param(4 * k + 1);
        const auto m2 = b.binary(ir::OpCode::kMul, mass, mass);
        const auto den =
            b.complex(b.binary(ir::OpCode::kSub, m2, s),
                      b.unary(ir::OpCode::kNeg, b.binary(ir::OpCode::kMul, mass, width)));
        const auto coupling = b.complex(b.param(4 * k + 2), b.param(4 * k + 3));
        terms.push_back(b.binary(ir::OpCode::kDiv, b.binary(ir::OpCode::kMul, coupling, amp), den));
    }
    b.add_output(b.unary(ir::OpCode::kNormSqr, b.add_n(terms)), "intensity");
    return b.finish();
}

struct Dataset {
    std::vector<AlignedVector<double>> columns;  // re, im per amplitude
    std::vector<double> params;
    AlignedVector<double> out;

    Dataset(const ir::Program& program, std::size_t events) : out(events) {
        std::mt19937_64 rng(11);
        std::uniform_real_distribution<double> dist(-1.0, 1.0);
        for (const auto& slot : program.inputs) {
            const int parts = slot.kind == ir::ValueKind::kComplex ? 2 : 1;
            for (int p = 0; p < parts; ++p) {
                AlignedVector<double> column(events);
                for (double& v : column) {
                    v = dist(rng);
                }
                columns.push_back(std::move(column));
            }
        }
        for (std::uint32_t k = 0; k < program.parameter_count; ++k) {
            params.push_back(dist(rng));
        }
    }
};

// Arguments: events, precision (64 or 32), code generation (0 optimised, 1 fast).
ir::Precision precision_of(const benchmark::State& state) {
    return state.range(1) == 32 ? ir::Precision::kF32 : ir::Precision::kF64;
}

jit::CodeGen codegen_of(const benchmark::State& state) {
    return state.range(2) == 1 ? jit::CodeGen::kFast : jit::CodeGen::kOptimized;
}

void run_jit(benchmark::State& state, const ir::Program& program) {
    const auto events = static_cast<std::size_t>(state.range(0));
    Dataset data(program, events);
    auto kernel = jit::compile(program, precision_of(state), codegen_of(state));
    if (!kernel) {
        state.SkipWithError(kernel.error().message.c_str());
        return;
    }
    std::vector<const double*> inputs;
    for (const auto& column : data.columns) {
        inputs.push_back(column.data());
    }
    std::vector<AlignedVector<double>> extra(kernel->output_pointer_count() - 1,
                                             AlignedVector<double>(events));
    std::vector<double*> outputs = {data.out.data()};
    for (auto& column : extra) {
        outputs.push_back(column.data());
    }
    for (auto _ : state) {
        kernel->run(data.params.data(), inputs.data(), outputs.data(), 0,
                    static_cast<std::int64_t>(events));
        benchmark::DoNotOptimize(data.out.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
    state.counters["vectorized"] = kernel->vectorized() ? 1.0 : 0.0;
}

// As the runtime runs kernels: 4096-event chunks whose outputs land in one reused block of
// columns (kept in cache), so only the inputs stream from memory.
void run_jit_chunked(benchmark::State& state, const ir::Program& program) {
    constexpr std::size_t kChunk = 4096;
    const auto events = static_cast<std::size_t>(state.range(0));
    Dataset data(program, events);
    auto kernel = jit::compile(program, precision_of(state), codegen_of(state));
    if (!kernel) {
        state.SkipWithError(kernel.error().message.c_str());
        return;
    }
    std::vector<AlignedVector<double>> out(kernel->output_pointer_count(),
                                           AlignedVector<double>(kChunk));
    std::vector<double*> outputs;
    for (auto& column : out) {
        outputs.push_back(column.data());
    }
    std::vector<const double*> inputs(data.columns.size());
    for (auto _ : state) {
        for (std::size_t begin = 0; begin < events; begin += kChunk) {
            for (std::size_t c = 0; c < inputs.size(); ++c) {
                inputs[c] = data.columns[c].data() + begin;
            }
            const std::size_t count = std::min(kChunk, events - begin);
            kernel->run(data.params.data(), inputs.data(), outputs.data(), 0,
                        static_cast<std::int64_t>(count));
            benchmark::DoNotOptimize(outputs[0]);
            benchmark::ClobberMemory();
        }
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

void run_interp(benchmark::State& state, const ir::Program& program) {
    const auto events = static_cast<std::size_t>(state.range(0));
    Dataset data(program, events);
    const auto precision = state.range(1) == 32 ? ir::Precision::kF32 : ir::Precision::kF64;
    const interp::Interpreter interpreter = interp::Interpreter::prepare(program, precision);
    interp::Workspace workspace = interpreter.make_workspace();
    std::vector<ir::InputColumn> inputs;
    std::size_t column = 0;
    for (const auto& slot : program.inputs) {
        const bool complex = slot.kind == ir::ValueKind::kComplex;
        inputs.push_back(
            {data.columns[column].data(), complex ? data.columns[column + 1].data() : nullptr});
        column += complex ? 2U : 1U;
    }
    std::vector<AlignedVector<double>> extra(2 * program.outputs.size(),
                                             AlignedVector<double>(events));
    std::vector<ir::OutputColumn> out;
    for (std::size_t k = 0; k < program.outputs.size(); ++k) {
        const bool complex = program.at(program.outputs[k]).kind == ir::ValueKind::kComplex;
        out.push_back({k == 0 ? data.out.data() : extra[2 * k].data(),
                       complex ? extra[2 * k + 1].data() : nullptr});
    }
    for (auto _ : state) {
        interpreter.run(data.params, ir::ColumnView{inputs, events}, 0, events, workspace,
                        ir::OutputView{out});
        benchmark::DoNotOptimize(data.out.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

// Also times the fused log reduction a runtime NLL compiles on its first call (every output
// summed when outputs 1.. are Real, as for a gradient program; else the value alone). Code
// generation is what is timed, so the on-disk object cache is off here.
void compile_latency(benchmark::State& state, const ir::Program& program) {
    // NOLINTNEXTLINE(concurrency-mt-unsafe): benchmarks run one at a time; none reads it now
    ::setenv("LADDU_JIT_CACHE", "off", 1);
    std::uint32_t sums = 1;
    while (sums < program.outputs.size() &&
           program.at(program.outputs[sums]).kind == ir::ValueKind::kReal) {
        ++sums;
    }
    double total = 0.0;
    double reduction = 0.0;
    for (auto _ : state) {
        auto kernel = jit::compile_uncached(program, precision_of(state), codegen_of(state));
        if (!kernel) {
            state.SkipWithError(kernel.error().message.c_str());
            return;
        }
        auto fused = kernel->reduction({jit::ReductionTerm::kLog, sums});
        if (!fused) {
            state.SkipWithError(fused.error().message.c_str());
            return;
        }
        total += kernel->compile_seconds();
        reduction += fused->compile_seconds();
        benchmark::DoNotOptimize(fused->function());
    }
    const auto iterations = static_cast<double>(state.iterations());
    state.counters["ir_instructions"] = static_cast<double>(program.size());
    state.counters["compile_ms"] = 1e3 * total / iterations;
    state.counters["reduction_ms"] = 1e3 * reduction / iterations;
}

// The benchmark model's programs: 0 evaluate, 1 reverse-mode gradient, 2 forward-mode gradient
// (both Component::kReal, as PreparedModel builds them).
const ir::Program& kmatrix_model_program(std::int64_t which) {
    static const ir::Program evaluate =
        laddu::compile::compile_model(laddu::amplitudes::kmatrix_benchmark_model()).evaluate;
    static const ir::Program reverse =
        laddu::autodiff::reverse(evaluate, laddu::autodiff::Component::kReal);
    static const ir::Program forward =
        laddu::autodiff::forward(evaluate, laddu::autodiff::Component::kReal);
    return which == 0 ? evaluate : which == 1 ? reverse : forward;
}

// Arguments: JIT (0 off, 1 on), precision (64, 32), threads, gradient (0 value, 1
// value+gradient, reverse mode; 2 value+gradient, forward mode). 1e5 events, data = accepted
// MC (the normalisation uses the precomputed matrix, so the cost is the data sum).
void BM_KmatrixNll(benchmark::State& state) {
    namespace runtime = laddu::runtime;
    static const laddu::expr::Model model = laddu::amplitudes::kmatrix_benchmark_model();
    static const laddu::data::Dataset dataset = laddu::testing::generate_ksks(100000, 7).dataset();
    using Key = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>;
    static std::map<Key, std::unique_ptr<laddu::likelihood::NLL>> nlls;
    const Key key{state.range(0), state.range(1), state.range(2), state.range(3)};
    std::unique_ptr<laddu::likelihood::NLL>& nll = nlls[key];
    if (!nll) {
        runtime::Execution execution;
        execution.jit =
            state.range(0) == 1 ? runtime::JitPolicy::kEnabled : runtime::JitPolicy::kDisabled;
        execution.precision = state.range(1) == 32 ? ir::Precision::kF32 : ir::Precision::kF64;
        execution.threads = static_cast<std::size_t>(state.range(2));
        execution.autodiff =
            state.range(3) == 2 ? runtime::AutodiffMode::kForward : runtime::AutodiffMode::kReverse;
        nll = std::make_unique<laddu::likelihood::NLL>(model, dataset, dataset, execution);
    }
    const std::vector<double> params(model.parameters().free_count(), 0.25);
    for (auto _ : state) {
        if (state.range(3) == 0) {
            benchmark::DoNotOptimize(nll->value(params));
        } else {
            benchmark::DoNotOptimize(nll->value_and_gradient(params));
        }
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(dataset.size()));
}

// The benchmark model's programs on random cache columns (arguments: events, precision, code
// generation, program as in kmatrix_model_program).
void BM_KmatrixModelJit(benchmark::State& state) {
    run_jit(state, kmatrix_model_program(state.range(3)));
}

void BM_KmatrixModelJitChunked(benchmark::State& state) {
    run_jit_chunked(state, kmatrix_model_program(state.range(3)));
}

void BM_KmatrixModelInterp(benchmark::State& state) {
    run_interp(state, kmatrix_model_program(state.range(3)));
}

// Compile latency of the benchmark model's programs (argument 0: 0 evaluate, 1 reverse
// gradient, 2 forward gradient).
void BM_CompileKmatrixModel(benchmark::State& state) {
    compile_latency(state, kmatrix_model_program(state.range(0)));
}

void BM_CoherentSumJit(benchmark::State& state) {
    run_jit(state, coherent_sum(16));
}

void BM_CoherentSumInterp(benchmark::State& state) {
    run_interp(state, coherent_sum(16));
}

void BM_CompileCoherentSum(benchmark::State& state) {
    compile_latency(state, coherent_sum(16));
}

void BM_CompileLarge(benchmark::State& state) {
    compile_latency(state, large_program(110));
}

}  // namespace

// Arguments: events, precision (64 or 32), code generation (0 optimised, 1 fast).
BENCHMARK(BM_CoherentSumJit)->ArgsProduct({{4096, 1 << 16, 1 << 20}, {64, 32}, {0, 1}});
BENCHMARK(BM_CoherentSumInterp)->ArgsProduct({{4096, 1 << 16, 1 << 20}, {64, 32}, {0}});
BENCHMARK(BM_CompileCoherentSum)
    ->ArgsProduct({{0}, {64, 32}, {0, 1}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CompileLarge)->ArgsProduct({{0}, {64, 32}, {0, 1}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_KmatrixModelJit)->ArgsProduct({{4096, 100000}, {64, 32}, {0}, {0, 1, 2}});
BENCHMARK(BM_KmatrixModelJitChunked)->ArgsProduct({{100000}, {64, 32}, {0}, {0, 1, 2}});
BENCHMARK(BM_KmatrixModelInterp)->ArgsProduct({{4096, 100000}, {64, 32}, {0}, {0, 1, 2}});
BENCHMARK(BM_CompileKmatrixModel)
    ->ArgsProduct({{0, 1, 2}, {64, 32}, {0}})
    ->Unit(benchmark::kMillisecond);
// Arguments: JIT, precision, threads, gradient (see BM_KmatrixNll).
// Wall time; CPU time is the whole process's (with 2 threads: both workers).
BENCHMARK(BM_KmatrixNll)
    ->ArgsProduct({{0, 1}, {64, 32}, {1, 2}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
