// laddu/runtime/collective.hpp: how a prepared model shares work with other processes.
//
// The runtime never sees MPI. A Collective (implemented by distributed::MpiCollective, or by a
// test double) tells a process which global reduction chunks it owns and merges per-chunk
// records of every process in global chunk order. Because every chunk (kReductionChunk events
// of the global event order) is summed whole by one process and the merge runs in chunk order,
// a reduction over P processes is bit-identical to the single-process reduction.
//
// Every member except rank()/size() is a collective call: every process must make it, in the
// same order, with the same `events`/`width`/`global_chunks`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <laddu/base/error.hpp>

namespace laddu::runtime {

/// A group of cooperating processes (an MPI communicator, or one process).
class Collective {
public:
    Collective() = default;
    Collective(const Collective&) = delete;
    Collective& operator=(const Collective&) = delete;
    Collective(Collective&&) = delete;
    Collective& operator=(Collective&&) = delete;
    virtual ~Collective() = default;

    /// This process's index in [0, size()).
    [[nodiscard]] virtual int rank() const noexcept = 0;

    /// The number of processes.
    [[nodiscard]] virtual int size() const noexcept = 0;

    /// The global chunk indices (ascending) this process owns, for a dataset of `events` events
    /// whose fragments (Parquet row groups, in global order; they sum to `events`) have the
    /// given sizes. Not a collective: every process computes the same partition locally.
    [[nodiscard]] virtual std::vector<std::size_t>
    owned_chunks(std::size_t events, std::span<const std::size_t> fragments) const = 0;

    /// Every process passes `width` doubles per owned chunk, in its owned_chunks() order; every
    /// process receives `width` doubles for each of the `global_chunks` chunks, in global chunk
    /// order.
    [[nodiscard]] virtual std::vector<double>
    all_gather_chunks(std::span<const double> local, std::size_t width,
                      std::size_t global_chunks) const = 0;

    /// Completes when every process has called it. If any process passed `ok == false`, every
    /// process throws the error of the lowest failing rank: the class of `kind` and the
    /// message `"rank R of P: <message>"`. So no process is left waiting in a later collective.
    /// Otherwise, if the processes passed different `fingerprint`s (a hash of what each is
    /// about to compute: program, precision, parameters), every process throws BackendError:
    /// their partial results would not belong to one evaluation.
    virtual void check_all(bool ok, ErrorKind kind, const std::string& message,
                           std::uint64_t fingerprint = kAnyFingerprint) const = 0;

    /// The fingerprint of a check that compares nothing but success.
    static constexpr std::uint64_t kAnyFingerprint = 0;
};

/// Runs this process's part of a collective step, then check_all: the one error protocol of
/// every collective step. Whatever `fn` throws (a laddu::Error keeps its kind; any other
/// exception, std::bad_alloc or not derived from std::exception at all, is reported as an
/// InternalError with its what()) reaches every process through check_all, so every process
/// throws the same error and none is left waiting in a later collective. With no collective
/// (nullptr) it only runs `fn`. `fingerprint` is check_all's.
void collectively(const Collective* collective, const std::function<void()>& fn,
                  std::uint64_t fingerprint = Collective::kAnyFingerprint);

}  // namespace laddu::runtime
