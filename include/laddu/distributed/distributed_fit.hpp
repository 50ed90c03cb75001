// laddu/distributed/distributed_fit.hpp: fits whose objective is evaluated by every MPI rank.
//
// Rank 0 drives the minimiser (fit::fit: minimisation, then the Hessian); every other rank runs
// a worker loop. Each time the minimiser asks for a value, rank 0 broadcasts a command and the
// parameters, and every rank evaluates the objective, which is itself a collective (a
// likelihood, or an objective over a runtime::PreparedModel, prepared with
// Execution::collective = mpi_collective()), so each rank adds its share of the events. When the
// fit ends, rank 0 broadcasts a stop command and the FitResult, so every rank returns the same
// result: the same values, bit for bit, as fit::fit in one process, and the same evaluation counts
// (only wall_seconds differs). An exception on rank 0 outside the evaluations (for instance a
// FitError for a malformed start) is raised on every rank.
//
// Example (every rank runs the same program; only rank 0 prints):
//   runtime::Execution execution;
//   execution.collective = distributed::mpi_collective();
//   likelihood::Likelihood total;
//   total.add(std::make_shared<likelihood::NLL>(model, data, accepted, execution));
//   const fit::FitResult result = distributed::fit(total, total.default_parameters());
//   if (distributed::MpiContext::world().is_root()) std::cout << result.to_string();
#pragma once

#include <span>
#include <string>
#include <vector>

#include <laddu/distributed/mpi_collective.hpp>
#include <laddu/distributed/mpi_context.hpp>
#include <laddu/fit/fit.hpp>
#include <laddu/likelihood/likelihood.hpp>

namespace laddu::distributed {

/// Minimises the collective `objective` on rank 0 while the other ranks evaluate it with rank
/// 0's parameters; returns rank 0's FitResult on every rank. `start` and `options` are read on
/// rank 0 only (its progress callback runs there). Every rank's objective must have the same
/// dimension (FitError on every rank otherwise).
[[nodiscard]] fit::FitResult fit(const fit::Objective& objective, std::vector<std::string> names,
                                 std::span<const double> start, const fit::FitOptions& options = {},
                                 const MpiContext& context = MpiContext::world());

/// fit::fit(likelihood, start, options) across the ranks of `context`.
[[nodiscard]] fit::FitResult fit(const likelihood::Likelihood& likelihood,
                                 std::span<const double> start, const fit::FitOptions& options = {},
                                 const MpiContext& context = MpiContext::world());

/// The byte string broadcast for a FitResult (every field; exact doubles).
[[nodiscard]] std::string serialize(const fit::FitResult& result);

/// The FitResult of serialize() (InternalError for a malformed string).
[[nodiscard]] fit::FitResult deserialize_fit_result(const std::string& bytes);

}  // namespace laddu::distributed
