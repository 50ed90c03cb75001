#include <array>
#include <cmath>
#include <complex>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/amplitudes/couplings.hpp>
#include <laddu/amplitudes/k_matrix.hpp>
#include <laddu/amplitudes/kmatrix_benchmark.hpp>
#include <laddu/amplitudes/kopf.hpp>
#include <laddu/base/error.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/expr/traversal.hpp>
#include <laddu/physics/reaction.hpp>

#include "reference/expr_reference.hpp"

namespace laddu::amplitudes {
namespace {

using expr::Expr;
using laddu::testing::Complex;
using laddu::testing::evaluate;
using laddu::testing::evaluate_all;
using CMatrix = std::vector<std::vector<Complex>>;

// s = m²(K_S K_S) of laddu's kopf.rs unit test.
constexpr double kSKsKs = 1.8889166211166355;

void expect_close(Complex value, Complex expected, double tolerance, const std::string& what) {
    const double scale = std::max(1.0, std::abs(expected));
    EXPECT_NEAR(value.real(), expected.real(), tolerance * scale) << what;
    EXPECT_NEAR(value.imag(), expected.imag(), tolerance * scale) << what;
}

// laddu v0.21.4 kopf.rs `evaluation_matches_expected_values`: production couplings
// 0.1+0.2i, 0.3+0.4i, ... at s = kSKsKs, one channel per family.
TEST(Kopf, ReproducesLadduUnitTestValues) {
    const std::array<Complex, 5> b = {Complex(0.1, 0.2), Complex(0.3, 0.4), Complex(0.5, 0.6),
                                      Complex(0.7, 0.8), Complex(0.9, 1.0)};
    const auto e = [&](std::size_t k) {
        return Expr(b[k]);
    };
    const Expr s = kSKsKs;
    expect_close(
        evaluate(component(kopf_f0(s, {e(0), e(1), e(2), e(3), e(4)}), KopfF0Channel::kFourPi)),
        Complex(0.2674945594859746, 0.728945115184662), 1e-12, "f0 4pi");
    expect_close(evaluate(component(kopf_f2(s, {e(0), e(1), e(2), e(3)}), KopfF2Channel::kFourPi)),
                 Complex(0.02463134381292893, 0.3964232300397033), 1e-12, "f2 4pi");
    expect_close(evaluate(component(kopf_a0(s, {e(0), e(1)}), KopfA0Channel::kKKbar)),
                 Complex(-0.800275915726, -0.13593066320582162), 1e-12, "a0 KK");
    expect_close(evaluate(component(kopf_a2(s, {e(0), e(1)}), KopfA2Channel::kKKbar)),
                 Complex(-0.2087815057065276, -0.10173200171306504), 1e-12, "a2 KK");
    expect_close(evaluate(component(kopf_rho(s, {e(0), e(1)}), KopfRhoChannel::kFourPi)),
                 Complex(0.09449011845747245, 0.2609094192601879), 1e-12, "rho 4pi");
    expect_close(evaluate(component(kopf_pi1(s, {e(0)}), KopfPi1Channel::kPiEtaPrime)),
                 Complex(-0.1102837189594736, 0.263468912197887), 1e-12, "pi1 eta'");
}

// ---- An independent numeric K-matrix: uncleared K, explicit Gauss-Jordan inverse. ----

Complex q_numeric(double s, double m1, double m2) {
    const double r = (s - (m1 + m2) * (m1 + m2)) * (s - (m1 - m2) * (m1 - m2));
    const Complex root = r >= 0 ? Complex(std::sqrt(r), 0.0) : Complex(0.0, std::sqrt(-r));
    return root / (2.0 * std::sqrt(s));
}

Complex barrier_numeric(Complex q, int l, double q_r) {
    const Complex z = q * q / (q_r * q_r);
    switch (l) {
    case 0:
        return 1.0;
    case 1:
        return std::sqrt(2.0 * z / (z + 1.0));
    case 2:
        return std::sqrt(13.0 * z * z / ((z - 3.0) * (z - 3.0) + 9.0 * z));
    default:
        ADD_FAILURE() << "oracle covers l <= 2";
        return 0.0;
    }
}

// laddu's literal formula, principal log of the ratio, with the -iπ branch above threshold.
Complex chew_mandelstam_numeric(double s, double m1, double m2) {
    const double chi = 1.0 - (m1 + m2) * (m1 + m2) / s;
    const Complex rho = 2.0 * q_numeric(s, m1, m2) / std::sqrt(s);
    const Complex ratio = (chi + rho) / (chi - rho);
    Complex log_ratio = std::log(ratio);
    if (s > (m1 + m2) * (m1 + m2)) {
        log_ratio = Complex(std::log(std::abs(ratio)), -std::numbers::pi);
    }
    return (rho * log_ratio - chi * ((m2 - m1) / (m1 + m2)) * std::log(m2 / m1)) / std::numbers::pi;
}

CMatrix inverse(CMatrix a) {
    const std::size_t n = a.size();
    CMatrix inv(n, std::vector<Complex>(n));
    for (std::size_t i = 0; i < n; ++i) {
        inv[i][i] = 1.0;
    }
    for (std::size_t c = 0; c < n; ++c) {
        std::size_t p = c;
        for (std::size_t r = c + 1; r < n; ++r) {
            if (std::abs(a[r][c]) > std::abs(a[p][c])) {
                p = r;
            }
        }
        std::swap(a[c], a[p]);
        std::swap(inv[c], inv[p]);
        const Complex d = a[c][c];
        for (std::size_t k = 0; k < n; ++k) {
            a[c][k] /= d;
            inv[c][k] /= d;
        }
        for (std::size_t r = 0; r < n; ++r) {
            if (r != c) {
                const Complex f = a[r][c];
                for (std::size_t k = 0; k < n; ++k) {
                    a[r][k] -= f * a[c][k];
                    inv[r][k] -= f * inv[c][k];
                }
            }
        }
    }
    return inv;
}

struct Numeric {
    CMatrix k;
    std::vector<Complex> p;
    std::vector<Complex> phase;  // C_i or -iρ_i
};

Numeric numeric_k(const KMatrixDefinition& d, double s, const std::vector<Complex>& beta,
                  PhaseSpace phase_space) {
    const std::size_t nc = d.channels();
    const std::size_t np = d.poles();
    Numeric out{CMatrix(nc, std::vector<Complex>(nc)), std::vector<Complex>(nc),
                std::vector<Complex>(nc)};
    const auto b = [&](std::size_t i, std::size_t a) {
        const double m1 = d.channel_mass_1[i];
        const double m2 = d.channel_mass_2[i];
        const double ma = d.pole_masses[a];
        return barrier_numeric(q_numeric(s, m1, m2), d.l, d.q_r) /
               barrier_numeric(q_numeric(ma * ma, m1, m2), d.l, d.q_r);
    };
    const double adler = d.adler_zero ? (s - d.adler_zero->s0) / d.adler_zero->s_norm : 1.0;
    for (std::size_t i = 0; i < nc; ++i) {
        for (std::size_t j = 0; j < nc; ++j) {
            Complex sum = 0.0;
            for (std::size_t a = 0; a < np; ++a) {
                const double c = d.background.empty() ? 0.0 : d.background[i][j];
                const double ma2 = d.pole_masses[a] * d.pole_masses[a];
                sum += b(i, a) * b(j, a) * (d.couplings[i][a] * d.couplings[j][a] / (ma2 - s) + c);
            }
            out.k[i][j] = adler * sum;
        }
        for (std::size_t a = 0; a < np; ++a) {
            const double ma2 = d.pole_masses[a] * d.pole_masses[a];
            out.p[i] += beta[a] * d.couplings[i][a] * b(i, a) / (ma2 - s);
        }
        const double m1 = d.channel_mass_1[i];
        const double m2 = d.channel_mass_2[i];
        out.phase[i] = phase_space == PhaseSpace::kChewMandelstam
                           ? chew_mandelstam_numeric(s, m1, m2)
                           : Complex(0.0, -1.0) * 2.0 * q_numeric(s, m1, m2) / std::sqrt(s);
    }
    return out;
}

std::vector<Complex> numeric_f(const KMatrixDefinition& d, double s,
                               const std::vector<Complex>& beta, PhaseSpace phase_space) {
    const Numeric n = numeric_k(d, s, beta, phase_space);
    const std::size_t nc = d.channels();
    CMatrix m(nc, std::vector<Complex>(nc));
    for (std::size_t i = 0; i < nc; ++i) {
        for (std::size_t j = 0; j < nc; ++j) {
            m[i][j] = (i == j ? 1.0 : 0.0) + n.k[i][j] * n.phase[j];
        }
    }
    const CMatrix inv = inverse(m);
    std::vector<Complex> f(nc);
    for (std::size_t i = 0; i < nc; ++i) {
        for (std::size_t j = 0; j < nc; ++j) {
            f[i] += inv[i][j] * n.p[j];
        }
    }
    return f;
}

template <std::size_t C, std::size_t P>
void expect_matches_numeric(const KopfTable<C, P>& table, const std::string& name) {
    const KMatrixDefinition d = KMatrixDefinition::from_table(table);
    std::vector<Complex> beta;
    std::vector<Expr> production;
    for (std::size_t a = 0; a < P; ++a) {
        beta.emplace_back(0.3 + 0.2 * static_cast<double>(a), -0.5 + 0.35 * static_cast<double>(a));
        production.emplace_back(beta.back());
    }
    // Below and above the KK̄ threshold, between thresholds and far above all of them.
    for (double s : {0.35, 0.93, 1.02, kSKsKs, 2.9, 4.4}) {
        for (PhaseSpace ps : {PhaseSpace::kChewMandelstam, PhaseSpace::kRho}) {
            const std::vector<Complex> expected = numeric_f(d, s, beta, ps);
            const std::vector<Complex> value = evaluate_all(f_vector(d, s, production, ps));
            ASSERT_EQ(value.size(), C);
            for (std::size_t i = 0; i < C; ++i) {
                expect_close(value[i], expected[i], 1e-12,
                             name + " s=" + std::to_string(s) + " channel " + std::to_string(i) +
                                 (ps == PhaseSpace::kRho ? " rho" : " cm"));
            }
        }
    }
}

TEST(KMatrix, EveryKopfFamilyMatchesADirectInverse) {
    expect_matches_numeric(kKopfF0, "f0");
    expect_matches_numeric(kKopfF2, "f2");
    expect_matches_numeric(kKopfA0, "a0");
    expect_matches_numeric(kKopfA2, "a2");
    expect_matches_numeric(kKopfRho, "rho");
    expect_matches_numeric(kKopfPi1, "pi1");
}

// One channel at s = m_α²: the cleared system stays regular and F → β_α / (g_α C), the limit
// of (1 + K C)⁻¹ P as K, P → ∞ at the pole. (With several channels the cleared matrix is
// singular exactly at a pole, so this is a one-channel property, as in laddu's test.)
TEST(KMatrix, OneChannelIsFiniteExactlyAtAPole) {
    KMatrixDefinition d;
    d.pole_masses = {0.98, 1.3};
    d.couplings = {{0.45, 0.3}};
    d.channel_mass_1 = {0.13957039};
    d.channel_mass_2 = {0.547862};
    const double s = 0.98 * 0.98;
    const Complex beta0(0.7, -0.4);
    const Complex f = evaluate_all(f_vector(d, s, std::vector<Expr>{Expr(beta0), Expr(0.2)}))[0];
    expect_close(f, beta0 / (0.45 * chew_mandelstam_numeric(s, 0.13957039, 0.547862)), 1e-12,
                 "pole limit");
}

// With real K above every threshold, T = (I - iKρ)⁻¹ K gives a unitary
// S = I + 2i √ρ T √ρ. Columns of T come from f_vector with β_α = g_aα (P = K e_a for L = 0
// without background).
TEST(KMatrix, PlainRhoFormIsUnitaryForRealK) {
    KMatrixDefinition d;
    d.pole_masses = {0.98, 1.52};
    d.couplings = {{0.62, -0.31}, {0.41, 0.77}, {-0.25, 0.18}};
    d.channel_mass_1 = {0.1349768, 0.493677, 0.547862};
    d.channel_mass_2 = {0.1349768, 0.497611, 0.547862};
    for (double s : {1.3, 2.1, 3.4}) {
        const std::size_t n = d.channels();
        CMatrix t(n, std::vector<Complex>(n));
        for (std::size_t a = 0; a < n; ++a) {
            std::vector<Expr> production;
            for (std::size_t alpha = 0; alpha < d.poles(); ++alpha) {
                production.emplace_back(d.couplings[a][alpha]);
            }
            const std::vector<Complex> column =
                evaluate_all(f_vector(d, s, production, PhaseSpace::kRho));
            for (std::size_t i = 0; i < n; ++i) {
                t[i][a] = column[i];
            }
        }
        std::vector<double> root_rho(n);
        for (std::size_t i = 0; i < n; ++i) {
            const Complex rho =
                2.0 * q_numeric(s, d.channel_mass_1[i], d.channel_mass_2[i]) / std::sqrt(s);
            ASSERT_EQ(rho.imag(), 0.0);
            root_rho[i] = std::sqrt(rho.real());
        }
        CMatrix sm(n, std::vector<Complex>(n));
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = 0; j < n; ++j) {
                sm[i][j] =
                    (i == j ? 1.0 : 0.0) + Complex(0.0, 2.0) * root_rho[i] * t[i][j] * root_rho[j];
            }
        }
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = 0; j < n; ++j) {
                Complex ssd = 0.0;
                for (std::size_t k = 0; k < n; ++k) {
                    ssd += sm[i][k] * std::conj(sm[j][k]);
                }
                expect_close(ssd, i == j ? 1.0 : 0.0, 1e-12,
                             "S S^dagger at s=" + std::to_string(s));
            }
        }
    }
}

