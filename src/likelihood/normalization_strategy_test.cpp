// laddu's normalisation strategies in an NLL: "linear_statistics", "hermitian", "hybrid" and
// "general" give the general pass's value and gradient, the same bits for any thread count and
// memory plan, and kVerify raises when the statistics no longer describe the model.
#include <cmath>
#include <complex>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/likelihood/nll.hpp>

#include "fast_normalization.hpp"
#include "finite_differences.hpp"
#include "toy_model.hpp"

namespace laddu::likelihood {
namespace {

using expr::Expr;
using laddu::testing::central_differences;
using laddu::testing::toy_dataset;
using laddu::testing::toy_events;
using laddu::testing::with_normalization;
using laddu::testing::with_threads;
using runtime::NormalizationMode;

const Expr kX = expr::scalar("x");

// p1 |x| + p2 x² + 1/2: linear in the parameters, of unknown sign.
expr::Model linear_model() {
    const Expr p1 = expr::parameter("p1", {.initial = 1.0});
    const Expr p2 = expr::parameter("p2", {.initial = 0.7});
    return expr::Model(p1 * expr::abs(kX) + p2 * kX * kX + 0.5);
}

// p1² |x| + p2² powi(x, 2) + 1/2: linear statistics of an intensity proven non-negative
// (laddu's rule proves even powers of reals, not x · x).
expr::Model proven_linear_model() {
    const Expr p1 = expr::parameter("p1", {.initial = 1.0});
    const Expr p2 = expr::parameter("p2", {.initial = 0.7});
    return expr::Model(expr::powi(p1, 2) * expr::abs(kX) + expr::powi(p2, 2) * expr::powi(kX, 2) +
                       0.5);
}

// The toy coherent sum plus 0.1 exp(a x), which mixes a and x non-separably.
expr::Model hybrid_model() {
    const Expr a = expr::parameter("a", {.initial = 0.3});
    return expr::Model(laddu::testing::toy_model().expression() + 0.1 * expr::exp(a * kX));
}

// The toy coherent sum plus 0.1 |x + a|² / (1 + a² x²): a quotient is not proven non-negative,
// so only kVerify uses its statistics; a second residual shape beside hybrid_model's.
expr::Model hybrid_quotient_model() {
    const Expr a = expr::parameter("a", {.initial = 0.3});
    return expr::Model(laddu::testing::toy_model().expression() +
                       0.1 * expr::norm_sqr(kX + a) / (1.0 + a * a * kX * kX));
}

// Only exp(a x) (x + b)²: nothing separable.
expr::Model general_model() {
    const Expr a = expr::parameter("a", {.initial = 0.3});
    const Expr b = expr::parameter("b", {.initial = 1.5});
    return expr::Model(expr::exp(a * kX) * expr::powi(kX + b, 2));
}

// Three coherent sums of 3, 1 and 2 waves in x: groups of odd and even size side by side, so the
// contraction's row blocks are padded in one group and not in another.
expr::Model grouped_model() {
    Expr intensity = expr::constant(0.0);
    std::size_t wave = 0;
    for (const std::size_t size : {std::size_t{3}, std::size_t{1}, std::size_t{2}}) {
        Expr sum = expr::constant(std::complex<double>(0.0, 0.0));
        for (std::size_t k = 0; k < size; ++k, ++wave) {
            const double n = static_cast<double>(wave);
            const Expr c = expr::complex(
                expr::parameter("r" + std::to_string(wave), {.initial = 1.0 - (0.1 * n)}),
                expr::parameter("i" + std::to_string(wave), {.initial = 0.2 * n}));
            sum = sum + (c * expr::cis((n + 1.0) * kX) * (1.0 + (n * kX * kX)));
        }
        intensity = intensity + expr::norm_sqr(sum);
    }
    return expr::Model(intensity);
}

std::vector<double> point_of(const expr::Model& model) {
    // The toy parameters (a0, b0, ...) where the model has them, else a shifted default.
    const std::vector<std::string> names = model.parameters().free_names();
    const std::vector<double> toy = laddu::testing::toy_parameters();
    std::vector<double> point;
    for (std::size_t k = 0; k < names.size(); ++k) {
        const std::string& name = names[k];
        if (name.size() == 2 && (name[0] == 'a' || name[0] == 'b') && std::isdigit(name[1])) {
            const std::size_t wave = static_cast<std::size_t>(name[1] - '0');
            point.push_back(toy[2 * wave + (name[0] == 'b' ? 1 : 0)]);
        } else {
            point.push_back(0.35 + 0.1 * static_cast<double>(k));
        }
    }
    return point;
}

void expect_relatively_close(double got, double want, double tolerance, const std::string& what) {
    EXPECT_LE(std::abs(got - want), tolerance * std::max(std::abs(want), 1e-300))
        << what << ": " << got << " vs " << want;
}

class NormalizationStrategyTest : public ::testing::Test {
protected:
    data::Dataset data_ = toy_dataset(toy_events(2003, 21));
    data::Dataset mc_ = toy_dataset(toy_events(4001, 22));
};

struct StrategyCase {
    expr::Model (*make)();
    NormalizationMode mode;
    const char* strategy;
    bool residual;
};

TEST_F(NormalizationStrategyTest, EachModelGetsLadduStrategyName) {
    const std::vector<StrategyCase> cases{
        {linear_model, NormalizationMode::kVerify, "linear_statistics", false},
        {linear_model, NormalizationMode::kAuto, "general", false},  // not proven non-negative
        {proven_linear_model, NormalizationMode::kAuto, "linear_statistics", false},
        {[] { return laddu::testing::toy_model(); }, NormalizationMode::kAuto, "hermitian", false},
        {[] { return laddu::testing::toy_model({.offset = 0.25}); }, NormalizationMode::kAuto,
         "hermitian", false},
        {hybrid_model, NormalizationMode::kVerify, "hybrid", true},
        {hybrid_model, NormalizationMode::kAuto, "general", false},  // laddu proves no exp ≥ 0
        {hybrid_quotient_model, NormalizationMode::kVerify, "hybrid", true},
        {general_model, NormalizationMode::kVerify, "general", false},
        {proven_linear_model, NormalizationMode::kGeneral, "general", false},
    };
    for (const StrategyCase& c : cases) {
        const NLL nll(c.make(), data_, mc_, with_normalization(with_threads(2), c.mode));
        const UnbinnedNllInfo info = nll.info();
        EXPECT_EQ(info.normalization_strategy, c.strategy) << c.strategy;
        EXPECT_EQ(info.normalization_has_residual, c.residual) << c.strategy;
        EXPECT_EQ(nll.uses_fast_normalization(), std::string(c.strategy) != "general");
        EXPECT_EQ(info.fast_normalization, nll.uses_fast_normalization());
    }
    const NLL linear(proven_linear_model(), data_, mc_, with_threads(2));
    EXPECT_EQ(linear.info().normalization_bases, 3U);  // |x|, x², 1
    EXPECT_EQ(linear.info().normalization_terms, 0U);
    EXPECT_EQ(linear.info().normalization_groups, 0U);
    EXPECT_EQ(linear.info().normalization_bytes, 3 * sizeof(std::complex<double>));
    const NLL grouped(grouped_model(), data_, mc_, with_threads(2));
    EXPECT_EQ(grouped.info().normalization_strategy, "hermitian");
    EXPECT_EQ(grouped.info().normalization_groups, 3U);
    EXPECT_EQ(grouped.info().normalization_terms, 6U);
    const NLL hybrid(hybrid_model(), data_, mc_,
                     with_normalization(with_threads(2), NormalizationMode::kVerify));
    EXPECT_EQ(hybrid.info().normalization_groups, 1U);
    EXPECT_EQ(hybrid.info().normalization_terms, 3U);  // one per wave
}

TEST_F(NormalizationStrategyTest, ValuesAndGradientsMatchTheGeneralPass) {
    const std::vector<std::pair<expr::Model (*)(), NormalizationMode>> cases{
        {linear_model, NormalizationMode::kVerify},
        {proven_linear_model, NormalizationMode::kAuto},
        {[] { return laddu::testing::toy_model({.offset = 0.25}); }, NormalizationMode::kAuto},
        {grouped_model, NormalizationMode::kAuto},
        {hybrid_model, NormalizationMode::kVerify},
        {hybrid_quotient_model, NormalizationMode::kVerify},
    };
    for (const auto& [make, mode] : cases) {
        const expr::Model model = make();
        const std::vector<double> at = point_of(model);
        const NLL fast(model, data_, mc_, with_normalization(with_threads(2), mode));
        const NLL general(model, data_, mc_,
                          with_normalization(with_threads(2), NormalizationMode::kGeneral));
        ASSERT_TRUE(fast.uses_fast_normalization()) << fast.info().normalization_strategy;
        const std::string name = fast.info().normalization_strategy;
        expect_relatively_close(fast.normalization_integral(at), general.normalization_integral(at),
                                1e-12, name + " integral");
        const runtime::Evaluation f = fast.value_and_gradient(at);
        const runtime::Evaluation g = general.value_and_gradient(at);
        expect_relatively_close(f.value, g.value, 1e-12, name + " value");
        ASSERT_EQ(f.gradient.size(), g.gradient.size());
        for (std::size_t k = 0; k < g.gradient.size(); ++k) {
            EXPECT_NEAR(f.gradient[k], g.gradient[k], 1e-12 * std::max(1.0, std::abs(g.value)))
                << name << " gradient " << k;
        }
        const ExtendedNLL extended(model, data_, mc_, with_normalization(with_threads(2), mode));
        const ExtendedNLL extended_general(
            model, data_, mc_, with_normalization(with_threads(2), NormalizationMode::kGeneral));
        expect_relatively_close(extended.value(at), extended_general.value(at), 1e-12,
                                name + " extended value");
    }
}

TEST_F(NormalizationStrategyTest, GradientsMatchCentralDifferences) {
    for (const auto make : {linear_model, hybrid_model, hybrid_quotient_model}) {
        const expr::Model model = make();
        const std::vector<double> at = point_of(model);
        const NLL nll(model, data_, mc_,
                      with_normalization(with_threads(2), NormalizationMode::kVerify));
        const std::vector<double> numeric =
            central_differences([&](const std::vector<double>& p) { return nll.value(p); }, at);
        const runtime::Evaluation e = nll.value_and_gradient(at);
        for (std::size_t k = 0; k < at.size(); ++k) {
            EXPECT_NEAR(e.gradient[k], numeric[k], 1e-5 * std::max(1.0, std::abs(numeric[k])))
                << nll.info().normalization_strategy << " " << k;
        }
    }
}

TEST_F(NormalizationStrategyTest, BitIdenticalForAnyThreadCountAndMemoryPlan) {
    constexpr std::size_t kBudget = std::size_t{2} << 20;
    for (const auto& [make, mode] : std::vector<std::pair<expr::Model (*)(), NormalizationMode>>{
             {proven_linear_model, NormalizationMode::kAuto},
             {hybrid_model, NormalizationMode::kVerify}}) {
        const expr::Model model = make();
        const std::vector<double> at = point_of(model);
        const NLL one(model, data_, mc_, with_normalization(with_threads(1), mode));
        const runtime::Evaluation expected = one.value_and_gradient(at);
        EXPECT_EQ(one.value(at), expected.value);
        const NLL two(model, data_, mc_, with_normalization(with_threads(2), mode));
        const data::EventData streamed(mc_, data::MemoryPolicy::kStreaming);
        const NLL budgeted(model, data_, streamed,
                           with_normalization(with_threads(2, kBudget), mode));
        for (const NLL* nll : {&two, &budgeted}) {
            ASSERT_TRUE(nll->uses_fast_normalization());
            const runtime::Evaluation got = nll->value_and_gradient(at);
            EXPECT_EQ(got.value, expected.value) << nll->info().normalization_strategy;
            EXPECT_EQ(got.gradient, expected.gradient) << nll->info().normalization_strategy;
            EXPECT_EQ(nll->value(at), expected.value);
        }
    }
}

// Accepted MC that is the data itself is gathered from the data's resident cache, with the bits
// of the same events gathered from their columns (a copy, or the data streamed).
TEST_F(NormalizationStrategyTest, TheDataAsAcceptedMonteCarloReadsItsCacheWithTheSameBits) {
    for (const auto& [make, mode] : std::vector<std::pair<expr::Model (*)(), NormalizationMode>>{
             {[] { return laddu::testing::toy_model({.offset = 0.25}); }, NormalizationMode::kAuto},
             {proven_linear_model, NormalizationMode::kAuto},
             {hybrid_model, NormalizationMode::kVerify}}) {
        const expr::Model model = make();
        const std::vector<double> at = point_of(model);
        const data::EventData events(mc_);
        const data::EventData copy(mc_);
        const data::EventData streamed = events.with_policy(data::MemoryPolicy::kStreaming);
        for (const std::size_t threads : {1U, 2U}) {
            const runtime::Execution execution = with_normalization(with_threads(threads), mode);
            const NLL shared(model, events, events, execution);
            const NLL separate(model, events, copy, execution);
            const NLL from_stream(model, streamed, streamed, execution);
            const std::string name = shared.info().normalization_strategy;
            ASSERT_TRUE(shared.uses_fast_normalization()) << name;
            EXPECT_TRUE(shared.info().normalization_from_data_cache) << name;
            EXPECT_FALSE(separate.info().normalization_from_data_cache) << name;
            EXPECT_FALSE(from_stream.info().normalization_from_data_cache) << name;
            const runtime::Evaluation expected = separate.value_and_gradient(at);
            for (const NLL* nll : {&shared, &from_stream}) {
                const runtime::Evaluation got = nll->value_and_gradient(at);
                EXPECT_EQ(got.value, expected.value) << name;
                EXPECT_EQ(got.gradient, expected.gradient) << name;
            }
        }
    }
}

TEST_F(NormalizationStrategyTest, VerifyRaisesWhenTheStatisticsDisagreeWithThePass) {
    for (const auto make : {linear_model, hybrid_model, +[] {
                                return laddu::testing::toy_model();
                            }}) {
        const expr::Model model = make();
        const std::vector<double> at = point_of(model);
        {
            const testing::ScopedStatisticsPerturbation perturbed(1.0);
            const NLL wrong(model, data_, mc_,
                            with_normalization(with_threads(2), NormalizationMode::kVerify));
            ASSERT_TRUE(wrong.uses_fast_normalization());
            EXPECT_THROW((void)wrong.value(at), EvaluationError);
            EXPECT_THROW((void)wrong.value_and_gradient(at), EvaluationError);
            EXPECT_THROW((void)wrong.normalization_integral(at), EvaluationError);
        }
        // The perturbation ends with its scope: the same model verifies again.
        const NLL right(model, data_, mc_,
                        with_normalization(with_threads(2), NormalizationMode::kVerify));
        EXPECT_NO_THROW((void)right.value_and_gradient(at));
    }
}

TEST(NormalizationAutoRule, StatisticsOnlyWithinTheBreakEvenAndWhenProvenNonNegative) {
    compile::NormalizationDecomposition d;
    d.proven_nonnegative = true;
    d.general_work = 10;
    d.statistics_work = kAutoBreakEvenEvaluations * 10;
    EXPECT_TRUE(wants_statistics(d, NormalizationMode::kAuto));
    EXPECT_TRUE(wants_statistics(d, NormalizationMode::kVerify));
    EXPECT_FALSE(wants_statistics(d, NormalizationMode::kGeneral));
    d.statistics_work += 1;  // one more than 16 general evaluations
    EXPECT_FALSE(wants_statistics(d, NormalizationMode::kAuto));
    EXPECT_TRUE(wants_statistics(d, NormalizationMode::kVerify));
    d.statistics_work = 1;
    d.proven_nonnegative = false;
    EXPECT_FALSE(wants_statistics(d, NormalizationMode::kAuto));
    EXPECT_TRUE(wants_statistics(d, NormalizationMode::kVerify));
}

TEST_F(NormalizationStrategyTest, AutoFallsBackToThePassWhenTheBudgetHasNoRoom) {
    // The statistics lease terms² + bases complex doubles for the life of the term: under kAuto a
    // refused lease means no statistics (the NLL then prepares the general pass), under kVerify
    // it is the pool's DataError.
    const compile::CompiledModel compiled = compile::compile_model(proven_linear_model());
    const std::size_t bytes = 3 * sizeof(std::complex<double>);
    const auto execution_with = [](std::size_t budget, NormalizationMode mode) {
        runtime::Execution execution = with_normalization(with_threads(2), mode);
        execution.memory_pool = std::make_shared<runtime::MemoryPool>(budget, "a test budget");
        return execution;
    };
    // (The read windows of a resident Dataset take no bytes.)
    const runtime::Execution roomy = execution_with(bytes, NormalizationMode::kAuto);
    const std::optional<FastNormalization> fits = FastNormalization::build(compiled, mc_, roomy);
    ASSERT_TRUE(fits.has_value());
    EXPECT_EQ(fits->bytes(), bytes);
    EXPECT_EQ(roomy.memory_pool->leased(), bytes);
    const runtime::Execution tight = execution_with(bytes - 1, NormalizationMode::kAuto);
    EXPECT_FALSE(FastNormalization::build(compiled, mc_, tight).has_value());
    EXPECT_EQ(tight.memory_pool->leased(), 0U);
    EXPECT_THROW((void)FastNormalization::build(
                     compiled, mc_, execution_with(bytes - 1, NormalizationMode::kVerify)),
                 DataError);
}

}  // namespace
}  // namespace laddu::likelihood
