#include "kmatrix_model.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace laddu::compile::testing {
namespace {

using expr::Expr;
using expr::P4Component;

constexpr double kPi = 3.14159265358979323846;
constexpr double kMPi = 0.1349768;
constexpr double kMK = 0.493677;
constexpr double kMK0 = 0.497611;
constexpr double kMEta = 0.547862;
constexpr double kMEtaPrime = 0.95778;
constexpr double kQR = 0.1973;

struct Family {
    std::string name;
    int l;  // barrier angular momentum
    bool adler;
    std::vector<double> m1;
    std::vector<double> m2;
    std::vector<double> poles;
    std::vector<std::vector<double>> g;  // [channel][pole]
    std::vector<std::vector<double>> c;  // [channel][channel], empty = 0
    std::uint32_t kkbar;
};

Family f0_family() {
    return {"f0",
            0,
            true,
            {kMPi, 2 * kMPi, kMK, kMEta, kMEta},
            {kMPi, 2 * kMPi, kMK0, kMEta, kMEtaPrime},
            {0.51461, 0.90630, 1.23089, 1.46104, 1.69611},
            {{0.74987, 0.06401, -0.23417, 0.01270, -0.14242},
             {-0.01257, 0.00204, -0.01032, 0.26700, 0.22780},
             {0.27536, 0.77413, 0.72283, 0.09214, 0.15981},
             {-0.15102, 0.50999, 0.11934, 0.02742, 0.16272},
             {0.36103, 0.13112, 0.36792, -0.04025, -0.17397}},
            {{0.03728, 0, -0.01398, -0.02203, 0.01397},
             {0, 0, 0, 0, 0},
             {-0.01398, 0, 0.02349, 0.03101, -0.04003},
             {-0.02203, 0, 0.03101, -0.13769, -0.06722},
             {0.01397, 0, -0.04003, -0.06722, -0.28401}},
            2};
}

Family f2_family() {
    return {"f2",
            2,
            false,
            {kMPi, 2 * kMPi, kMK, kMEta},
            {kMPi, 2 * kMPi, kMK0, kMEta},
            {1.15299, 1.48359, 1.72923, 1.96700},
            {{0.40033, 0.01820, -0.06709, -0.49924},
             {0.15479, 0.17300, 0.22941, 0.19295},
             {-0.08900, 0.32393, -0.43133, 0.27975},
             {-0.00113, 0.15256, 0.23721, -0.03987}},
            {{-0.04319, 0, 0.00984, 0.01028},
             {0, 0, 0, 0},
             {0.00984, 0, -0.07344, 0.05533},
             {0.01028, 0, 0.05533, -0.05183}},
            2};
}

Family a0_family() {
    return {"a0",
            0,
            false,
            {kMPi, kMK},
            {kMEta, kMK0},
            {0.95395, 1.26767},
            {{0.43215, 0.19000}, {-0.28825, 0.43372}},
            {},
            1};
}

Family a2_family() {
    return {"a2",
            2,
            false,
            {kMPi, kMK, kMPi},
            {kMEta, kMK0, kMEtaPrime},
            {1.30080, 1.75351},
            {{0.30073, 0.68567}, {0.21426, 0.12543}, {-0.09162, 0.00184}},
            {{-0.40184, 0.00033, -0.08707},
             {0.00033, -0.21416, -0.06193},
             {-0.08707, -0.06193, -0.17435}},
            1};
}

// Break-up momentum squared (complex below threshold through as_complex in q()).
Expr q_squared(const Expr& s, double m1, double m2) {
    return (s - (m1 + m2) * (m1 + m2)) * (s - (m1 - m2) * (m1 - m2)) / (4.0 * s);
}

// Blatt-Weisskopf F_L(q) for L = 0 or 2; z = q^2 / q_R^2.
Expr barrier(int l, const Expr& q2) {
    if (l == 0) {
        return 1.0;
    }
    const Expr z = expr::as_complex(q2 / (kQR * kQR));
    return expr::sqrt(13.0 * z * z / ((z - 3.0) * (z - 3.0) + 9.0 * z));
}

// A simplified Chew-Mandelstam function: rho/pi ln((xi + rho)/(xi - rho)) - xi/pi dm ln(m2/m1).
Expr chew_mandelstam(const Expr& s, double m1, double m2) {
    const Expr xi = 1.0 - (m1 + m2) * (m1 + m2) / s;
    const Expr rho = expr::sqrt(expr::as_complex(xi * (1.0 - (m1 - m2) * (m1 - m2) / s)));
    return rho / kPi * expr::log((xi + rho) / (xi - rho)) -
           xi / kPi * ((m2 - m1) / (m1 + m2)) * std::log(m2 / m1);
}

Expr coupling(const std::string& re, const std::string& im, bool fix_re = false,
              bool fix_im = false) {
    const Expr r = fix_re ? expr::parameter(re, {.fixed = 0.0}) : expr::parameter(re);
    const Expr i = fix_im ? expr::parameter(im, {.fixed = 0.0}) : expr::parameter(im);
    return expr::complex(r, i);
}

// F[kkbar] of the family with couplings beta (one per pole).
Expr k_matrix_amplitude(const Family& f, const Expr& s, const std::vector<Expr>& beta) {
    const std::size_t n = f.m1.size();
    const std::size_t poles = f.poles.size();
    std::vector<std::vector<Expr>> b(n);  // barrier ratios B[i][alpha]
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t a = 0; a < poles; ++a) {
            b[i].push_back(
                barrier(f.l, q_squared(s, f.m1[i], f.m2[i])) /
                barrier(f.l, q_squared(expr::constant(f.poles[a] * f.poles[a]), f.m1[i], f.m2[i])));
        }
    }
    const Expr adler = f.adler ? (s - 0.0091125) / 1.0 : expr::constant(1.0);
    std::vector<Expr> m_elements;
    std::vector<Expr> cm;
    for (std::size_t j = 0; j < n; ++j) {
        cm.push_back(chew_mandelstam(s, f.m1[j], f.m2[j]));
    }
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            std::vector<Expr> terms;
            for (std::size_t a = 0; a < poles; ++a) {
                const double background = f.c.empty() ? 0.0 : f.c[i][j];
                terms.push_back(
                    b[i][a] * b[j][a] *
                    (f.g[i][a] * f.g[j][a] / (f.poles[a] * f.poles[a] - s) + background));
            }
            const Expr k_ij = adler * expr::nary_add(terms);
            m_elements.push_back((i == j ? 1.0 : 0.0) + k_ij * cm[j]);
        }
    }
    std::vector<Expr> p;
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<Expr> terms;
        for (std::size_t a = 0; a < poles; ++a) {
            terms.push_back(beta[a] * (f.g[i][a] * b[i][a] / (f.poles[a] * f.poles[a] - s)));
        }
        p.push_back(expr::nary_add(terms));
    }
    const auto dim = static_cast<std::uint32_t>(n);
    return expr::solve(expr::matrix(dim, dim, m_elements), expr::vector(p))[f.kkbar];
}

