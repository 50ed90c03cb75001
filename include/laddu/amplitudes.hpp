// laddu/amplitudes: line shapes and K-matrices as expressions, one file per line shape.
//
// two_body.hpp (q, ρ), barrier.hpp (Blatt-Weisskopf), chew_mandelstam.hpp, breit_wigner.hpp,
// flatte.hpp, couplings.hpp; k_matrix.hpp (Kopf-form building blocks, F = (I + K C)⁻¹ P or
// (I - i K ρ)⁻¹ P), kopf.hpp and kopf_tables.hpp (the published Kopf K-matrices),
// kmatrix_benchmark.hpp (laddu's benchmark model). See docs/physics.md.
#pragma once

#include <laddu/amplitudes/barrier.hpp>
#include <laddu/amplitudes/breit_wigner.hpp>
#include <laddu/amplitudes/chew_mandelstam.hpp>
#include <laddu/amplitudes/couplings.hpp>
#include <laddu/amplitudes/flatte.hpp>
#include <laddu/amplitudes/k_matrix.hpp>
#include <laddu/amplitudes/kmatrix_benchmark.hpp>
#include <laddu/amplitudes/kopf.hpp>
#include <laddu/amplitudes/kopf_tables.hpp>
#include <laddu/amplitudes/two_body.hpp>
