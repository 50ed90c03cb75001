// The OpenCL ChunkKernel's reductions: every chunk of a value or gradient reduction is summed on
// the device (BoundKernel::reduce_chunk takes the device path), and the partials are the
// interpreter kernel's bit for bit, on 1 and 2 threads, f32 value reductions (a float log)
// included; a chunk with a value the transform cannot take goes the unfused way and still names
// its event. Skipped without the GPU stage or an OpenCL device with doubles.
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/error.hpp>
#include <laddu/ir/builder.hpp>
#include <laddu/runtime/event_cache.hpp>
#include <laddu/runtime/thread_pool.hpp>
#if LADDU_HAVE_GPU
#include <laddu/gpu/gpu.hpp>

#include "gpu_kernel.hpp"
#endif
#include "kernel_reduce.hpp"

namespace laddu::runtime::detail {
namespace {

#if LADDU_HAVE_GPU

using ir::OpCode;
using ir::ValueId;
using ir::ValueKind;

// Three blocks of device work are more than the test needs; two chunks plus a partial one.
constexpr std::size_t kEvents = 2 * kReductionChunk + 1003;

// Output 0: v = (p0 x) x + y (positive for p0 > 0); outputs 1, 2 stand in for derivatives.
ir::Program program() {
    ir::Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    const ValueId y = b.load(b.add_input("y", ValueKind::kReal));
    b.add_output(b.binary(OpCode::kAdd,
                          b.binary(OpCode::kMul, b.binary(OpCode::kMul, b.param(0), x), x), y));
    b.add_output(x);
    b.add_output(b.binary(OpCode::kMul, b.param(1), y));
    return b.finish();
}

EventCache filled_cache(const ir::Program& prog) {
    EventCache cache = EventCache::allocate(prog, kEvents);
    std::mt19937_64 rng(23);
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    std::uniform_real_distribution<double> y(1e-3, 1.0);
    for (double& v : cache.mutable_re(0)) {
        v = u(rng);
    }
    for (double& v : cache.mutable_re(1)) {
        v = y(rng);
    }
    for (double& v : cache.mutable_weights()) {
        v = u(rng) + 0.5;
    }
    cache.refresh_sum_weights();
    return cache;
}

bool have_fp64_device() {
    return !gpu::devices().empty() && gpu::devices()[0].fp64;
}

std::uint64_t bits(double x) {
    return std::bit_cast<std::uint64_t>(x);
}

const std::vector<double> kParams = {0.7, -1.3};

TEST(GpuChunkKernel, ReducesEveryChunkOnTheDeviceWithTheInterpretersBits) {
    if (!have_fp64_device()) {
        GTEST_SKIP() << "no OpenCL device with doubles";
    }
    const ir::Program prog = program();
    const EventCache cache = filled_cache(prog);
    const auto interp = make_interpreter_kernel(prog, ir::Precision::kF64);
    const auto gpu = make_gpu_kernel(prog, ir::Precision::kF64, 0, 0);
    ThreadPool pool(2);
    for (const ReductionTransform transform :
         {ReductionTransform::kReal, ReductionTransform::kPositiveReal,
          ReductionTransform::kLogPositiveReal}) {
        SCOPED_TRACE(std::string(transform_name(transform)));
        // The device path is the one taken, chunk by chunk.
        const std::unique_ptr<BoundKernel> bound = gpu->bind(kParams);
        for (std::size_t chunk = 0; chunk < 3; ++chunk) {
            const auto [begin, count] = chunk_range(chunk, kEvents);
            for (const std::size_t sums : {std::size_t{1}, std::size_t{3}}) {
                std::vector<double> lanes(2 * kSumLanes * sums);
                EXPECT_TRUE(bound->reduce_chunk(cache.view(), begin, count, cache.weights(),
                                                FusedReduction{transform, false, sums}, lanes))
                    << "chunk " << chunk;
            }
        }
        for (ThreadPool* threads : {static_cast<ThreadPool*>(nullptr), &pool}) {
            const std::vector<double> want =
                reduce_partials(*interp, kParams, cache, transform, threads);
            const std::vector<double> got =
                reduce_partials(*gpu, kParams, cache, transform, threads);
            ASSERT_EQ(got.size(), want.size());
            for (std::size_t c = 0; c < want.size(); ++c) {
                EXPECT_EQ(bits(got[c]), bits(want[c])) << "value chunk " << c;
            }
            const GradientPartials gw =
                reduce_gradient_partials(*interp, kParams, cache, transform, threads);
            const GradientPartials gg =
                reduce_gradient_partials(*gpu, kParams, cache, transform, threads);
            ASSERT_EQ(gg.gradients.size(), gw.gradients.size());
            for (std::size_t c = 0; c < gw.values.size(); ++c) {
                EXPECT_EQ(bits(gg.values[c]), bits(gw.values[c])) << "gradient value chunk " << c;
            }
            for (std::size_t k = 0; k < gw.gradients.size(); ++k) {
                EXPECT_EQ(bits(gg.gradients[k]), bits(gw.gradients[k])) << "gradient term " << k;
            }
        }
    }
}

TEST(GpuChunkKernel, F32LogsAndFailedChunks) {
    if (!have_fp64_device()) {
        GTEST_SKIP() << "no OpenCL device with doubles";
    }
    const ir::Program prog = program();
    const EventCache cache = filled_cache(prog);
    const auto interp = make_interpreter_kernel(prog, ir::Precision::kF32);
    const auto gpu = make_gpu_kernel(prog, ir::Precision::kF32, 0, 0);
    // An f32 value reduction (its log a float) runs on the device too, with the host's bits.
    const std::unique_ptr<BoundKernel> bound = gpu->bind(kParams);
    std::vector<double> lanes(2 * kSumLanes);
    EXPECT_TRUE(bound->reduce_chunk(cache.view(), 0, kReductionChunk, cache.weights(),
                                    FusedReduction{ReductionTransform::kLogPositiveReal, true, 1},
                                    lanes));
    const std::vector<double> want =
        reduce_partials(*interp, kParams, cache, ReductionTransform::kLogPositiveReal, nullptr);
    const std::vector<double> got =
        reduce_partials(*gpu, kParams, cache, ReductionTransform::kLogPositiveReal, nullptr);
    for (std::size_t c = 0; c < want.size(); ++c) {
        EXPECT_EQ(bits(got[c]), bits(want[c])) << "chunk " << c;
    }
    // A value the log cannot take: the device flags its chunk, the unfused path names it. (A
    // new cache: resident columns are told apart by address and a sample of their values, so
    // a cache is not edited in place once a device has read it.)
    EventCache bad = filled_cache(prog);
    bad.mutable_re(0)[1500] = 0.0;
    bad.mutable_re(1)[1500] = -0.5;
    const auto gpu64 = make_gpu_kernel(prog, ir::Precision::kF64, 0, 0);
    const std::unique_ptr<BoundKernel> flagged = gpu64->bind(kParams);
    EXPECT_FALSE(flagged->reduce_chunk(
        bad.view(), kReductionChunk, kReductionChunk, bad.weights(),
        FusedReduction{ReductionTransform::kLogPositiveReal, false, 1}, lanes));
    try {
        (void)reduce_partials(*gpu64, kParams, bad, ReductionTransform::kLogPositiveReal, nullptr);
        FAIL() << "no error";
    } catch (const EvaluationError& e) {
        EXPECT_NE(std::string(e.what()).find("1500"), std::string::npos) << e.what();
    }
}

#else

TEST(GpuChunkKernel, NotBuilt) {
    GTEST_SKIP() << "the gpu stage is not built";
}

#endif  // LADDU_HAVE_GPU

}  // namespace
}  // namespace laddu::runtime::detail
