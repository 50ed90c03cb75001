// The demo's model: laddu's K-matrix benchmark intensity (amplitudes/kmatrix_benchmark.hpp)
// with its coherent waves tagged (KMatrixBenchmarkOptions::tag_waves) for projections and fit
// fractions:
//   "S+" = f0⁺[KK̄] + a0⁺[KK̄],  "S-" = f0⁻[KK̄] + a0⁻[KK̄],  "D+" = f2[KK̄] + a2[KK̄].
// Same parameters (laddu's names) and, with the tags stripped, the same expression.
#pragma once

#include <string>
#include <vector>

#include <laddu/expr/model.hpp>

namespace laddu::cli {

/// The tagged benchmark model (34 free parameters, as kmatrix_benchmark_model()).
[[nodiscard]] expr::Model tagged_kmatrix_model();

/// The wave tags of tagged_kmatrix_model(), in display order.
[[nodiscard]] std::vector<std::string> demo_wave_tags();

}  // namespace laddu::cli
