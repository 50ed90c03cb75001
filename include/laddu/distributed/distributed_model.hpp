// laddu/distributed/distributed_model.hpp: a PreparedModel spread over MPI ranks.
//
// A convenience over runtime::PreparedModel with Execution::collective = an MpiCollective:
// every rank builds the same model and passes the same global data description (a resident
// Dataset, or an EventSource of which each rank reads only its chunks); each caches only its
// share of whole reduction chunks (partition.hpp), and reductions gather every rank's chunk
// partials and merge them in global chunk order. Value and gradient are therefore bit-identical
// to runtime::PreparedModel over the whole data on one process, whatever the rank count and
// partitioning. Every call is a collective: all ranks must make it. When any rank fails
// (missing column, bad value), every rank throws the same error class with the failing rank's
// message, so no rank is left waiting.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/distributed/mpi_collective.hpp>
#include <laddu/distributed/mpi_context.hpp>
#include <laddu/distributed/partition.hpp>
#include <laddu/runtime/execution.hpp>
#include <laddu/runtime/prepared_model.hpp>

namespace laddu::distributed {

/// A compiled model bound to this rank's share of the events.
class DistributedModel {
public:
    /// Prepares this rank's share of `data` (the global events; a Dataset converts). For
    /// kFileGroups the fragments are `fragments` when given (event counts summing to the
    /// events; DataError otherwise), else the data's own (Parquet row groups). `execution`'s
    /// own collective is replaced by one over `context`.
    [[nodiscard]] static DistributedModel prepare(const compile::CompiledModel& model,
                                                  const data::EventData& data,
                                                  const runtime::Execution& execution,
                                                  Partitioning partitioning,
                                                  std::span<const std::size_t> fragments = {},
                                                  const MpiContext& context = MpiContext::world());

    /// Global event count (a sum over ranks).
    [[nodiscard]] std::size_t global_events() const noexcept;

    /// This rank's events.
    [[nodiscard]] std::size_t local_events() const noexcept { return share_.events; }

    /// This rank's share.
    [[nodiscard]] const EventShare& share() const noexcept { return share_; }

    /// The prepared model (its reductions are collectives over the ranks).
    [[nodiscard]] const runtime::PreparedModel& prepared() const noexcept { return *local_; }

    /// The global reduction Σ_i w_i T(Re f_i), identical on every rank.
    [[nodiscard]] double reduce(std::span<const double> params,
                                runtime::ReductionTransform transform) const;

    /// The global reduction and its gradient, identical on every rank.
    [[nodiscard]] runtime::ReductionEvaluation
    reduce_with_gradient(std::span<const double> params,
                         runtime::ReductionTransform transform) const;

private:
    DistributedModel() = default;

    std::shared_ptr<const runtime::PreparedModel> local_;
    EventShare share_;
};

}  // namespace laddu::distributed