// F is linear in the production couplings: ∂F/∂Re β_α = F(e_α) and ∂F/∂Im β_α = i F(e_α).
TEST(KMatrix, GradientWithRespectToCouplingsMatchesCentralDifferences) {
    const Expr s = 1.37;
    const std::array<Expr, 2> production = {cartesian_coupling("a0(980)"),
                                            cartesian_coupling("a0(1450)")};
    const Expr f = component(kopf_a0(s, production), KopfA0Channel::kKKbar);
    laddu::testing::ParameterValues point = {
        {"a0(980) re", 0.4}, {"a0(980) im", -0.2}, {"a0(1450) re", 1.1}, {"a0(1450) im", 0.7}};
    const double h = 1e-6;
    const std::array<std::string, 2> poles = {"a0(980)", "a0(1450)"};
    for (std::size_t alpha = 0; alpha < 2; ++alpha) {
        std::array<Expr, 2> unit = {Expr(0.0), Expr(0.0)};
        unit[alpha] = 1.0;
        const Complex exact = evaluate(component(kopf_a0(s, unit), KopfA0Channel::kKKbar));
        for (const char* part : {" re", " im"}) {
            const std::string name = poles[alpha] + part;
            auto up = point;
            auto down = point;
            up[name] += h;
            down[name] -= h;
            const Complex fd = (evaluate(f, {}, up) - evaluate(f, {}, down)) / (2.0 * h);
            const Complex expected = std::string(part) == " re" ? exact : Complex(0.0, 1.0) * exact;
            expect_close(fd, expected, 1e-8, name);
        }
    }
}

