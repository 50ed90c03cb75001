#include <cmath>
#include <complex>
#include <numbers>
#include <string>

#include <gtest/gtest.h>

#include <laddu/amplitudes/barrier.hpp>
#include <laddu/amplitudes/breit_wigner.hpp>
#include <laddu/amplitudes/chew_mandelstam.hpp>
#include <laddu/amplitudes/couplings.hpp>
#include <laddu/amplitudes/flatte.hpp>
#include <laddu/amplitudes/two_body.hpp>
#include <laddu/base/error.hpp>

#include "reference/expr_reference.hpp"

namespace laddu::amplitudes {
namespace {

using expr::Expr;
using laddu::testing::Complex;
using laddu::testing::evaluate;
using laddu::testing::ParameterValues;

void expect_close(Complex value, Complex expected, double tolerance, const std::string& what = "") {
    const double scale = std::max(1.0, std::abs(expected));
    EXPECT_NEAR(value.real(), expected.real(), tolerance * scale) << what;
    EXPECT_NEAR(value.imag(), expected.imag(), tolerance * scale) << what;
}

// Central difference of a scalar expression with respect to one parameter.
Complex central_difference(const Expr& e, ParameterValues point, const std::string& name,
                           double h = 1e-6) {
    ParameterValues up = point;
    ParameterValues down = point;
    up[name] += h;
    down[name] -= h;
    return (evaluate(e, {}, up) - evaluate(e, {}, down)) / (2.0 * h);
}

// Golden values of laddu v0.21.4 (laddu-physics math/functions.rs tests).
TEST(TwoBody, ReproducesLadduValues) {
    expect_close(evaluate(breakup_momentum(1.44, 0.4, 0.5)), Complex(0.3954823004889093, 0.0),
                 1e-12);
    expect_close(evaluate(breakup_momentum(1.44, 0.4, 0.5, Sheet::kUnphysical)),
                 Complex(-0.3954823004889093, 0.0), 1e-12);
    expect_close(evaluate(breakup_momentum(1.44, 1.4, 1.5)), Complex(0.0, 1.3154464282347478),
                 1e-12);
    expect_close(evaluate(phase_space_factor(1.3, 0.51, 0.62)), Complex(0.13267946426138, 0.0),
                 1e-12);
    expect_close(evaluate(phase_space_factor(1.3, 1.23, 0.62)), Complex(0.0, 1.0795209736472833),
                 1e-12);
    // laddu's names are aliases of the same nodes.
    EXPECT_EQ(q(1.44, 0.4, 0.5), breakup_momentum(1.44, 0.4, 0.5));
    EXPECT_EQ(rho(1.3, 0.51, 0.62), phase_space_factor(1.3, 0.51, 0.62));
    expect_close(breakup_momentum_value(1.44, 1.4, 1.5), Complex(0.0, 1.3154464282347478), 1e-12);
    expect_close(phase_space_factor_value(1.3, 0.51, 0.62), Complex(0.13267946426138, 0.0), 1e-12);
}

TEST(BlattWeisskopf, ReproducesLadduValuesForLUpTo4) {
    const Expr above = breakup_momentum(1.44, 0.4, 0.5);
    const double expected_above[] = {1.0, 1.2654752018685698, 2.375285855793918, 5.62658768678507,
                                     12.747554064467208};
    const Expr below = breakup_momentum(1.44, 1.4, 1.5);
    const double expected_below[] = {1.0, 1.430394249144933, 3.724659004227952, 17.689297320491015,
                                     124.05258418258987};
    for (int l = 0; l <= 4; ++l) {
        const auto index = static_cast<std::size_t>(l);
        expect_close(evaluate(blatt_weisskopf(above, l)), expected_above[index], 1e-8,
                     "above l=" + std::to_string(l));
        expect_close(evaluate(blatt_weisskopf(below, l)), expected_below[index], 1e-8,
                     "below l=" + std::to_string(l));
    }
}

// F_L(q_R) = 1 for every L (this is the normalisation laddu's L = 6 constant breaks), and the
// closed forms of von Hippel & Quigg for L <= 2 at an arbitrary q.
TEST(BlattWeisskopf, NormalisedAtTheScaleAndMatchesClosedForms) {
    for (int l = 0; l <= kMaxBarrierL; ++l) {
        expect_close(evaluate(blatt_weisskopf(Expr(0.1973), l)), 1.0, 1e-14,
                     "l=" + std::to_string(l));
        expect_close(blatt_weisskopf_value(0.25, l, 0.25), 1.0, 1e-14);
    }
    const double q = 0.37;
    const double z = q * q / (0.1973 * 0.1973);
    EXPECT_NEAR(evaluate(blatt_weisskopf(Expr(q), 1)).real(), std::sqrt(2 * z / (z + 1)), 1e-14);
    EXPECT_NEAR(evaluate(blatt_weisskopf(Expr(q), 2)).real(),
                std::sqrt(13 * z * z / ((z - 3) * (z - 3) + 9 * z)), 1e-14);
    // The tensor form divides by q^L.
    EXPECT_NEAR(evaluate(blatt_weisskopf(Expr(q), 2, 0.1973, BarrierKind::kTensor)).real(),
                std::sqrt(13 * z * z / ((z - 3) * (z - 3) + 9 * z)) / (q * q), 1e-13);
    // L = 6 at q(1.44; 1.4, 1.5): laddu's test expects 6211.48 with its wrong constant; the
    // normalised polynomial gives the value below, computed from the closed form.
    const Complex qb = breakup_momentum_value(1.44, 1.4, 1.5);
    const Complex zb = qb * qb / (0.1973 * 0.1973);
    const Complex d6 =
        (((((zb + 21.0) * zb + 630.0) * zb + 18900.0) * zb + 496125.0) * zb + 9823275.0) * zb +
        108056025.0;
    const Complex f6 = std::sqrt(118394977.0 * std::pow(zb, 6) / d6);
    expect_close(evaluate(blatt_weisskopf(breakup_momentum(1.44, 1.4, 1.5), 6)), f6, 1e-10);
    EXPECT_GT(std::abs(f6 - 6211.480561374802), 1000.0);
}

TEST(BlattWeisskopf, RejectsUnsupportedArguments) {
    try {
        (void)blatt_weisskopf(Expr(0.3), 9);
        FAIL() << "expected ModelError";
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("0 <= l <= 8"), std::string::npos);
    }
    try {
        (void)blatt_weisskopf(Expr(0.3), 1, -1.0);
        FAIL() << "expected ModelError";
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("must be a positive scale"), std::string::npos);
    }
    EXPECT_THROW((void)relativistic_breit_wigner(1.0, 1.0, 0.1, 0.1, 0.1, -1), ModelError);
}

