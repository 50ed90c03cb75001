// The K-matrix benchmark under MPI (run with mpirun -np 1, 2, 3 by ctest): the data log-sum and
// the MC sum, the NLL of likelihood::NLL prepared with Execution::collective, their gradients
// and a distributed fit are bit-identical to one process for every partitioning; a failure on
// one rank raises on every rank.
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/amplitudes/kmatrix_benchmark.hpp>
#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/distributed/distributed_fit.hpp>
#include <laddu/distributed/mpi_collective.hpp>
#include <laddu/likelihood/likelihood.hpp>
#include <laddu/likelihood/nll.hpp>
#include <laddu/runtime/collective.hpp>
#include <laddu/runtime/prepared_model.hpp>
#include <laddu/runtime/reduce.hpp>

#include "../support/ksks_events.hpp"

namespace laddu {
namespace {

TEST(KMatrixMpi, ValueAndGradientAreBitIdenticalToOneProcess) {
    const testing::KsKsEvents events =
        testing::generate_ksks(3 * runtime::kReductionChunk + 777, 99);
    const data::Dataset dataset = events.dataset();
    const auto compiled = compile::compile_model(amplitudes::kmatrix_benchmark_model());
    std::vector<double> params(compiled.parameters.free_count(), 0.25);
    runtime::Execution execution;
    execution.threads = 1;
    const auto single = runtime::PreparedModel::prepare(compiled, dataset, execution);
    for (const auto transform :
         {runtime::ReductionTransform::kLogPositiveReal, runtime::ReductionTransform::kReal}) {
        const auto expected = single.reduce_with_gradient(params, transform);
        const std::vector<std::size_t> fragments{runtime::kReductionChunk, 2000,
                                                 events.size() - runtime::kReductionChunk - 2000};
        for (const auto partitioning :
             {distributed::Partitioning::kContiguous, distributed::Partitioning::kRows,
              distributed::Partitioning::kFileGroups}) {
            runtime::Execution over_ranks = execution;
            over_ranks.collective = distributed::mpi_collective(partitioning, fragments);
            const auto model = runtime::PreparedModel::prepare(compiled, dataset, over_ranks);
            EXPECT_EQ(model.reduce(params, transform), expected.value);
            EXPECT_EQ(model.reduce_with_gradient(params, transform), expected);
        }
    }
}

constexpr distributed::Partitioning kPartitionings[] = {distributed::Partitioning::kContiguous,
                                                        distributed::Partitioning::kRows,
                                                        distributed::Partitioning::kFileGroups};

runtime::Execution serial(distributed::Partitioning* partitioning = nullptr) {
    runtime::Execution execution;
    execution.threads = 1;
    if (partitioning != nullptr) {
        execution.collective = distributed::mpi_collective(*partitioning);
    }
    return execution;
}

runtime::Execution with_normalization(runtime::Execution execution,
                                      runtime::NormalizationMode mode) {
    execution.normalization = mode;
    return execution;
}

// Bit patterns, so NaN uncertainties compare equal to themselves.
std::vector<std::uint64_t> bits(const std::vector<double>& values) {
    std::vector<std::uint64_t> out;
    for (const double v : values) {
        out.push_back(std::bit_cast<std::uint64_t>(v));
    }
    return out;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(KMatrixMpi, NllValueAndGradientAreBitIdenticalToOneProcess) {
    const data::Dataset data =
        testing::generate_ksks(3 * runtime::kReductionChunk + 777, 21).dataset();
    const data::Dataset accepted =
        testing::generate_ksks(4 * runtime::kReductionChunk + 5, 22).dataset();
    const expr::Model model = amplitudes::kmatrix_benchmark_model();
    std::vector<double> params(model.parameters().free_count(), 0.25);
    params[3] = -0.6;
    for (const auto strategy :
         {runtime::NormalizationMode::kAuto, runtime::NormalizationMode::kGeneral}) {
        const likelihood::NLL single(model, data, accepted, with_normalization(serial(), strategy),
                                     "nll");
        const double value = single.value(params);
        const runtime::Evaluation expected = single.value_and_gradient(params);
        for (auto partitioning : kPartitionings) {
            const likelihood::NLL nll(model, data, accepted,
                                      with_normalization(serial(&partitioning), strategy), "nll");
            EXPECT_EQ(nll.value(params), value) << static_cast<int>(partitioning);
            const runtime::Evaluation got = nll.value_and_gradient(params);
            EXPECT_EQ(got.value, expected.value);
            EXPECT_EQ(got.gradient, expected.gradient);
            EXPECT_EQ(nll.data_sum_weights(), single.data_sum_weights());
        }
    }
}

TEST(KMatrixMpi, AMissingColumnOnOneRankRaisesOnEveryRankQuickly) {
    const auto& world = distributed::MpiContext::world();
    const testing::KsKsEvents events =
        testing::generate_ksks(2 * runtime::kReductionChunk + 10, 23);
    data::Dataset data = events.dataset();
    if (world.rank() == world.size() - 1) {
        // This rank's copy of the data lacks "pol_angle".
        const std::vector<data::P4Input> p4s{
            {"beam", events.beam_e, events.beam_px, events.beam_py, events.beam_pz},
            {"proton", events.proton_e, events.proton_px, events.proton_py, events.proton_pz},
            {"kshort1", events.k1_e, events.k1_px, events.k1_py, events.k1_pz},
            {"kshort2", events.k2_e, events.k2_px, events.k2_py, events.k2_pz}};
        const std::vector<data::ScalarInput> scalars{{"pol_magnitude", events.pol_magnitude}};
        data = data::Dataset::from_arrays(p4s, scalars, events.weight);
    }
    auto partitioning = distributed::Partitioning::kRows;
    const auto start = std::chrono::steady_clock::now();
    try {
        const likelihood::NLL nll(amplitudes::kmatrix_benchmark_model(), data, data,
                                  serial(&partitioning));
        FAIL() << "rank " << world.rank() << " did not raise";
    } catch (const DataError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("rank " + std::to_string(world.size() - 1)), std::string::npos)
            << message;
        EXPECT_NE(message.find("pol_angle"), std::string::npos) << message;
    }
    EXPECT_LT(seconds_since(start), 30.0);
}

// A Parquet file of several row groups written by rank 0, named the same on every rank.
std::string shared_parquet_file(const data::Dataset& dataset, std::size_t row_group_size) {
    const auto& world = distributed::MpiContext::world();
    std::string path;
    if (world.is_root()) {
        path = ::testing::TempDir() + "laddu_kmatrix_mpi_" +
               std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) +
               ".parquet";
        data::ParquetWriteOptions options;
        options.row_group_size = row_group_size;
        data::write_parquet(dataset, path, options);
    }
    path = world.broadcast(path, 0);
    world.barrier();
    return path;
}

TEST(KMatrixMpi, EachRankReadsOnlyItsRowGroupsAndTheSumsAreUnchanged) {
    const auto& world = distributed::MpiContext::world();
    const data::Dataset dataset =
        testing::generate_ksks(6 * runtime::kReductionChunk + 300, 24).dataset();
    const std::string path =
        shared_parquet_file(dataset, runtime::kReductionChunk);  // 7 row groups
    const auto compiled = compile::compile_model(amplitudes::kmatrix_benchmark_model());
    const std::vector<double> params(compiled.parameters.free_count(), 0.25);
    const auto transform = runtime::ReductionTransform::kLogPositiveReal;
    const auto single = runtime::PreparedModel::prepare(compiled, dataset, serial());
    const runtime::Evaluation expected = single.reduce_with_gradient(params, transform);
    for (auto partitioning : kPartitionings) {
        const auto source = std::make_shared<data::ParquetSource>(std::vector<std::string>{path});
        const auto model = runtime::PreparedModel::prepare(
            compiled, data::EventData::from_source(source), serial(&partitioning));
        EXPECT_EQ(model.reduce_with_gradient(params, transform), expected)
            << static_cast<int>(partitioning);
        EXPECT_EQ(model.events(), dataset.size());
        if (world.size() > 1) {
            // A rank decodes only the row groups its chunks fall in, not all 7.
            EXPECT_LT(source->fragments_decoded(), 7U) << static_cast<int>(partitioning);
        }
    }
    world.barrier();
    if (world.is_root()) {
        std::remove(path.c_str());
    }
}

TEST(KMatrixMpi, AnNllOverParquetReadsFewerRowGroupsPerRankAndIsUnchanged) {
    const auto& world = distributed::MpiContext::world();
    const data::Dataset dataset =
        testing::generate_ksks(6 * runtime::kReductionChunk + 300, 28).dataset();
    const std::string path =
        shared_parquet_file(dataset, runtime::kReductionChunk);  // 7 row groups
    const expr::Model model = amplitudes::kmatrix_benchmark_model();
    const std::vector<double> params(model.parameters().free_count(), 0.25);
    const auto source_of = [&] {
        return std::make_shared<data::ParquetSource>(std::vector<std::string>{path});
    };
    const auto whole = source_of();
    const data::EventData all = data::EventData::from_source(whole);
    const likelihood::NLL single(model, all, all, serial());
    const runtime::Evaluation expected = single.value_and_gradient(params);
    EXPECT_EQ(single.value(params), expected.value);
    for (auto partitioning : kPartitionings) {
        const auto source = source_of();
        const data::EventData events = data::EventData::from_source(source);
        const likelihood::NLL nll(model, events, events, serial(&partitioning));
        const runtime::Evaluation got = nll.value_and_gradient(params);
        EXPECT_EQ(nll.value(params), expected.value) << static_cast<int>(partitioning);
        EXPECT_EQ(got.value, expected.value) << static_cast<int>(partitioning);
        EXPECT_EQ(got.gradient, expected.gradient);
        if (world.size() > 1) {
            // The same calls decode fewer row groups on each rank than on one process.
            EXPECT_LT(source->fragments_decoded(), whole->fragments_decoded())
                << static_cast<int>(partitioning);
        }
    }
    world.barrier();
    if (world.is_root()) {
        std::remove(path.c_str());
    }
}

TEST(KMatrixMpi, AFileMissingOnOneRankRaisesOnEveryRankQuickly) {
    const auto& world = distributed::MpiContext::world();
    const data::Dataset dataset =
        testing::generate_ksks(runtime::kReductionChunk + 300, 25).dataset();
    const std::string path = shared_parquet_file(dataset, runtime::kReductionChunk);
    const std::string mine = world.rank() == world.size() - 1 ? path + ".absent" : path;
    auto partitioning = distributed::Partitioning::kContiguous;
    const runtime::Execution execution = serial(&partitioning);
    const auto compiled = compile::compile_model(amplitudes::kmatrix_benchmark_model());
    const auto start = std::chrono::steady_clock::now();
    try {
        // Opening the source is local: collectively() makes its failure everyone's.
        std::shared_ptr<const data::ParquetSource> source;
        runtime::collectively(execution.collective.get(), [&] {
            source = std::make_shared<data::ParquetSource>(std::vector<std::string>{mine});
        });
        (void)runtime::PreparedModel::prepare(compiled, data::EventData::from_source(source),
                                              execution);
        FAIL() << "rank " << world.rank() << " did not raise";
    } catch (const DataError& error) {
        EXPECT_NE(std::string(error.what()).find(".absent"), std::string::npos) << error.what();
    }
    EXPECT_LT(seconds_since(start), 30.0);
    world.barrier();
    if (world.is_root()) {
        std::remove(path.c_str());
    }
}

TEST(KMatrixMpi, ADistributedFitEqualsTheOneProcessFit) {
    const data::Dataset data =
        testing::generate_ksks(2 * runtime::kReductionChunk + 500, 26).dataset();
    const data::Dataset accepted =
        testing::generate_ksks(3 * runtime::kReductionChunk + 100, 27).dataset();
    // Four free parameters (the others fixed at the benchmark's 0.25) keep the fit short.
    expr::Model model = amplitudes::kmatrix_benchmark_model();
    const std::vector<std::string> names = model.parameters().free_names();
    for (std::size_t k = 4; k < names.size(); ++k) {
        model = model.fix(names[k], 0.25);
    }
    fit::FitOptions options;
    options.minimizer.max_iterations = 25;
    likelihood::Likelihood single;
    single.add(std::make_shared<likelihood::NLL>(model, data, accepted, serial()));
    const std::vector<double> start(single.size(), 0.25);
    const fit::FitResult expected = fit::fit(single, start, options);
    ASSERT_EQ(single.size(), 4U);
    for (auto partitioning :
         {distributed::Partitioning::kContiguous, distributed::Partitioning::kRows}) {
        likelihood::Likelihood total;
        total.add(std::make_shared<likelihood::NLL>(model, data, accepted, serial(&partitioning)));
        const fit::FitResult got = distributed::fit(total, start, options);
        EXPECT_EQ(got.values, expected.values);
        EXPECT_EQ(got.value, expected.value);
        EXPECT_EQ(bits(got.uncertainties), bits(expected.uncertainties));
        EXPECT_EQ(got.iterations, expected.iterations);
        EXPECT_EQ(got.value_evaluations, expected.value_evaluations);
        EXPECT_EQ(got.gradient_evaluations, expected.gradient_evaluations);
        EXPECT_EQ(got.termination, expected.termination);
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
    return world.agree(failed == 0).first_failed < 0 ? 0 : 1;
}
