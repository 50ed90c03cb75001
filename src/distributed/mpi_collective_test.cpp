// Run under mpirun -np 1, 2 and 3 with distributed_mpi_test.cpp's main: MpiCollective owns
// whole chunks as partition_events() says, gathers records into global chunk order, and turns
// a failure on one rank into the same error on every rank, quickly.
#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/distributed/mpi_collective.hpp>
#include <laddu/runtime/collective.hpp>
#include <laddu/runtime/reduce.hpp>

namespace laddu::distributed {
namespace {

constexpr std::size_t kChunk = runtime::kReductionChunk;
constexpr double kSecondsBound = 10.0;  // a hang would hit ctest's timeout instead

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The record a test puts for value k of chunk c: unique, so any misplacement shows.
double record_value(std::size_t chunk, std::size_t k) {
    return static_cast<double>(chunk) * 100.0 + static_cast<double>(k) + 0.5;
}

TEST(MpiCollective, OwnsWhatPartitionEventsSays) {
    const MpiContext& world = MpiContext::world();
    const std::size_t events = 10 * kChunk + 7;
    const std::vector<std::size_t> fragments{3 * kChunk, 100, 5 * kChunk, 2 * kChunk - 93};
    for (const Partitioning p :
         {Partitioning::kContiguous, Partitioning::kRows, Partitioning::kFileGroups}) {
        const MpiCollective collective(world, p);
        EXPECT_EQ(collective.rank(), world.rank());
        EXPECT_EQ(collective.size(), world.size());
        EXPECT_EQ(collective.owned_chunks(events, fragments),
                  partition_events(events, world.rank(), world.size(), p, fragments).chunks);
    }
    // Without fragment sizes, or with one fragment, file_groups deals contiguous runs.
    const MpiCollective groups(world, Partitioning::kFileGroups);
    const std::vector<std::size_t> contiguous =
        partition_events(events, world.rank(), world.size(), Partitioning::kContiguous).chunks;
    EXPECT_EQ(groups.owned_chunks(events, {}), contiguous);
    EXPECT_EQ(groups.owned_chunks(events, std::vector<std::size_t>{events}), contiguous);
    EXPECT_THROW((void)groups.owned_chunks(events, std::vector<std::size_t>{kChunk}), DataError);
    EXPECT_EQ(mpi_collective(Partitioning::kRows)->size(), world.size());
}

TEST(MpiCollective, GivenFragmentsReplaceTheDatasets) {
    const MpiContext& world = MpiContext::world();
    const std::size_t events = 10 * kChunk + 7;
    const std::vector<std::size_t> fragments{3 * kChunk, 100, 5 * kChunk, 2 * kChunk - 93};
    const MpiCollective given(world, Partitioning::kFileGroups, fragments);
    EXPECT_EQ(given.fragments(), fragments);
    const std::vector<std::size_t> expected =
        partition_events(events, world.rank(), world.size(), Partitioning::kFileGroups, fragments)
            .chunks;
    EXPECT_EQ(given.owned_chunks(events, {}), expected);
    EXPECT_EQ(given.owned_chunks(events, std::vector<std::size_t>{events}), expected);
    EXPECT_EQ(mpi_collective(Partitioning::kFileGroups, fragments)->owned_chunks(events, {}),
              expected);
    // They must describe the dataset, whatever the partitioning.
    for (const Partitioning p :
         {Partitioning::kContiguous, Partitioning::kRows, Partitioning::kFileGroups}) {
        const MpiCollective wrong(world, p, fragments);
        EXPECT_THROW((void)wrong.owned_chunks(events + 1, {}), DataError);
    }
}

TEST(MpiCollective, GathersRecordsInGlobalChunkOrderForEveryPartitioning) {
    const MpiContext& world = MpiContext::world();
    const std::size_t events = 10 * kChunk + 7;  // 11 chunks
    const std::vector<std::size_t> fragments{3 * kChunk, 100, 5 * kChunk, 2 * kChunk - 93};
    for (const Partitioning p :
         {Partitioning::kContiguous, Partitioning::kRows, Partitioning::kFileGroups}) {
        for (const std::size_t width : {std::size_t{1}, std::size_t{5}}) {
            const MpiCollective collective(world, p);
            const std::vector<std::size_t> mine = collective.owned_chunks(events, fragments);
            std::vector<double> local;
            for (const std::size_t c : mine) {
                for (std::size_t k = 0; k < width; ++k) {
                    local.push_back(record_value(c, k));
                }
            }
            const std::vector<double> all = collective.all_gather_chunks(local, width, 11);
            ASSERT_EQ(all.size(), 11 * width);
            for (std::size_t c = 0; c < 11; ++c) {
                for (std::size_t k = 0; k < width; ++k) {
                    EXPECT_EQ(all[c * width + k], record_value(c, k))
                        << "partitioning " << static_cast<int>(p) << " chunk " << c;
                }
            }
        }
    }
}

TEST(MpiCollective, RanksWithoutChunksTakePartInTheGather) {
    const MpiContext& world = MpiContext::world();
    const MpiCollective collective(world, Partitioning::kContiguous);
    const std::vector<std::size_t> mine = collective.owned_chunks(10, {});  // one chunk
    EXPECT_EQ(mine.size(), world.is_root() ? 1U : 0U);
    const std::vector<double> local(mine.size() * 2, 7.0);
    EXPECT_EQ(collective.all_gather_chunks(local, 2, 1), (std::vector<double>{7.0, 7.0}));
}

TEST(MpiCollective, CheckAllPassesWhenEveryRankIsOk) {
    const MpiCollective collective(MpiContext::world());
    EXPECT_NO_THROW(collective.check_all(true, ErrorKind::kData, "unused"));
}

TEST(MpiCollective, CheckAllRaisesTheLowestFailingRanksErrorOnEveryRank) {
    const MpiContext& world = MpiContext::world();
    const MpiCollective collective(world);
    const int last = world.size() - 1;
    // The last rank fails with a DataError; when there are two or more ranks, rank 1 fails too
    // with an EvaluationError, and being lower it wins unless it is the last.
    const bool fails = world.rank() == last || world.rank() == 1;
    const ErrorKind kind = world.rank() == last ? ErrorKind::kData : ErrorKind::kEvaluation;
    const int expected_rank = world.size() >= 3 ? 1 : last;
    const auto start = std::chrono::steady_clock::now();
    try {
        collective.check_all(!fails, kind, "message of rank " + std::to_string(world.rank()));
        FAIL() << "rank " << world.rank() << " did not raise";
    } catch (const Error& error) {
        EXPECT_EQ(error.kind(), expected_rank == last ? ErrorKind::kData : ErrorKind::kEvaluation);
        const std::string expected = "rank " + std::to_string(expected_rank) + " of " +
                                     std::to_string(world.size()) + ": message of rank " +
                                     std::to_string(expected_rank);
        EXPECT_EQ(std::string(error.what()), expected);
    }
    EXPECT_LT(seconds_since(start), kSecondsBound);
}

TEST(MpiCollective, CollectivelyTurnsAThrowOnOneRankIntoTheSameErrorEverywhere) {
    const MpiContext& world = MpiContext::world();
    const MpiCollective collective(world);
    const auto start = std::chrono::steady_clock::now();
    try {
        runtime::collectively(&collective, [&] {
            if (world.rank() == world.size() - 1) {
                throw FitError("no minimum here");
            }
        });
        FAIL() << "rank " << world.rank() << " did not raise";
    } catch (const FitError& error) {
        EXPECT_NE(std::string(error.what()).find("no minimum here"), std::string::npos);
    }
    EXPECT_LT(seconds_since(start), kSecondsBound);
}

TEST(MpiCollective, AWrongRecordCountOnOneRankFailsTheGatherOnEveryRank) {
    const MpiContext& world = MpiContext::world();
    const MpiCollective collective(world, Partitioning::kRows);
    const std::size_t chunks = 5;
    const std::vector<std::size_t> mine = collective.owned_chunks(chunks * kChunk, {});
    std::vector<double> local(mine.size() * 3, 1.0);
    if (world.rank() == world.size() - 1) {
        local.push_back(2.0);  // not a whole record
    }
    const auto start = std::chrono::steady_clock::now();
    try {
        (void)collective.all_gather_chunks(local, 3, chunks);
        FAIL() << "rank " << world.rank() << " did not raise";
    } catch (const InternalError& error) {
        EXPECT_NE(std::string(error.what()).find("not whole records"), std::string::npos)
            << error.what();
        EXPECT_NE(std::string(error.what()).find("rank " + std::to_string(world.size() - 1)),
                  std::string::npos)
            << error.what();
    }
    EXPECT_LT(seconds_since(start), kSecondsBound);
}

TEST(MpiCollective, AmbiguousFileGroupLayoutsFailOnEveryRank) {
    const MpiContext& world = MpiContext::world();
    if (world.size() < 2) {
        GTEST_SKIP() << "one rank owns every chunk of every layout";
    }
    const MpiCollective collective(world, Partitioning::kFileGroups);
    // Four chunks: in two fragments of two chunks, or in four fragments of one. Rank 0 owns two
    // chunks in both, but different ones ({0, 1} against {0, 2} or {0, 3}).
    const std::vector<std::size_t> pairs{2 * kChunk, 2 * kChunk};
    const std::vector<std::size_t> singles{kChunk, kChunk, kChunk, kChunk};
    const std::vector<std::size_t> first = collective.owned_chunks(4 * kChunk, pairs);
    (void)collective.owned_chunks(4 * kChunk, singles);
    const std::vector<double> local(first.size(), 1.0);
    EXPECT_THROW((void)collective.all_gather_chunks(local, 1, 4), BackendError);
}

}  // namespace
}  // namespace laddu::distributed
