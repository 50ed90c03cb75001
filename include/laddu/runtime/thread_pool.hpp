// laddu/runtime/thread_pool.hpp: a small fixed pool of std::threads owned by the runtime.
//
// Work is split into chunks whose boundaries the caller fixes (never the pool), so results
// merged in chunk order are identical whatever the thread count. The calling thread works
// too, as worker 0. One parallel_for_chunks() runs at a time per pool: calls from other threads
// wait for the running one (so a pool may be shared by concurrent callers).
//
// A job is handed out without a lock: workers that finished one job spin for a short while
// (kSpin) watching for the next before they sleep on a condition variable, and chunks are
// claimed with one atomic increment each. A likelihood evaluated thousands of times in a row
// then costs no thread wake-up per evaluation, which on a 10,000-event data set is as long as
// the evaluation itself. Worker w owns the contiguous share [w n / W, (w + 1) n / W) of a job's
// n chunks and claims its own chunks first, in order, then the others' that are left: the same
// events go to the same core call after call (its caches may still hold them; the K-matrix NLL
// at 1e6 events on 2 threads was 10 % faster than with one shared counter), and a late or slow
// worker's chunks are still taken by the rest. A job may sweep backward (SweepOrder): each
// worker then takes its share from the last chunk down, so a pass over the same events after a
// forward one starts with the chunks the core read last.
//
// A pool holds at most kMaxThreads threads. When the system refuses a thread part way (a thread
// or memory limit), the constructor stops and joins the threads it did start and throws
// BackendError naming the requested count and the remedy: no thread is left behind, nothing
// hangs or aborts.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace laddu::runtime {

namespace detail {

/// Moves the calling thread off CPU `caller_cpu` when it runs there and its affinity allows
/// another CPU, then restores its affinity (what a pool worker does before each job: a thread
/// woken beside its waker otherwise takes turns with it on one CPU). A no-op for a negative
/// CPU, a thread elsewhere or a one-CPU affinity.
void step_off_cpu(int caller_cpu) noexcept;

}  // namespace detail

/// The most threads a pool (and so Execution::threads) may ask for: far above any useful count
/// on one host, low enough that a typo such as 100000 fails at once instead of exhausting the
/// process's threads or memory.
inline constexpr std::size_t kMaxThreads = 1024;

/// The order in which a worker takes the chunks of its share. The chunks a job covers, and so
/// any result merged in chunk order, do not depend on it; alternating it over passes through
/// the same data lets each pass start on what the previous one left in the caches
/// (EventCache::next_sweep).
enum class SweepOrder : std::uint8_t {
    kForward,   ///< lowest chunk first
    kBackward,  ///< highest chunk first
};

/// A fixed set of worker threads that run chunked loops.
class ThreadPool {
public:
    /// A pool of `threads` workers in total (the caller counts as one); 0 means every
    /// hardware thread (at most kMaxThreads). BackendError when `threads` exceeds kMaxThreads or
    /// the system refuses to start a thread (the threads already started are joined first).
    explicit ThreadPool(std::size_t threads = 0);
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;
    ThreadPool(ThreadPool&&) = delete;
    ThreadPool& operator=(ThreadPool&&) = delete;
    ~ThreadPool();

    /// The number of workers, including the calling thread.
    [[nodiscard]] std::size_t size() const noexcept { return workers_.size() + 1; }

    /// Calls fn(chunk, worker) for every chunk in [0, n_chunks), each exactly once, spread over
    /// the workers (worker in [0, size())), each worker taking its share in `order`; returns
    /// when all are done. If calls throw, the exception of the lowest-numbered throwing chunk
    /// of those that ran is rethrown (chunks already claimed still finish; unclaimed ones are
    /// skipped).
    ///
    /// `meanwhile` (optional) runs on the calling thread once the other workers have the job,
    /// before the caller takes chunks (the others take the caller's share while it runs); its
    /// exception, if any, is rethrown once every chunk is done, ahead of a chunk's. The caller's
    /// share is the last one. `meanwhile` must not use this pool.
    void parallel_for_chunks(std::size_t n_chunks,
                             const std::function<void(std::size_t chunk, std::size_t worker)>& fn,
                             const std::function<void()>& meanwhile = {},
                             SweepOrder order = SweepOrder::kForward);

private:
    /// How long an idle thread watches for work before it sleeps.
    static constexpr std::chrono::microseconds kSpin{200};

    void worker_loop(std::size_t worker);
    void stop_and_join() noexcept;
    void run_chunks(std::size_t worker);
    /// The next unclaimed chunk of worker `owner`'s share, or n_chunks_ when none is left.
    std::size_t claim(std::size_t owner) noexcept;

    /// One worker's share of a job's chunks, [begin, end), on a cache line of its own; `taken`
    /// counts the chunks claimed from it (from `begin` up, or from `end` down when backward_).
    struct alignas(64) Share {
        std::atomic<std::size_t> taken{0};
        std::size_t begin = 0;
        std::size_t end = 0;
    };

    std::vector<std::thread> workers_;
    std::mutex job_mutex_;  ///< held for a whole parallel_for_chunks(): one job at a time
    std::mutex mutex_;      ///< guards the sleeping side of generation_/active_, and error_
    std::condition_variable start_;
    std::condition_variable done_;
    const std::function<void(std::size_t, std::size_t)>* job_ = nullptr;
    std::size_t n_chunks_ = 0;
    bool backward_ = false;                     ///< the current job's SweepOrder is kBackward
    std::unique_ptr<Share[]> shares_;           ///< one per worker (size())
    std::atomic<std::uint64_t> generation_{0};  ///< bumped per job (and on stop)
    std::atomic<std::size_t> active_{0};        ///< workers still in the current job
    std::atomic<int> caller_cpu_{-1};           ///< the CPU the current job's caller posted it from
    bool step_off_ = false;  ///< workers step off the caller's CPU (no more threads than CPUs)
    std::size_t error_chunk_ = 0;  ///< chunk of `error_`
    std::exception_ptr error_;
    std::atomic<bool> stop_{false};
};

}  // namespace laddu::runtime
