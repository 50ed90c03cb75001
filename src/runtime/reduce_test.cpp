#include <bit>
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/ir/builder.hpp>
#include <laddu/runtime/reduce.hpp>
#include <laddu/runtime/thread_pool.hpp>

#include "test_reductions.hpp"

namespace laddu::runtime {
namespace {

using ir::Builder;
using ir::OpCode;
using ir::ValueId;
using ir::ValueKind;

constexpr std::size_t kAmplitudes = 3;

// |Σ_k (p_2k + i p_2k+1) A_k|² + x, with A_k Complex cache columns and x a Real one.
ir::Program intensity_program() {
    Builder b;
    std::vector<ValueId> terms;
    for (std::uint32_t k = 0; k < kAmplitudes; ++k) {
        const ValueId a = b.load(b.add_input("A" + std::to_string(k), ValueKind::kComplex));
        const ValueId g = b.complex(b.param(2 * k), b.param(2 * k + 1));
        terms.push_back(b.binary(OpCode::kMul, g, a));
    }
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    b.add_output(b.binary(OpCode::kAdd, b.unary(OpCode::kNormSqr, b.add_n(terms)), x));
    return b.finish();
}

struct Fixture {
    ir::Program program = intensity_program();
    EventCache cache;
    std::vector<double> params{0.9, 0.1, -0.4, 0.3, 0.2, -0.7};

    explicit Fixture(std::size_t events) : cache(EventCache::allocate(program, events)) {
        std::mt19937_64 rng(42);
        std::uniform_real_distribution<double> part(-1.0, 1.0);
        std::uniform_real_distribution<double> weight(0.5, 1.5);
        for (std::size_t k = 0; k < kAmplitudes; ++k) {
            for (double& v : cache.mutable_re(k)) {
                v = part(rng);
            }
            for (double& v : cache.mutable_im(k)) {
                v = part(rng);
            }
        }
        for (double& v : cache.mutable_re(kAmplitudes)) {
            v = 0.01 + 0.1 * std::abs(part(rng));  // keeps the intensity positive
        }
        for (double& w : cache.mutable_weights()) {
            w = weight(rng);
        }
        cache.refresh_sum_weights();
    }

    // The intensity of event i, computed directly.
    [[nodiscard]] double intensity(std::size_t i) {
        std::complex<double> sum = 0.0;
        for (std::size_t k = 0; k < kAmplitudes; ++k) {
            sum += std::complex<double>(params[2 * k], params[2 * k + 1]) *
                   std::complex<double>(cache.mutable_re(k)[i], cache.mutable_im(k)[i]);
        }
        return std::norm(sum) + cache.mutable_re(kAmplitudes)[i];
    }
};

constexpr std::size_t kEvents = 12 * kReductionChunk + 77;

TEST(Reduce, IsBitIdenticalForOneTwoAndFourThreads) {
    Fixture f(kEvents);
    const auto interp = interp::Interpreter::prepare(f.program);
    ThreadPool pool1(1);
    ThreadPool pool2(2);
    ThreadPool pool4(4);
    for (const auto transform : {ReductionTransform::kReal, ReductionTransform::kPositiveReal,
                                 ReductionTransform::kLogPositiveReal}) {
        const double serial = reduce(interp, f.params, f.cache, transform);
        for (ThreadPool* pool : {&pool1, &pool2, &pool4}) {
            for (int repeat = 0; repeat < 3; ++repeat) {
                const double parallel = reduce(interp, f.params, f.cache, transform, pool);
                EXPECT_EQ(std::bit_cast<std::uint64_t>(parallel),
                          std::bit_cast<std::uint64_t>(serial))
                    << transform_name(transform) << " with " << pool->size() << " threads";
            }
        }
    }
}

// Passes over a cache alternate between forward and backward sweeps (EventCache::next_sweep);
// the partials are merged in chunk order, so both give the same bits, serially and in parallel.
TEST(Reduce, ForwardAndBackwardSweepsGiveTheSameBits) {
    Fixture f(kEvents);
    const auto interp = interp::Interpreter::prepare(f.program);
    ThreadPool pool2(2);
    const SweepOrder first = f.cache.next_sweep();
    EXPECT_NE(f.cache.next_sweep(), first);
    EXPECT_EQ(f.cache.next_sweep(), first);
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &pool2}) {
        const double once =
            reduce(interp, f.params, f.cache, ReductionTransform::kLogPositiveReal, pool);
        const double again =
            reduce(interp, f.params, f.cache, ReductionTransform::kLogPositiveReal, pool);
        EXPECT_EQ(std::bit_cast<std::uint64_t>(once), std::bit_cast<std::uint64_t>(again));
    }
    // A reduction is one pass: it takes one turn of the cache's sweep order.
    const SweepOrder before = f.cache.next_sweep();
    (void)reduce(interp, f.params, f.cache, ReductionTransform::kReal);
    EXPECT_EQ(f.cache.next_sweep(), before);
}

