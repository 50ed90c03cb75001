// Run under mpirun -np 1, 2 and 3 (see CMakeLists.txt): distributed reductions must equal the
// single-process PreparedModel bit for bit, for every partitioning, and a failure on one rank
// must raise on every rank.
#include <cmath>
#include <complex>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/distributed/distributed_model.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/runtime/prepared_model.hpp>

namespace laddu::distributed {
namespace {

using expr::Expr;

constexpr std::size_t kEvents = 5 * 4096 + 1234;  // five whole chunks and a partial one

struct Fixture {
    std::vector<double> x, y, w;
    data::Dataset dataset;
    compile::CompiledModel compiled;
    std::vector<double> params{0.8, -0.3, 0.5, 1.2};
};

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
    const Expr x = expr::scalar("x");
    const Expr y = expr::scalar("y");
    const Expr c0 = expr::complex(expr::parameter("a0"), expr::parameter("b0"));
    const Expr c1 = expr::complex(expr::parameter("a1"), expr::parameter("b1"));
    const Expr amplitude = c0 * expr::cis(x) + c1 * expr::cis(2.0 * y) * (x * y + 0.5);
    f.compiled = compile::compile_model(expr::Model(expr::norm_sqr(amplitude) + 0.05));
    return f;
}

runtime::Execution serial() {
    runtime::Execution execution;
    execution.threads = 1;
    return execution;
}

TEST(Distributed, ReductionsAreBitIdenticalToOneProcessForEveryPartitioning) {
    const Fixture f = make_fixture();
    const auto single = runtime::PreparedModel::prepare(f.compiled, f.dataset, serial());
    const double expected = single.reduce(f.params, runtime::ReductionTransform::kLogPositiveReal);
    const runtime::ReductionEvaluation expected_gradient =
        single.reduce_with_gradient(f.params, runtime::ReductionTransform::kLogPositiveReal);
    const std::vector<std::size_t> fragments{5000, 7000, 3000, kEvents - 15000};
    for (const Partitioning partitioning :
         {Partitioning::kContiguous, Partitioning::kRows, Partitioning::kFileGroups}) {
        const auto model =
            DistributedModel::prepare(f.compiled, f.dataset, serial(), partitioning, fragments);
        EXPECT_EQ(model.global_events(), kEvents);
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
    const auto model = DistributedModel::prepare(f.compiled, f.dataset, two, Partitioning::kRows);
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
        (void)DistributedModel::prepare(f.compiled, mine, serial(), Partitioning::kContiguous);
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
    const auto model =
        DistributedModel::prepare(compiled, f.dataset, serial(), Partitioning::kContiguous);
    const std::vector<double> params{1.0};
    EXPECT_THROW((void)model.reduce(params, runtime::ReductionTransform::kLogPositiveReal),
                 EvaluationError);
    EXPECT_THROW(
        (void)model.reduce_with_gradient(params, runtime::ReductionTransform::kLogPositiveReal),
        EvaluationError);
}

TEST(Partition, SharesCoverEveryChunkOnceAndFollowTheRules) {
    const std::size_t total = 10 * 4096 + 7;  // 11 chunks
    for (const int size : {1, 2, 3, 4}) {
        for (const Partitioning p :
             {Partitioning::kContiguous, Partitioning::kRows, Partitioning::kFileGroups}) {
            const std::vector<std::size_t> fragments{4096 * 3, 100, 4096 * 5,
                                                     total - 4096 * 8 - 100};
            std::vector<int> owner(11, -1);
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