// Im C = -ρ above threshold; the expression agrees with the branch-explicit numeric version
// everywhere on the real axis (both sides of the pseudo-threshold and of the threshold).
TEST(ChewMandelstam, MatchesNumericBranchesAndHasMinusRhoImaginaryPart) {
    const double m1 = 0.547862;
    const double m2 = 0.95778;
    for (double s : {0.05, 0.15, 0.3, 1.2, 2.2, 2.3, 3.5, 9.0}) {
        const Complex value = evaluate(chew_mandelstam(s, m1, m2));
        expect_close(value, chew_mandelstam_value(s, m1, m2), 1e-13, "s=" + std::to_string(s));
        if (s > (m1 + m2) * (m1 + m2)) {
            EXPECT_NEAR(value.imag(), -phase_space_factor_value(s, m1, m2).real(), 1e-14);
        } else {
            EXPECT_EQ(value.imag(), 0.0) << s;
        }
    }
    // Equal masses: C = (ρ ln((χ+ρ)/(χ-ρ)) - 0)/π.
    const double s = 0.9;
    const double m = 0.1349768;
    const double chi = 1.0 - 4.0 * m * m / s;
    const double rho = std::sqrt(chi);
    const Complex expected =
        rho * Complex(std::log(std::abs((chi + rho) / (chi - rho))), -std::numbers::pi) /
        std::numbers::pi;
    expect_close(evaluate(chew_mandelstam(s, m, m)), expected, 1e-14);
}

