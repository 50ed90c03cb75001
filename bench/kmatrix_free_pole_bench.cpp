// A Kopf K-matrix with fixed versus free pole masses: compile time, and value + gradient over
// 10,000 events. Fixed masses let the compiler cache the per-event solve (only the production
// couplings are evaluated per call); free masses make the system parameter-dependent, so it is
// solved and differentiated per evaluation. The model is |F_KK̄|² of the Kopf f0 (5 × 5, L = 0,
// Adler zero) or f2 (4 × 4, L = 2: barriers depend on the pole masses) K-matrix, built from the
// expression-valued blocks as KMatrixDefinition does.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <laddu/amplitudes/chew_mandelstam.hpp>
#include <laddu/amplitudes/couplings.hpp>
#include <laddu/amplitudes/k_matrix.hpp>
#include <laddu/amplitudes/kopf_tables.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/runtime/prepared_model.hpp>

namespace {

using laddu::expr::Expr;

constexpr std::uint32_t kKKbar = 2;  // the K K̄ channel of both f0 and f2

laddu::expr::Model kopf_model(const laddu::amplitudes::KMatrixDefinition& d, bool free_masses) {
    namespace amp = laddu::amplitudes;
    const Expr s = laddu::expr::scalar("s");
    std::vector<Expr> masses;
    for (std::size_t a = 0; a < d.poles(); ++a) {
        masses.push_back(free_masses ? laddu::expr::parameter("m" + std::to_string(a),
                                                              {.initial = d.pole_masses[a]})
                                     : Expr(d.pole_masses[a]));
    }
    const Expr poles = laddu::expr::vector(masses);
    const auto n = static_cast<std::uint32_t>(d.channels());
    const auto p = static_cast<std::uint32_t>(d.poles());
    std::vector<Expr> g;
    std::vector<Expr> m1;
    std::vector<Expr> m2;
    std::vector<Expr> c;
    std::vector<Expr> closing;
    for (std::uint32_t i = 0; i < n; ++i) {
        g.insert(g.end(), d.couplings[i].begin(), d.couplings[i].end());
        m1.emplace_back(d.channel_mass_1[i]);
        m2.emplace_back(d.channel_mass_2[i]);
        closing.push_back(amp::chew_mandelstam(s, d.channel_mass_1[i], d.channel_mass_2[i]));
    }
    const Expr couplings = laddu::expr::matrix(n, p, g);
    const Expr barriers = amp::blatt_weisskopf_barriers(s, laddu::expr::vector(m1),
                                                        laddu::expr::vector(m2), poles, d.l, d.q_r);
    // Kopf's background Σ_α B_iα c_ij B_jα.
    for (std::uint32_t i = 0; i < n; ++i) {
        for (std::uint32_t j = 0; j < n; ++j) {
            std::vector<Expr> parts;
            for (std::uint32_t a = 0; a < p; ++a) {
                parts.push_back(d.background[i][j] * laddu::expr::matrix_element(barriers, i, a) *
                                laddu::expr::matrix_element(barriers, j, a));
            }
            c.push_back(laddu::expr::nary_add(parts));
        }
    }
    Expr k = amp::k_matrix(s, poles, couplings, barriers, laddu::expr::matrix(n, n, c));
    if (d.adler_zero) {
        k = ((s - d.adler_zero->s0) / d.adler_zero->s_norm) * k;
    }
    std::vector<Expr> production;
    for (std::uint32_t a = 0; a < p; ++a) {
        production.push_back(amp::cartesian_coupling("b" + std::to_string(a)));
    }
    const Expr pv = amp::p_vector(s, poles, laddu::expr::vector(production), couplings, barriers);
    const Expr f = amp::f_vector(s, poles, k, pv, laddu::expr::vector(closing));
    return laddu::expr::Model(laddu::expr::norm_sqr(laddu::expr::component(f, kKKbar)));
}

laddu::amplitudes::KMatrixDefinition table(std::int64_t which) {
    using laddu::amplitudes::KMatrixDefinition;
    return which == 0 ? KMatrixDefinition::from_table(laddu::amplitudes::kKopfF0)
                      : KMatrixDefinition::from_table(laddu::amplitudes::kKopfF2);
}

void label(benchmark::State& state) {
    state.SetLabel(std::string(state.range(0) == 0 ? "f0" : "f2") +
                   (state.range(1) != 0 ? " free masses" : " fixed masses"));
}

void BM_KopfCompile(benchmark::State& state) {
    const auto model = kopf_model(table(state.range(0)), state.range(1) != 0);
    for (auto _ : state) {
        benchmark::DoNotOptimize(laddu::compile::compile_model(model));
    }
    const auto compiled = laddu::compile::compile_model(model);
    state.counters["cache_bytes_per_event"] =
        static_cast<double>(compiled.cache_plan.bytes_per_event());
    state.counters["evaluate_instructions"] = static_cast<double>(compiled.evaluate.size());
    label(state);
}

BENCHMARK(BM_KopfCompile)->ArgsProduct({{0, 1}, {0, 1}})->Unit(benchmark::kMillisecond);

void BM_KopfValueAndGradient(benchmark::State& state) {
    const auto d = table(state.range(0));
    const auto compiled = laddu::compile::compile_model(kopf_model(d, state.range(1) != 0));
    std::mt19937_64 rng(26);
    std::uniform_real_distribution<double> uniform(1.0, 3.0);
    std::vector<double> s(10000);
    for (double& v : s) {
        v = uniform(rng);
    }
    const std::vector<laddu::data::ScalarInput> scalars = {{"s", s}};
    laddu::runtime::Execution execution;
    execution.threads = 1;
    const auto prepared = laddu::runtime::PreparedModel::prepare(
        compiled, laddu::data::Dataset::from_scalars(scalars), execution);
    std::vector<double> params;
    for (const std::string& name : compiled.parameters.free_names()) {
        params.push_back(name.front() == 'm' ? d.pole_masses[std::stoul(name.substr(1))] : 0.3);
    }
    for (auto _ : state) {
        benchmark::DoNotOptimize(
            prepared.reduce_with_gradient(params, laddu::runtime::ReductionTransform::kReal));
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(s.size()));
    label(state);
}

BENCHMARK(BM_KopfValueAndGradient)->ArgsProduct({{0, 1}, {0, 1}})->Unit(benchmark::kMillisecond);

}  // namespace