std::vector<Expr> couplings(const std::string& prefix, const std::vector<std::string>& names) {
    std::vector<Expr> result;
    for (const std::string& name : names) {
        result.push_back(coupling(name + prefix + " re", name + prefix + " im"));
    }
    return result;
}

Expr p4(const char* name, P4Component c) {
    return expr::p4_component(name, c);
}

}  // namespace

expr::Model kmatrix_benchmark_model() {
    const Expr e = p4("kshort1", P4Component::kE) + p4("kshort2", P4Component::kE);
    const Expr px = p4("kshort1", P4Component::kPx) + p4("kshort2", P4Component::kPx);
    const Expr py = p4("kshort1", P4Component::kPy) + p4("kshort2", P4Component::kPy);
    const Expr pz = p4("kshort1", P4Component::kPz) + p4("kshort2", P4Component::kPz);
    const Expr s = e * e - px * px - py * py - pz * pz;

    const Expr k1x = p4("kshort1", P4Component::kPx);
    const Expr k1y = p4("kshort1", P4Component::kPy);
    const Expr k1z = p4("kshort1", P4Component::kPz);
    const Expr costheta = k1z / expr::sqrt(k1x * k1x + k1y * k1y + k1z * k1z);
    const Expr phi = expr::atan2(k1y, k1x);
    const Expr big_phi = expr::scalar("pol_angle") - expr::atan2(p4("proton", P4Component::kPy),
                                                                 p4("proton", P4Component::kPx));
    const Expr pgamma = expr::scalar("pol_magnitude");

    const Expr y00 = expr::constant(1.0 / std::sqrt(4.0 * kPi));
    const Expr y22 =
        std::sqrt(15.0 / (32.0 * kPi)) * (1.0 - costheta * costheta) * expr::cis(2.0 * phi);
    auto zlm = [&](const Expr& ylm, bool positive) {
        const Expr rot = ylm * expr::cis(-big_phi);
        const Expr plus = expr::sqrt(1.0 + pgamma);
        const Expr minus = expr::sqrt(1.0 - pgamma);
        return positive ? expr::complex(plus * expr::real(rot), minus * expr::imag(rot))
                        : expr::complex(minus * expr::real(rot), plus * expr::imag(rot));
    };
    const Expr z00p = zlm(y00, true);
    const Expr z00m = zlm(y00, false);
    const Expr z22p = zlm(y22, true);

    auto f0_couplings = [&](const std::string& sign) {
        return std::vector<Expr>{
            coupling("f0" + sign + " c00 re", "f0" + sign + " c00 im", true, true),
            coupling("f0(980)" + sign + " re", "f0(980)" + sign + " im_fix", false, true),
            coupling("f0(1370)" + sign + " re", "f0(1370)" + sign + " im"),
            coupling("f0(1500)" + sign + " re", "f0(1500)" + sign + " im"),
            coupling("f0(1710)" + sign + " re", "f0(1710)" + sign + " im")};
    };
    const Expr f0p = k_matrix_amplitude(f0_family(), s, f0_couplings("+"));
    const Expr a0p = k_matrix_amplitude(a0_family(), s, couplings("+", {"a0(980)", "a0(1450)"}));
    const Expr f2 = k_matrix_amplitude(
        f2_family(), s, couplings("", {"f2(1270)", "f2(1525)", "f2(1850)", "f2(1910)"}));
    const Expr a2 = k_matrix_amplitude(a2_family(), s, couplings("", {"a2(1320)", "a2(1700)"}));
    const Expr f0m = k_matrix_amplitude(f0_family(), s, f0_couplings("-"));
    const Expr a0m = k_matrix_amplitude(a0_family(), s, couplings("-", {"a0(980)", "a0(1450)"}));

    const Expr sp = f0p + a0p;
    const Expr sm = f0m + a0m;
    const Expr dp = f2 + a2;
    const Expr intensity = expr::norm_sqr(sp * expr::real(z00p) + dp * expr::real(z22p)) +
                           expr::norm_sqr(sp * expr::imag(z00p) + dp * expr::imag(z22p)) +
                           expr::norm_sqr(sm * expr::real(z00m)) +
                           expr::norm_sqr(sm * expr::imag(z00m));
    return expr::Model(intensity);
}

}  // namespace laddu::compile::testing
