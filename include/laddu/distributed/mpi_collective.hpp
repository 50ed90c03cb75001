// laddu/distributed/mpi_collective.hpp: runtime::Collective over MPI.
//
// MpiCollective is the only Collective that talks to other processes. Put it into
// runtime::Execution::collective and every stage above the runtime (PreparedModel, likelihood
// NLLs, fits) runs distributed without an MPI type of its own:
//
//   runtime::Execution execution;
//   execution.collective = distributed::mpi_collective(distributed::Partitioning::kRows);
//   likelihood::NLL nll(model, data, accepted, execution);  // every rank builds the same NLL
//   const double value = nll.value(params);                 // identical on every rank
//
// A PreparedModel takes the same execution: runtime::PreparedModel::prepare(compiled, data,
// execution) caches only this rank's chunks, and its reduce() and reduce_with_gradient() are
// collectives whose results are identical on every rank. A step of a rank's own that must not
// leave the others waiting when it fails (opening a file) runs inside
// runtime::collectively(execution.collective.get(), fn).
//
// Ownership follows partition_events(): every rank owns whole reduction chunks
// (runtime::kReductionChunk events of the global event order), so reductions merged in global
// chunk order are bit-identical to one process. A gather sends one record per owned chunk,
// (chunk id, width values), with one MPI_Allgatherv, and reorders the records by chunk id.
// check_all() is one MPI_Allreduce (the lowest failing rank, and whether the fingerprints of
// the ranks agree) and, on failure only, one broadcast of that rank's error class and message.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include <laddu/distributed/mpi_context.hpp>
#include <laddu/distributed/partition.hpp>
#include <laddu/runtime/collective.hpp>

namespace laddu::distributed {

/// The ranks of an MpiContext sharing events by a Partitioning.
class MpiCollective final : public runtime::Collective {
public:
    /// A collective over `context` (which must outlive it). kFileGroups deals the fragments
    /// that owned_chunks() is given (Parquet row groups), or `fragments` when not empty: event
    /// counts in global order, e.g. the files of a resident concatenated dataset. With fewer
    /// than two fragments (a resident dataset, a file of one row group) it deals contiguous
    /// runs of chunks instead. Given `fragments` replace those of every dataset this collective
    /// partitions, so such a collective serves the one dataset they describe: owned_chunks()
    /// throws DataError for any dataset whose event count they do not sum to.
    explicit MpiCollective(const MpiContext& context,
                           Partitioning partitioning = Partitioning::kContiguous,
                           std::vector<std::size_t> fragments = {});

    /// The partitioning.
    [[nodiscard]] Partitioning partitioning() const noexcept { return partitioning_; }

    /// The fragment sizes given to the constructor (empty: each dataset's own).
    [[nodiscard]] const std::vector<std::size_t>& fragments() const noexcept { return fragments_; }

    /// The MPI context.
    [[nodiscard]] const MpiContext& context() const noexcept { return *context_; }

    /// This rank.
    [[nodiscard]] int rank() const noexcept override { return context_->rank(); }

    /// The number of ranks.
    [[nodiscard]] int size() const noexcept override { return context_->size(); }

    /// partition_events(events, rank(), size(), partitioning(), fragments).chunks, where
    /// fragments() replaces `fragments` when not empty. Throws DataError when the fragments
    /// used are not empty and do not sum to `events`. Remembers a kFileGroups layout so that
    /// all_gather_chunks() can name this rank's chunks.
    [[nodiscard]] std::vector<std::size_t>
    owned_chunks(std::size_t events, std::span<const std::size_t> fragments) const override;

    /// The records of every rank in global chunk order (see runtime::Collective). Throws
    /// InternalError on every rank when the records do not cover each of the `global_chunks`
    /// chunks exactly once (ranks that disagree about the partition), and BackendError when
    /// kFileGroups saw two layouts of `global_chunks` chunks that give this rank the same
    /// number of different chunks (the records could not be told apart).
    [[nodiscard]] std::vector<double> all_gather_chunks(std::span<const double> local,
                                                        std::size_t width,
                                                        std::size_t global_chunks) const override;

    /// Throws, on every rank, the lowest failing rank's error class with the message
    /// "rank R of P: <message>" when any rank passed ok == false, else BackendError when the
    /// ranks passed different fingerprints.
    void check_all(bool ok, ErrorKind kind, const std::string& message,
                   std::uint64_t fingerprint = kAnyFingerprint) const override;

private:
    // This rank's chunks in a dataset of `global_chunks` chunks holding `local_chunks` of them.
    [[nodiscard]] std::vector<std::size_t> own_chunks(std::size_t global_chunks,
                                                      std::size_t local_chunks) const;

    const MpiContext* context_;
    Partitioning partitioning_;
    std::vector<std::size_t> fragments_;
    // kFileGroups layouts seen by owned_chunks(): (chunk count, this rank's chunks).
    mutable std::mutex mutex_;
    mutable std::vector<std::pair<std::size_t, std::vector<std::size_t>>> layouts_;
};

/// A shared MpiCollective over MpiContext::world() (MPI is initialised on the first call),
/// for runtime::Execution::collective; `fragments` as in the MpiCollective constructor.
[[nodiscard]] std::shared_ptr<const runtime::Collective>
mpi_collective(Partitioning partitioning = Partitioning::kContiguous,
               std::vector<std::size_t> fragments = {});

}  // namespace laddu::distributed
