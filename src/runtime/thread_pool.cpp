#include <algorithm>
#include <exception>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/runtime/thread_pool.hpp>

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
        stop_ = true;
    }
    start_.notify_all();
    for (std::thread& thread : workers_) {
        thread.join();
    }
    workers_.clear();
}

// Chunks are claimed one at a time under the mutex: chunks are thousands of events, so the
// lock is taken rarely and keeps the bookkeeping obvious.
void ThreadPool::run_chunks(std::size_t worker) {
    while (true) {
        std::size_t chunk = 0;
        {
            const std::lock_guard lock(mutex_);
            if (next_chunk_ >= n_chunks_) {
                return;
            }
            chunk = next_chunk_++;
        }
        try {
            (*job_)(chunk, worker);
        } catch (...) {
            const std::lock_guard lock(mutex_);
            if (!error_ || chunk < error_chunk_) {
                error_ = std::current_exception();
                error_chunk_ = chunk;
            }
            next_chunk_ = n_chunks_;
        }
    }
}

void ThreadPool::worker_loop(std::size_t worker) {
    std::size_t seen = 0;
    while (true) {
        {
            std::unique_lock lock(mutex_);
            start_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) {
                return;
            }
            seen = generation_;
        }
        run_chunks(worker);
        {
            const std::lock_guard lock(mutex_);
            --active_;
        }
        done_.notify_one();
    }
}

void ThreadPool::parallel_for_chunks(
    std::size_t n_chunks, const std::function<void(std::size_t chunk, std::size_t worker)>& fn) {
    if (n_chunks == 0) {
        return;
    }
    // One job at a time: callers on other threads (Python threads sharing a likelihood) wait
    // here instead of overwriting the running job.
    const std::lock_guard job_lock(job_mutex_);
    {
        const std::lock_guard lock(mutex_);
        job_ = &fn;
        n_chunks_ = n_chunks;
        next_chunk_ = 0;
        error_ = nullptr;
        active_ = workers_.size();
        ++generation_;
    }
    start_.notify_all();
    run_chunks(0);
    std::exception_ptr error;
    {
        std::unique_lock lock(mutex_);
        done_.wait(lock, [&] { return active_ == 0; });
        job_ = nullptr;
        error = error_;
        error_ = nullptr;
    }
    if (error) {
        std::rethrow_exception(error);
    }
}

}  // namespace laddu::runtime
