// JIT kernels against the batch interpreter on a 16-amplitude coherent sum
// (|Σ_k (p_2k + i p_2k+1) A_k|² over 16 cached complex amplitudes A_k) and on the evaluate
// program of the K-matrix benchmark stand-in (src/compile/test_support/kmatrix_model.hpp, on
// random cache columns), and JIT compile latency.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <laddu/base/aligned.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/interp/interpreter.hpp>
#include <laddu/ir/builder.hpp>
#include <laddu/jit/jit.hpp>

#include "test_support/kmatrix_model.hpp"

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

const ir::Program& kmatrix_evaluate() {
    static const ir::Program program =
        laddu::compile::compile_model(laddu::compile::testing::kmatrix_benchmark_model()).evaluate;
    return program;
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
jit::Precision precision_of(const benchmark::State& state) {
    return state.range(1) == 32 ? jit::Precision::kF32 : jit::Precision::kF64;
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

void run_interp(benchmark::State& state, const ir::Program& program) {
    const auto events = static_cast<std::size_t>(state.range(0));
    Dataset data(program, events);
    const auto precision = state.range(1) == 32 ? interp::Precision::kF32 : interp::Precision::kF64;
    const interp::Interpreter interpreter = interp::Interpreter::prepare(program, precision);
    interp::Workspace workspace = interpreter.make_workspace();
    std::vector<interp::InputColumn> inputs;
    std::size_t column = 0;
    for (const auto& slot : program.inputs) {
        const bool complex = slot.kind == ir::ValueKind::kComplex;
        inputs.push_back(
            {data.columns[column].data(), complex ? data.columns[column + 1].data() : nullptr});
        column += complex ? 2U : 1U;
    }
    std::vector<AlignedVector<double>> extra(2 * program.outputs.size(),
                                             AlignedVector<double>(events));
    std::vector<interp::OutputColumn> out;
    for (std::size_t k = 0; k < program.outputs.size(); ++k) {
        const bool complex = program.at(program.outputs[k]).kind == ir::ValueKind::kComplex;
        out.push_back({k == 0 ? data.out.data() : extra[2 * k].data(),
                       complex ? extra[2 * k + 1].data() : nullptr});
    }
    for (auto _ : state) {
        interpreter.run(data.params, interp::ColumnView{inputs, events}, 0, events, workspace,
                        interp::OutputView{out});
        benchmark::DoNotOptimize(data.out.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

void compile_latency(benchmark::State& state, const ir::Program& program) {
    double total = 0.0;
    for (auto _ : state) {
        auto kernel = jit::compile_uncached(program, precision_of(state), codegen_of(state));
        if (!kernel) {
            state.SkipWithError(kernel.error().message.c_str());
            return;
        }
        total += kernel->compile_seconds();
        benchmark::DoNotOptimize(kernel->function());
    }
    state.counters["ir_instructions"] = static_cast<double>(program.size());
    state.counters["compile_ms"] = 1e3 * total / static_cast<double>(state.iterations());
}

void BM_CoherentSumJit(benchmark::State& state) {
    run_jit(state, coherent_sum(16));
}

void BM_CoherentSumInterp(benchmark::State& state) {
    run_interp(state, coherent_sum(16));
}

void BM_KmatrixJit(benchmark::State& state) {
    run_jit(state, kmatrix_evaluate());
}

void BM_KmatrixInterp(benchmark::State& state) {
    run_interp(state, kmatrix_evaluate());
}

void BM_CompileCoherentSum(benchmark::State& state) {
    compile_latency(state, coherent_sum(16));
}

void BM_CompileKmatrix(benchmark::State& state) {
    compile_latency(state, kmatrix_evaluate());
}

void BM_CompileLarge(benchmark::State& state) {
    compile_latency(state, large_program(110));
}

}  // namespace

// Arguments: events, precision (64 or 32), code generation (0 optimised, 1 fast).
BENCHMARK(BM_CoherentSumJit)->ArgsProduct({{4096, 1 << 16, 1 << 20}, {64, 32}, {0, 1}});
BENCHMARK(BM_CoherentSumInterp)->ArgsProduct({{4096, 1 << 16, 1 << 20}, {64, 32}, {0}});
BENCHMARK(BM_KmatrixJit)->ArgsProduct({{4096, 1 << 16}, {64, 32}, {0, 1}});
BENCHMARK(BM_KmatrixInterp)->ArgsProduct({{4096, 1 << 16}, {64, 32}, {0}});
BENCHMARK(BM_CompileCoherentSum)
    ->ArgsProduct({{0}, {64, 32}, {0, 1}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CompileKmatrix)->ArgsProduct({{0}, {64, 32}, {0, 1}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CompileLarge)->ArgsProduct({{0}, {64, 32}, {0, 1}})->Unit(benchmark::kMillisecond);