// The same linearity check for one coupling of every Kopf family.
template <std::size_t C, std::size_t P>
void expect_linear_gradient(const KopfTable<C, P>& table, std::size_t channel) {
    const double s = 2.05;
    const auto make = [](auto element) {
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return std::array<Expr, P>{element(I)...};
        }(std::make_index_sequence<P>{});
    };
    const auto production =
        make([](std::size_t a) { return cartesian_coupling("b" + std::to_string(a)); });
    const auto unit = make([](std::size_t a) { return Expr(a == P - 1 ? 1.0 : 0.0); });
    laddu::testing::ParameterValues point;
    for (std::size_t a = 0; a < P; ++a) {
        const std::string name = "b" + std::to_string(a);
        point[name + " re"] = 0.2 * static_cast<double>(a) - 0.3;
        point[name + " im"] = 0.5 - 0.1 * static_cast<double>(a);
    }
    const Expr f =
        expr::component(kopf_k_matrix(table, s, production), static_cast<std::uint32_t>(channel));
    const Complex exact = evaluate(
        expr::component(kopf_k_matrix(table, s, unit), static_cast<std::uint32_t>(channel)));
    const std::string name = "b" + std::to_string(P - 1);
    for (const char* part : {" re", " im"}) {
        auto up = point;
        auto down = point;
        up[name + part] += 1e-6;
        down[name + part] -= 1e-6;
        const Complex fd = (evaluate(f, {}, up) - evaluate(f, {}, down)) / 2e-6;
        expect_close(fd, std::string(part) == " re" ? exact : Complex(0.0, 1.0) * exact, 1e-8,
                     name + part);
    }
}

