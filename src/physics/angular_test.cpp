#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/physics/harmonics.hpp>
#include <laddu/physics/wigner.hpp>

#include "reference/expr_reference.hpp"
#include "testing/python.hpp"

namespace laddu::physics {
namespace {

using expr::Expr;
using laddu::testing::Complex;
using laddu::testing::evaluate;

constexpr double kTolerance = 1e-12;

const std::vector<double> kCosthetas = {-1.0, -0.83, -0.4, 0.0, 0.27, 0.66, 0.95, 1.0};
const std::vector<double> kPhis = {-2.9, -1.1, 0.0, 0.45, 1.7, 3.1};
const std::vector<double> kBetas = {0.0, 0.3, 1.1, 1.9, 2.6, std::numbers::pi};

std::string python_list(const std::vector<double>& values) {
    std::ostringstream out;
    out.precision(17);
    out << "[";
    for (double v : values) {
        out << v << ",";
    }
    out << "]";
    return out.str();
}

TEST(SphericalHarmonic, MatchesScipyOnAGrid) {
    if (!laddu::testing::has_scipy()) {
        GTEST_SKIP() << "needs /usr/bin/python3 with scipy (apt-get install python3-scipy)";
    }
    constexpr int kMaxL = 6;
    const std::string code = "from scipy.special import sph_harm\nimport numpy as np\n"
                             "cs = " +
                             python_list(kCosthetas) + "\nps = " + python_list(kPhis) +
                             "\nfor l in range(" + std::to_string(kMaxL + 1) +
                             "):\n  for m in range(-l, l + 1):\n    for c in cs:\n"
                             "      for p in ps:\n"
                             "        y = sph_harm(m, l, p, np.arccos(c))\n"
                             "        print(repr(float(y.real)), repr(float(y.imag)))\n";
    const std::vector<double> reference = laddu::testing::run_python(code);
    std::size_t index = 0;
    for (int l = 0; l <= kMaxL; ++l) {
        for (int m = -l; m <= l; ++m) {
            for (double c : kCosthetas) {
                for (double p : kPhis) {
                    ASSERT_LT(index + 1, reference.size());
                    const Complex expected(reference[index], reference[index + 1]);
                    index += 2;
                    const Complex value = evaluate(spherical_harmonic(l, m, c, p));
                    EXPECT_NEAR(value.real(), expected.real(), kTolerance)
                        << "l=" << l << " m=" << m << " cos=" << c << " phi=" << p;
                    EXPECT_NEAR(value.imag(), expected.imag(), kTolerance)
                        << "l=" << l << " m=" << m << " cos=" << c << " phi=" << p;
                }
            }
        }
    }
    EXPECT_EQ(index, reference.size());
}

// d^j_{m'm} from the Jacobi-polynomial form (Wikipedia "Wigner D-matrix"), a different
// formula from the library's finite sum, evaluated by scipy.
TEST(WignerSmallD, MatchesScipyJacobiFormOnAGrid) {
    if (!laddu::testing::has_scipy()) {
        GTEST_SKIP() << "needs /usr/bin/python3 with scipy (apt-get install python3-scipy)";
    }
    constexpr int kMaxTwoJ = 8;
    const std::string code =
        "from scipy.special import eval_jacobi, binom\nimport numpy as np\n"
        "def d(tj, tmp, tm, beta):\n"
        "  jpm, jmm, jpmp, jmmp = (tj+tm)//2, (tj-tm)//2, (tj+tmp)//2, (tj-tmp)//2\n"
        "  k = min(jpm, jmm, jpmp, jmmp)\n"
        "  if k == jpm: a, lam = (tmp-tm)//2, (tmp-tm)//2\n"
        "  elif k == jmm: a, lam = (tm-tmp)//2, 0\n"
        "  elif k == jpmp: a, lam = (tm-tmp)//2, 0\n"
        "  else: a, lam = (tmp-tm)//2, (tmp-tm)//2\n"
        "  b = tj - 2*k - a\n"
        "  return (-1)**lam*np.sqrt(binom(tj-k, k+a)/binom(k+b, b))*np.sin(beta/2)**a"
        "*np.cos(beta/2)**b*eval_jacobi(k, a, b, np.cos(beta))\n"
        "bs = " +
        python_list(kBetas) +
        "\n"
        "for tj in range(" +
        std::to_string(kMaxTwoJ + 1) +
        "):\n"
        "  for tmp in range(-tj, tj+1, 2):\n    for tm in range(-tj, tj+1, 2):\n"
        "      for b in bs: print(repr(float(d(tj, tmp, tm, b))))\n";
    const std::vector<double> reference = laddu::testing::run_python(code);
    std::size_t index = 0;
    for (int two_j = 0; two_j <= kMaxTwoJ; ++two_j) {
        for (int two_mp = -two_j; two_mp <= two_j; two_mp += 2) {
            for (int two_m = -two_j; two_m <= two_j; two_m += 2) {
                for (double beta : kBetas) {
                    ASSERT_LT(index, reference.size());
                    const double expected = reference[index++];
                    const Complex value = evaluate(wigner_small_d(two_j, two_mp, two_m, beta));
                    EXPECT_NEAR(value.real(), expected, kTolerance)
                        << "2j=" << two_j << " 2m'=" << two_mp << " 2m=" << two_m
                        << " beta=" << beta;
                    EXPECT_EQ(value.imag(), 0.0);
                }
            }
        }
    }
    EXPECT_EQ(index, reference.size());
}

TEST(WignerSmallD, HalfIntegerClosedForms) {
    const double beta = 0.77;
    EXPECT_NEAR(evaluate(wigner_small_d(1, 1, 1, beta)).real(), std::cos(beta / 2), 1e-15);
    EXPECT_NEAR(evaluate(wigner_small_d(1, 1, -1, beta)).real(), -std::sin(beta / 2), 1e-15);
    EXPECT_NEAR(evaluate(wigner_small_d(1, -1, 1, beta)).real(), std::sin(beta / 2), 1e-15);
    // d^1_{10} = -sin β / √2, d^1_{00} = cos β.
    EXPECT_NEAR(evaluate(wigner_small_d(2, 2, 0, beta)).real(), -std::sin(beta) / std::sqrt(2.0),
                1e-15);
    EXPECT_NEAR(evaluate(wigner_small_d(2, 0, 0, beta)).real(), std::cos(beta), 1e-15);
}

TEST(WignerBigD, IsPhasesTimesSmallD) {
    const double alpha = 0.4;
    const double beta = 1.3;
    const double gamma = -2.1;
    const int two_j = 3;
    const int two_mp = 1;
    const int two_m = -3;
    const Complex d = evaluate(wigner_small_d(two_j, two_mp, two_m, beta));
    const Complex expected = std::exp(Complex(0.0, -0.5 * two_mp * alpha)) * d *
                             std::exp(Complex(0.0, -0.5 * two_m * gamma));
    const Complex value = evaluate(wigner_big_d(two_j, two_mp, two_m, alpha, beta, gamma));
    EXPECT_NEAR(value.real(), expected.real(), 1e-15);
    EXPECT_NEAR(value.imag(), expected.imag(), 1e-15);
}

TEST(WignerSmallD, RejectsInvalidSpins) {
    try {
        (void)wigner_small_d(2, 1, 0, 0.5);
        FAIL() << "expected ModelError";
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("invalid (2j, 2m', 2m)"), std::string::npos);
    }
    EXPECT_THROW((void)wigner_small_d(1, 3, 1, 0.5), ModelError);
    EXPECT_THROW((void)wigner_small_d(-1, 1, 1, 0.5), ModelError);
}

TEST(SphericalHarmonic, RejectsInvalidQuantumNumbers) {
    try {
        (void)spherical_harmonic(1, 2, 0.1, 0.2);
        FAIL() << "expected ModelError";
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("|m| <= l"), std::string::npos);
    }
    EXPECT_THROW((void)spherical_harmonic(-1, 0, 0.1, 0.2), ModelError);
}

