// examples/kmatrix_model.cpp: laddu's K-matrix benchmark model (γ p → K_S K_S p) in C++.
//
// Builds the model of crates/laddu/benches/kmatrix_benchmark.rs from Kopf K-matrices and Z_lm
// waves, prints its parameters, compiles it and reports the cache plan: the K-matrix systems
// and the angular factors are per-event cache columns, and each F-vector component becomes
// cached inverse-row columns (the SolveRow specialisation).
#include <cstdio>

#include <laddu/amplitudes/kmatrix_benchmark.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/expr/traversal.hpp>

int main() {
    const laddu::expr::Model model = laddu::amplitudes::kmatrix_benchmark_model();
    const laddu::expr::ParamLayout& layout = model.parameters();
    std::printf("K-matrix benchmark: %zu expression nodes, %zu free and %zu fixed parameters\n",
                laddu::expr::node_count(model.expression()), layout.free_count(),
                layout.fixed_indices().size());
    for (const std::string& name : layout.free_names()) {
        std::printf("  free: %s\n", name.c_str());
    }

    const laddu::compile::CompiledModel compiled = laddu::compile::compile_model(model);
    std::printf("cache plan: %s\n", compiled.cache_plan.summary().c_str());
    std::printf("%s\n", compiled.report.to_string(compiled.cache_plan).c_str());
    return 0;
}
