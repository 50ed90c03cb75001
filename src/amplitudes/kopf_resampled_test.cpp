// kopf_*_resampled: the resampled parameters follow the published covariance (means and
// covariances over many seeds), a seed gives one table, parameters without covariance stay put,
// and the resampled amplitudes stay near the nominal ones.
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/amplitudes/kopf.hpp>

#include "kopf_covariance.hpp"
#include "reference/expr_reference.hpp"

namespace laddu::amplitudes {
namespace {

// laddu's parameter order (kopf_resampled.cpp): couplings pole by pole, background column by
// column, pole masses, Adler s0.
template <std::size_t C, std::size_t P>
std::vector<double> parameters(const KopfTable<C, P>& t) {
    std::vector<double> x;
    for (std::size_t p = 0; p < P; ++p) {
        for (std::size_t c = 0; c < C; ++c) {
            x.push_back(t.couplings[c][p]);
        }
    }
    for (std::size_t j = 0; j < C; ++j) {
        for (std::size_t i = 0; i < C; ++i) {
            x.push_back(t.background[i][j]);
        }
    }
    x.insert(x.end(), t.pole_masses.begin(), t.pole_masses.end());
    if (t.has_adler_zero) {
        x.push_back(t.adler_s0);
    }
    return x;
}

TEST(KopfResampled, ParametersFollowThePublishedCovariance) {
    const std::vector<double> nominal = parameters(kKopfF0);
    const std::size_t n = nominal.size();
    ASSERT_EQ(n * n, detail::kKopfF0Covariance.size());
    const int draws = 20000;
    std::vector<double> mean(n, 0.0);
    std::vector<double> second(n * n, 0.0);
    for (int seed = 0; seed < draws; ++seed) {
        const std::vector<double> x =
            parameters(kopf_f0_table_resampled(static_cast<std::uint64_t>(seed)));
        for (std::size_t i = 0; i < n; ++i) {
            mean[i] += (x[i] - nominal[i]) / draws;
            for (std::size_t j = 0; j < n; ++j) {
                second[i * n + j] += (x[i] - nominal[i]) * (x[j] - nominal[j]) / draws;
            }
        }
    }
    for (std::size_t i = 0; i < n; ++i) {
        const double variance = detail::kKopfF0Covariance[i * n + i];
        if (variance == 0.0) {
            EXPECT_EQ(mean[i], 0.0) << "parameter " << i << " has no covariance and must not move";
            continue;
        }
        const double sigma = std::sqrt(variance);
        EXPECT_NEAR(mean[i], 0.0, 5.0 * sigma / std::sqrt(double{draws})) << "parameter " << i;
        for (std::size_t j = 0; j < n; ++j) {
            const double vj = detail::kKopfF0Covariance[j * n + j];
            if (vj == 0.0) {
                continue;
            }
            // The sample covariance scatters by about σ_i σ_j √(2 / draws).
            EXPECT_NEAR(second[i * n + j], detail::kKopfF0Covariance[i * n + j],
                        6.0 * sigma * std::sqrt(vj) * std::sqrt(2.0 / draws))
                << "entry " << i << ", " << j;
        }
    }
}

TEST(KopfResampled, ASeedGivesOneTable) {
    EXPECT_EQ(parameters(kopf_f2_table_resampled(3)), parameters(kopf_f2_table_resampled(3)));
    EXPECT_NE(parameters(kopf_f2_table_resampled(3)), parameters(kopf_f2_table_resampled(4)));
    EXPECT_NE(parameters(kopf_a0_table_resampled(3)), parameters(kKopfA0));
    EXPECT_NE(parameters(kopf_a2_table_resampled(3)), parameters(kKopfA2));
    // Masses and the L stay what they are.
    EXPECT_EQ(kopf_a2_table_resampled(3).channel_mass_1, kKopfA2.channel_mass_1);
    EXPECT_EQ(kopf_a2_table_resampled(3).l, kKopfA2.l);
}

TEST(KopfResampled, TheAmplitudeVariesWithinTheUncertainties) {
    const expr::Expr s = expr::scalar("s");
    const std::array<expr::Expr, 2> beta{expr::constant(1.0), expr::constant(0.5)};
    const auto nominal = component(kopf_a0(s, beta), KopfA0Channel::kKKbar);
    const auto varied = component(kopf_a0_resampled(s, beta, 11), KopfA0Channel::kKKbar);
    for (const double value : {0.9, 1.0, 1.2, 1.6}) {
        const laddu::testing::Event event{.p4 = {}, .scalars = {{"s", value}}};
        const std::complex<double> a = laddu::testing::evaluate(nominal, event);
        const std::complex<double> b = laddu::testing::evaluate(varied, event);
        EXPECT_NE(a, b) << value;
        EXPECT_LT(std::abs(a - b), 0.5 * std::abs(a)) << value;
    }
}

}  // namespace
}  // namespace laddu::amplitudes
