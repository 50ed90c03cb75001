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
#include <laddu/likelihood/nll.hpp>

#include "finite_differences.hpp"
#include "toy_model.hpp"

namespace laddu::likelihood {
namespace {

using expr::Expr;
using Complex = std::complex<double>;
using laddu::testing::central_differences;
using laddu::testing::toy_dataset;
using laddu::testing::toy_events;
using laddu::testing::toy_intensity;
using laddu::testing::ToyEvents;
using laddu::testing::with_normalization;
using laddu::testing::with_threads;

// scale · |Σ_k (a_k + i b_k) exp(i k x) (k + m²)|² + offset (tests/support/toy_model.hpp).
expr::Model make_model(double offset, double scale = 1.0) {
    return laddu::testing::toy_model({.offset = offset, .scale = scale});
}

struct DirectSums {
    long double sum_log = 0.0L;
    long double sum_weights = 0.0L;
    long double integral = 0.0L;
};

DirectSums direct_sums(const ToyEvents& data, const ToyEvents& mc,
                       const std::vector<double>& params, double offset) {
    DirectSums s;
    for (std::size_t i = 0; i < data.w.size(); ++i) {
        s.sum_log += static_cast<long double>(data.w[i]) *
                     std::log(static_cast<long double>(toy_intensity(data, i, params, offset)));
        s.sum_weights += static_cast<long double>(data.w[i]);
    }
    for (std::size_t j = 0; j < mc.w.size(); ++j) {
        s.integral += static_cast<long double>(mc.w[j]) *
                      static_cast<long double>(toy_intensity(mc, j, params, offset));
    }
    return s;
}

class NllTest : public ::testing::Test {
protected:
    ToyEvents data_events_ = toy_events(3001, 11);
    ToyEvents mc_events_ = toy_events(5003, 12);
    data::Dataset data_ = toy_dataset(data_events_);
    data::Dataset mc_ = toy_dataset(mc_events_);
    std::vector<double> params_ = laddu::testing::toy_parameters();
};

TEST_F(NllTest, ParametersAreTheModelsFreeParameters) {
    const NLL nll(make_model(0.1), data_, mc_, with_threads(2));
    EXPECT_EQ(nll.name(), "nll");
    EXPECT_EQ(nll.parameter_names(),
              (std::vector<std::string>{"a0", "b0", "a1", "b1", "a2", "b2"}));
    EXPECT_EQ(nll.parameters()[0].initial, 1.0);
}

TEST_F(NllTest, NllMatchesADirectSummation) {
    for (const double offset : {0.0, 0.1}) {
        const NLL nll(make_model(offset), data_, mc_, with_threads(2));
        const DirectSums s = direct_sums(data_events_, mc_events_, params_, offset);
        const double expected =
            static_cast<double>(s.sum_weights * std::log(s.integral) - s.sum_log);
        EXPECT_NEAR(nll.value(params_), expected, 1e-11 * std::abs(expected)) << offset;
        EXPECT_NEAR(nll.normalization_integral(params_), static_cast<double>(s.integral),
                    1e-12 * static_cast<double>(s.integral));
        EXPECT_NEAR(nll.data_sum_weights(), static_cast<double>(s.sum_weights), 1e-12);
        EXPECT_EQ(nll.value_and_gradient(params_).value, nll.value(params_));
    }
}

TEST_F(NllTest, ExtendedNllMatchesADirectSummation) {
    for (const double offset : {0.0, 0.1}) {
        const ExtendedNLL nll(make_model(offset), data_, mc_, with_threads(2));
        EXPECT_EQ(nll.name(), "extended_nll");
        const DirectSums s = direct_sums(data_events_, mc_events_, params_, offset);
        const double expected = static_cast<double>(s.integral - s.sum_log);
        EXPECT_NEAR(nll.value(params_), expected, 1e-11 * std::abs(expected)) << offset;
    }
}

TEST_F(NllTest, GradientsMatchCentralDifferences) {
    const NLL nll(make_model(0.1), data_, mc_, with_threads(2));
    const ExtendedNLL extended(make_model(0.1), data_, mc_, with_threads(2));
    for (const UnbinnedNll* term :
         {static_cast<const UnbinnedNll*>(&nll), static_cast<const UnbinnedNll*>(&extended)}) {
        const std::vector<double> exact = term->gradient(params_);
        const std::vector<double> numeric = central_differences(
            [&](const std::vector<double>& p) { return term->value(p); }, params_);
        ASSERT_EQ(exact.size(), numeric.size());
        for (std::size_t k = 0; k < exact.size(); ++k) {
            EXPECT_NEAR(exact[k], numeric[k], 1e-6 * std::max(1.0, std::abs(exact[k])))
                << term->name() << " parameter " << k;
        }
    }
}

TEST_F(NllTest, NllIsInvariantUnderScalingTheIntensity) {
    const NLL plain(make_model(0.1), data_, mc_, with_threads(2));
    const NLL scaled(make_model(0.1 * 7.5, 7.5), data_, mc_, with_threads(2));
    const double value = plain.value(params_);
    EXPECT_NEAR(scaled.value(params_), value, 1e-10 * std::abs(value));
    const std::vector<double> g = plain.gradient(params_);
    const std::vector<double> gs = scaled.gradient(params_);
    for (std::size_t k = 0; k < g.size(); ++k) {
        EXPECT_NEAR(gs[k], g[k], 1e-9 * std::max(1.0, std::abs(g[k])));
    }
}

TEST_F(NllTest, FastNormalizationAgreesWithTheMcPass) {
    const expr::Model model = make_model(0.0);
    ASSERT_TRUE(compile::compile_model(model).normalization.has_value())
        << "the coherent sum should decompose";
    const NLL fast(model, data_, mc_, with_threads(2));
    const NLL pass(model, data_, mc_,
                   with_normalization(with_threads(2), runtime::NormalizationMode::kGeneral),
                   "nll");
    EXPECT_TRUE(fast.uses_fast_normalization());
    EXPECT_FALSE(pass.uses_fast_normalization());
    const runtime::Evaluation f = fast.normalization_integral_with_gradient(params_);
    const runtime::Evaluation p = pass.normalization_integral_with_gradient(params_);
    EXPECT_NEAR(f.value, p.value, 1e-12 * std::abs(p.value));
    for (std::size_t k = 0; k < p.gradient.size(); ++k) {
        EXPECT_NEAR(f.gradient[k], p.gradient[k], 1e-12 * std::abs(p.value)) << k;
    }
    const runtime::Evaluation fv = fast.value_and_gradient(params_);
    const runtime::Evaluation pv = pass.value_and_gradient(params_);
    EXPECT_NEAR(fv.value, pv.value, 1e-12 * std::abs(pv.value));
    for (std::size_t k = 0; k < pv.gradient.size(); ++k) {
        EXPECT_NEAR(fv.gradient[k], pv.gradient[k], 1e-10 * std::max(1.0, std::abs(pv.gradient[k])))
            << k;
    }
}

TEST_F(NllTest, ModelsWithoutADecompositionFallBackToTheMcPass) {
    // exp(a0 · x) is not a Hermitian form in parameter-only coefficients.
    const Expr a = expr::parameter("a0", {.initial = 0.5});
    const expr::Model model(expr::exp(a * expr::scalar("x")));
    ASSERT_FALSE(compile::compile_model(model).normalization.has_value());
    const NLL nll(model, data_, mc_, with_threads(2));
    EXPECT_FALSE(nll.uses_fast_normalization());
    const std::vector<double> p{0.3};
    long double integral = 0.0L;
    for (std::size_t j = 0; j < mc_events_.w.size(); ++j) {
        integral += static_cast<long double>(mc_events_.w[j] * std::exp(0.3 * mc_events_.x[j]));
    }
    EXPECT_NEAR(nll.normalization_integral(p), static_cast<double>(integral),
                1e-12 * static_cast<double>(integral));
}

TEST_F(NllTest, VerifyKeepsTheMatrixAndChecksItAgainstTheEventPass) {
    const expr::Model model = make_model(0.0);
    const NLL fast(model, data_, mc_, with_threads(2));
    const NLL verify(model, data_, mc_,
                     with_normalization(with_threads(2), runtime::NormalizationMode::kVerify));
    const NLL pass(model, data_, mc_,
                   with_normalization(with_threads(2), runtime::NormalizationMode::kGeneral));
    ASSERT_TRUE(verify.uses_fast_normalization());
    EXPECT_FALSE(pass.uses_fast_normalization());
    // verify holds both: the matrix for the value, the prepared accepted events for the check.
    EXPECT_TRUE(verify.info().accepted.memory.has_value());
    EXPECT_EQ(verify.value(params_), fast.value(params_));
    const runtime::Evaluation v = verify.value_and_gradient(params_);
    const runtime::Evaluation f = fast.value_and_gradient(params_);
    EXPECT_EQ(v.value, f.value);
    EXPECT_EQ(v.gradient, f.gradient);
    EXPECT_NEAR(pass.value(params_), f.value, 1e-10 * std::abs(f.value));
}

TEST_F(NllTest, ValuesAndGradientsAreBitIdenticalForAnyThreadCount) {
    for (const auto strategy :
         {runtime::NormalizationMode::kAuto, runtime::NormalizationMode::kGeneral}) {
        const NLL reference(make_model(0.0), data_, mc_,
                            with_normalization(with_threads(1), strategy), "nll");
        const runtime::Evaluation expected = reference.value_and_gradient(params_);
        for (const std::size_t threads : {2U, 3U}) {
            const NLL nll(make_model(0.0), data_, mc_,
                          with_normalization(with_threads(threads), strategy), "nll");
            const runtime::Evaluation e = nll.value_and_gradient(params_);
            EXPECT_EQ(e.value, expected.value) << threads;
            EXPECT_EQ(e.gradient, expected.gradient) << threads;
        }
    }
}

TEST_F(NllTest, FastNormalizationKeepsIncoherentGroupsApart) {
    // |Σ_k c_k A_k|² + |c_3 B|²: two coherent groups, no interference between them.
    const Expr x = expr::scalar("x");
    const Expr c0 = expr::complex(expr::parameter("a0"), expr::parameter("b0"));
    const Expr c1 = expr::complex(expr::parameter("a1"), expr::parameter("b1"));
    const Expr c2 = expr::complex(expr::parameter("a2"), expr::parameter("b2"));
    const expr::Model model(expr::norm_sqr(c0 * expr::cis(x) + c1 * expr::cis(2.0 * x)) +
                            expr::norm_sqr(c2 * (x * x + 1.0)));
    ASSERT_TRUE(compile::compile_model(model).normalization.has_value());
    const NLL fast(model, data_, mc_, with_threads(2));
    const NLL pass(model, data_, mc_,
                   with_normalization(with_threads(2), runtime::NormalizationMode::kGeneral),
                   "nll");
    ASSERT_TRUE(fast.uses_fast_normalization());
    const runtime::Evaluation f = fast.normalization_integral_with_gradient(params_);
    const runtime::Evaluation p = pass.normalization_integral_with_gradient(params_);
    long double direct = 0.0L;
    for (std::size_t j = 0; j < mc_events_.w.size(); ++j) {
        const double xj = mc_events_.x[j];
        const Complex s1 = Complex(params_[0], params_[1]) * std::polar(1.0, xj) +
                           Complex(params_[2], params_[3]) * std::polar(1.0, 2.0 * xj);
        const Complex s2 = Complex(params_[4], params_[5]) * (xj * xj + 1.0);
        direct += static_cast<long double>(mc_events_.w[j] * (std::norm(s1) + std::norm(s2)));
    }
    EXPECT_NEAR(f.value, static_cast<double>(direct), 1e-12 * static_cast<double>(direct));
    EXPECT_NEAR(f.value, p.value, 1e-12 * std::abs(p.value));
    for (std::size_t k = 0; k < p.gradient.size(); ++k) {
        EXPECT_NEAR(f.gradient[k], p.gradient[k], 1e-12 * std::abs(p.value)) << k;
    }
}

// |c0 e^{ix} [S] + c1 (x² + 1) [P]|² with tagged amplitudes.
expr::Model tagged_model() {
    const Expr x = expr::scalar("x");
    const Expr c0 = expr::complex(expr::parameter("a0"), expr::parameter("b0"));
    const Expr c1 = expr::complex(expr::parameter("a1"), expr::parameter("b1"));
    return expr::Model(
        expr::norm_sqr((c0 * expr::cis(x)).tagged("S") + (c1 * (x * x + 1.0)).tagged("P")));
}

TEST_F(NllTest, FitFractionsAndProjectionWeightsMatchADirectSum) {
    const NLL nll(tagged_model(), data_, mc_, with_threads(2));
    const std::vector<double> p{0.7, -0.2, 0.3, 0.9};
    long double s_part = 0.0L;
    long double total = 0.0L;
    for (std::size_t j = 0; j < mc_events_.w.size(); ++j) {
        const double xj = mc_events_.x[j];
        const Complex s = Complex(p[0], p[1]) * std::polar(1.0, xj);
        const Complex pw = Complex(p[2], p[3]) * (xj * xj + 1.0);
        s_part += static_cast<long double>(mc_events_.w[j] * std::norm(s));
        total += static_cast<long double>(mc_events_.w[j] * std::norm(s + pw));
    }
    const double expected = static_cast<double>(s_part / total);
    const runtime::Evaluation ff = nll.fit_fraction(p, {"S"});
    EXPECT_NEAR(ff.value, expected, 1e-12);
    const std::vector<double> numeric = central_differences(
        [&](const std::vector<double>& q) { return nll.fit_fraction(q, {"S"}).value; }, p);
    for (std::size_t k = 0; k < p.size(); ++k) {
        EXPECT_NEAR(ff.gradient[k], numeric[k], 1e-7) << k;
    }
    EXPECT_NEAR(nll.fit_fraction(p, {"S", "P"}).value, 1.0, 1e-12);

    long double full = 0.0L;
    for (const double w : nll.projection_weights(p)) {
        full += static_cast<long double>(w);
    }
    EXPECT_NEAR(static_cast<double>(full), nll.data_sum_weights(), 1e-9);
    long double s_weights = 0.0L;
    for (const double w : nll.projection_weights(p, {"S"})) {
        s_weights += static_cast<long double>(w);
    }
    EXPECT_NEAR(static_cast<double>(s_weights), expected * nll.data_sum_weights(), 1e-9);
    try {
        (void)nll.fit_fraction(p, {"D"});
        FAIL() << "expected ModelError";
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("no amplitude tagged 'D'; its tags are [P, S]"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_THROW((void)nll.fit_fraction(p, {}), ModelError);
}

// I = a + x: positive on the data (x in [1, 2]) for a = 0, negative on the "MC" (x in [-3, -2]).
class NllErrorTest : public ::testing::Test {
protected:
    static data::Dataset scalar_dataset(double low) {
        std::vector<double> x;
        for (int i = 0; i < 100; ++i) {
            x.push_back(low + 0.01 * i);
        }
        const std::vector<data::ScalarInput> scalars{{"x", x}};
        const std::vector<data::P4Input> no_p4s;
        const std::vector<double> weights(x.size(), 1.0);
        return data::Dataset::from_arrays(no_p4s, scalars, weights);
    }

    expr::Model model_{expr::parameter("a", {.initial = 0.0}) + expr::scalar("x")};
    data::Dataset data_ = scalar_dataset(1.0);
    data::Dataset mc_ = scalar_dataset(-3.0);
};

TEST_F(NllErrorTest, ANonPositiveIntegralIsAnEvaluationError) {
    for (const auto strategy :
         {runtime::NormalizationMode::kAuto, runtime::NormalizationMode::kGeneral}) {
        const NLL nll(model_, data_, mc_, with_normalization({}, strategy), "nll");
        const ExtendedNLL extended(model_, data_, mc_, with_normalization({}, strategy), "ext");
        const std::vector<double> p{0.0};
        for (const UnbinnedNll* term :
             {static_cast<const UnbinnedNll*>(&nll), static_cast<const UnbinnedNll*>(&extended)}) {
            try {
                (void)term->value(p);
                FAIL() << "expected EvaluationError";
            } catch (const EvaluationError& e) {
                EXPECT_NE(std::string(e.what()).find("normalisation integral"), std::string::npos)
                    << e.what();
            }
            EXPECT_THROW((void)term->value_and_gradient(p), EvaluationError);
        }
    }
}

TEST_F(NllErrorTest, ANonPositiveDataIntensityNamesTheEvent) {
    const NLL nll(model_, data_, data_, {});
    try {
        (void)nll.value(std::vector<double>{-1.0});  // I = x - 1 is 0 for event 0
        FAIL() << "expected EvaluationError";
    } catch (const EvaluationError& e) {
        EXPECT_NE(std::string(e.what()).find("event"), std::string::npos) << e.what();
    }
}

TEST_F(NllErrorTest, AWrongParameterCountIsAnEvaluationError) {
    const NLL nll(model_, data_, data_, {});
    try {
        (void)nll.value(std::vector<double>{1.0, 2.0});
        FAIL() << "expected EvaluationError";
    } catch (const EvaluationError& e) {
        EXPECT_NE(std::string(e.what()).find("takes 1 parameter"), std::string::npos) << e.what();
    }
}

// A complex model is refused, not reduced to its real part (issue 21).
TEST_F(NllErrorTest, AComplexModelIsAModelErrorSuggestingNormSqr) {
    const expr::Model complex_model(
        expr::complex(expr::parameter("a", {.initial = 1.0}), expr::scalar("x")));
    for (const bool extended : {false, true}) {
        try {
            if (extended) {
                (void)ExtendedNLL(complex_model, data_, mc_);
            } else {
                (void)NLL(complex_model, data_, mc_);
            }
            FAIL() << "expected ModelError";
        } catch (const ModelError& e) {
            const std::string message = e.what();
            EXPECT_NE(message.find("complex-valued"), std::string::npos) << message;
            EXPECT_NE(message.find("norm_sqr()"), std::string::npos) << message;
        }
    }
}

TEST_F(NllErrorTest, MissingColumnsAreADataError) {
    const expr::Model model(expr::parameter("a", {.initial = 1.0}) + expr::scalar("y"));
    EXPECT_THROW(NLL(model, data_, mc_), DataError);
}

TEST_F(NllTest, InfoReportsTheNormalizationPathAndBothEventSets) {
    const NLL fast(make_model(0.0), data_, mc_, with_threads(2));
    ASSERT_TRUE(fast.uses_fast_normalization());
    const UnbinnedNllInfo f = fast.info();
    EXPECT_EQ(f.backend, fast.backend());
    EXPECT_TRUE(f.fast_normalization);
    EXPECT_EQ(f.normalization_terms, 3U);  // one term per wave
    EXPECT_EQ(f.normalization_groups, 1U);
    EXPECT_EQ(f.normalization_bytes, 9 * sizeof(Complex));
    EXPECT_EQ(f.data.events, data_events_.w.size());
    EXPECT_EQ(f.data.sum_weights, fast.data_sum_weights());
    ASSERT_TRUE(f.data.memory.has_value());
    EXPECT_EQ(f.data.memory->events, data_events_.w.size());
    ASSERT_TRUE(f.data.cache_columns.has_value());
    EXPECT_GT(f.data.resident_bytes, 0U);
    EXPECT_EQ(f.accepted.events, mc_events_.w.size());
    EXPECT_FALSE(f.accepted.memory.has_value());
    EXPECT_FALSE(f.accepted.sum_weights.has_value());
    EXPECT_EQ(f.accepted.resident_bytes, f.normalization_bytes);

    const NLL pass(make_model(0.0), data_, mc_,
                   with_normalization(with_threads(2), runtime::NormalizationMode::kGeneral),
                   "nll");
    const UnbinnedNllInfo m = pass.info();
    EXPECT_FALSE(m.fast_normalization);
    EXPECT_EQ(m.normalization_terms, 0U);
    ASSERT_TRUE(m.accepted.memory.has_value());
    EXPECT_EQ(m.accepted.memory->events, mc_events_.w.size());
    ASSERT_TRUE(m.accepted.sum_weights.has_value());
    long double mc_weights = 0.0L;
    for (const double w : mc_events_.w) {
        mc_weights += static_cast<long double>(w);
    }
    EXPECT_NEAR(*m.accepted.sum_weights, static_cast<double>(mc_weights),
                1e-12 * static_cast<double>(mc_weights));
}

}  // namespace
}  // namespace laddu::likelihood