TEST(Kopf, GradientsOfEveryFamilyMatchCentralDifferences) {
    expect_linear_gradient(kKopfF0, 2);
    expect_linear_gradient(kKopfF2, 2);
    expect_linear_gradient(kKopfA0, 1);
    expect_linear_gradient(kKopfA2, 1);
    expect_linear_gradient(kKopfRho, 0);
    expect_linear_gradient(kKopfPi1, 1);
}

TEST(KMatrix, SolveMatrixIsParameterFree) {
    const Expr f =
        kopf_f0(1.2, {cartesian_coupling("a"), cartesian_coupling("b"), cartesian_coupling("c"),
                      cartesian_coupling("d"), cartesian_coupling("e")});
    ASSERT_EQ(f.kind(), expr::NodeKind::kSolve);
    EXPECT_EQ(expr::collect_parameters(f.children()[0]).size(), 0U);
    EXPECT_EQ(expr::collect_parameters(f.children()[1]).size(), 10U);
}

// laddu's cleared form: K' and P' contain no division nodes (for L = 0 not even a barrier).
TEST(KMatrix, ClearedFormHasNoDivisions) {
    const KMatrixDefinition d = KMatrixDefinition::from_table(kKopfA0);
    const Expr s = expr::scalar("s");
    const std::vector<Expr> production = {cartesian_coupling("x"), cartesian_coupling("y")};
    for (const Expr& root : {k_matrix(d, s), p_vector(d, s, production)}) {
        for (const Expr& node : expr::topological_order(root)) {
            const bool is_division = node.kind() == expr::NodeKind::kBinary &&
                                     node.node().binary_op() == expr::BinaryOp::kDiv;
            EXPECT_FALSE(is_division);
        }
    }
    // K' = Π K: compare one element with the uncleared numeric K at s = 1.1.
    const double sv = 1.1;
    const Numeric n = numeric_k(d, sv, {1.0, 1.0}, PhaseSpace::kRho);
    const double pi_s =
        (d.pole_masses[0] * d.pole_masses[0] - sv) * (d.pole_masses[1] * d.pole_masses[1] - sv);
    const std::vector<Complex> k = evaluate_all(k_matrix(d, sv));
    expect_close(k[1], pi_s * n.k[0][1], 1e-13, "K'[0][1]");
    const std::vector<Complex> b = evaluate_all(blatt_weisskopf_barriers(d, sv));
    EXPECT_EQ(b.size(), 4U);
    expect_close(evaluate(pole_product(d, sv)), pi_s, 1e-15, "pole product");
}

