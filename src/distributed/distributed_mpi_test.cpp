// Run under mpirun -np 1, 2 and 3 (see CMakeLists.txt): a PreparedModel prepared with an
// MpiCollective must reduce to the single-process PreparedModel bit for bit, for every
// partitioning, and a failure on one rank, whatever it throws, must raise on every rank.
#include <chrono>
#include <cmath>
#include <complex>
#include <functional>
#include <memory>
#include <new>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/data/event_source.hpp>
#include <laddu/distributed/mpi_collective.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/likelihood/nll.hpp>
#include <laddu/runtime/prepared_model.hpp>
#include <laddu/runtime/reduce.hpp>

namespace laddu::distributed {
namespace {

using expr::Expr;

constexpr std::size_t kEvents =
    21 * runtime::kReductionChunk + 234;  // 21 whole chunks and a partial one
constexpr double kSecondsBound = 10.0;    // a hang would hit ctest's timeout instead

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Fixture {
    std::vector<double> x, y, w;
    data::Dataset dataset;
    compile::CompiledModel compiled;
    std::vector<double> params{0.8, -0.3, 0.5, 1.2};
};

// |c0 e^{ix} + c1 e^{2iy} (x y + 0.5)|² + 0.05.
expr::Model fixture_model() {
    const Expr x = expr::scalar("x");
    const Expr y = expr::scalar("y");
    const Expr c0 = expr::complex(expr::parameter("a0"), expr::parameter("b0"));
    const Expr c1 = expr::complex(expr::parameter("a1"), expr::parameter("b1"));
    const Expr amplitude = c0 * expr::cis(x) + c1 * expr::cis(2.0 * y) * (x * y + 0.5);
    return expr::Model(expr::norm_sqr(amplitude) + 0.05);
}

Fixture make_fixture() {
    Fixture f;
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (std::size_t i = 0; i < kEvents; ++i) {
        f.x.push_back(u(rng));
        f.y.push_back(u(rng));
        f.w.push_back(1.0 + 0.5 * u(rng));
    }
    const std::vector<data::ScalarInput> scalars{{"x", f.x}, {"y", f.y}};
    f.dataset = data::Dataset::from_arrays(std::span<const data::P4Input>{}, scalars, f.w);
    f.compiled = compile::compile_model(fixture_model());
    return f;
}

runtime::Execution serial() {
    runtime::Execution execution;
    execution.threads = 1;
    return execution;
}

// `execution` spread over the ranks of MPI_COMM_WORLD.
runtime::Execution over_ranks(runtime::Execution execution, Partitioning partitioning,
                              std::vector<std::size_t> fragments = {}) {
    execution.collective = mpi_collective(partitioning, std::move(fragments));
    return execution;
}

// A source over a dataset that runs `on_read` before each read: a failure of a rank's own (out
// of memory, a reader from another library) inside the collective steps that read events.
class FailingSource final : public data::EventSource {
public:
    FailingSource(const data::Dataset& dataset, std::function<void()> on_read)
        : inner_(data::EventData(dataset).source()), on_read_(std::move(on_read)) {}

    [[nodiscard]] const data::Schema& schema() const override { return inner_->schema(); }

    [[nodiscard]] std::uint64_t num_events() const override { return inner_->num_events(); }

    [[nodiscard]] std::unique_ptr<data::BatchStream>
    read(const data::ReadPlan& plan) const override {
        on_read_();
        return inner_->read(plan);
    }

