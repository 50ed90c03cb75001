// laddu/distributed/distributed_model.hpp: a PreparedModel spread over MPI ranks.
//
// Every rank builds the same model and passes the same global dataset description; each keeps
// only its share of whole reduction chunks (partition.hpp), prepares it, and reductions gather
// every rank's chunk partials and merge them in global chunk order. Value and gradient are
// therefore bit-identical to runtime::PreparedModel over the whole dataset on one process,
// whatever the rank count and partitioning. Every call is a collective: all ranks must make it.
// When any rank fails (missing column, bad value), every rank throws the same error class with
// the failing rank's message, so no rank is left waiting.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/distributed/mpi_context.hpp>
#include <laddu/distributed/partition.hpp>
#include <laddu/runtime/execution.hpp>
#include <laddu/runtime/prepared_model.hpp>

namespace laddu::distributed {

/// A compiled model bound to this rank's share of a dataset.
class DistributedModel {
public:
    /// Prepares this rank's share of `dataset` (the full, global dataset: each rank slices its
    /// chunks out of it). `fragments` gives fragment sizes for kFileGroups.
    [[nodiscard]] static DistributedModel prepare(const compile::CompiledModel& model,
                                                  const data::Dataset& dataset,
                                                  const runtime::Execution& execution,
                                                  Partitioning partitioning,
                                                  std::span<const std::size_t> fragments = {},
                                                  const MpiContext& context = MpiContext::world());

    /// Global event count (a sum over ranks).
    [[nodiscard]] std::size_t global_events() const noexcept { return global_events_; }

    /// This rank's events.
    [[nodiscard]] std::size_t local_events() const noexcept { return share_.events; }

    /// This rank's share.
    [[nodiscard]] const EventShare& share() const noexcept { return share_; }

    /// The global reduction Σ_i w_i T(Re f_i), identical on every rank.
    [[nodiscard]] double reduce(std::span<const double> params,
                                runtime::ReductionTransform transform) const;

    /// The global reduction and its gradient, identical on every rank.
    [[nodiscard]] runtime::ReductionEvaluation
    reduce_with_gradient(std::span<const double> params,
                         runtime::ReductionTransform transform) const;

private:
    DistributedModel() = default;

    const MpiContext* context_ = nullptr;
    std::shared_ptr<const runtime::PreparedModel> local_;
    EventShare share_;
    std::size_t global_events_ = 0;
    std::size_t global_chunks_ = 0;
};

}  // namespace laddu::distributed
