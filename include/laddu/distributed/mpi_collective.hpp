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
    /// that owned_chunks() is given (Parquet row groups); with fewer than two fragments (a
    /// resident dataset, a file of one row group) it deals contiguous runs of chunks instead.
    explicit MpiCollective(const MpiContext& context,
                           Partitioning partitioning = Partitioning::kContiguous);

    /// The partitioning.
    [[nodiscard]] Partitioning partitioning() const noexcept { return partitioning_; }

    /// The MPI context.
    [[nodiscard]] const MpiContext& context() const noexcept { return *context_; }

    /// This rank.
    [[nodiscard]] int rank() const noexcept override { return context_->rank(); }

    /// The number of ranks.
    [[nodiscard]] int size() const noexcept override { return context_->size(); }

    /// partition_events(events, rank(), size(), partitioning(), fragments).chunks. Throws
    /// DataError when `fragments` is not empty and does not sum to `events`. Remembers a
    /// kFileGroups layout so that all_gather_chunks() can name this rank's chunks.
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
    // kFileGroups layouts seen by owned_chunks(): (chunk count, this rank's chunks).
    mutable std::mutex mutex_;
    mutable std::vector<std::pair<std::size_t, std::vector<std::size_t>>> layouts_;
};

/// A shared MpiCollective over MpiContext::world() (MPI is initialised on the first call),
/// for runtime::Execution::collective.
[[nodiscard]] std::shared_ptr<const runtime::Collective>
mpi_collective(Partitioning partitioning = Partitioning::kContiguous);

/// Runs `fn` on every rank of `collective`; when it throws a laddu Error (or another
/// std::exception, reported as InternalError) on any rank, every rank throws the lowest
/// failing rank's error as check_all() does, so no rank waits in a later collective.
template <typename Fn>
void collectively(const runtime::Collective& collective, Fn&& fn) {
    bool ok = true;
    ErrorKind kind = ErrorKind::kInternal;
    std::string message;
    try {
        fn();
    } catch (const Error& error) {
        ok = false;
        kind = error.kind();
        message = error.what();
    } catch (const std::exception& error) {
        ok = false;
        message = error.what();
    }
    collective.check_all(ok, kind, message);
}

}  // namespace laddu::distributed
