#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/likelihood/cross_section.hpp>
#include <laddu/likelihood/nll.hpp>

#include "toy_model.hpp"

namespace laddu::likelihood {
namespace {

using expr::Expr;
using Complex = std::complex<double>;
using laddu::testing::toy_dataset;
using laddu::testing::toy_events;
using laddu::testing::ToyEvents;
using laddu::testing::with_threads;

// n · |c0 e^{ix} [S] + c1 (x² + 1) [P]|²; n only with `extended`.
expr::Model tagged_model(bool extended) {
    const Expr x = expr::scalar("x");
    const Expr c0 = expr::complex(expr::parameter("a0"), expr::parameter("b0"));
    const Expr c1 = expr::complex(expr::parameter("a1"), expr::parameter("b1"));
    Expr intensity =
        expr::norm_sqr((c0 * expr::cis(x)).tagged("S") + (c1 * (x * x + 1.0)).tagged("P"));
    if (extended) {
        intensity = intensity * expr::parameter("n");
    }
    return expr::Model(intensity);
}

// Σ w I over `events` with only the waves in `keep` ("S", "P"), in long double.
double direct_integral(const ToyEvents& events, const std::vector<double>& p,
                       const std::string& keep) {
    long double total = 0.0L;
    for (std::size_t j = 0; j < events.w.size(); ++j) {
        const double x = events.x[j];
        Complex a = 0.0;
        if (keep.find('S') != std::string::npos) {
            a += Complex(p[0], p[1]) * std::polar(1.0, x);
        }
        if (keep.find('P') != std::string::npos) {
            a += Complex(p[2], p[3]) * (x * x + 1.0);
        }
        const double scale = p.size() > 4 ? p[4] : 1.0;
        total += static_cast<long double>(events.w[j] * scale * std::norm(a));
    }
    return static_cast<double>(total);
}

class CrossSectionTest : public ::testing::Test {
protected:
    ToyEvents data_events_ = toy_events(801, 21);
    ToyEvents accepted_events_ = toy_events(1503, 22);
    ToyEvents generated_events_ = toy_events(4001, 23);
    data::Dataset data_ = toy_dataset(data_events_);
    data::Dataset accepted_ = toy_dataset(accepted_events_);
    data::Dataset generated_ = toy_dataset(generated_events_);
    std::vector<double> p_{0.7, -0.2, 0.3, 0.9};
};

TEST_F(CrossSectionTest, IntegralsAndCrossSectionsMatchDirectSums) {
    const auto term = std::make_shared<NLL>(tagged_model(false), data_, accepted_, with_threads(2));
    const double n_obs = term->data_sum_weights();
    const double full_acc = direct_integral(accepted_events_, p_, "SP");
    for (const std::string keep : {"SP", "S", "P"}) {
        const std::vector<std::string> tags =
            keep == "SP" ? std::vector<std::string>{} : std::vector<std::string>{keep};
        const CrossSectionIntegrals s(term, generated_, tags);
        const double acc = direct_integral(accepted_events_, p_, keep);
        const double gen = direct_integral(generated_events_, p_, keep);
        EXPECT_NEAR(s.accepted_integral(p_), acc, 1e-12 * acc) << keep;
        EXPECT_NEAR(s.generated_integral(p_), gen, 1e-12 * gen) << keep;
        EXPECT_NEAR(s.full_accepted_integral(p_), full_acc, 1e-12 * full_acc) << keep;
        EXPECT_NEAR(s.acceptance(p_), acc / gen, 1e-12) << keep;
        EXPECT_NEAR(s.acceptance_corrected_yield(p_, 3.0), 3.0 * gen / acc, 1e-12 * gen / acc);
        const double observed = n_obs * gen / full_acc / 2.5;
        EXPECT_NEAR(s.observed_cross_section(p_, 2.5), observed, 1e-12 * observed) << keep;
        EXPECT_THROW((void)s.fitted_cross_section(p_, 2.5), ModelError);
        EXPECT_FALSE(s.has_absolute_rate());
        EXPECT_EQ(s.generated_intensities(p_).size(), generated_events_.w.size());
        EXPECT_EQ(s.accepted_intensities(p_).size(), accepted_events_.w.size());
        EXPECT_EQ(s.generated_weights(), generated_events_.w);
    }
}

TEST_F(CrossSectionTest, AnExtendedTermHasAFittedCrossSection) {
    const auto term =
        std::make_shared<ExtendedNLL>(tagged_model(true), data_, accepted_, with_threads(1));
    std::vector<double> p = p_;
    p.push_back(40.0);
    const CrossSectionIntegrals s(term, generated_, {"P"});
    EXPECT_TRUE(s.has_absolute_rate());
    const double gen = direct_integral(generated_events_, p, "P");
    EXPECT_NEAR(s.fitted_cross_section(p, 4.0), gen / 4.0, 1e-12 * gen);
    // the tutorial's relation: σ_obs = N_obs / I_full,acc · σ_fit
    EXPECT_NEAR(s.observed_cross_section(p, 4.0),
                s.data_weight_sum() / s.full_accepted_integral(p) * s.fitted_cross_section(p, 4.0),
                1e-12 * s.observed_cross_section(p, 4.0));
}

TEST_F(CrossSectionTest, AReplicaSharesTheGeneratedPreparationButHasItsOwnYield) {
    const expr::Model model = tagged_model(false);
    const auto term = std::make_shared<NLL>(model, data_, accepted_, with_threads(1));
    const auto replica =
        std::make_shared<NLL>(model, data_.bootstrap(5), accepted_, with_threads(1));
    const CrossSectionIntegrals s(term, generated_, {"S"});
    const CrossSectionIntegrals r = s.for_replica(replica);
    const CrossSectionIntegrals direct(replica, generated_, {"S"});
    EXPECT_NE(r.data_weight_sum(), s.data_weight_sum());
    EXPECT_EQ(r.data_weight_sum(), replica->data_sum_weights());
    EXPECT_EQ(r.observed_cross_section(p_, 1.0), direct.observed_cross_section(p_, 1.0));
    EXPECT_EQ(r.generated_integral(p_), s.generated_integral(p_));
}

TEST_F(CrossSectionTest, BadInputsAreRefusedWithTheRemedy) {
    const auto term = std::make_shared<NLL>(tagged_model(false), data_, accepted_, with_threads(1));
    try {
        const CrossSectionIntegrals s(term, generated_, {"D"});
        FAIL() << "expected ModelError";
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("no amplitude tagged 'D'"), std::string::npos);
    }
    const CrossSectionIntegrals s(term, generated_);
    EXPECT_THROW((void)s.observed_cross_section(p_, 0.0), ModelError);
    EXPECT_THROW((void)s.observed_cross_section(p_, std::nan("")), ModelError);
    EXPECT_THROW((void)s.generated_integral(std::vector<double>{1.0}), ModelError);
    // a wave with zero coupling has no integral to divide by
    const CrossSectionIntegrals p_wave(term, generated_, {"P"});
    const std::vector<double> no_p{0.7, -0.2, 0.0, 0.0};
    try {
        (void)p_wave.acceptance(no_p);
        FAIL() << "expected EvaluationError";
    } catch (const EvaluationError& e) {
        EXPECT_NE(std::string(e.what()).find("generated Monte Carlo integral is 0"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_THROW((void)CrossSectionIntegrals(nullptr, generated_), ModelError);
}

TEST(CrossSectionBins, HalfOpenBinsRowMajorAndVolumes) {
    const std::vector<double> edges{0.0, 1.0, 2.0};
    EXPECT_EQ(bin_index(0.0, edges), 0);
    EXPECT_EQ(bin_index(1.0, edges), 1);
    EXPECT_EQ(bin_index(2.0, edges), -1);
    EXPECT_EQ(bin_index(-0.5, edges), -1);
    EXPECT_EQ(bin_index(std::nan(""), edges), -1);
    const std::vector<std::vector<double>> axes{{0.0, 1.0, 2.0}, {0.0, 0.5, 4.0}};
    const std::vector<std::int64_t> flat =
        flat_bin_indices({{0.5, 1.5, 1.5, 2.5}, {0.1, 0.1, 3.0, 0.1}}, axes);
    EXPECT_EQ(flat, (std::vector<std::int64_t>{0, 2, 3, -1}));
    EXPECT_EQ(bin_volumes(axes), (std::vector<double>{0.5, 3.5, 0.5, 3.5}));
    EXPECT_THROW((void)bin_volumes({{0.0, 0.0}}), DataError);
    EXPECT_THROW((void)flat_bin_indices({{0.5}, {0.5, 1.0}}, axes), DataError);
}

TEST_F(CrossSectionTest, DifferentialBinsSumToTheTotals) {
    const auto term = std::make_shared<NLL>(tagged_model(false), data_, accepted_, with_threads(1));
    const CrossSectionIntegrals full(term, generated_);
    const CrossSectionIntegrals s_wave(term, generated_, {"S"});
    const std::vector<std::vector<double>> edges{{-1.0, -0.5, 0.0, 0.5, 1.0}};
    DifferentialBins bins{flat_bin_indices({data_events_.x}, edges),
                          flat_bin_indices({accepted_events_.x}, edges),
                          flat_bin_indices({generated_events_.x}, edges), bin_volumes(edges)};
    const BinnedIntegrals sums = full.binned(p_, bins);
    double data = 0.0;
    double generated = 0.0;
    for (std::size_t k = 0; k < 4; ++k) {
        data += sums.data[k];
        generated += sums.generated[k];
    }
    EXPECT_NEAR(data, full.data_weight_sum(), 1e-9);
    EXPECT_NEAR(generated, full.generated_integral(p_), 1e-9 * generated);
    const std::vector<const CrossSectionIntegrals*> parts{&s_wave};
    const DifferentialValues values = differential_cross_section(full, parts, bins, p_, 2.0);
    double model = 0.0;
    double s_part = 0.0;
    for (std::size_t k = 0; k < 4; ++k) {
        model += values.model[k] * bins.volumes[k];
        s_part += values.components[0][k] * bins.volumes[k];
        const double expected = sums.data[k] * sums.generated[k] / sums.accepted[k] / 2.0 / 0.5;
        EXPECT_DOUBLE_EQ(values.data[k], expected) << k;
    }
    EXPECT_NEAR(model, full.observed_cross_section(p_, 2.0), 1e-12 * model);
    EXPECT_NEAR(s_part, s_wave.observed_cross_section(p_, 2.0), 1e-12 * s_part);
    // the tagged corrected yield is the tagged share of the observed yield, corrected
    const double share =
        s_wave.data_weight_sum() * s_wave.accepted_integral(p_) / s_wave.full_accepted_integral(p_);
    EXPECT_NEAR(s_wave.corrected_yield(p_), share / s_wave.acceptance(p_),
                1e-12 * s_wave.corrected_yield(p_));
    EXPECT_NEAR(full.corrected_yield(p_), full.data_weight_sum() / full.acceptance(p_),
                1e-12 * full.corrected_yield(p_));
    bins.data.pop_back();
    EXPECT_THROW((void)full.binned(p_, bins), DataError);
}

}  // namespace
}  // namespace laddu::likelihood
