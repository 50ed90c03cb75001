// laddu/distributed/mpi_context.hpp: the MPI world, owned once per process.
//
// All MPI code of laddu-cpp lives in this stage; other stages see only the runtime::Collective
// interface (MpiCollective, mpi_collective.hpp) and never an MPI type. MpiContext::world()
// initialises MPI on first use (thread level "funneled": only the calling thread talks MPI) and
// finalises it at exit if laddu initialised it. A singleton run without mpirun is a world of one.
//
// A rank that fails outside a collective must not reach MPI_Finalize while the others wait in
// one: the job would never end. abort_parallel_job() ends every rank (MPI_Abort) with the error
// printed; the CLI calls it for every error it reports, the Python module from sys.excepthook,
// and MpiContext installs a std::terminate handler that calls it for uncaught C++ exceptions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace laddu::distributed {

/// What one check of every rank found (MpiContext::agree).
struct Agreement {
    /// The lowest rank that passed `ok == false`, or -1.
    int first_failed = -1;
    /// False when the ranks passed different fingerprints.
    bool same_fingerprint = true;
};

/// True when this process runs under MPI (initialised, not finalised) with more than one rank.
/// Does not initialise MPI.
[[nodiscard]] bool parallel_job_running() noexcept;

/// When parallel_job_running(): prints "rank R of P: <message>" and that every rank is being
/// stopped to stderr, then ends the whole job with MPI_Abort(exit_code). Otherwise returns.
void abort_parallel_job(int exit_code, std::string_view message) noexcept;

/// The process's view of MPI_COMM_WORLD.
class MpiContext {
public:
    /// The world context (initialises MPI on first call; thread-safe).
    [[nodiscard]] static MpiContext& world();

    /// This process's rank.
    [[nodiscard]] int rank() const noexcept { return rank_; }

    /// The number of ranks.
    [[nodiscard]] int size() const noexcept { return size_; }

    /// This process's rank among the ranks on its host (MPI_COMM_TYPE_SHARED): what picks a
    /// process's GPU when a host has several.
    [[nodiscard]] int local_rank() const noexcept { return local_rank_; }

    /// True on rank 0 (the rank that prints and drives fits).
    [[nodiscard]] bool is_root() const noexcept { return rank_ == 0; }

    /// Every rank receives the concatenation, in rank order, of every rank's `local`.
    [[nodiscard]] std::vector<double> all_gather(const std::vector<double>& local) const;

    /// The same for unsigned 64-bit values.
    [[nodiscard]] std::vector<unsigned long long>
    all_gather(const std::vector<unsigned long long>& local) const;

    /// The lowest rank whose `ok` is false and whether every rank passed the same
    /// `fingerprint` (a collective: one MPI_Allreduce).
    [[nodiscard]] Agreement agree(bool ok, std::uint64_t fingerprint = 0) const;

    /// `text` from rank `root` on every rank (a collective).
    [[nodiscard]] std::string broadcast(const std::string& text, int root) const;

    /// Broadcasts `values` from rank 0 in place (a collective; sizes must agree).
    void broadcast(std::vector<double>& values) const;

    /// Waits for every rank.
    void barrier() const;

    MpiContext(const MpiContext&) = delete;
    MpiContext& operator=(const MpiContext&) = delete;
    MpiContext(MpiContext&&) = delete;
    MpiContext& operator=(MpiContext&&) = delete;
    ~MpiContext();

private:
    MpiContext();

    int rank_ = 0;
    int size_ = 1;
    int local_rank_ = 0;
    bool owns_mpi_ = false;
};

}  // namespace laddu::distributed
