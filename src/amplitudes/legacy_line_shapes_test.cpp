// The line shapes laddu v0.19.6 had and v0.21.4 dropped: Voigt, PolPhase, photon SDMEs and
// lookup tables, checked against closed forms, limits and reference values.
#include <cmath>
#include <complex>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/amplitudes/breit_wigner.hpp>
#include <laddu/amplitudes/lookup.hpp>
#include <laddu/amplitudes/photon_sdme.hpp>
#include <laddu/amplitudes/pol_phase.hpp>
#include <laddu/amplitudes/voigt.hpp>
#include <laddu/base/error.hpp>

#include "reference/expr_reference.hpp"

namespace laddu::amplitudes {
namespace {

using expr::Expr;
using laddu::testing::Complex;
using laddu::testing::evaluate;
using laddu::testing::Event;
using laddu::testing::ParameterValues;

constexpr double kSqrt2Pi = 2.5066282746310002;

void expect_close(Complex value, Complex expected, double tolerance, const std::string& what = "") {
    const double scale = std::max(1.0, std::abs(expected));
    EXPECT_NEAR(value.real(), expected.real(), tolerance * scale) << what;
    EXPECT_NEAR(value.imag(), expected.imag(), tolerance * scale) << what;
}

Event at(double x, double y = 0.0) {
    return Event{.p4 = {}, .scalars = {{"x", x}, {"y", y}}};
}

double real_at(const Expr& e, double x, const ParameterValues& parameters = {}) {
    return evaluate(e, at(x), parameters).real();
}

Complex central_difference(const Expr& e, double x, ParameterValues point, const std::string& name,
                           double h = 1e-6) {
    ParameterValues up = point;
    ParameterValues down = point;
    up[name] += h;
    down[name] -= h;
    return (evaluate(e, at(x), up) - evaluate(e, at(x), down)) / (2.0 * h);
}

TEST(Faddeeva, MatchesReferenceValuesAndTheImaginaryAxisClosedForm) {
    // scipy.special.wofz (Zaghloul & Ali's algorithm, an independent method).
    const Complex reference[][2] = {
        {{1.0, 1.0}, {0.30474420525691254, 0.2082189382028316}},
        {{3.0, 0.1}, {0.007942680998770001, 0.20074234309867764}},
        {{-2.0, 0.5}, {0.10335882374136668, -0.28478588475009387}},
        {{0.3, 5.0}, {0.11034209112980743, 0.006379569183152648}},
        {{20.0, 0.01}, {1.4157962296706827e-05, 0.028244866986294193}},
    };
    for (const auto& [z, w] : reference) {
        const Complex value = evaluate(faddeeva(Expr{z}));
        EXPECT_LT(std::abs(value - w), 2e-15) << z;
    }
    expect_close(evaluate(faddeeva(0.0)), 1.0, 1e-15, "w(0)");
    // w(iy) = exp(y²) erfc(y) for y > 0 (DLMF 7.2.3 with erfc's definition).
    for (const double y : {1e-3, 0.1, 0.7, 2.0, 8.0, 20.0}) {
        const double expected = std::exp(y * y) * std::erfc(y);
        const Complex value = evaluate(faddeeva(Expr{Complex(0.0, y)}));
        EXPECT_NEAR(value.real(), expected, 1e-14 * expected) << y;
        EXPECT_NEAR(value.imag(), 0.0, 1e-15) << y;
    }
}

TEST(Voigt, PeakHasTheErfcClosedFormAndTheAmplitudeIsItsRoot) {
    const double m0 = 1.2;
    const double width = 0.08;
    const double sigma = 0.03;
    const Expr x = expr::scalar("x");
    const double y = width / (2.0 * sigma * std::numbers::sqrt2);
    const double peak = std::exp(y * y) * std::erfc(y) / (sigma * kSqrt2Pi);
    EXPECT_NEAR(real_at(voigt_profile(x, m0, width, sigma), m0), peak, 1e-13 * peak);
    EXPECT_NEAR(real_at(voigt(x, m0, width, sigma), m0), std::sqrt(peak), 1e-13);
    // scipy.special.voigt_profile(0.13, 0.05, 0.04): x - m0 = 0.13, σ = 0.05, γ = Γ/2 = 0.04.
    EXPECT_NEAR(real_at(voigt_profile(x, 1.0, 0.08, 0.05), 1.13), 1.0676363546722396, 1e-14);
    EXPECT_TRUE(voigt(x, m0, width, sigma).value_kind().is_real_scalar());
}

TEST(Voigt, ApproachesTheGaussianAsTheWidthVanishes) {
    const Expr x = expr::scalar("x");
    const double m0 = 0.98;
    const double sigma = 0.02;
    const Expr profile = voigt_profile(x, m0, 0.0, sigma);
    for (const double d : {0.0, 0.005, 0.013, 0.04, 0.1}) {
        const double gauss = std::exp(-0.5 * d * d / (sigma * sigma)) / (sigma * kSqrt2Pi);
        EXPECT_NEAR(real_at(profile, m0 + d), gauss, 1e-13 / sigma) << d;
    }
}

TEST(Voigt, ApproachesTheBreitWignerAsTheResolutionVanishes) {
    const Expr x = expr::scalar("x");
    const double m0 = 0.77;
    const double width = 0.15;
    const Expr profile = voigt_profile(x, m0, width, 1e-5);
    for (const double d : {0.0, 0.02, 0.075, 0.3, 1.0}) {
        // The Lorentzian (Γ/2π)/(Δ² + Γ²/4); corrections are O(σ²/Γ²) ~ 1e-8.
        const double lorentz = (width / (2.0 * std::numbers::pi)) / (d * d + 0.25 * width * width);
        EXPECT_NEAR(real_at(profile, m0 + d), lorentz, 1e-6 * lorentz) << d;
    }
    // ... which is |the non-relativistic Breit-Wigner|² up to the factor 2/(πΓ).
    const double d = 0.04;
    const double nr =
        std::norm(evaluate(non_relativistic_breit_wigner((m0 + d) * (m0 + d), m0, width)));
    EXPECT_NEAR(real_at(profile, m0 + d), nr * 2.0 / (std::numbers::pi * width), 1e-6);
}

TEST(Voigt, IsNormalised) {
    const Expr x = expr::scalar("x");
    const double m0 = 1.5;
    const double width = 0.1;
    const double sigma = 0.04;
    const Expr profile = voigt_profile(x, m0, width, sigma);
    // m = m0 + (Γ/2) tan u maps the line onto (-π/2, π/2), where V dm/du is smooth and tends
    // to 1/π at the ends, so the midpoint rule converges fast.
    constexpr int kPoints = 4000;
    const double du = std::numbers::pi / kPoints;
    double integral = 0.0;
    for (int k = 0; k < kPoints; ++k) {
        const double u = -0.5 * std::numbers::pi + (k + 0.5) * du;
        const double jacobian = 0.5 * width / (std::cos(u) * std::cos(u));
        integral += real_at(profile, m0 + 0.5 * width * std::tan(u)) * jacobian * du;
    }
    EXPECT_NEAR(integral, 1.0, 1e-6);
}

TEST(Voigt, GradientsMatchTheFaddeevaDerivative) {
    const Expr x = expr::scalar("x");
    const Expr mass = expr::parameter("m");
    const Expr width = expr::parameter("w");
    const Expr sigma = expr::parameter("s");
    const ParameterValues point = {{"m", 1.02}, {"w", 0.09}, {"s", 0.03}};
    const Expr profile = voigt_profile(x, mass, width, sigma);
    const double m = 1.05;
    // w'(z) = -2 z w(z) + 2i/√π (DLMF 7.10.2); z = (m - m0 + iΓ/2)/(σ√2).
    const double s = 0.03;
    const Complex z = Complex(m - 1.02, 0.045) / (s * std::numbers::sqrt2);
    const Complex w = evaluate(faddeeva(Expr{z}));
    const Complex dw = -2.0 * z * w + Complex(0.0, 2.0 * std::numbers::inv_sqrtpi);
    const double norm = s * kSqrt2Pi;
    const double d_mass = (dw * (-1.0 / (s * std::numbers::sqrt2))).real() / norm;
    const double d_width = (dw * Complex(0.0, 0.5 / (s * std::numbers::sqrt2))).real() / norm;
    const double d_sigma = (dw * (-z / s)).real() / norm - w.real() / (s * norm);
    EXPECT_NEAR(central_difference(profile, m, point, "m").real(), d_mass, 1e-6 * std::abs(d_mass));
    EXPECT_NEAR(central_difference(profile, m, point, "w").real(), d_width,
                1e-6 * std::abs(d_width));
    EXPECT_NEAR(central_difference(profile, m, point, "s").real(), d_sigma,
                1e-6 * std::abs(d_sigma));
    // Like laddu, the parameters enter as |Γ| and |σ|.
    EXPECT_NEAR(real_at(profile, m, {{"m", 1.02}, {"w", -0.09}, {"s", -0.03}}),
                real_at(profile, m, point), 1e-15);
}

TEST(Voigt, RejectsANegativeWidthOrANonPositiveResolution) {
    const Expr x = expr::scalar("x");
    EXPECT_THROW(static_cast<void>(voigt(x, 1.0, -0.1, 0.02)), ModelError);
    EXPECT_THROW(static_cast<void>(voigt_profile(x, 1.0, 0.1, 0.0)), ModelError);
    EXPECT_THROW(static_cast<void>(voigt(x, 1.0, 0.1, -0.02)), ModelError);
    EXPECT_THROW(static_cast<void>(faddeeva(expr::vector({1.0, 2.0}))), ModelError);
}

TEST(PolPhase, IsThePolarisationTimesTheDoubledAnglePhase) {
    const Expr e = pol_phase(expr::scalar("x"), expr::scalar("y"));
    for (const auto& [phi, p] : {std::pair{0.3, 0.35}, std::pair{-1.9, 1.0}, std::pair{2.5, 0.0}}) {
        expect_close(evaluate(e, at(phi, p)), std::polar(p, 2.0 * phi), 1e-15);
    }
    EXPECT_THROW(static_cast<void>(pol_phase(0.1, 1.2)), ModelError);
    EXPECT_THROW(static_cast<void>(pol_phase(0.1, -0.1)), ModelError);
}

TEST(PhotonSdme, IsAUnitTraceHermitianMatrixWithEigenvaluesHalfOneMinusPlusP) {
    const LinearPolarization linear{expr::scalar("x"), expr::scalar("y")};
    const double phi = 0.7;
    const double p = 0.4;
    auto rho = [&](int a, int b, const std::optional<LinearPolarization>& pol) {
        return evaluate(photon_sdme(a, b, pol), at(phi, p));
    };
    const Complex pp = rho(1, 1, linear);
    const Complex mm = rho(-1, -1, linear);
    const Complex pm = rho(1, -1, linear);
    const Complex mp = rho(-1, 1, linear);
    expect_close(pp + mm, 1.0, 1e-15, "trace");
    expect_close(pm, std::conj(mp), 1e-15, "hermitian");
    expect_close(pm, -0.5 * std::polar(p, -2.0 * phi), 1e-15, "rho_{+-}");
    // The eigenvalues of ((½, a), (a*, ½)) are ½ ± |a| = (1 ± P)/2.
    EXPECT_NEAR(std::abs(pm), 0.5 * p, 1e-15);
    // Unpolarised: ½ on the diagonal, 0 off it.
    expect_close(rho(1, 1, std::nullopt), 0.5, 0.0);
    expect_close(rho(-1, 1, std::nullopt), 0.0, 0.0);
    EXPECT_TRUE(photon_sdme(1, -1).value_kind().is_complex);
    EXPECT_THROW(static_cast<void>(photon_sdme(0, 1)), ModelError);
    EXPECT_THROW(static_cast<void>(photon_sdme(1, 2, linear)), ModelError);
}

TEST(Heaviside, IsExactAtAndAroundZero) {
    const Expr h = heaviside(expr::scalar("x"));
    EXPECT_EQ(real_at(h, 0.0), 1.0);
    EXPECT_EQ(real_at(h, 1e-300), 1.0);
    EXPECT_EQ(real_at(h, -1e-300), 0.0);
    EXPECT_EQ(real_at(h, 5.0), 1.0);
    EXPECT_EQ(real_at(h, -5.0), 0.0);
}

TEST(LookupTable, NearestReadsTheBinWithLaddusEdgesAndBoundaries) {
    const Expr x = expr::scalar("x");
    const std::vector<double> edges = {0.0, 0.25, 0.75, 1.0};
    const std::vector<Expr> values = {1.0, Complex(2.0, 3.0), 4.0};
    const Expr zero = lookup_table({{x, edges}}, values);
    const Expr clamp = lookup_table({{x, edges}}, values, {.boundary = LookupBoundary::kClamp});
    const std::vector<std::pair<double, Complex>> cases = {
        {0.0, 1.0},  {0.1, 1.0},  {0.25, Complex(2.0, 3.0)}, {0.498, Complex(2.0, 3.0)},
        {0.75, 4.0}, {0.999, 4.0}};
    for (const auto& [v, expected] : cases) {
        expect_close(evaluate(zero, at(v)), expected, 0.0, std::to_string(v));
        expect_close(evaluate(clamp, at(v)), expected, 0.0, std::to_string(v));
    }
    // Bins are [e_k, e_{k+1}): the last edge is outside, as in laddu.
    for (const double outside : {-0.1, 1.0, 3.0}) {
        expect_close(evaluate(zero, at(outside)), 0.0, 0.0, std::to_string(outside));
    }
    expect_close(evaluate(clamp, at(-0.1)), 1.0, 0.0);
    expect_close(evaluate(clamp, at(1.0)), 4.0, 0.0);
    expect_close(evaluate(clamp, at(3.0)), 4.0, 0.0);
}

TEST(LookupTable, LinearInterpolatesAndClosesTheLastCell) {
    const Expr x = expr::scalar("x");
    const std::vector<Expr> values = {1.0, 3.0, 2.0};
    const std::vector<double> points = {0.0, 1.0, 3.0};
    const Expr zero =
        lookup_table({{x, points}}, values, {.interpolation = LookupInterpolation::kLinear});
    const Expr clamp = lookup_table(
        {{x, points}}, values,
        {.interpolation = LookupInterpolation::kLinear, .boundary = LookupBoundary::kClamp});
    // laddu's test: 1 + 2 · 0.498 between 1 and 3.
    EXPECT_NEAR(real_at(zero, 0.498), 1.0 + 2.0 * 0.498, 1e-15);
    EXPECT_NEAR(real_at(zero, 1.0), 3.0, 1e-15);
    EXPECT_NEAR(real_at(zero, 2.0), 2.5, 1e-15);
    EXPECT_NEAR(real_at(zero, 3.0), 2.0, 1e-15);
    EXPECT_EQ(real_at(zero, 3.0001), 0.0);
    EXPECT_EQ(real_at(zero, -0.0001), 0.0);
    EXPECT_NEAR(real_at(clamp, -5.0), 1.0, 1e-15);
    EXPECT_NEAR(real_at(clamp, 7.0), 2.0, 1e-15);
    EXPECT_TRUE(zero.value_kind().is_real_scalar());
}

TEST(LookupTable, TwoDimensionalTablesAreRowMajor) {
    const Expr x = expr::scalar("x");
    const Expr y = expr::scalar("y");
    const std::vector<Expr> values = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0};  // 2 x 3 bins
    const Expr table = lookup_table({{x, {0.0, 1.0, 2.0}}, {y, {0.0, 1.0, 2.0, 3.0}}}, values);
    EXPECT_EQ(evaluate(table, at(0.5, 2.5)).real(), 3.0);
    EXPECT_EQ(evaluate(table, at(1.5, 0.5)).real(), 4.0);
    EXPECT_EQ(evaluate(table, at(1.5, 3.5)).real(), 0.0);
    // Bilinear: laddu's test value 1 + 2·0.498 + 3·0.007 on the unit square with corners
    // (1, 4; 3, 6).
    const Expr bilinear = lookup_table({{x, {0.0, 1.0}}, {y, {1.0, 2.0}}}, {1.0, 4.0, 3.0, 6.0},
                                       {.interpolation = LookupInterpolation::kLinear});
    EXPECT_NEAR(evaluate(bilinear, at(0.498, 1.007)).real(), 1.0 + 2.0 * 0.498 + 3.0 * 0.007,
                1e-14);
}

TEST(LookupTable, ParameterValuesDifferentiateWithTheWeights) {
    const Expr x = expr::scalar("x");
    const Expr table =
        lookup_table({{x, {0.0, 1.0}}}, {expr::parameter("p0"), expr::parameter("p1")},
                     {.interpolation = LookupInterpolation::kLinear});
    const ParameterValues point = {{"p0", 1.0}, {"p1", 3.0}};
    EXPECT_NEAR(central_difference(table, 0.498, point, "p0").real(), 0.502, 1e-9);
    EXPECT_NEAR(central_difference(table, 0.498, point, "p1").real(), 0.498, 1e-9);
    const Expr binned = piecewise(x, 0.0, 1.0, {expr::parameter("p0"), expr::parameter("p1")});
    EXPECT_NEAR(central_difference(binned, 0.7, point, "p0").real(), 0.0, 1e-12);
    EXPECT_NEAR(central_difference(binned, 0.7, point, "p1").real(), 1.0, 1e-9);
    EXPECT_EQ(evaluate(binned, at(0.2), point).real(), 1.0);
    EXPECT_EQ(evaluate(binned, at(1.0), point).real(), 0.0);
}

TEST(LookupTable, RejectsMalformedTables) {
    const Expr x = expr::scalar("x");
    EXPECT_THROW(static_cast<void>(lookup_table({}, {1.0})), ModelError);
    EXPECT_THROW(static_cast<void>(lookup_table({{x, {0.0}}}, {})), ModelError);
    EXPECT_THROW(static_cast<void>(lookup_table({{x, {0.0, 1.0, 0.5}}}, {1.0, 2.0})), ModelError);
    EXPECT_THROW(static_cast<void>(lookup_table({{x, {0.0, 1.0, 1.0}}}, {1.0, 2.0})), ModelError);
    EXPECT_THROW(static_cast<void>(lookup_table({{x, {0.0, NAN}}}, {1.0})), ModelError);
    EXPECT_THROW(static_cast<void>(lookup_table({{x, {0.0, 0.5, 1.0}}}, {1.0})), ModelError);
    EXPECT_THROW(static_cast<void>(lookup_table({{Expr{Complex(0.0, 1.0)}, {0.0, 1.0}}}, {1.0})),
                 ModelError);
    EXPECT_THROW(static_cast<void>(piecewise(x, 1.0, 1.0, {1.0})), ModelError);
    EXPECT_THROW(static_cast<void>(piecewise(x, 0.0, 1.0, {})), ModelError);
}

}  // namespace
}  // namespace laddu::amplitudes
