// One entry point per stage's bindings, called in order by module.cpp.
#pragma once

#include <string>
#include <utility>

#include <pybind11/pybind11.h>

namespace laddu::runtime {
struct Execution;
}

namespace laddu::python {

/// Exceptions (laddu_cpp.Error and its subclasses) and base utilities.
void bind_base(pybind11::module_& module);

/// Expressions, parameters and Model (laddu's expression vocabulary).
void bind_expr(pybind11::module_& module);

/// Expr/Model .equation() .latex() .tree() .dot() .svg() and the style classes (needs
/// bind_expr first).
void bind_render(pybind11::module_& module);

/// J, S, L, M, Parity, Isospin, Statistics, MandelstamChannel, Particle, ld.particles, the
/// selection rules and partial waves (bind_quantum.cpp, bind_particle.cpp).
void bind_quantum(pybind11::module_& module);

/// 2x a spin or projection given as ld.J/S/L/M, an int, a Fraction or a float (laddu's
/// conversions; ld.LadduError unless 2x is an integer).
int quantum_doubled(const pybind11::handle& value);

/// Vec3/Vec4, Channel, angular functions, line shapes, Kopf K-matrices, ld.particles.
void bind_physics(pybind11::module_& module);

/// Voigt, pol_phase, photon_sdme, lookup_table, piecewise: laddu's older line shapes (needs
/// bind_physics first, for ld.amplitudes).
void bind_legacy_line_shapes(pybind11::module_& module);

/// k_matrix, p_vector, f_vector, blatt_weisskopf_barriers: laddu's expression-valued K-matrix
/// blocks, also in ld.amplitudes (needs bind_physics first).
void bind_kmatrix_blocks(pybind11::module_& module);

/// Dataset (from_arrays, from_batches) and ParquetSink.
void bind_data(pybind11::module_& module);

/// Histogram (laddu's, plus from_dataset) and HistogramNd (needs bind_data first, for
/// Histogram.from_dataset's Dataset).
void bind_histogram(pybind11::module_& module);

/// read_parquet and ParquetSource (file-backed datasets with memory= and cache=).
void bind_event_data(pybind11::module_& module);

/// {rank, size} of the MPI job when one runs with more than one rank, else {0, 1}; does not
/// initialise MPI.
[[nodiscard]] std::pair<int, int> mpi_rank_and_size();

/// Execution and Model.evaluate (needs bind_expr and bind_data first).
void bind_runtime(pybind11::module_& module);

/// Predicate (expression comparisons), Dataset.select / evaluate / bin_by, Bin, BinnedDataset
/// (needs bind_expr and bind_data first).
void bind_select(pybind11::module_& module);

/// generate_ksks, NBodyPhaseSpace and accept_reject, returning Dataset.
void bind_generation(pybind11::module_& module);

/// NLL, ExtendedNLL, penalties and Likelihood.
void bind_likelihood(pybind11::module_& module);

/// FitResult and Likelihood.fit / fit_restarts (needs bind_likelihood first).
void bind_fit(pybind11::module_& module);

/// Likelihood.sample and walker_positions, MCMCSummary (bind_likelihood first).
void bind_sampling(pybind11::module_& module);

/// LikelihoodProjection, fit fractions, bootstrap_fit and sample_parameters (needs
/// bind_likelihood and bind_fit first).
void bind_projection(pybind11::module_& module);

/// ld._TermCrossSection, the compiled cross-section integrals (needs bind_likelihood first).
void bind_cross_section(pybind11::module_& module);

/// ld.mpi (rank, size, is_root, barrier) and Execution.mpi (needs bind_runtime first).
void bind_distributed(pybind11::module_& module);

/// Execution(mpi=, partitioning=): sets execution.collective to an MPI collective when `mpi`
/// (BackendError without MPI in the build; ModelError for an unknown partitioning, which
/// Execution checks first with a ValueError).
void apply_mpi(runtime::Execution& execution, bool mpi, const std::string& partitioning);

/// This process's rank among the MPI ranks on its host (0 without MPI in the build).
[[nodiscard]] int mpi_local_rank();

}  // namespace laddu::python
