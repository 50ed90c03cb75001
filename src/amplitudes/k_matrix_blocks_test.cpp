// The expression-valued K-matrix blocks: with parameters in place of the constants they give
// the double-based KMatrixDefinition values, the non-literal (component) paths agree with the
// literal ones, a phase-space vector means its diagonal matrix, and shape mismatches name the
// argument. Gradients through the compiler live in tests/integration/kmatrix_blocks_test.cpp.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/amplitudes/chew_mandelstam.hpp>
#include <laddu/amplitudes/k_matrix.hpp>
#include <laddu/base/error.hpp>
#include <laddu/expr/expr.hpp>

#include "reference/expr_reference.hpp"

namespace laddu::amplitudes {
namespace {

using expr::Expr;
using laddu::testing::Complex;
using laddu::testing::evaluate_all;
using laddu::testing::ParameterValues;

// Two channels (π π, K K̄), two poles, L = 2 with a background and an Adler zero: every branch
// of the double-based construction.
KMatrixDefinition definition() {
    KMatrixDefinition d;
    d.pole_masses = {0.98, 1.45};
    d.couplings = {{0.62, -0.31}, {0.41, 0.77}};
    d.background = {{0.15, -0.05}, {-0.05, 0.2}};
    d.channel_mass_1 = {0.13957039, 0.493677};
    d.channel_mass_2 = {0.13957039, 0.497611};
    d.l = 2;
    d.q_r = 0.1973;
    d.adler_zero = AdlerZero{0.0091125, 1.0};
    return d;
}

// The same K-matrix with pole masses, couplings and background as parameters.
struct FreeInputs {
    Expr pole_masses = 0.0;
    Expr couplings = 0.0;
    Expr barriers = 0.0;
    Expr background = 0.0;
    ParameterValues values = {};
};

FreeInputs free_inputs(const KMatrixDefinition& d, const Expr& s) {
    FreeInputs in;
    std::vector<Expr> masses;
    for (std::size_t a = 0; a < d.poles(); ++a) {
        const std::string name = "m" + std::to_string(a);
        masses.push_back(expr::parameter(name));
        in.values[name] = d.pole_masses[a];
    }
    std::vector<Expr> couplings;
    for (std::size_t i = 0; i < d.channels(); ++i) {
        for (std::size_t a = 0; a < d.poles(); ++a) {
            const std::string name = "g" + std::to_string(i) + std::to_string(a);
            couplings.push_back(expr::parameter(name));
            in.values[name] = d.couplings[i][a];
        }
    }
    in.pole_masses = expr::vector(masses);
    in.couplings = expr::matrix(2, 2, couplings);
    in.barriers = blatt_weisskopf_barriers(
        s, expr::vector({d.channel_mass_1[0], d.channel_mass_1[1]}),
        expr::vector({d.channel_mass_2[0], d.channel_mass_2[1]}), in.pole_masses, d.l, d.q_r);
    // Kopf's background Σ_α B_iα c_ij B_jα, as k_matrix(definition) builds it.
    std::vector<Expr> background;
    for (std::uint32_t i = 0; i < 2; ++i) {
        for (std::uint32_t j = 0; j < 2; ++j) {
            Expr sum = 0.0;
            for (std::uint32_t a = 0; a < 2; ++a) {
                sum = sum + d.background[i][j] * expr::matrix_element(in.barriers, i, a) *
                                expr::matrix_element(in.barriers, j, a);
            }
            background.push_back(sum);
        }
    }
    in.background = expr::matrix(2, 2, background);
    return in;
}

void expect_all_close(const std::vector<Complex>& got, const std::vector<Complex>& expected,
                      double tolerance, const std::string& what) {
    ASSERT_EQ(got.size(), expected.size()) << what;
    for (std::size_t k = 0; k < got.size(); ++k) {
        const double scale = std::max(1.0, std::abs(expected[k]));
        EXPECT_NEAR(got[k].real(), expected[k].real(), tolerance * scale)
            << what << " [" << k << "]";
        EXPECT_NEAR(got[k].imag(), expected[k].imag(), tolerance * scale)
            << what << " [" << k << "]";
    }
}

// Below both thresholds, between them, above both.
const std::vector<double> kSweep = {0.05, 0.5, 1.2, 2.6};

TEST(KMatrixBlocks, ParameterInputsGiveTheDefinitionValues) {
    const KMatrixDefinition d = definition();
    const std::vector<Expr> production = {Expr(Complex(0.7, -0.4)), Expr(Complex(0.2, 0.9))};
    for (const double sv : kSweep) {
        const Expr s = sv;
        const FreeInputs in = free_inputs(d, s);
        const std::string at = " at s = " + std::to_string(sv);
        expect_all_close(evaluate_all(in.barriers, {}, in.values),
                         evaluate_all(blatt_weisskopf_barriers(d, s)), 1e-13, "barriers" + at);
        Expr k = k_matrix(s, in.pole_masses, in.couplings, in.barriers, in.background);
        k = ((s - d.adler_zero->s0) / d.adler_zero->s_norm) * k;
        expect_all_close(evaluate_all(k, {}, in.values), evaluate_all(k_matrix(d, s)), 1e-12,
                         "K'" + at);
        const Expr p =
            p_vector(s, in.pole_masses, expr::vector(production), in.couplings, in.barriers);
        expect_all_close(evaluate_all(p, {}, in.values), evaluate_all(p_vector(d, s, production)),
                         1e-12, "P'" + at);
        const Expr f = f_vector(s, in.pole_masses, k, p,
                                phase_space_matrix(d, s, PhaseSpace::kChewMandelstam));
        expect_all_close(evaluate_all(f, {}, in.values), evaluate_all(f_vector(d, s, production)),
                         1e-11, "F" + at);
        expect_all_close(evaluate_all(pole_product(s, in.pole_masses), {}, in.values),
                         evaluate_all(pole_product(d, s)), 1e-14, "Π" + at);
    }
}

// Aggregates that are not literal vector/matrix nodes go through component nodes.
TEST(KMatrixBlocks, NonLiteralAggregatesAgreeWithLiterals) {
    const Expr s = 1.3;
    const Expr masses = expr::vector({0.98, 1.45});
    const Expr shifted = expr::vector({0.5, 1.0}) + expr::vector({0.48, 0.45});  // same values
    const Expr g = expr::matrix({{0.62, -0.31}, {0.41, 0.77}});
    const Expr g2 = g * 1.0;
    const Expr m1 = expr::vector({0.13957039, 0.493677});
    const Expr m2 = expr::vector({0.13957039, 0.497611});
    const Expr b = blatt_weisskopf_barriers(s, m1, m2, masses, 1, 0.1973);
    const Expr b2 = blatt_weisskopf_barriers(s, m1 * 1.0, m2 * 1.0, shifted, 1, 0.1973);
    expect_all_close(evaluate_all(b2), evaluate_all(b), 1e-14, "barriers");
    const Expr k = k_matrix(s, masses, g, b);
    const Expr k2 = k_matrix(s, shifted, g2, b2);
    expect_all_close(evaluate_all(k2), evaluate_all(k), 1e-14, "K'");
    const Expr beta = expr::vector({Expr(Complex(0.3, 0.1)), Expr(-0.2)});
    const Expr p = p_vector(s, masses, beta, g, b, expr::vector({0.1, 0.2}));
    const Expr p2 = p_vector(s, shifted, beta * 1.0, g2, b2, expr::vector({0.1, 0.2}) * 1.0);
    expect_all_close(evaluate_all(p2), evaluate_all(p), 1e-14, "P'");
    const Expr c = expr::vector(
        {chew_mandelstam(s, 0.13957039, 0.13957039), chew_mandelstam(s, 0.493677, 0.497611)});
    const Expr c_matrix =
        expr::matrix({{expr::component(c, 0), Expr(0.0)}, {Expr(0.0), expr::component(c, 1)}});
    const Expr f = f_vector(s, masses, k, p, c);
    expect_all_close(evaluate_all(f_vector(s, shifted, k2, p2, c_matrix * 1.0)), evaluate_all(f),
                     1e-13, "F");
    expect_all_close(evaluate_all(f_vector(s, masses, k, p, c_matrix)), evaluate_all(f), 0.0,
                     "F, vector vs diagonal matrix");
}

// F solves (Π I + K' C) F = P' for a full (non-diagonal) C as well.
TEST(KMatrixBlocks, FullPhaseSpaceMatrixSolvesTheSystem) {
    const Expr s = 0.9;
    const Expr masses = expr::vector({1.1});
    const Expr k = expr::matrix({{0.4, 0.1}, {0.1, 0.3}});
    const Expr c = expr::matrix({{Expr(Complex(0.2, 0.1)), Expr(0.05)}, {Expr(-0.1), Expr(0.3)}});
    const Expr p = expr::vector({Expr(1.0), Expr(Complex(0.0, 0.5))});
    const std::vector<Complex> f = evaluate_all(f_vector(s, masses, k, p, c));
    const std::vector<Complex> kc = evaluate_all(expr::matmul(k, c));
    const double pi = 1.1 * 1.1 - 0.9;
    const std::vector<Complex> rhs = evaluate_all(p);
    for (std::size_t i = 0; i < 2; ++i) {
        const Complex row = (i == 0 ? pi : 0.0) * f[0] + kc[i * 2] * f[0] +
                            (i == 1 ? pi : 0.0) * f[1] + kc[i * 2 + 1] * f[1];
        EXPECT_NEAR(std::abs(row - rhs[i]), 0.0, 1e-14) << "row " << i;
    }
}

void expect_model_error(const std::function<void()>& build, const std::string& fragment) {
    try {
        build();
        ADD_FAILURE() << "expected ModelError containing '" << fragment << "'";
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

TEST(KMatrixBlocks, ShapeMismatchesNameTheArgument) {
    const Expr s = 1.0;
    const Expr masses = expr::vector({1.0, 1.5});
    const Expr g = expr::matrix({{1.0, 2.0}, {3.0, 4.0}});
    const Expr g3 = expr::matrix({{1.0, 2.0, 3.0}});
    const Expr b = expr::matrix({{1.0, 1.0}, {1.0, 1.0}});
    expect_model_error([&] { (void)k_matrix(s, masses, g3, b); },
                       "k_matrix: couplings must be a channels x poles matrix with 2 pole columns");
    expect_model_error([&] { (void)k_matrix(masses, masses, g, b); },
                       "k_matrix: s must be a scalar");
    expect_model_error([&] { (void)k_matrix(s, 1.0, g, b); }, "pole_masses must be a vector");
    expect_model_error([&] { (void)k_matrix(s, masses, g, expr::matrix({{1.0, 1.0}})); },
                       "barriers must be matrix[2x2]");
    expect_model_error([&] { (void)k_matrix(s, masses, g, b, masses); },
                       "background must be matrix[2x2]");
    expect_model_error([&] { (void)p_vector(s, masses, expr::vector({1.0}), g, b); },
                       "p_vector: production must be vector[2]");
    expect_model_error([&] { (void)p_vector(s, masses, masses, g, b, g); },
                       "p_vector: background must be vector[2]");
    expect_model_error([&] { (void)f_vector(s, masses, g, expr::vector({1.0}), g); },
                       "f_vector: k must be matrix[1x1]");
    expect_model_error([&] { (void)f_vector(s, masses, g, masses, expr::vector({1.0})); },
                       "f_vector: phase_space must be vector[2]");
    expect_model_error(
        [&] { (void)blatt_weisskopf_barriers(s, masses, expr::vector({1.0}), masses, 1); },
        "channel_mass_2 must be vector[2]");
    expect_model_error([&] { (void)blatt_weisskopf_barriers(s, masses, masses, masses, 9); },
                       "l = 9 is not supported");
    expect_model_error([&] { (void)blatt_weisskopf_barriers(s, masses, masses, masses, 1, 0.0); },
                       "q_r must be positive");
}

}  // namespace
}  // namespace laddu::amplitudes
