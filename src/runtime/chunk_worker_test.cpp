// ChunkKernel's idle workers: a pass reuses the workers the last one released, bound to the new
// parameters, in the same order, and a pass that throws does not give its workers back.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/ir/builder.hpp>
#include <laddu/runtime/thread_pool.hpp>

#include "chunk_kernel.hpp"
#include "kernel_reduce.hpp"

namespace laddu::runtime::detail {
namespace {

constexpr std::size_t kEvents = 3 * kReductionChunk + 100;

// p0 x² + p1 y and its gradient outputs x², y: a gradient program over two cache columns.
ir::Program gradient_program() {
    ir::Builder b;
    const ir::ValueId x = b.load(b.add_input("x", ir::ValueKind::kReal));
    const ir::ValueId y = b.load(b.add_input("y", ir::ValueKind::kReal));
    const ir::ValueId xx = b.binary(ir::OpCode::kMul, x, x);
    b.add_output(b.binary(ir::OpCode::kAdd, b.binary(ir::OpCode::kMul, b.param(0), xx),
                          b.binary(ir::OpCode::kMul, b.param(1), y)));
    b.add_output(xx);
    b.add_output(y);
    return b.finish();
}

struct Fixture {
    ir::Program program = gradient_program();
    EventCache cache = EventCache::allocate(program, kEvents);

    Fixture() {
        std::mt19937_64 random(5);
        std::uniform_real_distribution<double> part(0.1, 2.0);
        for (const std::size_t slot : {0U, 1U}) {
            for (double& v : cache.mutable_re(slot)) {
                v = part(random);
            }
        }
        cache.refresh_sum_weights();
    }
};

std::vector<std::uint64_t> bits(const GradientPartials& partials) {
    std::vector<std::uint64_t> out;
    out.reserve(partials.values.size() + partials.gradients.size());
    for (const double v : partials.values) {
        out.push_back(std::bit_cast<std::uint64_t>(v));
    }
    for (const double v : partials.gradients) {
        out.push_back(std::bit_cast<std::uint64_t>(v));
    }
    return out;
}

std::vector<std::shared_ptr<const ChunkKernel>> kernels(const ir::Program& program) {
    std::vector<std::shared_ptr<const ChunkKernel>> out{
        make_interpreter_kernel(program, ir::Precision::kF64)};
#if LADDU_HAVE_JIT
    out.push_back(
        select_kernel(program, ir::Precision::kF64, JitPolicy::kEnabled, kEvents, Passes::kMany));
#endif
    return out;
}

// A kernel that counts its binds and rebinds (its outputs are not used).
class CountingKernel final : public ChunkKernel {
public:
    explicit CountingKernel(ir::Program program) : program_(std::move(program)) {}

    [[nodiscard]] const ir::Program& program() const noexcept override { return program_; }

    [[nodiscard]] std::string_view backend() const noexcept override { return "counting"; }

    [[nodiscard]] ir::Precision precision() const noexcept override { return ir::Precision::kF64; }

    [[nodiscard]] std::unique_ptr<BoundKernel>
    bind_checked(std::span<const double>) const override {
        ++binds;
        return std::make_unique<Bound>(*this);
    }

    [[nodiscard]] std::size_t bound_bytes() const noexcept override { return 0; }

    mutable std::atomic<int> binds = 0;
    mutable std::atomic<int> rebinds = 0;

private:
    class Bound final : public BoundKernel {
    public:
        explicit Bound(const CountingKernel& kernel) : kernel_(kernel) {}

        void rebind(std::span<const double>) override { ++kernel_.rebinds; }

        void run(const ir::ColumnView&, std::size_t, std::size_t,
                 std::span<const ir::OutputColumn>) override {}

    private:
        const CountingKernel& kernel_;
    };