TEST(KMatrix, RejectsMismatchedShapes) {
    KMatrixDefinition d = KMatrixDefinition::from_table(kKopfA0);
    try {
        (void)f_vector(d, 1.0, std::vector<Expr>{Expr(1.0)});
        FAIL() << "expected ModelError";
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("1 production couplings given for 2 poles"),
                  std::string::npos);
    }
    d.couplings.pop_back();
    try {
        d.validate();
        FAIL() << "expected ModelError";
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("couplings has 1 rows"), std::string::npos);
    }
    KMatrixDefinition bad_l = KMatrixDefinition::from_table(kKopfA0);
    bad_l.l = 9;
    EXPECT_THROW(bad_l.validate(), ModelError);
    KMatrixDefinition bad_mass = KMatrixDefinition::from_table(kKopfA0);
    bad_mass.channel_mass_2 = {0.5};
    EXPECT_THROW(bad_mass.validate(), ModelError);
}

TEST(KMatrixBenchmark, HasLadduParameterLayout) {
    const expr::Model model = kmatrix_benchmark_model();
    const expr::ParamLayout& layout = model.parameters();
    EXPECT_EQ(layout.free_count(), 34U);
    EXPECT_EQ(layout.fixed_indices().size(), 6U);
    const std::vector<std::string> expected = {
        "f0(980)+ re",  "f0(1370)+ re", "f0(1370)+ im", "f0(1500)+ re", "f0(1500)+ im",
        "f0(1710)+ re", "f0(1710)+ im", "a0(980)+ re",  "a0(980)+ im",  "a0(1450)+ re",
        "a0(1450)+ im", "f2(1270) re",  "f2(1270) im",  "f2(1525) re",  "f2(1525) im",
        "f2(1850) re",  "f2(1850) im",  "f2(1910) re",  "f2(1910) im",  "a2(1320) re",
        "a2(1320) im",  "a2(1700) re",  "a2(1700) im",  "f0(980)- re",  "f0(1370)- re",
        "f0(1370)- im", "f0(1500)- re", "f0(1500)- im", "f0(1710)- re", "f0(1710)- im",
        "a0(980)- re",  "a0(980)- im",  "a0(1450)- re", "a0(1450)- im"};
    EXPECT_EQ(layout.free_names(), expected);
    for (const char* fixed : {"f0+ c00 re", "f0+ c00 im", "f0(980)+ im_fix", "f0- c00 re",
                              "f0- c00 im", "f0(980)- im_fix"}) {
        ASSERT_TRUE(layout.contains(fixed)) << fixed;
        EXPECT_FALSE(layout.free_index_of(fixed).has_value()) << fixed;
    }
}

