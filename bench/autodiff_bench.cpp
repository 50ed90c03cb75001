// Value+gradient time against value-only time for gradient programs run by the interpreter:
// a 40-parameter coherent sum |Σ_k (p_2k + i p_2k+1) A_k|² over cached amplitudes A_k, and a
// dense chain (every parameter reaches every link) over P to show where reverse beats forward.
// Compare BM_*Gradient with BM_*Value at the same size: the ratio is the gradient overhead.
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <laddu/autodiff/gradient.hpp>
#include <laddu/interp/interpreter.hpp>
#include <laddu/ir/builder.hpp>

namespace {

using laddu::ir::OpCode;
using laddu::ir::ValueId;
namespace autodiff = laddu::autodiff;
namespace interp = laddu::interp;
namespace ir = laddu::ir;

constexpr std::size_t kEvents = 1U << 14U;

ir::Program coherent_sum(std::uint32_t terms) {
    ir::Builder b;
    std::vector<ValueId> products;
    for (std::uint32_t k = 0; k < terms; ++k) {
        const ValueId amplitude =
            b.load(b.add_input("A" + std::to_string(k), ir::ValueKind::kComplex));
        products.push_back(
            b.binary(OpCode::kMul, b.complex(b.param(2 * k), b.param(2 * k + 1)), amplitude));
    }
    b.add_output(b.unary(OpCode::kNormSqr, b.add_n(products)));
    return b.finish();
}

// exp(sin(exp(sin(Σ_k p_k x_k)))) ... ten links.
ir::Program dense_chain(std::uint32_t parameters) {
    ir::Builder b;
    std::vector<ValueId> terms;
    for (std::uint32_t k = 0; k < parameters; ++k) {
        terms.push_back(
            b.binary(OpCode::kMul, b.param(k),
                     b.load(b.add_input("x" + std::to_string(k), ir::ValueKind::kReal))));
    }
    ValueId chain = b.add_n(terms);
    for (int link = 0; link < 10; ++link) {
        chain = b.unary(link % 2 == 0 ? OpCode::kSin : OpCode::kCos, chain);
    }
    b.add_output(chain);
    return b.finish();
}

// Runs `program` over kEvents random events once per iteration.
void run(benchmark::State& state, const ir::Program& program) {
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> dist(-0.1, 0.1);
    std::vector<std::vector<double>> storage;
    std::vector<ir::InputColumn> inputs;
    for (const ir::InputSlot& slot : program.inputs) {
        storage.emplace_back(kEvents);
        for (double& v : storage.back()) {
            v = dist(rng);
        }
        const double* re = storage.back().data();
        const double* im = nullptr;
        if (slot.kind == ir::ValueKind::kComplex) {
            storage.emplace_back(kEvents);
            for (double& v : storage.back()) {
                v = dist(rng);
            }
            im = storage.back().data();
        }
        inputs.push_back(ir::InputColumn{re, im});
    }
    std::vector<double> params(program.parameter_count);
    for (double& p : params) {
        p = dist(rng);
    }
    std::vector<std::vector<double>> out_re(program.outputs.size(), std::vector<double>(kEvents));
    std::vector<ir::OutputColumn> outputs;
    for (auto& column : out_re) {
        outputs.push_back(ir::OutputColumn{column.data(), nullptr});
    }
    const auto interpreter = interp::Interpreter::prepare(program);
    interp::Workspace workspace = interpreter.make_workspace();
    const ir::ColumnView view{inputs, kEvents};
    for (auto _ : state) {
        interpreter.run(params, view, 0, kEvents, workspace, ir::OutputView{outputs});
        benchmark::DoNotOptimize(out_re.front().data());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(kEvents));
    state.counters["instructions"] = static_cast<double>(program.size());
}

void BM_CoherentSumValue(benchmark::State& state) {
    run(state, coherent_sum(20));
}

void BM_CoherentSumForwardGradient(benchmark::State& state) {
    run(state, autodiff::forward(coherent_sum(20)));
}

void BM_CoherentSumReverseGradient(benchmark::State& state) {
    run(state, autodiff::reverse(coherent_sum(20)));
}

void BM_DenseChainValue(benchmark::State& state) {
    const ir::Program program = dense_chain(static_cast<std::uint32_t>(state.range(0)));
    run(state, program);
    // What AutodiffMode::kAuto picks at this size (1 = reverse), to set beside the timings.
    state.counters["auto_reverse"] =
        autodiff::choose_mode(program) == autodiff::AutodiffMode::kReverse ? 1.0 : 0.0;
}

void BM_DenseChainForwardGradient(benchmark::State& state) {
    run(state, autodiff::forward(dense_chain(static_cast<std::uint32_t>(state.range(0)))));
}

void BM_DenseChainReverseGradient(benchmark::State& state) {
    run(state, autodiff::reverse(dense_chain(static_cast<std::uint32_t>(state.range(0)))));
}

BENCHMARK(BM_CoherentSumValue);
BENCHMARK(BM_CoherentSumForwardGradient);
BENCHMARK(BM_CoherentSumReverseGradient);
BENCHMARK(BM_DenseChainValue)->RangeMultiplier(2)->Range(1, 32);
BENCHMARK(BM_DenseChainForwardGradient)->RangeMultiplier(2)->Range(1, 32);
BENCHMARK(BM_DenseChainReverseGradient)->RangeMultiplier(2)->Range(1, 32);

}  // namespace
