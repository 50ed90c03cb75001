// The separable decomposition of an intensity (compile/normalization.hpp): which strategy each
// shape of model gets, and that groups + linear terms + residual rebuild the model's value.
#include <complex>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/compile/compiled_model.hpp>
#include <laddu/expr/print.hpp>

#include "test_support/kmatrix_model.hpp"
#include "test_support/reference.hpp"

namespace laddu::compile {
namespace {

using expr::Expr;
using testing::close;
using Complex = std::complex<double>;

const Expr kX = expr::scalar("x");
const Expr kY = expr::scalar("y");

// Σ_g |Σ_a c_a A_a|² + Re Σ_k d_k B_k + residual, from the decomposition's programs and the
// residual model, equals the model's value on random events and parameters.
void expect_decomposition_matches(const expr::Model& model, const NormalizationDecomposition& n,
                                  double lo = 0.2, double hi = 1.5) {
    std::mt19937 rng(7);
    const std::size_t terms = n.amplitudes.size();
    for (int trial = 0; trial < 10; ++trial) {
        const auto event = testing::random_event(model.expression(), rng, lo, hi);
        const auto params = testing::random_params(model.parameters(), rng);
        std::vector<double> free;
        for (const auto& name : model.parameters().free_names()) {
            free.push_back(params.at(name));
        }
        std::vector<Complex> inputs;
        for (const auto& slot : n.amplitude_program.inputs) {
            inputs.emplace_back(event.at(slot.name));
        }
        const auto e = testing::execute_program(n.coefficient_program, {}, free);
        const auto a = testing::execute_program(n.amplitude_program, inputs, {});
        ASSERT_EQ(e.size(), n.basis_count());
        ASSERT_EQ(a.size(), n.basis_count());
        std::vector<Complex> group_sum(n.group_count);
        for (std::size_t k = 0; k < terms; ++k) {
            group_sum[n.group[k]] += e[k] * a[k];
        }
        double value = 0.0;
        for (const auto& g : group_sum) {
            value += std::norm(g);
        }
        for (std::size_t k = terms; k < n.basis_count(); ++k) {
            value += (e[k] * a[k]).real();
        }
        if (n.residual_model) {
            value += testing::run_compiled(*n.residual_model, event, params).real();
        }
        const auto expected = testing::evaluate_reference(model.expression(), params, event).at(0);
        EXPECT_TRUE(close(value, expected, 1e-8)) << value << " vs " << expected;
    }
}

NormalizationDecomposition decomposition_of(const expr::Model& model) {
    const CompiledModel compiled = compile_model(model);
    EXPECT_TRUE(compiled.normalization.has_value());
    return compiled.normalization.value_or(NormalizationDecomposition{});
}

TEST(NormalizationStrategy, HasLadduNames) {
    EXPECT_EQ(to_string(NormalizationStrategy::kHermitian), "hermitian");
    EXPECT_EQ(to_string(NormalizationStrategy::kLinearStatistics), "linear_statistics");
    EXPECT_EQ(to_string(NormalizationStrategy::kHybrid), "hybrid");
    EXPECT_EQ(to_string(NormalizationStrategy::kGeneral), "general");
}

TEST(NormalizationStrategy, RealProductsAreLinearStatistics) {
    const Expr p1 = expr::parameter("p1");
    const Expr p2 = expr::parameter("p2");
    const expr::Model model(p1 * expr::abs(kX) + p2 * kX * kX + 3.0);
    const NormalizationDecomposition n = decomposition_of(model);
    EXPECT_EQ(n.strategy, NormalizationStrategy::kLinearStatistics);
    EXPECT_EQ(n.group_count, 0U);
    EXPECT_TRUE(n.amplitudes.empty());
    EXPECT_EQ(n.bases.size(), 3U);  // |x|, x², and the constant's basis 1
    EXPECT_FALSE(n.residual.has_value());
    EXPECT_FALSE(n.proven_nonnegative);  // p1 may be negative
    expect_decomposition_matches(model, n, -1.0, 1.0);
}

TEST(NormalizationStrategy, RealPartsConjugatesAndQuotientsAreLinear) {
    const Expr c = expr::complex(expr::parameter("c re"), expr::parameter("c im"));
    const Expr p = expr::parameter("p");
    const expr::Model model(expr::real(c * expr::cis(kX)) + expr::imag(expr::conj(c) * kY) +
                            expr::norm_sqr(c * expr::cis(kY)) * kX + p / (kX + 2.0) +
                            expr::powi(p * kY, 2) / (p * p + 1.0));
    const NormalizationDecomposition n = decomposition_of(model);
    EXPECT_EQ(n.strategy, NormalizationStrategy::kLinearStatistics);
    EXPECT_FALSE(n.residual.has_value());
    expect_decomposition_matches(model, n);
}

TEST(NormalizationStrategy, CoherentGroupsWithLinearTermsAreHermitian) {
    const Expr p = expr::parameter("p");
    const expr::Model model(expr::norm_sqr(expr::cis(kX) * p) + p + kY);
    const NormalizationDecomposition n = decomposition_of(model);
    EXPECT_EQ(n.strategy, NormalizationStrategy::kHermitian);
    EXPECT_EQ(n.group_count, 1U);
    EXPECT_EQ(n.amplitudes.size(), 1U);
    EXPECT_EQ(n.bases.size(), 2U);  // p · 1 and 1 · y
    EXPECT_FALSE(n.proven_nonnegative);
    expect_decomposition_matches(model, n);
}

TEST(NormalizationStrategy, APureCoherentSumIsHermitianAndProvenNonNegative) {
    const Expr c = expr::complex(expr::parameter("c re"), expr::parameter("c im"));
    const expr::Model model(expr::norm_sqr(c * expr::cis(kX) + expr::parameter("d") * kY) +
                            2.0 * expr::norm_sqr(c * kX));
    const NormalizationDecomposition n = decomposition_of(model);
    EXPECT_EQ(n.strategy, NormalizationStrategy::kHermitian);
    EXPECT_EQ(n.group_count, 2U);
    EXPECT_TRUE(n.bases.empty());
    EXPECT_TRUE(n.proven_nonnegative);
    EXPECT_GT(n.statistics_work, 0U);
    EXPECT_GT(n.general_work, 0U);
    expect_decomposition_matches(model, n);
}

TEST(NormalizationStrategy, ANonSeparableTermBesideSeparableOnesIsHybrid) {
    const Expr c = expr::complex(expr::parameter("c re"), expr::parameter("c im"));
    const Expr a = expr::parameter("a");
    const expr::Model model(expr::norm_sqr(c * expr::cis(kX)) + expr::exp(a * kY));
    const CompiledModel compiled = compile_model(model);
    ASSERT_TRUE(compiled.normalization.has_value());
    const NormalizationDecomposition& n = *compiled.normalization;
    EXPECT_EQ(n.strategy, NormalizationStrategy::kHybrid);
    EXPECT_EQ(n.group_count, 1U);
    ASSERT_TRUE(n.residual.has_value());
    ASSERT_NE(n.residual_model, nullptr);
    EXPECT_FALSE(n.residual_model->normalization.has_value());
    // The residual reads only `a`: its position among the model's free parameters.
    ASSERT_EQ(n.residual_parameters.size(), 1U);
    const auto names = compiled.parameters.free_names();
    EXPECT_EQ(names[n.residual_parameters[0]], "a");
    EXPECT_FALSE(n.proven_nonnegative);  // laddu proves nothing about exp
    expect_decomposition_matches(model, n);
}

TEST(NormalizationStrategy, NothingSeparableIsGeneral) {
    const Expr p = expr::parameter("p");
    EXPECT_FALSE(compile_model(expr::Model(expr::norm_sqr(expr::exp(expr::complex(p * kX, kY)))))
                     .normalization);
    EXPECT_FALSE(compile_model(expr::Model(expr::exp(p * kX) + expr::sin(p * kY))).normalization);
    EXPECT_FALSE(compile_model(expr::Model(expr::exp(p * kX)), {.analyse_normalization = false})
                     .normalization);
}

TEST(NormalizationStrategy, TheKmatrixStandInStaysHermitian) {
    const expr::Model model = testing::kmatrix_benchmark_model();
    const NormalizationDecomposition n = decomposition_of(model);
    EXPECT_EQ(n.strategy, NormalizationStrategy::kHermitian);
    EXPECT_TRUE(n.proven_nonnegative);
    // The statistics cost well under the auto break-even of 16 general evaluations.
    EXPECT_LE(n.statistics_work, 16 * n.general_work);
    expect_decomposition_matches(model, n, 0.1, 0.9);
}

}  // namespace
}  // namespace laddu::compile

namespace laddu::compile {
namespace {
TEST(NormalizationStrategy, EvenPowersOfParametersAreProvenNonNegative) {
    const Expr p1 = expr::parameter("p1");
    const Expr p2 = expr::parameter("p2");
    const expr::Model model(expr::powi(p1, 2) * expr::abs(kX) +
                            expr::powi(p2, 2) * expr::powi(kX, 2) + 0.5);
    const CompiledModel compiled = compile_model(model);
    ASSERT_TRUE(compiled.normalization.has_value());
    const NormalizationDecomposition& n = *compiled.normalization;
    EXPECT_EQ(n.strategy, NormalizationStrategy::kLinearStatistics);
    EXPECT_TRUE(n.proven_nonnegative) << expr::to_string(compiled.optimized);
    EXPECT_LE(n.statistics_work, 16 * n.general_work) << n.statistics_work << " " << n.general_work;
}
}  // namespace
}  // namespace laddu::compile
