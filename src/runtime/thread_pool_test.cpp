#include <atomic>
#include <stdexcept>
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