TEST(Reduce, MatchesANaiveLongDoubleSum) {
    Fixture f(kEvents);
    const auto interp = interp::Interpreter::prepare(f.program);
    long double real = 0;
    long double log = 0;
    for (std::size_t i = 0; i < kEvents; ++i) {
        const double w = f.cache.weights()[i];
        real += static_cast<long double>(w) * f.intensity(i);
        log += static_cast<long double>(w) * std::log(f.intensity(i));
    }
    ThreadPool pool(2);
    const double got_real = reduce(interp, f.params, f.cache, ReductionTransform::kReal, &pool);
    const double got_log =
        reduce(interp, f.params, f.cache, ReductionTransform::kLogPositiveReal, &pool);
    EXPECT_NEAR(got_real, static_cast<double>(real), 1e-12 * std::abs(static_cast<double>(real)));
    EXPECT_NEAR(got_log, static_cast<double>(log), 1e-12 * std::abs(static_cast<double>(log)));
}

TEST(Reduce, PartialsCoverFixedChunksAndMergeInOrder) {
    Fixture f(kEvents);
    const auto interp = interp::Interpreter::prepare(f.program);
    ThreadPool pool(4);
    const auto partials =
        reduce_partials(interp, f.params, f.cache, ReductionTransform::kReal, &pool);
    ASSERT_EQ(partials.size(), 13U);
    long double last = 0;
    for (std::size_t i = 12 * kReductionChunk; i < kEvents; ++i) {
        last += static_cast<long double>(f.cache.weights()[i]) * f.intensity(i);
    }
    EXPECT_NEAR(partials[12], static_cast<double>(last), 1e-12 * static_cast<double>(last));
    EXPECT_EQ(merge_partials(partials),
              reduce(interp, f.params, f.cache, ReductionTransform::kReal));
    EXPECT_EQ(partials, reduce_partials(interp, f.params, f.cache, ReductionTransform::kReal));
}

TEST(Reduce, F32IsCloseToF64) {
    Fixture f(kEvents);
    const auto f64 = interp::Interpreter::prepare(f.program, ir::Precision::kF64);
    const auto f32 = interp::Interpreter::prepare(f.program, ir::Precision::kF32);
    for (const auto transform : {ReductionTransform::kReal, ReductionTransform::kLogPositiveReal}) {
        const double a = reduce(f64, f.params, f.cache, transform);
        const double b = reduce(f32, f.params, f.cache, transform);
        EXPECT_NEAR(a, b, 1e-5 * std::abs(a));
        EXPECT_NE(a, b);
    }
}

TEST(Reduce, EvaluateCachedMatchesRows) {
    Fixture f(kReductionChunk + 10);
    const auto interp = interp::Interpreter::prepare(f.program);
    std::vector<double> re(f.cache.events());
    const std::vector<ir::OutputColumn> columns{ir::OutputColumn{re.data(), nullptr}};
    ThreadPool pool(2);
    evaluate_cached(interp, f.params, f.cache, ir::OutputView{columns}, &pool);
    for (std::size_t i = 0; i < f.cache.events(); i += 97) {
        EXPECT_EQ(re[i], evaluate_cached_row(interp, f.params, f.cache, i)[0].real());
        EXPECT_NEAR(re[i], f.intensity(i), 1e-13);
    }
}

