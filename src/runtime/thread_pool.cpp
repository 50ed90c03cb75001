#include <algorithm>
#include <exception>
#include <utility>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/runtime/thread_pool.hpp>

#include <sched.h>

namespace laddu::runtime {

ThreadPool::ThreadPool(std::size_t threads) {
    const std::size_t total =
        threads > 0 ? threads
                    : std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, kMaxThreads);
    if (total > kMaxThreads) {
        throw BackendError(fmt::format("cannot run {} threads: at most {} are allowed; request "
                                       "fewer (the hardware has {})",
                                       total, kMaxThreads, std::thread::hardware_concurrency()));
    }
    shares_ = std::make_unique<Share[]>(total);
    // Stepping off the caller's CPU only helps while every thread can have a CPU of its own; an
    // oversubscribed pool would only move its workers around.
    cpu_set_t allowed;
    step_off_ = total > 1 && sched_getaffinity(0, sizeof(allowed), &allowed) == 0 &&
                total <= static_cast<std::size_t>(CPU_COUNT(&allowed));
    workers_.reserve(total - 1);
    try {
        for (std::size_t worker = 1; worker < total; ++worker) {
            workers_.emplace_back([this, worker] { worker_loop(worker); });
        }
    } catch (const std::exception& e) {
        // std::system_error (EAGAIN: a thread or memory limit) or std::bad_alloc. The workers
        // already started wait on start_; without this they would keep the process alive (or
        // abort it, as joinable std::threads are destroyed).
        const std::size_t started = workers_.size() + 1;
        stop_and_join();
        throw BackendError(fmt::format("cannot start thread {} of the {} requested: {}; request "
                                       "fewer threads (--threads, Execution::threads) or raise "
                                       "the process's thread or memory limit (ulimit -u, -v)",
                                       started + 1, total, e.what()));
    }
}

ThreadPool::~ThreadPool() {
    stop_and_join();
}

void ThreadPool::stop_and_join() noexcept {
    {
        const std::lock_guard lock(mutex_);
        stop_.store(true, std::memory_order_release);
        generation_.fetch_add(1, std::memory_order_acq_rel);
    }
    start_.notify_all();
    for (std::thread& thread : workers_) {
        thread.join();
    }
    workers_.clear();
}

namespace {

// Spins while `busy()` for at most `limit`, pausing the core between looks (and yielding it
// after the first few hundred, so an oversubscribed host still makes progress). True when
// `busy()` became false.
template <typename Busy>
bool spin_while(Busy busy, std::chrono::microseconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    for (std::uint32_t i = 1;; ++i) {
        if (!busy()) {
            return true;
        }
        if (i < 256) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        } else {
            std::this_thread::yield();
        }
        if (i % 64 == 0 && std::chrono::steady_clock::now() > until) {
            return !busy();
        }
    }
}

}  // namespace

namespace detail {

// A worker that finds itself on the CPU its caller posted the job from (the scheduler places a
// woken thread beside its waker) moves to another CPU the process may use: while both threads
// stay runnable on one CPU they only take turns, and the caller ends up doing every chunk at
// half speed. On this project's 2-vCPU VM that happened in 8 of 10 processes at the start of a
// run of 10,000-event NLL values on 2 threads (56-66 µs a value instead of 26), for hundreds of
// calls, until the load balancer split them. Narrowing the thread's affinity to the other CPUs
// migrates it at once; the original affinity is restored right after, so later balancing is
// free again.
void step_off_cpu(int caller_cpu) noexcept {
    if (caller_cpu < 0 || sched_getcpu() != caller_cpu) {
        return;
    }
    const auto cpu = static_cast<std::size_t>(caller_cpu);
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0 || CPU_COUNT(&allowed) < 2 ||
        !CPU_ISSET(cpu, &allowed)) {
        return;
    }
    cpu_set_t others = allowed;
    CPU_CLR(cpu, &others);
    if (sched_setaffinity(0, sizeof(others), &others) == 0) {
        (void)sched_setaffinity(0, sizeof(allowed), &allowed);
    }
}

}  // namespace detail

std::size_t ThreadPool::claim(std::size_t owner) noexcept {
    Share& share = shares_[owner];
    const std::size_t size = share.end - share.begin;
    if (share.taken.load(std::memory_order_relaxed) >= size) {
        return n_chunks_;
    }
    const std::size_t k = share.taken.fetch_add(1, std::memory_order_relaxed);
    if (k >= size) {
        return n_chunks_;
    }
    return backward_ ? share.end - 1 - k : share.begin + k;
}

