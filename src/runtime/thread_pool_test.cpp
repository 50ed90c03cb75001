#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/runtime/thread_pool.hpp>

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