// With only a0(980)+ re = 1, I = |F_a0,KK(e_0)|² |Z⁺₀₀|², |Z⁺₀₀|² = Y₀₀² (1 + P cos 2Φ).
TEST(KMatrixBenchmark, SingleWaveIntensityMatchesClosedForm) {
    laddu::testing::Event event;
    event.p4["beam"] = {8.5, 0.0, 0.0, 8.5};
    event.p4["proton"] = {1.45, 0.31, -0.22, 0.95};
    event.p4["kshort1"] = {3.9, -0.12, 0.35, 3.7};
    const double e2 = 8.5 + 0.93827208816 - 1.45 - 3.9;
    event.p4["kshort2"] = {e2, -0.19, -0.13, 8.5 - 0.95 - 3.7};
    event.scalars["pol_magnitude"] = 0.35;
    event.scalars["pol_angle"] = 0.6;
    laddu::testing::ParameterValues values;
    for (const std::string& name : kmatrix_benchmark_model().parameters().free_names()) {
        values[name] = 0.0;
    }
    values["a0(980)+ re"] = 1.0;
    const Complex intensity = evaluate(kmatrix_benchmark_intensity(), event, values);
    const physics::Vec4 kk = physics::Vec4::event("kshort1") + physics::Vec4::event("kshort2");
    const double s = evaluate(kk.m2(), event).real();
    const Complex f = numeric_f(KMatrixDefinition::from_table(kKopfA0), s, {1.0, 0.0},
                                PhaseSpace::kChewMandelstam)[1];
    const double big_phi = evaluate(physics::Polarization::event(physics::Vec3::event("beam"),
                                                                 physics::Vec3::event("proton"))
                                        .angle,
                                    event)
                               .real();
    const double y00_squared = 1.0 / (4.0 * std::numbers::pi);
    const double z2 = y00_squared * (1.0 + 0.35 * std::cos(2.0 * big_phi));
    EXPECT_NEAR(intensity.real(), std::norm(f) * z2, 1e-12 * std::norm(f) * z2);
    EXPECT_EQ(intensity.imag(), 0.0);
}

}  // namespace
}  // namespace laddu::amplitudes
