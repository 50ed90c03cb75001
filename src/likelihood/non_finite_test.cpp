// A NaN in a likelihood is an EvaluationError naming its event and cause: in the data term, in
// the normalisation pass over the accepted Monte Carlo, and in the precomputed normalisation
// matrix, for the value and the gradient, on every backend and precision.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/ir/precision.hpp>
#include <laddu/likelihood/nll.hpp>

#include "toy_model.hpp"

namespace laddu::likelihood {
namespace {

using expr::Expr;
using laddu::testing::with_normalization;
using laddu::testing::with_threads;

constexpr std::size_t kEvents = 10007;
constexpr std::size_t kBad = 6007;

// "x" in [1.1, 2.1), or `bad` at event kBad.
data::Dataset events(std::optional<double> bad = std::nullopt) {
    std::vector<double> x(kEvents);
    for (std::size_t i = 0; i < kEvents; ++i) {
        x[i] = 1.1 + 1e-4 * static_cast<double>(i);
    }
    if (bad) {
        x[kBad] = *bad;
    }
    const std::vector<data::ScalarInput> scalars{{"x", x}};
    return data::Dataset::from_scalars(scalars);
}

std::string error_of(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const EvaluationError& error) {
        return error.what();
    }
    return "(no EvaluationError)";
}

// Runs fn(execution) on the interpreter and the JIT (when built), in f64 and f32.
void for_each_backend(const std::function<void(const runtime::Execution&)>& fn) {
    for (const runtime::JitPolicy jit :
         {runtime::JitPolicy::kDisabled, runtime::JitPolicy::kEnabled}) {
        for (const ir::Precision precision : {ir::Precision::kF64, ir::Precision::kF32}) {
            runtime::Execution execution = with_threads(2);
            execution.jit = jit;
            execution.precision = precision;
            SCOPED_TRACE(
                std::string(jit == runtime::JitPolicy::kEnabled ? "jit " : "interpreter ") +
                ir::precision_name(precision));
            try {
                fn(execution);
            } catch (const BackendError& error) {
                EXPECT_NE(std::string(error.what()).find("without LLVM"), std::string::npos)
                    << error.what();
            }
        }
    }
}

TEST(NonFiniteNll, ANanInTheNormalisationPassNamesTheAcceptedEvent) {
    const Expr x = expr::scalar("x");
    const Expr p = expr::parameter("p", {.initial = 1.0});
    const expr::Model model(expr::sqrt(x - p) + 1.0);
    const data::Dataset data = events();
    const data::Dataset accepted = events(0.0);  // sqrt(0 - 1) at accepted event kBad
    const std::vector<double> params{1.0};
    for_each_backend([&](const runtime::Execution& execution) {
        const NLL nll(model, data, accepted,
                      with_normalization(execution, runtime::NormalizationMode::kGeneral), "nll");
        const std::string expected = "Real reduction requires a finite real value, got nan at "
                                     "event 6007: sqrt(-1) is nan";
        EXPECT_EQ(error_of([&] { (void)nll.value(params); }), expected);
        EXPECT_EQ(error_of([&] { (void)nll.value_and_gradient(params); }), expected);
        EXPECT_NO_THROW((void)nll.value_and_gradient(std::vector<double>{-0.5}));
    });
}

TEST(NonFiniteNll, AMatrixSingularAtSomeParameterValuesNamesTheDataEvent) {
    // [[x + p, 1], [1, 1]] is singular at data event kBad (x = 0.5) for p = 0.5 only.
    const Expr x = expr::scalar("x");
    const Expr p = expr::parameter("p", {.initial = 0.5});
    const Expr m = expr::matrix({{x + p, 1.0}, {1.0, 1.0}});
    const expr::Model model(expr::norm_sqr(expr::solve(m, expr::vector({1.0, x}))[0]) + 0.1);
    const data::Dataset data = events(0.5);
    const data::Dataset accepted = events();
    for_each_backend([&](const runtime::Execution& execution) {
        const NLL nll(model, data, accepted, execution);
        const std::string expected = "LogPositiveReal reduction requires a positive finite real "
                                     "value, got nan at event 6007: solve of a 2x2 matrix is "
                                     "singular: [[1, 1], [1, 1]]";
        const std::vector<double> singular{0.5};
        EXPECT_EQ(error_of([&] { (void)nll.value(singular); }), expected);
        EXPECT_EQ(error_of([&] { (void)nll.value_and_gradient(singular); }), expected);
        const std::vector<double> regular{0.7};
        EXPECT_NO_THROW((void)nll.value_and_gradient(regular));
    });
}

TEST(NonFiniteNll, ANanInThePrecomputedNormalisationMatrixNamesTheAcceptedEvent) {
    // |(a + i b) sqrt(x - 1)|²: one coefficient and one event amplitude, so the integral is
    // c^H M c with M summed over the accepted events once, when the NLL is built.
    const Expr x = expr::scalar("x");
    const Expr c = expr::complex(expr::parameter("a", {.initial = 1.0}),
                                 expr::parameter("b", {.initial = 0.5}));
    const expr::Model model(expr::norm_sqr(c * expr::sqrt(x - 1.0)));
    const data::Dataset data = events();
    EXPECT_TRUE(NLL(model, data, events(), with_threads(2)).uses_fast_normalization());
    for (const std::size_t threads : {1U, 2U}) {
        EXPECT_EQ(error_of([&] { (void)NLL(model, data, events(0.0), with_threads(threads)); }),
                  "amplitude 0 of the normalisation integral is not finite at event 6007 of the "
                  "accepted Monte Carlo: sqrt(-1) is nan");
    }
}

}  // namespace
}  // namespace laddu::likelihood