template <typename E, typename Fn>
void expect_error(Fn&& fn, const std::vector<std::string>& fragments) {
    try {
        fn();
        FAIL() << "expected an exception";
    } catch (const E& error) {
        for (const std::string& fragment : fragments) {
            EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
        }
    }
}

TEST(Reduce, NonPositiveValuesNameTheFirstBadEvent) {
    Fixture f(kEvents);
    const auto interp = interp::Interpreter::prepare(f.program);
    // Event 5000 gets intensity exactly 0, event 9000 NaN, event 12000 a negative value.
    for (std::size_t k = 0; k < kAmplitudes; ++k) {
        f.cache.mutable_re(k)[5000] = 0.0;
        f.cache.mutable_im(k)[5000] = 0.0;
    }
    f.cache.mutable_re(kAmplitudes)[5000] = 0.0;
    f.cache.mutable_re(kAmplitudes)[9000] = std::nan("");
    f.cache.mutable_re(kAmplitudes)[12000] = -1e9;
    ThreadPool pool(4);
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
        expect_error<EvaluationError>(
            [&] {
                (void)reduce(interp, f.params, f.cache, ReductionTransform::kLogPositiveReal, p);
            },
            {"LogPositiveReal reduction", "got 0 at event 5000"});
        expect_error<EvaluationError>(
            [&] { (void)reduce(interp, f.params, f.cache, ReductionTransform::kPositiveReal, p); },
            {"PositiveReal reduction", "at event 5000"});
        // kReal takes any finite value (0 and negative ones), but not the NaN.
        expect_error<EvaluationError>(
            [&] { (void)reduce(interp, f.params, f.cache, ReductionTransform::kReal, p); },
            {"Real reduction requires a finite real value, got nan at event 9000: input '"});
    }
    f.cache.mutable_re(kAmplitudes)[5000] = 1.0;
    expect_error<EvaluationError>(
        [&] { (void)reduce(interp, f.params, f.cache, ReductionTransform::kPositiveReal, &pool); },
        {"got nan at event 9000"});
    f.cache.mutable_re(kAmplitudes)[9000] = 1.0;
    expect_error<EvaluationError>(
        [&] { (void)reduce(interp, f.params, f.cache, ReductionTransform::kPositiveReal, &pool); },
        {"at event 12000"});
    f.cache.mutable_re(kAmplitudes)[12000] = std::numeric_limits<double>::infinity();
    expect_error<EvaluationError>(
        [&] { (void)reduce(interp, f.params, f.cache, ReductionTransform::kPositiveReal, &pool); },
        {"got inf at event 12000"});
}

TEST(Reduce, ReportsUserErrors) {
    Fixture f(100);
    const auto interp = interp::Interpreter::prepare(f.program);
    const std::vector<double> short_params(3, 0.0);
    expect_error<EvaluationError>(
        [&] { (void)reduce(interp, short_params, f.cache, ReductionTransform::kReal); },
        {"expected 6 parameter values, got 3"});
    expect_error<DataError>([&] { (void)evaluate_cached_row(interp, f.params, f.cache, 100); },
                            {"row 100 is out of range", "100 events"});
    Builder b;
    b.add_output(b.load(b.add_input("z", ValueKind::kComplex)));
    const auto other = interp::Interpreter::prepare(b.finish());
    expect_error<DataError>([&] { (void)reduce(other, {}, f.cache, ReductionTransform::kReal); },
                            {"built for a different program"});
    expect_error<DataError>([&] { (void)evaluate_cached_row(other, {}, f.cache, 0); },
                            {"built for a different program"});
}

TEST(Reduce, EmptyCacheSumsToZero) {
    const ir::Program program = intensity_program();
    const EventCache cache = EventCache::allocate(program, 0);
    const auto interp = interp::Interpreter::prepare(program);
    const std::vector<double> params(6, 0.5);
    EXPECT_EQ(reduce(interp, params, cache, ReductionTransform::kLogPositiveReal), 0.0);
    EXPECT_TRUE(reduce_partials(interp, params, cache, ReductionTransform::kReal).empty());
}

}  // namespace
}  // namespace laddu::runtime
