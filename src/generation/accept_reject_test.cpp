#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/generation/accept_reject.hpp>

namespace laddu::generation {
namespace {

// cosθ uniform in [-1, 1) from the counter-based generator (independent of the accept seed).
std::vector<double> uniform_costheta(std::size_t n) {
    std::vector<double> c(n);
    for (std::size_t i = 0; i < n; ++i) {
        c[i] = 2.0 * data::counter_uniform(99, i) - 1.0;
    }
    return c;
}

data::Dataset costheta_dataset(const std::vector<double>& c) {
    const std::vector<data::ScalarInput> scalars{{"costheta", c}};
    return data::Dataset::from_scalars(scalars, std::vector<double>(c.size(), 1.0));
}

// Accepting uniform cosθ against 1 + cos²θ reproduces that density: binned chi2, the
// acceptance rate (∫(1+c²)/2 / max = (4/3)/2 / 2 = 2/3) and <cos²θ> = 0.4, each within 5 sigma.
TEST(AcceptReject, ReproducesOnePlusCosSquared) {
    constexpr std::size_t kEvents = 200000;
    const std::vector<double> c = uniform_costheta(kEvents);
    std::vector<double> intensity(kEvents);
    for (std::size_t i = 0; i < kEvents; ++i) {
        intensity[i] = 1.0 + c[i] * c[i];
    }
    const data::Dataset kept = accept_reject(costheta_dataset(c), intensity, 5, 2.0);
    const double n = static_cast<double>(kept.size());
    const double rate = n / kEvents;
    EXPECT_NEAR(rate, 2.0 / 3.0, 5.0 * std::sqrt(2.0 / 9.0 / kEvents));

    const std::span<const double> kc = kept.column("costheta");
    constexpr int kBins = 20;
    std::vector<double> counts(kBins, 0.0);
    double sum_c2 = 0.0;
    double sum_c4 = 0.0;
    for (const double x : kc) {
        counts[static_cast<std::size_t>(
            std::min(kBins - 1, static_cast<int>((x + 1.0) / 2.0 * kBins)))] += 1.0;
        sum_c2 += x * x;
        sum_c4 += x * x * x * x;
    }
    double chi2 = 0.0;
    for (int b = 0; b < kBins; ++b) {
        const double a = -1.0 + 2.0 * b / kBins;
        const double e = a + 2.0 / kBins;
        // ∫_a^e (1 + x²) dx / (8/3)
        const double p = ((e - a) + (e * e * e - a * a * a) / 3.0) / (8.0 / 3.0);
        const double mu = p * n;
        chi2 += (counts[static_cast<std::size_t>(b)] - mu) *
                (counts[static_cast<std::size_t>(b)] - mu) / mu;
    }
    EXPECT_LT(chi2, 19.0 + 5.0 * std::sqrt(38.0)) << "chi2 " << chi2;
    const double mean_c2 = sum_c2 / n;
    const double var_c2 = sum_c4 / n - mean_c2 * mean_c2;
    EXPECT_NEAR(mean_c2, 0.4, 5.0 * std::sqrt(var_c2 / n));
}

TEST(AcceptReject, IsDeterministicInTheSeedAndUsesTheLargestIntensityByDefault) {
    const std::vector<double> c = uniform_costheta(1000);
    std::vector<double> intensity(c.size());
    for (std::size_t i = 0; i < c.size(); ++i) {
        intensity[i] = 1.0 + c[i];
    }
    EXPECT_EQ(accept_reject_mask(intensity, 1), accept_reject_mask(intensity, 1));
    EXPECT_NE(accept_reject_mask(intensity, 1), accept_reject_mask(intensity, 2));
    // Default maximum = the largest intensity: the same as passing it.
    const double largest = *std::max_element(intensity.begin(), intensity.end());
    EXPECT_EQ(accept_reject_mask(intensity, 3), accept_reject_mask(intensity, 3, largest));
    // Event i is kept exactly when u(seed, i) · max < I_i.
    const std::vector<bool> keep = accept_reject_mask(intensity, 3, 2.0);
    for (std::size_t i = 0; i < c.size(); ++i) {
        EXPECT_EQ(keep[i], data::counter_uniform(3, i) * 2.0 < intensity[i]);
    }
    // Zero intensity is never kept.
    EXPECT_EQ(accept_reject_mask(std::vector<double>{0.0, 0.0}, 1, 1.0),
              (std::vector<bool>{false, false}));
}

template <class E, class F>
void expect_error(F&& f, const std::string& fragment) {
    try {
        f();
        FAIL() << "no exception";
    } catch (const E& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

TEST(AcceptReject, RejectsBadIntensities) {
    expect_error<EvaluationError>(
        [] { (void)accept_reject_mask(std::vector<double>{1.0, -0.5}, 1); }, "event 1");
    expect_error<EvaluationError>(
        [] {
            (void)accept_reject_mask(std::vector<double>{std::numeric_limits<double>::quiet_NaN()},
                                     1);
        },
        "finite and non-negative");
    expect_error<ModelError>([] { (void)accept_reject_mask(std::vector<double>{3.0}, 1, 2.0); },
                             "exceeds max_intensity");
    expect_error<ModelError>([] { (void)accept_reject_mask(std::vector<double>{1.0}, 1, -1.0); },
                             "must be finite");
    const std::vector<double> c = uniform_costheta(3);
    expect_error<DataError>(
        [&] { (void)accept_reject(costheta_dataset(c), std::vector<double>{1.0}, 1); },
        "1 intensities for 3 events");
}

}  // namespace
}  // namespace laddu::generation