    [[nodiscard]] std::vector<std::size_t> fragment_sizes() const override {
        return inner_->fragment_sizes();
    }

private:
    std::shared_ptr<const data::EventSource> inner_;
    std::function<void()> on_read_;
};

// A thrown type outside every exception hierarchy.
struct NotAnException {};

bool is_last_rank() {
    const MpiContext& world = MpiContext::world();
    return world.rank() == world.size() - 1;
}

// Expects `error` to be the last rank's failure, as every rank must raise it.
void expect_last_ranks(const InternalError& error, const std::string& what) {
    const MpiContext& world = MpiContext::world();
    const std::string message = error.what();
    EXPECT_NE(message.find("rank " + std::to_string(world.size() - 1) + " of " +
                           std::to_string(world.size())),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(what), std::string::npos) << message;
}

TEST(Distributed, ReductionsAreBitIdenticalToOneProcessForEveryPartitioning) {
    const Fixture f = make_fixture();
    const auto single = runtime::PreparedModel::prepare(f.compiled, f.dataset, serial());
    const double expected = single.reduce(f.params, runtime::ReductionTransform::kLogPositiveReal);
    const runtime::Evaluation expected_gradient =
        single.reduce_with_gradient(f.params, runtime::ReductionTransform::kLogPositiveReal);
    const std::vector<std::size_t> fragments{5000, 7000, 3000, kEvents - 15000};
    for (const Partitioning partitioning :
         {Partitioning::kContiguous, Partitioning::kRows, Partitioning::kFileGroups}) {
        const auto model = runtime::PreparedModel::prepare(
            f.compiled, f.dataset, over_ranks(serial(), partitioning, fragments));
        EXPECT_EQ(model.events(), kEvents);
        EXPECT_EQ(model.reduce(f.params, runtime::ReductionTransform::kLogPositiveReal), expected)
            << "partitioning " << static_cast<int>(partitioning);
        EXPECT_EQ(
            model.reduce_with_gradient(f.params, runtime::ReductionTransform::kLogPositiveReal),
            expected_gradient)
            << "partitioning " << static_cast<int>(partitioning);
    }
}

TEST(Distributed, ThreadsInsideRanksDoNotChangeABit) {
    const Fixture f = make_fixture();
    const auto single = runtime::PreparedModel::prepare(f.compiled, f.dataset, serial());
    runtime::Execution two;
    two.threads = 2;
    const auto model = runtime::PreparedModel::prepare(f.compiled, f.dataset,
                                                       over_ranks(two, Partitioning::kRows));
    EXPECT_EQ(model.reduce(f.params, runtime::ReductionTransform::kReal),
              single.reduce(f.params, runtime::ReductionTransform::kReal));
}

TEST(Distributed, AFailureOnOneRankRaisesOnEveryRank) {
    const Fixture f = make_fixture();
    const MpiContext& world = MpiContext::world();
    // The last rank gets a dataset without the column "y".
    const std::vector<data::ScalarInput> only_x{{"x", f.x}};
    const data::Dataset broken =
        data::Dataset::from_arrays(std::span<const data::P4Input>{}, only_x, f.w);
    const data::Dataset& mine = world.rank() == world.size() - 1 ? broken : f.dataset;
    try {
        (void)runtime::PreparedModel::prepare(f.compiled, mine,
                                              over_ranks(serial(), Partitioning::kContiguous));
        FAIL() << "rank " << world.rank() << " did not raise";
    } catch (const DataError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("rank " + std::to_string(world.size() - 1)), std::string::npos)
            << message;
        EXPECT_NE(message.find("[y]"), std::string::npos) << message;
    }
}

TEST(Distributed, ABadValueOnOneRankRaisesAnEvaluationErrorEverywhere) {
    Fixture f = make_fixture();
    // Re f = x - 0.999 is positive only for a few events: the log fails on some rank.
    const auto compiled =
        compile::compile_model(expr::Model(expr::scalar("x") * expr::parameter("s") - 0.999));
    const auto model = runtime::PreparedModel::prepare(
        compiled, f.dataset, over_ranks(serial(), Partitioning::kContiguous));
    const std::vector<double> params{1.0};
    EXPECT_THROW((void)model.reduce(params, runtime::ReductionTransform::kLogPositiveReal),
                 EvaluationError);
    EXPECT_THROW(
        (void)model.reduce_with_gradient(params, runtime::ReductionTransform::kLogPositiveReal),
        EvaluationError);
}

TEST(Distributed, OutOfMemoryOnOneRankRaisesOnEveryRankQuickly) {
    const Fixture f = make_fixture();
    const auto source = std::make_shared<FailingSource>(f.dataset, [] {
        if (is_last_rank()) {
            throw std::bad_alloc();
        }
    });
    const auto start = std::chrono::steady_clock::now();
    try {
        (void)runtime::PreparedModel::prepare(f.compiled, data::EventData::from_source(source),
                                              over_ranks(serial(), Partitioning::kRows));
        FAIL() << "rank " << MpiContext::world().rank() << " did not raise";
    } catch (const InternalError& error) {
        expect_last_ranks(error, std::bad_alloc().what());
    }
    EXPECT_LT(seconds_since(start), kSecondsBound);
}

TEST(Distributed, AThrownNonExceptionOnOneRankRaisesOnEveryRankQuickly) {
    const Fixture f = make_fixture();
    const auto source = std::make_shared<FailingSource>(f.dataset, [] {
        if (is_last_rank()) {
            throw NotAnException{};
        }
    });
    const data::EventData events = data::EventData::from_source(source);
    const auto start = std::chrono::steady_clock::now();
    try {
        const likelihood::NLL nll(fixture_model(), events, events,
                                  over_ranks(serial(), Partitioning::kContiguous));
        FAIL() << "rank " << MpiContext::world().rank() << " did not raise";
    } catch (const InternalError& error) {
        expect_last_ranks(error, "not derived from std::exception");
    }
    EXPECT_LT(seconds_since(start), kSecondsBound);
}

TEST(Distributed, AForeignExceptionInAReductionOnOneRankRaisesOnEveryRankQuickly) {
    const Fixture f = make_fixture();
    // Streaming reads the events again on every pass, so the reductions read after prepare.
    const auto armed = std::make_shared<bool>(false);
    const auto source = std::make_shared<FailingSource>(f.dataset, [armed] {
        if (*armed && is_last_rank()) {
            throw std::runtime_error("a reader of another library failed");
        }
    });
    const auto model = runtime::PreparedModel::prepare(
        f.compiled, data::EventData::from_source(source, data::MemoryPolicy::kStreaming),
        over_ranks(serial(), Partitioning::kFileGroups));
    *armed = true;
    const auto start = std::chrono::steady_clock::now();
    try {
        (void)model.reduce(f.params, runtime::ReductionTransform::kReal);
        FAIL() << "rank " << MpiContext::world().rank() << " did not raise";
    } catch (const InternalError& error) {
        expect_last_ranks(error, "a reader of another library failed");
    }
    try {
        (void)model.reduce_with_gradient(f.params, runtime::ReductionTransform::kReal);
        FAIL() << "rank " << MpiContext::world().rank() << " did not raise";
    } catch (const InternalError& error) {
        expect_last_ranks(error, "a reader of another library failed");
    }
    EXPECT_LT(seconds_since(start), kSecondsBound);
    // The ranks are still in step: the same model reduces again once the reader recovers.
    *armed = false;
    EXPECT_EQ(model.reduce(f.params, runtime::ReductionTransform::kReal),
              runtime::PreparedModel::prepare(f.compiled, f.dataset, serial())
                  .reduce(f.params, runtime::ReductionTransform::kReal));
}

TEST(Partition, SharesCoverEveryChunkOnceAndFollowTheRules) {
    const std::size_t total = 10 * runtime::kReductionChunk + 7;  // 11 chunks
    for (const int size : {1, 2, 3, 4}) {
        for (const Partitioning p :
             {Partitioning::kContiguous, Partitioning::kRows, Partitioning::kFileGroups}) {
            const std::vector<std::size_t> fragments{runtime::kReductionChunk * 3, 100,
                                                     runtime::kReductionChunk * 5,
                                                     total - runtime::kReductionChunk * 8 - 100};
            std::vector<int> owner(
                (total + runtime::kReductionChunk - 1) / runtime::kReductionChunk, -1);
            std::size_t events = 0;
            for (int rank = 0; rank < size; ++rank) {
                const EventShare share = partition_events(total, rank, size, p, fragments);
                events += share.events;
                for (const std::size_t c : share.chunks) {
                    ASSERT_LT(c, owner.size());
                    EXPECT_EQ(owner[c], -1) << "chunk " << c << " owned twice";
                    owner[c] = rank;
                }
            }
            EXPECT_EQ(events, total);
            if (p == Partitioning::kRows) {
                for (std::size_t c = 0; c < owner.size(); ++c) {
                    EXPECT_EQ(owner[c], static_cast<int>(c) % size);
                }
            }
        }
    }
    EXPECT_THROW((void)partition_events(100, 0, 2, Partitioning::kFileGroups,
                                        std::vector<std::size_t>{10, 20}),
                 DataError);
    EXPECT_THROW((void)parse_partitioning("blocks"), ModelError);
    EXPECT_EQ(parse_partitioning("rows"), Partitioning::kRows);
}

}  // namespace
}  // namespace laddu::distributed

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    const laddu::distributed::MpiContext& world = laddu::distributed::MpiContext::world();
    if (!world.is_root()) {
        // Only rank 0 prints; every rank still runs (and fails) every test.
        auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
        delete listeners.Release(listeners.default_result_printer());
    }
    const int failed = RUN_ALL_TESTS();
    // Rank 0's exit code must reflect failures on any rank.
    return world.agree(failed == 0).first_failed < 0 ? 0 : 1;
}
