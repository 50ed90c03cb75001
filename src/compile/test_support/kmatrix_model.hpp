// Test and benchmark support: a structural stand-in for laddu's K-matrix benchmark model
// (laddu-architecture.md section 3.3): the Kopf f0 (5x5), a0 (2x2), f2 (4x4) and a2 (3x3)
// K-matrices with their constants, F = (I + K C)^-1 P with P linear in complex couplings,
// simplified kinematics and Z_lm factors, and the intensity
//   |S+ Re Z+00 + D+ Re Z+22|^2 + |S+ Im Z+00 + D+ Im Z+22|^2 + |S- Re Z-00|^2 + |S- Im Z-00|^2.
// It has the benchmark's 34 free and 6 fixed parameters. Kinematics and the Chew-Mandelstam
// function are simplified (this is a compiler workload, not physics).
#pragma once

#include <laddu/expr/model.hpp>

namespace laddu::compile::testing {

/// The stand-in model described above.
[[nodiscard]] expr::Model kmatrix_benchmark_model();

}  // namespace laddu::compile::testing
