#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/runtime/prepared_model.hpp>

#include "test_reductions.hpp"
#include "toy_model.hpp"

namespace laddu::runtime {
namespace {

using Complex = std::complex<double>;
using laddu::testing::toy_intensity;
using laddu::testing::with_threads;

constexpr std::size_t kEvents = 10007;  // not a multiple of the chunk or block size

Execution with_threads(std::size_t threads, AutodiffMode mode) {
    Execution execution = with_threads(threads);
    execution.autodiff = mode;
    return execution;
}

class PreparedModelTest : public ::testing::Test {
protected:
    // |Σ_k (a_k + i b_k) exp(i k x) (k + m²)|² + 0.1 over events "k", "x".
    laddu::testing::ToyEvents events_ = laddu::testing::toy_events(kEvents, 11);
    data::Dataset dataset_ = laddu::testing::toy_dataset(events_);
    compile::CompiledModel compiled_ =
        compile::compile_model(laddu::testing::toy_model({.offset = 0.1}));
    std::vector<double> params_ = laddu::testing::toy_parameters();
};

TEST_F(PreparedModelTest, ParameterOrderIsTheModelsFreeOrder) {
    const auto prepared = PreparedModel::prepare(compiled_, dataset_, with_threads(1));
    EXPECT_EQ(prepared.parameter_names(),
              (std::vector<std::string>{"a0", "b0", "a1", "b1", "a2", "b2"}));
    EXPECT_EQ(prepared.events(), kEvents);
}

TEST_F(PreparedModelTest, LogReductionMatchesADirectSum) {
    const auto prepared = PreparedModel::prepare(compiled_, dataset_, with_threads(1));
    long double direct = 0.0L;
    for (std::size_t i = 0; i < kEvents; ++i) {
        direct += static_cast<long double>(events_.w[i] *
                                           std::log(toy_intensity(events_, i, params_, 0.1)));
    }
    const double value = prepared.reduce(params_, ReductionTransform::kLogPositiveReal);
    EXPECT_NEAR(value, static_cast<double>(direct), 1e-11 * std::abs(static_cast<double>(direct)));
}

TEST_F(PreparedModelTest, EvaluateMatchesTheDirectIntensityPerEvent) {
    const auto prepared = PreparedModel::prepare(compiled_, dataset_, with_threads(2));
    const auto values = prepared.evaluate(params_);
    ASSERT_EQ(values.size(), kEvents);
    for (std::size_t i = 0; i < kEvents; i += 997) {
        const double expected = toy_intensity(events_, i, params_, 0.1);
        EXPECT_NEAR(values[i].real(), expected, 1e-12 * expected) << "event " << i;
        EXPECT_EQ(values[i], prepared.evaluate_row(params_, i));
    }
}

TEST_F(PreparedModelTest, ReductionsAreBitIdenticalForAnyThreadCount) {
    const auto one = PreparedModel::prepare(compiled_, dataset_, with_threads(1));
    const double value = one.reduce(params_, ReductionTransform::kLogPositiveReal);
    const Evaluation with_gradient =
        one.reduce_with_gradient(params_, ReductionTransform::kLogPositiveReal);
    EXPECT_EQ(with_gradient.value, value);  // bit for bit
    for (const std::size_t threads : {2U, 3U, 4U}) {
        const auto many = PreparedModel::prepare(compiled_, dataset_, with_threads(threads));
        EXPECT_EQ(many.reduce(params_, ReductionTransform::kLogPositiveReal), value)
            << threads << " threads";
        EXPECT_EQ(many.reduce_with_gradient(params_, ReductionTransform::kLogPositiveReal),
                  with_gradient)
            << threads << " threads";
    }
}

TEST_F(PreparedModelTest, GradientMatchesCentralDifferencesInBothModes) {
    for (const AutodiffMode mode : {AutodiffMode::kForward, AutodiffMode::kReverse}) {
        const auto prepared = PreparedModel::prepare(compiled_, dataset_, with_threads(2, mode));
        const auto g = prepared.reduce_with_gradient(params_, ReductionTransform::kLogPositiveReal);
        ASSERT_EQ(g.gradient.size(), params_.size());
        for (std::size_t k = 0; k < params_.size(); ++k) {
            const double h = 1e-5;
            std::vector<double> up = params_;
            std::vector<double> down = params_;
            up[k] += h;
            down[k] -= h;
            const double fd = (prepared.reduce(up, ReductionTransform::kLogPositiveReal) -
                               prepared.reduce(down, ReductionTransform::kLogPositiveReal)) /
                              (2.0 * h);
            EXPECT_NEAR(g.gradient[k], fd, 1e-6 * std::max(1.0, std::abs(fd))) << "parameter " << k;
        }
    }
}

TEST_F(PreparedModelTest, ForwardAndReverseGradientsAgree) {
    const auto fwd =
        PreparedModel::prepare(compiled_, dataset_, with_threads(1, AutodiffMode::kForward));
    const auto rev =
        PreparedModel::prepare(compiled_, dataset_, with_threads(1, AutodiffMode::kReverse));
    const auto a = fwd.reduce_with_gradient(params_, ReductionTransform::kReal);
    const auto b = rev.reduce_with_gradient(params_, ReductionTransform::kReal);
    EXPECT_EQ(a.value, b.value);
    for (std::size_t k = 0; k < params_.size(); ++k) {
        EXPECT_NEAR(a.gradient[k], b.gradient[k], 1e-12 * std::abs(a.gradient[k]));
    }
}

TEST_F(PreparedModelTest, MissingColumnsAreNamedWithWhatTheDatasetHas) {
    const std::vector<data::ScalarInput> scalars{{"y", events_.x}};
    const auto other = data::Dataset::from_arrays(std::span<const data::P4Input>{}, scalars);
    try {
        (void)PreparedModel::prepare(compiled_, other);
        FAIL() << "prepare accepted a dataset without the model's columns";
    } catch (const DataError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("k.px"), std::string::npos) << message;
        EXPECT_NE(message.find("x"), std::string::npos) << message;
        EXPECT_NE(message.find("scalars [y]"), std::string::npos) << message;
    }
}

TEST_F(PreparedModelTest, ACacheLargerThanTheBudgetIsRefusedWithTheNumbers) {
    Execution execution;
    execution.memory = MemoryPlan::bytes(1024);
    try {
        (void)PreparedModel::prepare(compiled_, dataset_, execution);
        FAIL() << "prepare ignored the memory budget";
    } catch (const DataError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("memory budget"), std::string::npos) << message;
        EXPECT_NE(message.find("bytes per event"), std::string::npos) << message;
    }
    const auto prepared = PreparedModel::prepare(compiled_, dataset_, with_threads(1));
    EXPECT_NE(prepared.memory_report().decision.find("resident"), std::string::npos);
    EXPECT_GE(prepared.memory_report().cache_bytes, prepared.cache().resident_bytes());
}