// Each worker first takes the chunks of its own share, in the job's order, then helps the others
// with theirs. Worker w's share is the same contiguous range on every call with the same chunk
// count, so a worker keeps reading the events it read last time, which its core's cache may
// still hold (the whole K-matrix cache of 10,000 events is 2.4 MB, one core's L2 1 MiB), and
// a worker that starts late or runs slow still has its chunks taken by the others.
void ThreadPool::run_chunks(std::size_t worker) {
    const std::size_t workers = size();
    while (true) {
        std::size_t chunk = claim(worker);
        for (std::size_t k = 1; chunk >= n_chunks_ && k < workers; ++k) {
            chunk = claim((worker + k) % workers);
        }
        if (chunk >= n_chunks_) {
            return;
        }
        try {
            (*job_)(chunk, worker);
        } catch (...) {
            const std::lock_guard lock(mutex_);
            if (!error_ || chunk < error_chunk_) {
                error_ = std::current_exception();
                error_chunk_ = chunk;
            }
            for (std::size_t w = 0; w < size(); ++w) {
                shares_[w].taken.store(n_chunks_, std::memory_order_relaxed);
            }
        }
    }
}

void ThreadPool::worker_loop(std::size_t worker) {
    std::uint64_t seen = 0;
    while (true) {
        const auto idle = [&] {
            return generation_.load(std::memory_order_acquire) == seen;
        };
        if (!spin_while(idle, kSpin)) {
            std::unique_lock lock(mutex_);
            start_.wait(lock, [&] { return !idle(); });
        }
        if (stop_.load(std::memory_order_acquire)) {
            return;
        }
        seen = generation_.load(std::memory_order_acquire);
        // -1 (nothing to do) unless the pool steps off (parallel_for_chunks).
        detail::step_off_cpu(caller_cpu_.load(std::memory_order_relaxed));
        run_chunks(worker);
        if (active_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            // The caller may be asleep on done_: take the lock so the wake cannot slip between
            // its check and its wait.
            const std::lock_guard lock(mutex_);
            done_.notify_one();
        }
    }
}

void ThreadPool::parallel_for_chunks(
    std::size_t n_chunks, const std::function<void(std::size_t chunk, std::size_t worker)>& fn,
    const std::function<void()>& meanwhile, SweepOrder order) {
    if (n_chunks == 0) {
        if (meanwhile) {
            meanwhile();
        }
        return;
    }
    // One job at a time: callers on other threads (Python threads sharing a likelihood) wait
    // here instead of overwriting the running job.
    const std::lock_guard job_lock(job_mutex_);
    job_ = &fn;
    n_chunks_ = n_chunks;
    backward_ = order == SweepOrder::kBackward;
    // The caller (worker 0) takes the last share, which holds the range's last, often partial,
    // chunk: it is the one that also runs `meanwhile` and merges afterwards.
    for (std::size_t w = 0, workers = size(); w < workers; ++w) {
        const std::size_t share = (w + workers - 1) % workers;
        shares_[w].taken.store(0, std::memory_order_relaxed);
        shares_[w].begin = share * n_chunks / workers;
        shares_[w].end = (share + 1) * n_chunks / workers;
    }
    error_ = nullptr;
    active_.store(workers_.size(), std::memory_order_relaxed);
    caller_cpu_.store(step_off_ ? sched_getcpu() : -1, std::memory_order_relaxed);
    {
        // Under the lock, so a worker about to sleep on start_ sees the new generation.
        const std::lock_guard lock(mutex_);
        generation_.fetch_add(1, std::memory_order_acq_rel);
    }
    start_.notify_all();
    std::exception_ptr meanwhile_error;
    if (meanwhile) {
        try {
            meanwhile();
        } catch (...) {
            meanwhile_error = std::current_exception();
        }
    }
    run_chunks(0);
    const auto working = [&] {
        return active_.load(std::memory_order_acquire) != 0;
    };
    if (!spin_while(working, kSpin)) {
        std::unique_lock lock(mutex_);
        done_.wait(lock, [&] { return !working(); });
    }
    job_ = nullptr;
    const std::exception_ptr error = std::exchange(error_, nullptr);
    if (meanwhile_error) {
        std::rethrow_exception(meanwhile_error);
    }
    if (error) {
        std::rethrow_exception(error);
    }
}

}  // namespace laddu::runtime