TEST(BreitWigner, ClosedFormAndPoleNormalisationAndGradients) {
    const Expr mass = expr::parameter("m");
    const Expr width = expr::parameter("w");
    const double s = 1.1;
    const ParameterValues point = {{"m", 1.02}, {"w", 0.15}};
    const Expr bw = breit_wigner(s, mass, width);
    const Complex d(1.02 * 1.02 - s, -1.02 * 0.15);
    expect_close(evaluate(bw, {}, point), 1.0 / d, 1e-14);
    expect_close(evaluate(breit_wigner(1.02 * 1.02, 1.02, 0.15)), Complex(0.0, 1.0 / (1.02 * 0.15)),
                 1e-14);
    // ∂/∂m = -(2m - iΓ)/D², ∂/∂Γ = i m / D².
    expect_close(central_difference(bw, point, "m"), -Complex(2.04, -0.15) / (d * d), 1e-7);
    expect_close(central_difference(bw, point, "w"), Complex(0.0, 1.02) / (d * d), 1e-7);
}

TEST(RelativisticBreitWigner, ClosedFormUnitNormalisationAndGradients) {
    const double m1 = 0.13957039;
    const double m2 = 0.1349768;
    const double s = 0.71;
    const auto q = [&](double x) {
        return std::sqrt((x - (m1 + m2) * (m1 + m2)) * (x - (m1 - m2) * (m1 - m2))) /
               (2 * std::sqrt(x));
    };
    const auto f1 = [](double qq) {
        const double z = qq * qq / (0.1973 * 0.1973);
        return std::sqrt(2 * z / (z + 1));
    };
    const auto closed = [&](double m, double w, int l) {
        const double ratio = q(s) / q(m * m);
        const double barrier = l == 0 ? 1.0 : f1(q(s)) / f1(q(m * m));
        const double running = w * (m / std::sqrt(s)) * ratio * barrier * barrier;
        return 1.0 / Complex(m * m - s, -m * running);
    };
    const Expr mass = expr::parameter("m");
    const Expr width = expr::parameter("w");
    const ParameterValues point = {{"m", 0.775}, {"w", 0.149}};
    for (int l : {0, 1}) {
        const Expr bw = relativistic_breit_wigner(s, mass, width, m1, m2, l);
        expect_close(evaluate(bw, {}, point), closed(0.775, 0.149, l), 1e-13);
        // At s = m² it is i/(mΓ) whatever L is.
        expect_close(evaluate(relativistic_breit_wigner(0.775 * 0.775, 0.775, 0.149, m1, m2, l)),
                     Complex(0.0, 1.0 / (0.775 * 0.149)), 1e-12);
        // ∂/∂Γ = i m (Γ(s)/Γ) / D² exactly, as Γ(s) is linear in Γ.
        const Complex value = closed(0.775, 0.149, l);
        const Complex d = 1.0 / value;
        const double running_over_width = (d.imag() / -0.775) / 0.149;
        expect_close(central_difference(bw, point, "w"),
                     Complex(0.0, 0.775 * running_over_width) / (d * d), 1e-7);
        // ∂/∂m against the derivative of the independent closed form.
        const double h = 1e-5;
        const Complex closed_derivative =
            (closed(0.775 + h, 0.149, l) - closed(0.775 - h, 0.149, l) -
             (closed(0.775 + 2 * h, 0.149, l) - closed(0.775 - 2 * h, 0.149, l)) / 8.0) /
            (1.5 * h);
        expect_close(central_difference(bw, point, "m"), closed_derivative, 1e-6);
    }
    // Without barrier factors Γ(s) = Γ (m/√s) (q/q₀)^{2L+1}.
    const Expr plain =
        relativistic_breit_wigner(s, 0.775, 0.149, m1, m2, 1, {.barrier_factors = false});
    const double running = 0.149 * (0.775 / std::sqrt(s)) * std::pow(q(s) / q(0.775 * 0.775), 3);
    expect_close(evaluate(plain), 1.0 / Complex(0.775 * 0.775 - s, -0.775 * running), 1e-13);
}

