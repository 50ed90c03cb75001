#include <cmath>
#include <complex>
#include <cstddef>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/runtime/prepared_model.hpp>

#include "toy_model.hpp"

namespace laddu::runtime {
namespace {

using Complex = std::complex<double>;
using laddu::testing::with_threads;

constexpr std::size_t kEvents = 2053;  // more than two reduction chunks, not a multiple of one

class PreparedGradientsTest : public ::testing::Test {
protected:
    laddu::testing::ToyEvents events_ = laddu::testing::toy_events(kEvents, 5);
    data::Dataset dataset_ = laddu::testing::toy_dataset(events_);
    compile::CompiledModel intensity_ =
        compile::compile_model(laddu::testing::toy_model({.offset = 0.1}));
    std::vector<double> params_ = {0.9, -0.2, 0.4, 0.7, -1.1, 0.3};

    // A complex amplitude of three parameters (no norm_sqr): (a + ib) e^{imx} + (m² + ia).
    static compile::CompiledModel amplitude() {
        const expr::Expr x = expr::scalar("x");
        const expr::Expr a = expr::parameter("a", {.initial = 1.0});
        const expr::Expr b = expr::parameter("b", {.initial = 0.5});
        const expr::Expr m = expr::parameter("m", {.initial = 0.3});
        return compile::compile_model(
            expr::Model(expr::complex(a, b) * expr::cis(m * x) + expr::complex(m * m, a)));
    }
};

// Central difference of f(θ) per event, for real or imaginary parts.
std::vector<Complex> central_difference(const PreparedModel& prepared, std::vector<double> params,
                                        std::size_t k) {
    const double h = 1e-6 * std::max(1.0, std::abs(params[k]));
    const double at = params[k];
    params[k] = at + h;
    const std::vector<Complex> up = prepared.evaluate(params);
    params[k] = at - h;
    const std::vector<Complex> down = prepared.evaluate(params);
    std::vector<Complex> out(up.size());
    for (std::size_t i = 0; i < up.size(); ++i) {
        out[i] = (up[i] - down[i]) / (2.0 * h);
    }
    return out;
}

TEST_F(PreparedGradientsTest, ValuesAreEvaluatesBitsAndGradientsMatchCentralDifferences) {
    const auto prepared = PreparedModel::prepare(intensity_, dataset_, with_threads(2));
    const EventGradients result = prepared.evaluate_with_gradient(params_);
    const std::vector<Complex> values = prepared.evaluate(params_);
    ASSERT_EQ(result.values.size(), kEvents);
    ASSERT_EQ(result.parameters, params_.size());
    ASSERT_EQ(result.gradients.size(), kEvents * params_.size());
    for (std::size_t i = 0; i < kEvents; ++i) {
        ASSERT_EQ(result.values[i], values[i]) << "event " << i;
    }
    for (std::size_t k = 0; k < params_.size(); ++k) {
        const std::vector<Complex> numeric = central_difference(prepared, params_, k);
        for (std::size_t i = 0; i < kEvents; ++i) {
            const Complex exact = result.gradients[i * params_.size() + k];
            EXPECT_EQ(exact.imag(), 0.0);
            EXPECT_NEAR(exact.real(), numeric[i].real(), 1e-6 * std::max(1.0, std::abs(exact)))
                << "event " << i << ", parameter " << k;
        }
    }
}

TEST_F(PreparedGradientsTest, WeightedSumOfEventGradientsIsTheReductionsGradient) {
    const auto prepared = PreparedModel::prepare(intensity_, dataset_, with_threads(1));
    const EventGradients result = prepared.evaluate_with_gradient(params_);
    const Evaluation reduced = prepared.reduce_with_gradient(params_, ReductionTransform::kReal);
    for (std::size_t k = 0; k < params_.size(); ++k) {
        long double sum = 0.0L;
        for (std::size_t i = 0; i < kEvents; ++i) {
            sum += static_cast<long double>(events_.w[i]) *
                   static_cast<long double>(result.gradients[i * params_.size() + k].real());
        }
        EXPECT_NEAR(static_cast<double>(sum), reduced.gradient[k],
                    1e-12 * std::max(1.0, std::abs(reduced.gradient[k])));
    }
}

TEST_F(PreparedGradientsTest, ResultsAreBitIdenticalForAnyThreadCount) {
    const EventGradients one = PreparedModel::prepare(intensity_, dataset_, with_threads(1))
                                   .evaluate_with_gradient(params_);
    const EventGradients three = PreparedModel::prepare(intensity_, dataset_, with_threads(3))
                                     .evaluate_with_gradient(params_);
    ASSERT_EQ(one.gradients.size(), three.gradients.size());
    for (std::size_t j = 0; j < one.gradients.size(); ++j) {
        ASSERT_EQ(one.gradients[j], three.gradients[j]) << "entry " << j;
    }
}

TEST_F(PreparedGradientsTest, ComplexModelsGetComplexGradients) {
    const auto prepared = PreparedModel::prepare(amplitude(), dataset_, with_threads(2));
    const std::vector<double> params = {0.8, -0.4, 1.3};
    const EventGradients full = prepared.evaluate_with_gradient(params);
    ASSERT_EQ(full.parameters, 3U);
    for (std::size_t k = 0; k < params.size(); ++k) {
        const std::vector<Complex> numeric = central_difference(prepared, params, k);
        for (std::size_t i = 0; i < kEvents; ++i) {
            const Complex exact = full.gradients[i * 3 + k];
            EXPECT_NEAR(exact.real(), numeric[i].real(), 1e-6 * std::max(1.0, std::abs(exact)));
            EXPECT_NEAR(exact.imag(), numeric[i].imag(), 1e-6 * std::max(1.0, std::abs(exact)));
        }
    }
}

TEST_F(PreparedGradientsTest, AWrongParameterCountIsAnError) {
    const auto prepared = PreparedModel::prepare(intensity_, dataset_, with_threads(1));
    EXPECT_THROW((void)prepared.evaluate_with_gradient(std::vector<double>{1.0}), EvaluationError);
}

}  // namespace
}  // namespace laddu::runtime