// Checks ∫ f_a f_b* dΩ (dΦ/2π) = δ_ab on flat MC: |estimate - δ| < 5 standard errors.
void expect_orthonormal(const std::vector<Expr>& functions, int events, bool with_pol_angle) {
    std::mt19937_64 rng(20261202);
    std::uniform_real_distribution<double> cos_dist(-1.0, 1.0);
    std::uniform_real_distribution<double> angle_dist(-std::numbers::pi, std::numbers::pi);
    const std::size_t n = functions.size();
    std::vector<Complex> sum(n * n);
    std::vector<double> sum_sq_re(n * n);
    std::vector<double> sum_sq_im(n * n);
    const double volume = 4.0 * std::numbers::pi;
    for (int event_index = 0; event_index < events; ++event_index) {
        laddu::testing::Event event;
        event.scalars["costheta"] = cos_dist(rng);
        event.scalars["phi"] = angle_dist(rng);
        event.scalars["pol_angle"] = with_pol_angle ? angle_dist(rng) : 0.0;
        laddu::testing::ReferenceEvaluator evaluator(event, {});
        std::vector<Complex> values;
        for (const Expr& f : functions) {
            values.push_back(evaluator.scalar(f));
        }
        for (std::size_t a = 0; a < n; ++a) {
            for (std::size_t b = 0; b < n; ++b) {
                const Complex x = volume * values[a] * std::conj(values[b]);
                sum[a * n + b] += x;
                sum_sq_re[a * n + b] += x.real() * x.real();
                sum_sq_im[a * n + b] += x.imag() * x.imag();
            }
        }
    }
    const double count = events;
    for (std::size_t a = 0; a < n; ++a) {
        for (std::size_t b = 0; b < n; ++b) {
            const std::size_t k = a * n + b;
            const Complex mean = sum[k] / count;
            const double sigma_re =
                std::sqrt(std::max(sum_sq_re[k] / count - mean.real() * mean.real(), 0.0) / count);
            const double sigma_im =
                std::sqrt(std::max(sum_sq_im[k] / count - mean.imag() * mean.imag(), 0.0) / count);
            const double expected = a == b ? 1.0 : 0.0;
            EXPECT_LE(std::abs(mean.real() - expected), 5.0 * sigma_re + 1e-12)
                << "pair " << a << "," << b << " mean " << mean;
            EXPECT_LE(std::abs(mean.imag()), 5.0 * sigma_im + 1e-12)
                << "pair " << a << "," << b << " mean " << mean;
        }
    }
}

