#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/runtime/thread_pool.hpp>

#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace laddu::runtime {
namespace {

TEST(ThreadPool, RunsEveryChunkExactlyOnce) {
    for (const std::size_t threads : {1U, 2U, 4U}) {
        ThreadPool pool(threads);
        EXPECT_EQ(pool.size(), threads);
        for (int repeat = 0; repeat < 20; ++repeat) {
            std::vector<std::atomic<int>> hits(1000);
            std::atomic<std::size_t> max_worker{0};
            pool.parallel_for_chunks(hits.size(), [&](std::size_t chunk, std::size_t worker) {
                hits[chunk].fetch_add(1);
                std::size_t seen = max_worker.load();
                while (worker > seen && !max_worker.compare_exchange_weak(seen, worker)) {
                }
            });
            for (const auto& hit : hits) {
                ASSERT_EQ(hit.load(), 1);
            }
            EXPECT_LT(max_worker.load(), threads);
        }
    }
}

TEST(ThreadPool, EveryChunkCountIsCoveredOnceWhateverTheShares) {
    // Shares are [w n / W, (w + 1) n / W): counts below, at and above the worker count.
    for (const std::size_t threads : {2U, 3U, 4U}) {
        ThreadPool pool(threads);
        for (std::size_t n = 1; n <= 17; ++n) {
            std::vector<std::atomic<int>> hits(n);
            pool.parallel_for_chunks(
                n, [&](std::size_t chunk, std::size_t) { hits[chunk].fetch_add(1); });
            for (std::size_t c = 0; c < n; ++c) {
                ASSERT_EQ(hits[c].load(), 1) << threads << " threads, " << n << " chunks";
            }
        }
    }
}

TEST(ThreadPool, AWorkerTakesItsOwnShareFirstAndTheOthersTakeASlowOnesRest) {
    // The caller (worker 0) has the last share, chunks 8 .. 15, runs chunk 8 first and is slow
    // on it; worker 1 runs its own share, chunks 0 .. 7, and then takes what is left of the
    // caller's.
    ThreadPool pool(2);
    std::vector<std::size_t> ran_by(16, 99);
    std::vector<std::size_t> order_of_worker1;
    std::mutex mutex;
    pool.parallel_for_chunks(16, [&](std::size_t chunk, std::size_t worker) {
        if (chunk == 8) {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
        const std::lock_guard lock(mutex);
        ran_by[chunk] = worker;
        if (worker == 1) {
            order_of_worker1.push_back(chunk);
        }
    });
    EXPECT_EQ(ran_by[8], 0U);
    ASSERT_GE(order_of_worker1.size(), 9U);  // its 8 and at least one of the caller's
    for (std::size_t k = 0; k < 8; ++k) {
        EXPECT_EQ(order_of_worker1[k], k);
    }
    for (std::size_t k = 8; k < order_of_worker1.size(); ++k) {
        EXPECT_GT(order_of_worker1[k], 8U);
    }
}

TEST(ThreadPool, ABackwardSweepTakesEachShareFromItsLastChunkDown) {
    for (const std::size_t threads : {1U, 2U, 3U}) {
        ThreadPool pool(threads);
        for (std::size_t n = 1; n <= 13; ++n) {
            std::vector<std::atomic<int>> hits(n);
            std::vector<std::vector<std::size_t>> order(threads);
            std::mutex mutex;
            pool.parallel_for_chunks(
                n,
                [&](std::size_t chunk, std::size_t worker) {
                    hits[chunk].fetch_add(1);
                    const std::lock_guard lock(mutex);
                    order[worker].push_back(chunk);
                },
                {}, SweepOrder::kBackward);
            for (std::size_t c = 0; c < n; ++c) {
                ASSERT_EQ(hits[c].load(), 1) << threads << " threads, " << n << " chunks";
            }
            // Worker w owns share (w + W - 1) mod W, [s n / W, (s + 1) n / W), and claims it
            // from the top; another worker that helps claims from the top too, so what the
            // owner runs of its share is descending. Alone, it runs all of it, n - 1 first.
            for (std::size_t w = 0; w < threads; ++w) {
                const std::size_t share = (w + threads - 1) % threads;
                const std::size_t begin = share * n / threads;
                const std::size_t end = (share + 1) * n / threads;
                std::vector<std::size_t> own;
                std::copy_if(order[w].begin(), order[w].end(), std::back_inserter(own),
                             [&](std::size_t chunk) { return chunk >= begin && chunk < end; });
                EXPECT_TRUE(std::is_sorted(own.rbegin(), own.rend()) &&
                            std::adjacent_find(own.begin(), own.end()) == own.end())
                    << threads << " threads, " << n << " chunks";
            }
            if (threads == 1) {
                for (std::size_t k = 0; k < n; ++k) {
                    EXPECT_EQ(order[0][k], n - 1 - k);
                }
            }
        }
    }
}

TEST(ThreadPool, MeanwhileRunsOnTheCallerWhileTheOthersTakeItsShare) {
    ThreadPool pool(2);
    std::vector<std::size_t> ran_by(16, 99);
    std::mutex mutex;
    std::thread::id meanwhile_thread;
    pool.parallel_for_chunks(
        16,
        [&](std::size_t chunk, std::size_t worker) {
            const std::lock_guard lock(mutex);
            ran_by[chunk] = worker;
        },
        [&] {
            meanwhile_thread = std::this_thread::get_id();
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        });
    EXPECT_EQ(meanwhile_thread, std::this_thread::get_id());
    EXPECT_EQ(std::count(ran_by.begin(), ran_by.end(), 1U), 16)
        << "the other worker took the caller's share while it was busy";
    for (const std::size_t threads : {std::size_t{1}, std::size_t{2}}) {
        ThreadPool small(threads);
        std::atomic<int> count{0};
        try {
            small.parallel_for_chunks(
                8,
                [&](std::size_t chunk, std::size_t /*worker*/) {
                    ++count;
                    if (chunk == 3) {
                        throw std::runtime_error("chunk 3");
                    }
                },
                [] { throw std::runtime_error("meanwhile"); });
            FAIL() << "expected an exception";
        } catch (const std::runtime_error& error) {
            EXPECT_STREQ(error.what(), "meanwhile") << threads << " threads";
        }
        // Without chunks it still runs.
        bool ran = false;
        small.parallel_for_chunks(0, [](std::size_t, std::size_t) {}, [&] { ran = true; });
        EXPECT_TRUE(ran);
    }
}

TEST(ThreadPool, RethrowsTheLowestThrowingChunk) {
    ThreadPool pool(4);
    try {
        pool.parallel_for_chunks(64, [](std::size_t chunk, std::size_t /*worker*/) {
            if (chunk == 0 || chunk == 40) {
                throw std::runtime_error("chunk " + std::to_string(chunk));
            }
        });
        FAIL() << "expected an exception";
    } catch (const std::runtime_error& error) {
        EXPECT_STREQ(error.what(), "chunk 0");
    }
    // The pool still works afterwards.
    std::atomic<int> count{0};
    pool.parallel_for_chunks(10, [&](std::size_t, std::size_t) { ++count; });
    EXPECT_EQ(count.load(), 10);
}

// A thread on its caller's CPU moves to another one it may use, and keeps its affinity; a
// thread elsewhere, or one allowed a single CPU, stays.
TEST(ThreadPool, AWorkerBesideItsCallerStepsOffItsCpu) {
    cpu_set_t original;
    ASSERT_EQ(sched_getaffinity(0, sizeof(original), &original), 0);
    if (CPU_COUNT(&original) < 2) {
        GTEST_SKIP() << "needs two CPUs";
    }
    std::thread([&] {
        const int here = sched_getcpu();
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(static_cast<std::size_t>(here), &one);
        // Allowed one CPU: nowhere to go.
        ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
        detail::step_off_cpu(here);
        EXPECT_EQ(sched_getcpu(), here);
        // Allowed them all again but still on `here` (widening never moves a thread).
        ASSERT_EQ(sched_setaffinity(0, sizeof(original), &original), 0);
        detail::step_off_cpu(-1);
        detail::step_off_cpu(here + 1 == CPU_SETSIZE ? 0 : here + 1);  // another CPU's caller
        detail::step_off_cpu(here);
        EXPECT_NE(sched_getcpu(), here);
        cpu_set_t after;
        ASSERT_EQ(sched_getaffinity(0, sizeof(after), &after), 0);
        EXPECT_TRUE(CPU_EQUAL(&after, &original));
    }).join();
}

TEST(ThreadPool, ZeroChunksIsANoOp) {
    ThreadPool pool(2);
    pool.parallel_for_chunks(0, [](std::size_t, std::size_t) { FAIL(); });
}

}  // namespace
}  // namespace laddu::runtime

