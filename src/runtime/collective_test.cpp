// collectively(): whatever one rank throws, every rank ends with the same error and none waits.
#include <future>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/runtime/collective.hpp>

#include "test_collective.hpp"

namespace laddu::runtime {
namespace {

using ::testing::HasSubstr;

struct Outcome {
    bool threw = false;
    ErrorKind kind = ErrorKind::kInternal;
    std::string message;
};

// Runs collectively() on `size` simulated ranks, rank r running step(r), then one more
// collective step (a gather) that a rank left behind would wait in forever.
std::vector<Outcome> run_ranks(int size, const std::function<void(int)>& step,
                               const std::function<std::uint64_t(int)>& fingerprint = {}) {
    testing::Hub hub(size);
    std::vector<std::future<Outcome>> futures;
    for (int rank = 0; rank < size; ++rank) {
        futures.push_back(std::async(std::launch::async, [&, rank] {
            const testing::TestCollective collective(hub, rank, testing::Partition::kContiguous);
            Outcome outcome;
            try {
                collectively(
                    &collective, [&] { step(rank); },
                    fingerprint ? fingerprint(rank) : Collective::kAnyFingerprint);
                static_cast<void>(collective.all_gather_chunks({}, 1, 0));
            } catch (const Error& error) {
                outcome = {true, error.kind(), error.what()};
            }
            return outcome;
        }));
    }
    std::vector<Outcome> outcomes;
    for (auto& f : futures) {
        EXPECT_EQ(f.wait_for(std::chrono::seconds(30)), std::future_status::ready)
            << "a rank is still waiting";
        outcomes.push_back(f.get());
    }
    return outcomes;
}

TEST(Collectively, ABadAllocOnOneRankEndsEveryRankWithTheError) {
    for (const Outcome& o : run_ranks(3, [](int rank) {
             if (rank == 1) {
                 throw std::bad_alloc();
             }
         })) {
        EXPECT_TRUE(o.threw);
        EXPECT_EQ(o.kind, ErrorKind::kInternal);
        EXPECT_THAT(o.message, HasSubstr("rank 1 of 3: std::bad_alloc"));
    }
}

TEST(Collectively, AnExceptionNotFromStdExceptionEndsEveryRank) {
    for (const Outcome& o : run_ranks(2, [](int rank) {
             if (rank == 0) {
                 throw 42;  // NOLINT(hicpp-exception-baseclass): what a foreign library may do
             }
         })) {
        EXPECT_TRUE(o.threw);
        EXPECT_THAT(o.message, HasSubstr("rank 0 of 2: an exception not derived from"));
    }
}

TEST(Collectively, ALadduErrorKeepsItsKindAndTheLowestFailingRankWins) {
    for (const Outcome& o : run_ranks(3, [](int rank) {
             if (rank == 2) {
                 throw DataError("bad file on rank 2");
             }
             if (rank == 1) {
                 throw EvaluationError("NaN on rank 1");
             }
         })) {
        EXPECT_TRUE(o.threw);
        EXPECT_EQ(o.kind, ErrorKind::kEvaluation);
        EXPECT_THAT(o.message, HasSubstr("rank 1 of 3: NaN on rank 1"));
    }
}

TEST(Collectively, DifferentFingerprintsAreABackendErrorOnEveryRank) {
    for (const Outcome& o :
         run_ranks(2, [](int) {}, [](int rank) { return static_cast<std::uint64_t>(rank + 1); })) {
        EXPECT_TRUE(o.threw);
        EXPECT_EQ(o.kind, ErrorKind::kBackend);
    }
}

TEST(Collectively, WithoutACollectiveItRunsTheStepAndPassesItsErrorOn) {
    int calls = 0;
    collectively(nullptr, [&] { ++calls; });
    EXPECT_EQ(calls, 1);
    EXPECT_THROW(collectively(nullptr, [] { throw DataError("x"); }), DataError);
}

}  // namespace
}  // namespace laddu::runtime
