// NLL value-and-gradient: the precomputed normalisation matrix against an MC pass.
#include <cmath>
#include <complex>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <laddu/data/dataset.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/fit/fit.hpp>
#include <laddu/likelihood/likelihood.hpp>
#include <laddu/likelihood/nll.hpp>

namespace {

using laddu::expr::Expr;

laddu::data::Dataset flat_events(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> x(n);
    for (double& v : x) {
        v = u(rng);
    }
    const std::vector<laddu::data::P4Input> no_p4s;
    const std::vector<laddu::data::ScalarInput> scalars{{"x", x}};
    return laddu::data::Dataset::from_arrays(no_p4s, scalars);
}

// |Σ_k c_k e^{ikx} (1 + k x²)|² with 8 complex coefficients (16 parameters).
laddu::expr::Model coherent_model() {
    const Expr x = laddu::expr::scalar("x");
    Expr sum = laddu::expr::constant(std::complex<double>(0.0, 0.0));
    for (int k = 0; k < 8; ++k) {
        const Expr c =
            laddu::expr::complex(laddu::expr::parameter("a" + std::to_string(k), {.initial = 1.0}),
                                 laddu::expr::parameter("b" + std::to_string(k), {.initial = 0.1}));
        sum = sum + c * laddu::expr::cis(static_cast<double>(k) * x) *
                        (1.0 + static_cast<double>(k) * x * x);
    }
    return laddu::expr::Model(laddu::expr::norm_sqr(sum));
}

void run(benchmark::State& state, laddu::runtime::NormalizationMode mode) {
    const auto data = flat_events(10000, 1);
    const auto accepted = flat_events(static_cast<std::size_t>(state.range(0)), 2);
    laddu::runtime::Execution execution;
    execution.threads = 1;
    execution.normalization = mode;
    const laddu::likelihood::NLL nll(coherent_model(), data, accepted, execution, "nll");
    const std::vector<double> params(nll.parameters().size(), 0.5);
    for (auto _ : state) {
        benchmark::DoNotOptimize(nll.value_and_gradient(params));
    }
    state.counters["fast"] = nll.uses_fast_normalization() ? 1.0 : 0.0;
}

void BM_NllFastNormalization(benchmark::State& state) {
    run(state, laddu::runtime::NormalizationMode::kAuto);
}

void BM_NllMcPass(benchmark::State& state) {
    run(state, laddu::runtime::NormalizationMode::kGeneral);
}

// A full fit of the closure model (fit_test's |1 + (a + ib) x e^{ix} + c x²|²) on accept-reject
// data: the wall time of fit() with uncertainties, and its evaluation counts.
void BM_ClosureFit(benchmark::State& state) {
    const auto truth = [](double x) {
        return std::norm(1.0 + std::complex<double>(0.5, -0.3) * x * std::polar(1.0, x) +
                         0.8 * x * x);
    };
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> flat(-1.0, 1.0);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> data;
    for (std::int64_t i = 0; i < state.range(0); ++i) {
        const double x = flat(rng);
        if (unit(rng) * 6.0 < truth(x)) {
            data.push_back(x);
        }
    }
    const auto data_set = [](const std::vector<double>& x) {
        const std::vector<laddu::data::P4Input> no_p4s;
        const std::vector<laddu::data::ScalarInput> scalars{{"x", x}};
        return laddu::data::Dataset::from_arrays(no_p4s, scalars);
    };
    const Expr x = laddu::expr::scalar("x");
    const laddu::expr::Model model(laddu::expr::norm_sqr(
        laddu::expr::constant(std::complex<double>(1.0, 0.0)) +
        laddu::expr::complex(laddu::expr::parameter("a"), laddu::expr::parameter("b")) *
            (x * laddu::expr::cis(x)) +
        laddu::expr::complex(laddu::expr::parameter("c"), laddu::expr::constant(0.0)) * (x * x)));
    laddu::runtime::Execution execution;
    execution.threads = 1;
    laddu::likelihood::Likelihood total;
    total.add(std::make_shared<laddu::likelihood::NLL>(
        model, data_set(data), flat_events(static_cast<std::size_t>(state.range(0)), 4),
        execution));
    laddu::fit::FitResult result;
    for (auto _ : state) {
        result = laddu::fit::fit(total, total.default_parameters());
    }
    state.counters["data_events"] = static_cast<double>(data.size());
    state.counters["evaluations"] = static_cast<double>(result.gradient_evaluations);
    state.counters["converged"] = result.converged ? 1.0 : 0.0;
}

BENCHMARK(BM_ClosureFit)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NllFastNormalization)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NllMcPass)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