TEST(NonRelativisticBreitWigner, ClosedFormAndPeak) {
    const Complex value = evaluate(non_relativistic_breit_wigner(1.0, 1.2, 0.3));
    expect_close(value, 0.15 / Complex(1.2 - 1.0, -0.15), 1e-15);
    expect_close(evaluate(non_relativistic_breit_wigner(1.44, 1.2, 0.3)), Complex(0.0, 1.0), 1e-15);
    // ∂/∂m = -(Γ/2)/D² and ∂/∂Γ = (D/2 + iΓ/4)/D² with D = m - √s - iΓ/2.
    const Expr f = non_relativistic_breit_wigner(1.0, expr::parameter("m"), expr::parameter("w"));
    const ParameterValues point = {{"m", 1.2}, {"w", 0.3}};
    const Complex d(1.2 - 1.0, -0.15);
    expect_close(central_difference(f, point, "m"), -0.15 / (d * d), 1e-7);
    expect_close(central_difference(f, point, "w"), (0.5 * d + Complex(0.0, 0.075)) / (d * d),
                 1e-7);
}

TEST(Flatte, ClosedFormBelowAndAboveTheSecondThresholdAndGradients) {
    const double mpi = 0.13957039;
    const double meta = 0.547862;
    const double mk = 0.493677;
    const Expr mass = expr::parameter("m0");
    const Expr g1 = expr::parameter("g1");
    const Expr g2 = expr::parameter("g2");
    const ParameterValues point = {{"m0", 0.98}, {"g1", 0.35}, {"g2", 0.8}};
    const auto rho = [](double s, double a, double b) {
        const double r = (s - (a + b) * (a + b)) * (s - (a - b) * (a - b));
        const Complex root = r >= 0 ? Complex(std::sqrt(r)) : Complex(0.0, std::sqrt(-r));
        return 2.0 * root / (2.0 * std::sqrt(s)) / std::sqrt(s);
    };
    for (double s : {0.9, 0.98 * 0.98, 1.05}) {
        const Expr f = flatte(s, mass, {mpi, meta, g1}, {mk, mk, g2});
        const Complex width = 0.35 * rho(s, mpi, meta) + 0.8 * rho(s, mk, mk);
        const Complex d = 0.98 * 0.98 - s - Complex(0.0, 0.98) * width;
        expect_close(evaluate(f, {}, point), 1.0 / d, 1e-13, "s=" + std::to_string(s));
        expect_close(central_difference(f, point, "g1"),
                     Complex(0.0, 0.98) * rho(s, mpi, meta) / (d * d), 1e-7);
        expect_close(central_difference(f, point, "g2"),
                     Complex(0.0, 0.98) * rho(s, mk, mk) / (d * d), 1e-7);
        expect_close(central_difference(f, point, "m0"),
                     -(2.0 * 0.98 - Complex(0.0, 1.0) * width) / (d * d), 1e-7);
    }
}

TEST(Couplings, CartesianAndPolarValuesAndGradients) {
    const Expr c = cartesian_coupling("f0(980)");
    const ParameterValues point = {{"f0(980) re", 0.3}, {"f0(980) im", -1.2}};
    expect_close(evaluate(c, {}, point), Complex(0.3, -1.2), 1e-15);
    expect_close(central_difference(c, point, "f0(980) re"), 1.0, 1e-9);
    expect_close(central_difference(c, point, "f0(980) im"), Complex(0.0, 1.0), 1e-9);
    const Expr p = polar_coupling("a2");
    const ParameterValues polar = {{"a2 mag", 2.0}, {"a2 phase", 0.7}};
    expect_close(evaluate(p, {}, polar), std::polar(2.0, 0.7), 1e-15);
    expect_close(central_difference(p, polar, "a2 mag"), std::polar(1.0, 0.7), 1e-9);
    expect_close(central_difference(p, polar, "a2 phase"), Complex(0.0, 2.0) * std::polar(1.0, 0.7),
                 1e-8);
}

}  // namespace
}  // namespace laddu::amplitudes