namespace laddu::runtime {
namespace {

TEST(ThreadPoolConcurrency, CallersOnSeveralThreadsShareOnePoolSafely) {
    ThreadPool pool(2);
    std::vector<std::thread> callers;
    std::vector<std::size_t> sums(4, 0);
    for (std::size_t c = 0; c < sums.size(); ++c) {
        callers.emplace_back([&pool, &sums, c] {
            for (int repeat = 0; repeat < 50; ++repeat) {
                std::vector<std::size_t> seen(64, 0);
                pool.parallel_for_chunks(
                    seen.size(), [&](std::size_t chunk, std::size_t) { seen[chunk] += chunk + 1; });
                for (const std::size_t s : seen) {
                    sums[c] += s;
                }
            }
        });
    }
    for (std::thread& t : callers) {
        t.join();
    }
    for (const std::size_t s : sums) {
        EXPECT_EQ(s, 50U * 64U * 65U / 2U);  // every chunk exactly once per call
    }
}

}  // namespace
}  // namespace laddu::runtime

namespace laddu::runtime {
namespace {

// The value of a "Key:" line of /proc/self/status (0 when absent).
std::size_t status_field(const std::string& key) {
    std::ifstream in("/proc/self/status");
    std::string word;
    while (in >> word) {
        if (word == key) {
            std::size_t value = 0;
            in >> value;
            return value;
        }
    }
    return 0;
}

TEST(ThreadPoolLimits, MoreThanTheMaximumIsABackendErrorNamingTheLimit) {
    try {
        const ThreadPool pool(kMaxThreads + 1);
        FAIL() << "expected BackendError";
    } catch (const BackendError& e) {
        EXPECT_NE(std::string(e.what()).find("cannot run 1025 threads: at most 1024"),
                  std::string::npos)
            << e.what();
    }
}

// The system refuses a thread part way: a child process whose address space is capped at what
// it uses plus 64 MiB (RLIMIT_AS; thread stacks are 8 MiB) asks for 1000 threads. The pool must
// throw BackendError naming the count, after joining the threads it started (the child is left
// with its one thread), within seconds: an alarm kills a child that hangs.
TEST(ThreadPoolLimits, AThreadTheSystemRefusesIsABackendErrorAndNoThreadIsLeft) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "sanitizers reserve more address space than RLIMIT_AS would allow";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
    GTEST_SKIP() << "sanitizers reserve more address space than RLIMIT_AS would allow";
#endif
#endif
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ::alarm(60);
        const std::size_t used_kib = status_field("VmSize:");
        const rlim_t cap = (used_kib + 64 * 1024) * 1024;
        const rlimit limit{cap, cap};
        if (used_kib == 0 || ::setrlimit(RLIMIT_AS, &limit) != 0) {
            std::_Exit(10);
        }
        try {
            const ThreadPool pool(1000);
            std::_Exit(11);  // every thread started: the limit did not bite
        } catch (const BackendError& e) {
            const std::string message = e.what();
            if (message.find("of the 1000 requested") == std::string::npos ||
                message.find("request fewer threads") == std::string::npos) {
                std::_Exit(12);
            }
        } catch (...) {
            std::_Exit(13);
        }
        std::_Exit(status_field("Threads:") == 1 ? 0 : 14);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status)
                                   << " (SIGALRM: it hung; SIGABRT: it aborted)";
    EXPECT_EQ(WEXITSTATUS(status), 0) << "10: setrlimit, 11: no failure, 12: message, 13: type, "
                                         "14: threads left running";
}

}  // namespace
}  // namespace laddu::runtime
