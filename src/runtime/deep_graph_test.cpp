// Expressions 100,000 levels deep (a sum built with +=, a product built with *=, nested unary
// functions) compile, evaluate on every backend and differentiate without recursion: every
// traversal over expressions and IR is iterative (issue 21).
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/expr/print.hpp>
#include <laddu/expr/render.hpp>
#include <laddu/runtime/prepared_model.hpp>

#include "test_reductions.hpp"
#include "toy_model.hpp"

namespace laddu::runtime {
namespace {

using expr::Expr;

constexpr std::size_t kDepth = 100'000;
constexpr std::size_t kJitDepth = 100;
const std::vector<double> kX = {0.25, -0.5, 0.75, 0.1, -0.9};
constexpr double kP = 0.3;

data::Dataset dataset() {
    const std::vector<data::ScalarInput> scalars = {{"x", kX}};
    return data::Dataset::from_scalars(scalars);
}

// A chain's value at x and p, computed with plain doubles, and its derivative in p.
struct Reference {
    double value = 0.0;
    double derivative = 0.0;
};

// Each case builds a model from x and p and gives the direct value of one event.
struct DeepCase {
    std::string name;
    Expr (*build)(const Expr& x, const Expr& p, std::size_t depth);
    Reference (*reference)(double x, double p, std::size_t depth);
};

// s = x; s += p * x, `depth` times (left-deep: the n-ary sum is built one term at a time).
Expr sum_chain(const Expr& x, const Expr& p, std::size_t depth) {
    Expr s = x;
    for (std::size_t i = 0; i < depth; ++i) {
        s = s + p * x;
    }
    return s;
}

Reference sum_reference(double x, double p, std::size_t depth) {
    const auto n = static_cast<double>(depth);
    return {x + n * p * x, n * x};
}

// m = x; m *= 1 + 1e-6 p x, `depth` times.
Expr product_chain(const Expr& x, const Expr& p, std::size_t depth) {
    Expr m = x;
    const Expr factor = 1.0 + 1e-6 * p * x;
    for (std::size_t i = 0; i < depth; ++i) {
        m = m * factor;
    }
    return m;
}

Reference product_reference(double x, double p, std::size_t depth) {
    const auto n = static_cast<double>(depth);
    const double f = 1.0 + 1e-6 * p * x;
    return {x * std::pow(f, n), x * n * std::pow(f, n - 1.0) * 1e-6 * x};
}

// y = x; y = sin(p y + x), `depth` times: nothing flattens, the graph is 3 * depth levels deep.
Expr nested_chain(const Expr& x, const Expr& p, std::size_t depth) {
    Expr y = x;
    for (std::size_t i = 0; i < depth; ++i) {
        y = expr::sin(p * y + x);
    }
    return y;
}

Reference nested_reference(double x, double p, std::size_t depth) {
    double y = x;
    double dy = 0.0;
    for (std::size_t i = 0; i < depth; ++i) {
        const double inner = p * y + x;
        dy = std::cos(inner) * (y + p * dy);
        y = std::sin(inner);
    }
    return {y, dy};
}

bool close(double a, double b, double tolerance) {
    return std::abs(a - b) <= tolerance * std::max(1.0, std::abs(b));
}

void check_case(const DeepCase& c, JitPolicy jit, std::size_t depth = kDepth) {
    SCOPED_TRACE(c.name + " chain, depth " + std::to_string(depth));
    const Expr x = expr::scalar("x");
    const Expr p = expr::parameter("p", {.initial = kP});
    const expr::Model model(c.build(x, p, depth));
    const compile::CompiledModel compiled = compile::compile_model(model);
    Execution execution = laddu::testing::with_threads(2);
    execution.jit = jit;
    const auto prepared = PreparedModel::prepare(compiled, dataset(), execution);
    const std::vector<double> params = {kP};
    const auto values = prepared.evaluate(params);
    ASSERT_EQ(values.size(), kX.size());
    double value_sum = 0.0;
    double derivative_sum = 0.0;
    for (std::size_t i = 0; i < kX.size(); ++i) {
        const Reference expected = c.reference(kX[i], kP, depth);
        EXPECT_TRUE(close(values[i].real(), expected.value, 1e-9))
            << c.name << " event " << i << ": " << values[i].real() << " vs " << expected.value;
        value_sum += expected.value;
        derivative_sum += expected.derivative;
    }
    const Evaluation reduced = prepared.reduce_with_gradient(params, ReductionTransform::kReal);
    EXPECT_TRUE(close(reduced.value, value_sum, 1e-9)) << c.name;
    ASSERT_EQ(reduced.gradient.size(), 1U);
    EXPECT_TRUE(close(reduced.gradient[0], derivative_sum, 1e-7))
        << c.name << ": " << reduced.gradient[0] << " vs " << derivative_sum;
}

const DeepCase kCases[] = {
    {"sum", &sum_chain, &sum_reference},
    {"product", &product_chain, &product_reference},
    {"nested", &nested_chain, &nested_reference},
};

TEST(DeepGraph, ChainsCompileEvaluateAndDifferentiateOnTheInterpreter) {
    for (const DeepCase& c : kCases) {
        check_case(c, JitPolicy::kDisabled);
    }
}

TEST(DeepGraph, ChainsCompileEvaluateAndDifferentiateOnTheJit) {
    // The same code paths (compile, autodiff, lowering) at a depth LLVM optimises in seconds:
    // its optimiser needs minutes for a function of 10^5 instructions (or one add of 10^5
    // operands), whatever the graph's depth.
    for (const DeepCase& c : kCases) {
        try {
            check_case(c, JitPolicy::kEnabled, kJitDepth);
        } catch (const BackendError& error) {
            GTEST_SKIP() << error.what();  // built without LLVM
        }
    }
}

TEST(DeepGraph, UnoptimisedChainsCompileAndPrint) {
    const Expr x = expr::scalar("x");
    const Expr p = expr::parameter("p", {.initial = kP});
    for (const DeepCase& c : kCases) {
        const expr::Model model(c.build(x, p, kDepth));
        const compile::CompiledModel plain = compile::compile_model(model, {.optimize = false});
        EXPECT_GT(plain.evaluate.size(), 0U) << c.name;
        EXPECT_FALSE(expr::to_string(model.expression()).empty()) << c.name;
        EXPECT_FALSE(expr::to_dot(model.expression()).empty()) << c.name;
    }
}

}  // namespace
}  // namespace laddu::runtime