TEST(SphericalHarmonic, OrthonormalOnFlatAngularMonteCarlo) {
    const Expr c = expr::scalar("costheta");
    const Expr p = expr::scalar("phi");
    std::vector<Expr> functions;
    for (int l = 0; l <= 2; ++l) {
        for (int m = -l; m <= l; ++m) {
            functions.push_back(spherical_harmonic(l, m, c, p));
        }
    }
    expect_orthonormal(functions, 20000, false);
}

// With Φ uniform and fixed P_γ, ⟨Z^ε_a Z^ε_b*⟩ = δ_ab for one reflectivity ε.
TEST(Zlm, OrthonormalOnFlatAngularMonteCarloForEachReflectivity) {
    const Expr c = expr::scalar("costheta");
    const Expr p = expr::scalar("phi");
    const Expr big_phi = expr::scalar("pol_angle");
    for (Reflectivity r : {Reflectivity::kPositive, Reflectivity::kNegative}) {
        std::vector<Expr> functions;
        for (int l = 0; l <= 2; ++l) {
            for (int m = -l; m <= l; ++m) {
                functions.push_back(zlm(l, m, r, c, p, big_phi, 0.35));
            }
        }
        expect_orthonormal(functions, 20000, true);
    }
}

TEST(Zlm, MatchesTheBenchmarkConstructionAtAFixedPoint) {
    const double costheta = 0.3;
    const double phi = 1.2;
    const double big_phi = -0.7;
    const double pol = 0.4;
    // Y_22 = √(15/32π) sin²θ e^{2iφ}, rot = Y e^{-iΦ}.
    const double sin2 = 1.0 - costheta * costheta;
    const Complex y22 =
        std::sqrt(15.0 / (32.0 * std::numbers::pi)) * sin2 * std::exp(Complex(0.0, 2.0 * phi));
    const Complex rot = y22 * std::exp(Complex(0.0, -big_phi));
    const Complex plus(std::sqrt(1.0 + pol) * rot.real(), std::sqrt(1.0 - pol) * rot.imag());
    const Complex minus(std::sqrt(1.0 - pol) * rot.real(), std::sqrt(1.0 + pol) * rot.imag());
    const Complex zp = evaluate(zlm(2, 2, Reflectivity::kPositive, costheta, phi, big_phi, pol));
    const Complex zn = evaluate(zlm(2, 2, Reflectivity::kNegative, costheta, phi, big_phi, pol));
    EXPECT_NEAR(zp.real(), plus.real(), 1e-14);
    EXPECT_NEAR(zp.imag(), plus.imag(), 1e-14);
    EXPECT_NEAR(zn.real(), minus.real(), 1e-14);
    EXPECT_NEAR(zn.imag(), minus.imag(), 1e-14);
}

}  // namespace
}  // namespace laddu::physics
