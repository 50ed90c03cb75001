// The chunk reductions' lane layout: each chunk partial is a LaneSum over that chunk's terms
// w_i T(v_i) (and w_i T'(v_i) ∂v_i/∂θ_k), computed here independently of the runtime.
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/error.hpp>
#include <laddu/base/log_positive.hpp>
#include <laddu/ir/builder.hpp>
#include <laddu/runtime/reduce.hpp>
#include <laddu/runtime/reduce_gradient.hpp>
#include <laddu/runtime/thread_pool.hpp>

#include "test_reductions.hpp"

namespace laddu::runtime {
namespace {

using ir::Builder;
using ir::OpCode;
using ir::ValueId;
using ir::ValueKind;

constexpr std::size_t kEvents = 2 * kReductionChunk + 1003;

// Output 0: v = (p0 x) x + y; outputs 1, 2 (stand-ins for derivatives): x, p1 y.
ir::Program program() {
    Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    const ValueId y = b.load(b.add_input("y", ValueKind::kReal));
    const ValueId v =
        b.binary(OpCode::kAdd, b.binary(OpCode::kMul, b.binary(OpCode::kMul, b.param(0), x), x), y);
    b.add_output(v);
    b.add_output(x);
    b.add_output(b.binary(OpCode::kMul, b.param(1), y));
    return b.finish();
}

struct Fixture {
    ir::Program prog = program();
    EventCache cache = EventCache::allocate(prog, kEvents);
    std::vector<double> params{0.7, -1.3};

    Fixture() {
        std::mt19937_64 rng(17);
        std::uniform_real_distribution<double> x(-2.0, 2.0);
        std::uniform_real_distribution<double> y(1e-3, 1.0);
        std::uniform_real_distribution<double> w(-0.5, 2.0);  // negative weights too
        for (double& v : cache.mutable_re(0)) {
            v = x(rng) * std::pow(10.0, x(rng));
        }
        for (double& v : cache.mutable_re(1)) {
            v = y(rng);
        }
        for (double& v : cache.mutable_weights()) {
            v = w(rng);
        }
        cache.refresh_sum_weights();
    }

    [[nodiscard]] double x(std::size_t i) { return cache.mutable_re(0)[i]; }

    [[nodiscard]] double y(std::size_t i) { return cache.mutable_re(1)[i]; }

    [[nodiscard]] double value(std::size_t i) { return params[0] * x(i) * x(i) + y(i); }

    [[nodiscard]] double output(std::size_t j, std::size_t i) {
        return j == 0 ? value(i) : j == 1 ? x(i) : params[1] * y(i);
    }
};

std::uint64_t bits(double x) {
    return std::bit_cast<std::uint64_t>(x);
}

TEST(LaneReduce, ValuePartialsAreLaneSumsOfTheChunksTerms) {
    Fixture f;
    const auto interp = interp::Interpreter::prepare(f.prog);
    ThreadPool pool(2);
    for (const auto transform : {ReductionTransform::kReal, ReductionTransform::kLogPositiveReal}) {
        const std::vector<double> partials =
            reduce_partials(interp, f.params, f.cache, transform, &pool);
        ASSERT_EQ(partials.size(), 3U);
        for (std::size_t c = 0; c < partials.size(); ++c) {
            LaneSum expected;
            for (std::size_t i = c * kReductionChunk;
                 i < std::min(kEvents, (c + 1) * kReductionChunk); ++i) {
                const double v = f.value(i);
                // The reductions' log is laddu::log_positive (within 1 ulp of libm's); each
                // term w · T(v) enters its lane's run by fma, one push per event.
                const double t = transform == ReductionTransform::kReal ? v : log_positive(v);
                const double w = f.cache.weights()[i];
                expected.push_products(std::span<const double>(&w, 1),
                                       std::span<const double>(&t, 1));
            }
            EXPECT_EQ(bits(partials[c]), bits(expected.finish()))
                << transform_name(transform) << " chunk " << c;
        }
    }
}

TEST(LaneReduce, GradientPartialsAreLaneSumsAndTheValueMatchesReduce) {
    Fixture f;
    const auto interp = interp::Interpreter::prepare(f.prog);
    ThreadPool pool(2);
    const GradientPartials got = reduce_gradient_partials(
        interp, f.params, f.cache, ReductionTransform::kLogPositiveReal, &pool);
    const std::vector<double> values =
        reduce_partials(interp, f.params, f.cache, ReductionTransform::kLogPositiveReal);
    ASSERT_EQ(got.parameters, 2U);
    ASSERT_EQ(got.values.size(), 3U);
    for (std::size_t c = 0; c < got.values.size(); ++c) {
        EXPECT_EQ(bits(got.values[c]), bits(values[c])) << "chunk " << c;
        for (std::size_t k = 0; k < 2; ++k) {
            // Each term scale · ∂v/∂θ_k enters its lane's run by fma, one push per event.
            LaneSum expected;
            for (std::size_t i = c * kReductionChunk;
                 i < std::min(kEvents, (c + 1) * kReductionChunk); ++i) {
                const double scale = f.cache.weights()[i] * (1.0 / f.value(i));
                const double derivative = f.output(k + 1, i);
                expected.push_products(std::span<const double>(&scale, 1),
                                       std::span<const double>(&derivative, 1));
            }
            EXPECT_EQ(bits(got.gradients[c * 2 + k]), bits(expected.finish()))
                << "chunk " << c << " parameter " << k;
        }
    }
    // And the merged result is within Sum2's bound of a long-double reference.
    const Evaluation merged = merge_gradient_partials(got);
    long double reference = 0.0L;
    for (std::size_t i = 0; i < kEvents; ++i) {
        reference += static_cast<long double>(f.cache.weights()[i]) * std::log(f.value(i));
    }
    EXPECT_NEAR(merged.value, static_cast<double>(reference),
                1e-13 * std::abs(static_cast<double>(reference)));
}

TEST(LaneReduce, TheFirstBadEventIsNamed) {
    Fixture f;
    const std::size_t bad = kReductionChunk + 77;
    f.cache.mutable_re(0)[bad] = 0.0;
    f.cache.mutable_re(1)[bad] = -0.25;  // v = -0.25
    f.cache.mutable_re(1)[bad + 5] = -1.0;
    const auto interp = interp::Interpreter::prepare(f.prog);
    ThreadPool pool(2);
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
        try {
            (void)reduce(interp, f.params, f.cache, ReductionTransform::kLogPositiveReal, p);
            FAIL() << "expected an EvaluationError";
        } catch (const EvaluationError& e) {
            EXPECT_NE(std::string(e.what()).find("at event " + std::to_string(bad)),
                      std::string::npos)
                << e.what();
        }
        try {
            (void)reduce_with_gradient(interp, f.params, f.cache, ReductionTransform::kPositiveReal,
                                       p);
            FAIL() << "expected an EvaluationError";
        } catch (const EvaluationError& e) {
            EXPECT_NE(std::string(e.what()).find("at event " + std::to_string(bad)),
                      std::string::npos)
                << e.what();
        }
    }
}

}  // namespace
}  // namespace laddu::runtime