TEST_F(PreparedModelTest, WrongParameterCountIsAnEvaluationError) {
    const auto prepared = PreparedModel::prepare(compiled_, dataset_, with_threads(1));
    const std::vector<double> short_params{1.0, 2.0};
    EXPECT_THROW((void)prepared.reduce(short_params, ReductionTransform::kReal), EvaluationError);
    EXPECT_THROW((void)prepared.reduce_with_gradient(short_params, ReductionTransform::kReal),
                 EvaluationError);
}

TEST_F(PreparedModelTest, ANonPositiveIntensityUnderTheLogNamesItsEvent) {
    // Re f = x is negative for about half the events.
    const auto compiled = compile::compile_model(
        expr::Model(expr::scalar("x") * expr::parameter("s", {.initial = 1.0})));
    std::size_t first_bad = 0;
    while (events_.x[first_bad] > 0.0) {
        ++first_bad;
    }
    const std::vector<double> params{1.0};
    // The JIT's fused reductions only flag the chunk; the unfused path then names the event.
    for (const JitPolicy jit : {JitPolicy::kDisabled, JitPolicy::kEnabled}) {
        Execution execution = with_threads(2);
        execution.jit = jit;
        try {
            const auto prepared = PreparedModel::prepare(compiled, dataset_, execution);
            for (const bool gradient : {false, true}) {
                SCOPED_TRACE(std::string(prepared.backend()) +
                             (gradient ? " with gradient" : " value"));
                try {
                    const auto log = ReductionTransform::kLogPositiveReal;
                    if (gradient) {
                        (void)prepared.reduce_with_gradient(params, log);
                    } else {
                        (void)prepared.reduce(params, log);
                    }
                    FAIL() << "a negative value went under the log";
                } catch (const EvaluationError& error) {
                    const std::string message = error.what();
                    EXPECT_NE(message.find("at event " + std::to_string(first_bad)),
                              std::string::npos)
                        << message;
                }
            }
        } catch (const BackendError& error) {
            EXPECT_NE(std::string(error.what()).find("without LLVM"), std::string::npos)
                << error.what();
        }
    }
}

TEST_F(PreparedModelTest, TheJitPolicyPicksTheBackendAndTheJitAgreesBitForBit) {
    // In f64 the JIT follows the interpreter's arithmetic exactly (docs/ir.md); in f32 both
    // read the float cache and compute in float with the same formulas.
    for (const ir::Precision precision : {ir::Precision::kF64, ir::Precision::kF32}) {
        SCOPED_TRACE(ir::precision_name(precision));
        Execution off = with_threads(2);
        off.precision = precision;
        off.jit = JitPolicy::kDisabled;
        const auto interpreted = PreparedModel::prepare(compiled_, dataset_, off);
        EXPECT_EQ(interpreted.backend(), "interpreter");
        Execution on = off;
        on.jit = JitPolicy::kEnabled;
        try {
            const auto jitted = PreparedModel::prepare(compiled_, dataset_, on);
            EXPECT_EQ(jitted.backend(), "jit");
            // The JIT's reductions are fused with its kernel (JitKernel::reduction), the
            // interpreter's are not: the same sums either way.
            for (const ReductionTransform transform :
                 {ReductionTransform::kLogPositiveReal, ReductionTransform::kPositiveReal,
                  ReductionTransform::kReal}) {
                SCOPED_TRACE(std::string(transform_name(transform)));
                EXPECT_EQ(jitted.reduce(params_, transform),
                          interpreted.reduce(params_, transform));
                EXPECT_EQ(jitted.reduce_with_gradient(params_, transform),
                          interpreted.reduce_with_gradient(params_, transform));
            }
            EXPECT_EQ(jitted.evaluate_row(params_, 17), interpreted.evaluate_row(params_, 17));
            EXPECT_EQ(jitted.evaluate(params_), interpreted.evaluate(params_));
        } catch (const BackendError& error) {
            // Only a build without LLVM may refuse, and it must say so.
            EXPECT_NE(std::string(error.what()).find("without LLVM"), std::string::npos)
                << error.what();
        }
    }
}

TEST_F(PreparedModelTest, EvaluateRowOutOfRangeIsADataError) {
    const auto prepared = PreparedModel::prepare(compiled_, dataset_, with_threads(1));
    EXPECT_THROW((void)prepared.evaluate_row(params_, kEvents), DataError);
}

}  // namespace
}  // namespace laddu::runtime