    ir::Program program_;
};

// Which worker each thread ran its chunks on.
std::map<std::thread::id, const ChunkWorker*> workers_by_thread(const ChunkKernel& kernel,
                                                                ThreadPool* pool) {
    std::map<std::thread::id, const ChunkWorker*> seen;
    std::mutex mutex;
    for_each_chunk(kernel, std::vector<double>{1.0, 2.0}, kEvents, pool,
                   [&](std::size_t, ChunkWorker& worker) {
                       const std::lock_guard lock(mutex);
                       const auto [at, fresh] = seen.emplace(std::this_thread::get_id(), &worker);
                       EXPECT_EQ(at->second, &worker) << "one worker per thread in a pass";
                   });
    return seen;
}

// The threads of `pass` that ran on another worker than in `first`.
std::size_t moved_threads(const std::map<std::thread::id, const ChunkWorker*>& first,
                          const std::map<std::thread::id, const ChunkWorker*>& pass) {
    return static_cast<std::size_t>(std::count_if(pass.begin(), pass.end(), [&](const auto& seen) {
        return first.contains(seen.first) && first.at(seen.first) != seen.second;
    }));
}

TEST(ChunkWorkers, EachThreadGetsTheWorkerItHadInThePassBefore) {
    const CountingKernel kernel(gradient_program());
    ThreadPool pool(2);
    const auto first = workers_by_thread(kernel, &pool);
    EXPECT_EQ(kernel.binds, 2);
    for (int pass = 0; pass < 5; ++pass) {
        EXPECT_EQ(moved_threads(first, workers_by_thread(kernel, &pool)), 0U) << "pass " << pass;
    }
    EXPECT_EQ(kernel.binds, 2);
    EXPECT_EQ(kernel.rebinds, 10);
    // A pass on one thread takes one of them.
    (void)workers_by_thread(kernel, nullptr);
    EXPECT_EQ(kernel.binds, 2);
}

// True when a pass over `kernel` whose chunks throw lets the exception out.
bool failing_pass_throws(const ChunkKernel& kernel) {
    try {
        for_each_chunk(
            kernel, std::vector<double>{1.0, 2.0}, kEvents, nullptr,
            [](std::size_t, ChunkWorker&) { throw std::runtime_error("a failing chunk"); });
    } catch (const std::runtime_error&) {
        return true;
    }
    return false;
}

TEST(ChunkWorkers, APassThatThrowsDoesNotGiveItsWorkersBack) {
    const CountingKernel kernel(gradient_program());
    (void)workers_by_thread(kernel, nullptr);
    EXPECT_TRUE(failing_pass_throws(kernel));
    EXPECT_EQ(kernel.binds, 1);
    EXPECT_EQ(kernel.rebinds, 1);
    (void)workers_by_thread(kernel, nullptr);
    EXPECT_EQ(kernel.binds, 2) << "the failed pass's worker was kept";
}

// Σ (p0 x² + p1 y) over chunk 0 of the fixture, directly.
double chunk_zero_sum(Fixture& f, const std::vector<double>& params) {
    double direct = 0.0;
    for (std::size_t i = 0; i < kReductionChunk; ++i) {
        const double x = f.cache.mutable_re(0)[i];
        direct += params[0] * x * x + params[1] * f.cache.mutable_re(1)[i];
    }
    return direct;
}

TEST(ChunkWorkers, ReusedWorkersAreBoundToTheNewParameters) {
    Fixture f;
    ThreadPool pool(2);
    const std::vector<double> before{1.0, 2.0};
    const std::vector<double> after{-0.5, 3.0};
    const auto reused_kernels = kernels(f.program);
    const auto fresh_kernels = kernels(f.program);
    for (std::size_t k = 0; k < reused_kernels.size(); ++k) {
        const ChunkKernel& kernel = *reused_kernels[k];
        (void)reduce_gradient_partials(kernel, before, f.cache,
                                       ReductionTransform::kLogPositiveReal, &pool);
        const GradientPartials reused =
            reduce_gradient_partials(kernel, after, f.cache, ReductionTransform::kReal, &pool);
        const GradientPartials bound_anew = reduce_gradient_partials(
            *fresh_kernels[k], after, f.cache, ReductionTransform::kReal, &pool);
        EXPECT_EQ(bits(reused), bits(bound_anew)) << kernel.backend();
        // And the new parameters are in the sum: Σ (p0 x² + p1 y), x² and y, chunk 0.
        const double direct = chunk_zero_sum(f, after);
        EXPECT_NEAR(reused.values[0], direct, 1e-12 * std::abs(direct)) << kernel.backend();
    }
}

// True when a pass with one parameter too few fails with EvaluationError after a pass with the
// right count left a worker to reuse.
bool reused_worker_rejects_a_wrong_count(const ChunkKernel& kernel) {
    const auto pass = [&](const std::vector<double>& params) {
        for_each_chunk(kernel, params, kEvents, nullptr, [](std::size_t, ChunkWorker&) {});
    };
    pass({1.0, 2.0});
    try {
        pass({1.0});
    } catch (const EvaluationError&) {
        return true;
    }
    return false;
}

// The count is checked once, by ChunkKernel::bind, for every backend: the same message, and a
// backend's own bind never sees a wrong count.
TEST(ChunkWorkers, BindChecksTheParameterCountForEveryBackend) {
    const Fixture f;
    auto kernel_list = kernels(f.program);
    kernel_list.push_back(std::make_shared<const CountingKernel>(gradient_program()));
    for (const auto& kernel : kernel_list) {
        try {
            (void)kernel->bind(std::vector<double>{1.0, 2.0, 3.0});
            ADD_FAILURE() << kernel->backend() << " bound three values for two parameters";
        } catch (const EvaluationError& e) {
            EXPECT_STREQ(e.what(), "expected 2 parameter values, got 3") << kernel->backend();
        }
    }
    const CountingKernel counting(gradient_program());
    EXPECT_THROW((void)counting.bind(std::vector<double>{1.0}), EvaluationError);
    EXPECT_EQ(counting.binds, 0);
}

TEST(ChunkWorkers, AReusedWorkerStillChecksTheParameterCount) {
    const Fixture f;
    for (const auto& kernel : kernels(f.program)) {
        EXPECT_TRUE(reused_worker_rejects_a_wrong_count(*kernel)) << kernel->backend();
    }
}

}  // namespace
}  // namespace laddu::runtime::detail
