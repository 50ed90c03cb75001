#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/likelihood/likelihood.hpp>
#include <laddu/likelihood/penalty.hpp>

namespace laddu::likelihood {
namespace {

// Σ_k weight_k (θ_k − centre_k)² over named parameters, a test term with known derivatives.
class Quadratic final : public Term {
public:
    Quadratic(std::string name, std::vector<expr::Parameter> parameters, std::vector<double> centre,
              std::vector<double> weight)
        : name_(std::move(name)), parameters_(std::move(parameters)), centre_(std::move(centre)),
          weight_(std::move(weight)) {}

    const std::string& name() const noexcept override { return name_; }

    const std::vector<expr::Parameter>& parameters() const noexcept override { return parameters_; }

    double value(std::span<const double> p) const override {
        check_parameter_count(name_, parameters_.size(), p.size());
        double sum = 0.0;
        for (std::size_t k = 0; k < p.size(); ++k) {
            sum += weight_[k] * (p[k] - centre_[k]) * (p[k] - centre_[k]);
        }
        return sum;
    }

    runtime::Evaluation value_and_gradient(std::span<const double> p) const override {
        runtime::Evaluation e{value(p), {}};
        for (std::size_t k = 0; k < p.size(); ++k) {
            e.gradient.push_back(2.0 * weight_[k] * (p[k] - centre_[k]));
        }
        return e;
    }

private:
    std::string name_;
    std::vector<expr::Parameter> parameters_;
    std::vector<double> centre_;
    std::vector<double> weight_;
};

expr::Parameter bounded(const std::string& name, double initial, double low, double high) {
    return expr::Parameter::make(name, {.initial = initial, .bounds = expr::Bounds{low, high}});
}

template <typename E>
void expect_throw_with(const std::function<void()>& f, const std::string& fragment) {
    try {
        f();
        FAIL() << "expected an exception containing '" << fragment << "'";
    } catch (const E& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

TEST(Penalty, RidgeIsLambdaTimesTheSumOfSquares) {
    const RidgePenalty ridge({"a", "b"}, 0.5);
    EXPECT_EQ(ridge.name(), "ridge");
    EXPECT_EQ(ridge.parameter_names(), (std::vector<std::string>{"a", "b"}));
    const std::vector<double> p{3.0, -2.0};
    EXPECT_DOUBLE_EQ(ridge.value(p), 0.5 * 13.0);
    EXPECT_EQ(ridge.gradient(p), (std::vector<double>{3.0, -2.0}));
}

TEST(Penalty, LassoIsLambdaTimesTheSumOfAbsoluteValuesWithZeroSubgradientAtZero) {
    const LassoPenalty lasso({"a", "b", "c"}, 2.0);
    const std::vector<double> p{3.0, -0.5, 0.0};
    EXPECT_DOUBLE_EQ(lasso.value(p), 2.0 * 3.5);
    EXPECT_EQ(lasso.gradient(p), (std::vector<double>{2.0, -2.0, 0.0}));
}

TEST(Penalty, BadArgumentsAreModelErrors) {
    expect_throw_with<ModelError>([] { RidgePenalty({}, 1.0); }, "names no parameters");
    expect_throw_with<ModelError>([] { LassoPenalty({"a"}, -1.0); }, "must be finite and >= 0");
    expect_throw_with<ModelError>([] { RidgePenalty({"a", "a"}, 1.0); }, "'a' twice");
    expect_throw_with<EvaluationError>([] { (void)RidgePenalty({"a"}, 1.0).value({}); },
                                       "takes 1 parameter");
}

class LikelihoodTest : public ::testing::Test {
protected:
    void SetUp() override {
        total_.add(std::make_shared<Quadratic>(
            "q1",
            std::vector<expr::Parameter>{bounded("a", 1.0, -5.0, 5.0), bounded("b", 2.0, 0.0, 4.0)},
            std::vector<double>{1.0, 2.0}, std::vector<double>{1.0, 3.0}));
        total_.add(std::make_shared<RidgePenalty>(std::vector<std::string>{"c", "b"}, 0.25));
        total_.add(std::make_shared<Quadratic>(
            "q2",
            std::vector<expr::Parameter>{expr::Parameter::make("c", {.initial = -1.0}),
                                         bounded("b", 2.0, 0.0, 4.0)},
            std::vector<double>{0.5, -1.0}, std::vector<double>{2.0, 1.0}));
    }

    Likelihood total_;
};

TEST_F(LikelihoodTest, ParametersAreTheUnionInOrderOfFirstAppearance) {
    EXPECT_EQ(total_.parameter_names(), (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(total_.size(), 3U);
    EXPECT_EQ(total_.terms().size(), 3U);
    // "c" is only named by the ridge term and defined by q2; q1 and q2 define "b" alike.
    EXPECT_EQ(total_.default_parameters(), (std::vector<double>{1.0, 2.0, -1.0}));
    const std::vector<expr::Bounds> bounds = total_.bounds();
    EXPECT_EQ(bounds[1], (expr::Bounds{0.0, 4.0}));
    EXPECT_EQ(bounds[2].lower, -std::numeric_limits<double>::infinity());
    EXPECT_EQ(total_.index_of("c"), 2U);
}

TEST_F(LikelihoodTest, SharedParametersSumEveryTermsContribution) {
    const std::vector<double> p{0.3, 1.5, -0.7};
    const double a = p[0];
    const double b = p[1];
    const double c = p[2];
    const double expected = (a - 1.0) * (a - 1.0) + 3.0 * (b - 2.0) * (b - 2.0) +
                            0.25 * (c * c + b * b) + 2.0 * (c - 0.5) * (c - 0.5) +
                            (b + 1.0) * (b + 1.0);
    EXPECT_DOUBLE_EQ(total_.value(p), expected);
    const std::vector<double> expected_gradient{
        2.0 * (a - 1.0), 6.0 * (b - 2.0) + 0.5 * b + 2.0 * (b + 1.0), 0.5 * c + 4.0 * (c - 0.5)};
    const runtime::Evaluation e = total_.value_and_gradient(p);
    EXPECT_DOUBLE_EQ(e.value, expected);
    for (std::size_t k = 0; k < 3; ++k) {
        EXPECT_NEAR(e.gradient[k], expected_gradient[k], 1e-14) << k;
        EXPECT_EQ(total_.gradient(p)[k], e.gradient[k]);
    }
}

TEST_F(LikelihoodTest, ValuesFromAPartialMapFillInDefaults) {
    EXPECT_EQ(total_.values_from({{"c", 7.0}}), (std::vector<double>{1.0, 2.0, 7.0}));
    expect_throw_with<ModelError>([&] { (void)total_.values_from({{"d", 1.0}}); },
                                  "no parameter 'd'; its parameters are [a, b, c]");
}

TEST_F(LikelihoodTest, WrongSizesAndNullTermsAreErrors) {
    expect_throw_with<EvaluationError>([&] { (void)total_.value(std::vector<double>{1.0}); },
                                       "takes 3 parameter values but was given 1");
    expect_throw_with<ModelError>([&] { total_.add(nullptr); }, "null term");
}

TEST_F(LikelihoodTest, TwoTermsOfOneNameAreAModelError) {
    const std::size_t before = total_.terms().size();
    expect_throw_with<ModelError>(
        [&] {
            total_.add(std::make_shared<Quadratic>(
                "q1", std::vector<expr::Parameter>{bounded("a", 1.0, -5.0, 5.0)},
                std::vector<double>{0.0}, std::vector<double>{1.0}));
        },
        "duplicate likelihood term name: 'q1'");
    EXPECT_EQ(total_.terms().size(), before);
}

// laddu's rule: identical definitions merge, different ones are refused with both.
TEST_F(LikelihoodTest, ConflictingDefinitionsOfASharedParameterAreModelErrors) {
    const std::vector<double> one{1.0};
    total_.add(std::make_shared<Quadratic>(
        "same", std::vector<expr::Parameter>{bounded("a", 1.0, -5.0, 5.0)}, one, one));
    EXPECT_EQ(total_.size(), 3U);
    for (const expr::Parameter& other :
         {expr::Parameter::make("a", {.initial = 2.0, .bounds = expr::Bounds{-5.0, 5.0}}),
          expr::Parameter::make("a", {.initial = 1.0, .bounds = expr::Bounds{-5.0, 6.0}}),
          expr::Parameter::make("a", {.bounds = expr::Bounds{-5.0, 5.0}, .fixed = 1.0})}) {
        expect_throw_with<ModelError>(
            [&] {
                total_.add(std::make_shared<Quadratic>("other", std::vector<expr::Parameter>{other},
                                                       one, one));
            },
            "parameter 'a' has conflicting definitions in term 'q1': a (initial 1, bounds "
            "[-5, 5]), and in term 'other': " +
                other.describe());
    }
}

TEST(Likelihood, AnEmptyLikelihoodIsZero) {
    const Likelihood empty;
    EXPECT_EQ(empty.value({}), 0.0);
    EXPECT_TRUE(empty.value_and_gradient({}).gradient.empty());
}

TEST_F(LikelihoodTest, EvaluationsAreCountedAndCopiesStartFromTheSourcesCounts) {
    EXPECT_EQ(total_.evaluation_counts().objective, 0U);
    const std::vector<double> at = total_.default_parameters();
    (void)total_.value(at);
    (void)total_.value(at);
    (void)total_.value_and_gradient(at);
    (void)total_.gradient(at);
    EXPECT_EQ(total_.evaluation_counts().objective, 2U);
    EXPECT_EQ(total_.evaluation_counts().gradient, 2U);
    const Likelihood copy = total_;
    (void)copy.value(at);
    EXPECT_EQ(copy.evaluation_counts().objective, 3U);
    EXPECT_EQ(total_.evaluation_counts().objective, 2U);
}

}  // namespace
}  // namespace laddu::likelihood
