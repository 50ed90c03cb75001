// The K-matrix benchmark NLL terms under MPI (run with mpirun -np 1, 2, 3 by ctest): the data
// log-sum and the MC sum, and their gradients, are bit-identical to one process for every
// partitioning.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/amplitudes/kmatrix_benchmark.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/distributed/distributed_model.hpp>
#include <laddu/runtime/prepared_model.hpp>

#include "../support/ksks_events.hpp"

namespace laddu {
namespace {

TEST(KMatrixMpi, ValueAndGradientAreBitIdenticalToOneProcess) {
    const testing::KsKsEvents events = testing::generate_ksks(3 * 4096 + 777, 99);
    const data::Dataset dataset = events.dataset();
    const auto compiled = compile::compile_model(amplitudes::kmatrix_benchmark_model());
    std::vector<double> params(compiled.parameters.free_count(), 0.25);
    runtime::Execution execution;
    execution.threads = 1;
    const auto single = runtime::PreparedModel::prepare(compiled, dataset, execution);
    for (const auto transform :
         {runtime::ReductionTransform::kLogPositiveReal, runtime::ReductionTransform::kReal}) {
        const auto expected = single.reduce_with_gradient(params, transform);
        const std::vector<std::size_t> fragments{4096, 2000, events.size() - 6096};
        for (const auto partitioning :
             {distributed::Partitioning::kContiguous, distributed::Partitioning::kRows,
              distributed::Partitioning::kFileGroups}) {
            const auto model = distributed::DistributedModel::prepare(compiled, dataset, execution,
                                                                      partitioning, fragments);
            EXPECT_EQ(model.reduce(params, transform), expected.value);
            EXPECT_EQ(model.reduce_with_gradient(params, transform), expected);
        }
    }
}

}  // namespace
}  // namespace laddu

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    const auto& world = laddu::distributed::MpiContext::world();
    if (!world.is_root()) {
        auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
        delete listeners.Release(listeners.default_result_printer());
    }
    const int failed = RUN_ALL_TESTS();
    return world.first_failed_rank(failed == 0) < 0 ? 0 : 1;
}
