#include <array>
#include <cmath>
#include <complex>
#include <numbers>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/physics/channel.hpp>
#include <laddu/physics/frames.hpp>
#include <laddu/physics/reaction.hpp>
#include <laddu/physics/vectors.hpp>

#include "reference/expr_reference.hpp"

namespace laddu::physics {
namespace {

using expr::Expr;
using laddu::testing::Event;
using P4 = std::array<double, 4>;

double value(const Expr& e, const Event& event) {
    return laddu::testing::evaluate(e, event).real();
}

// Independent numeric kinematics, written out in plain doubles.
P4 numeric_boost(const P4& p, const std::array<double, 3>& b) {
    const double b2 = b[0] * b[0] + b[1] * b[1] + b[2] * b[2];
    const double gamma = 1.0 / std::sqrt(1.0 - b2);
    const double bp = b[0] * p[1] + b[1] * p[2] + b[2] * p[3];
    const double k = (gamma - 1.0) * bp / b2 + gamma * p[0];
    return {gamma * (p[0] + bp), p[1] + k * b[0], p[2] + k * b[1], p[3] + k * b[2]};
}

std::array<double, 3> numeric_beta(const P4& p) {
    return {p[1] / p[0], p[2] / p[0], p[3] / p[0]};
}

std::array<double, 3> negate(std::array<double, 3> v) {
    return {-v[0], -v[1], -v[2]};
}

P4 at_rest_momentum(double mass, double momentum, double costheta, double phi,
                    const std::array<std::array<double, 3>, 3>& axes) {
    const double sintheta = std::sqrt(1.0 - costheta * costheta);
    const std::array<double, 3> local = {sintheta * std::cos(phi), sintheta * std::sin(phi),
                                         costheta};
    P4 out{std::sqrt(mass * mass + momentum * momentum), 0.0, 0.0, 0.0};
    for (std::size_t k = 0; k < 3; ++k) {
        out[k + 1] =
            momentum * (local[0] * axes[0][k] + local[1] * axes[1][k] + local[2] * axes[2][k]);
    }
    return out;
}

P4 sum(const P4& a, const P4& b) {
    return {a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]};
}

double minkowski(const P4& a, const P4& b) {
    return a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
}

TEST(Vec4, BoostPreservesInvariants) {
    Event event;
    event.p4["a"] = {3.0, 0.4, -1.2, 2.1};
    event.p4["b"] = {1.5, -0.3, 0.2, 0.9};
    const Vec4 a = Vec4::event("a");
    const Vec4 b = Vec4::event("b");
    const Vec3 beta{0.3, -0.2, 0.55};
    EXPECT_NEAR(value(a.boost(beta).m2(), event), value(a.m2(), event), 1e-13);
    EXPECT_NEAR(value(a.boost(beta).dot(b.boost(beta)), event), value(a.dot(b), event), 1e-13);
    EXPECT_NEAR(value(a.m2(), event), minkowski(event.p4["a"], event.p4["a"]), 1e-15);
    // The boost matches an independent (γ-1)/β² implementation component by component.
    const P4 expected = numeric_boost(event.p4["a"], {0.3, -0.2, 0.55});
    const Vec4 boosted = a.boost(beta);
    EXPECT_NEAR(value(boosted.e(), event), expected[0], 1e-13);
    EXPECT_NEAR(value(boosted.px(), event), expected[1], 1e-13);
    EXPECT_NEAR(value(boosted.py(), event), expected[2], 1e-13);
    EXPECT_NEAR(value(boosted.pz(), event), expected[3], 1e-13);
}

TEST(Vec4, RestFrameOfAVectorHasZeroMomentumAndEnergyM) {
    Event event;
    event.p4["a"] = {3.0, 0.4, -1.2, 2.1};
    const Vec4 a = Vec4::event("a");
    const Vec4 rest = a.boost_to_rest_frame_of(a);
    EXPECT_NEAR(value(rest.vec3().mag(), event), 0.0, 1e-13);
    EXPECT_NEAR(value(rest.e(), event), value(a.m(), event), 1e-13);
    EXPECT_NEAR(value(a.gamma(), event), 3.0 / value(a.m(), event), 1e-15);
    EXPECT_NEAR(value(a.beta().mag2(), event), (0.16 + 1.44 + 4.41) / 9.0, 1e-15);
}

TEST(Vec3, CrossDotUnitAndAngles) {
    const Vec3 x = Vec3::x_axis();
    const Vec3 y = Vec3::y_axis();
    const Vec3 c = x.cross(y);
    EXPECT_EQ(value(c.z(), {}), 1.0);
    const Vec3 v{1.0, 1.0, std::sqrt(2.0)};
    EXPECT_NEAR(value(v.costheta(), {}), std::sqrt(2.0) / 2.0, 1e-15);
    EXPECT_NEAR(value(v.phi(), {}), std::numbers::pi / 4.0, 1e-15);
    EXPECT_NEAR(value(v.unit().mag(), {}), 1.0, 1e-15);
    EXPECT_NEAR(value(v.with_mass(1.0).m2(), {}), 1.0, 1e-14);
    // θ from atan2 keeps full precision at small angles, where acos(cos θ) would give 0.
    const Vec3 nearly_z{3e-9, 4e-9, 2.0};
    EXPECT_NEAR(value(theta(nearly_z, Vec3::z_axis()), {}), 2.5e-9, 1e-22);
    EXPECT_NEAR(value(theta(-nearly_z, Vec3::z_axis()), {}), std::numbers::pi - 2.5e-9, 1e-15);
    EXPECT_NEAR(value(theta(Vec3{1.0, 0.0, 0.0}, Vec3{0.0, 0.0, 5.0}), {}), std::numbers::pi / 2,
                1e-15);
}

// γ p → X p with X → a b, generated from chosen helicity angles in the X rest frame, boosted
// to the lab with independent numeric code; the library must recover the angles.
struct Generated {
    Event event;
    double costheta;
    double phi;
};

Generated generate(double costheta_h, double phi_h, double production_costheta) {
    const double beam_energy = 8.5;
    const double proton_mass = 0.93827208816;
    const double x_mass = 1.45;
    const double daughter_mass = 0.497611;
    const P4 beam{beam_energy, 0.0, 0.0, beam_energy};
    const P4 target{proton_mass, 0.0, 0.0, 0.0};
    const P4 total = sum(beam, target);
    const double s = minkowski(total, total);
    const double w = std::sqrt(s);
    // CM: X along (sinθ_p, 0, cosθ_p), recoil opposite.
    const double e_x = (s + x_mass * x_mass - proton_mass * proton_mass) / (2.0 * w);
    const double p_x = std::sqrt(e_x * e_x - x_mass * x_mass);
    const double sp = std::sqrt(1.0 - production_costheta * production_costheta);
    const P4 x_cm{e_x, p_x * sp, 0.0, p_x * production_costheta};
    const P4 recoil_cm{w - e_x, -p_x * sp, 0.0, -p_x * production_costheta};
    // Helicity axes: z along X in the CM (= -recoil in the X frame), y = beam × X = +y.
    const std::array<double, 3> z{sp, 0.0, production_costheta};
    const std::array<double, 3> y{0.0, 1.0, 0.0};
    const std::array<double, 3> xa{y[1] * z[2] - y[2] * z[1], y[2] * z[0] - y[0] * z[2],
                                   y[0] * z[1] - y[1] * z[0]};
    const double q = std::sqrt(x_mass * x_mass / 4.0 - daughter_mass * daughter_mass);
    const P4 a_x = at_rest_momentum(daughter_mass, q, costheta_h, phi_h, {xa, y, z});
    const P4 b_x{a_x[0], -a_x[1], -a_x[2], -a_x[3]};
    const auto to_lab = [&](const P4& p_cm) {
        return numeric_boost(p_cm, numeric_beta(total));
    };
    const auto x_to_lab = [&](const P4& p) {
        return to_lab(numeric_boost(p, numeric_beta(x_cm)));
    };
    Generated g{{}, costheta_h, phi_h};
    g.event.p4["beam"] = beam;
    g.event.p4["proton"] = to_lab(recoil_cm);
    g.event.p4["kshort1"] = x_to_lab(a_x);
    g.event.p4["kshort2"] = x_to_lab(b_x);
    return g;
}

Reaction benchmark_reaction() {
    const Vec4 kk = Vec4::event("kshort1") + Vec4::event("kshort2");
    return Reaction::with_inferred_target(Vec4::event("beam"), kk, Vec4::event("proton"));
}

TEST(Reaction, HelicityAnglesRecoverTheGeneratedAngles) {
    const Reaction reaction = benchmark_reaction();
    const Angles angles = reaction.helicity_angles(Vec4::event("kshort1"));
    for (double c : {-0.9, -0.3, 0.2, 0.75}) {
        for (double p : {-2.8, -1.0, 0.3, 1.6, 3.0}) {
            for (double production : {0.95, 0.4, -0.5}) {
                const Generated g = generate(c, p, production);
                EXPECT_NEAR(value(angles.costheta, g.event), c, 1e-11);
                EXPECT_NEAR(value(angles.phi, g.event), p, 1e-10);
                EXPECT_NEAR(value(angles.theta, g.event), std::acos(c), 1e-10);
            }
        }
    }
}

TEST(Reaction, BackToBackDecayAndInferredTarget) {
    const Generated g = generate(0.3, 0.8, 0.6);
    const Reaction reaction = benchmark_reaction();
    const Frame x_frame = reaction.resonance_frame();
    const Vec3 a = x_frame.vec3(Vec4::event("kshort1"));
    const Vec3 b = x_frame.vec3(Vec4::event("kshort2"));
    EXPECT_NEAR(value((a + b).mag(), g.event), 0.0, 1e-12);
    // The inferred target is the proton at rest; the CM has zero total momentum.
    EXPECT_NEAR(value(reaction.target().e(), g.event), 0.93827208816, 1e-12);
    EXPECT_NEAR(value(reaction.target().vec3().mag(), g.event), 0.0, 1e-12);
    const Frame cm = reaction.cm_frame();
    EXPECT_NEAR(value((cm.vec3(reaction.beam()) + cm.vec3(reaction.target())).mag(), g.event), 0.0,
                1e-12);
    EXPECT_EQ(x_frame.depth(), 2U);
}

TEST(Reaction, MandelstamInvariantsMatchNumericValues) {
    const Generated g = generate(0.3, 0.8, 0.6);
    const Reaction reaction = benchmark_reaction();
    const P4 beam = g.event.p4.at("beam");
    const P4 proton = g.event.p4.at("proton");
    const P4 x = sum(g.event.p4.at("kshort1"), g.event.p4.at("kshort2"));
    const P4 target{0.93827208816, 0.0, 0.0, 0.0};
    const P4 bx{beam[0] - x[0], beam[1] - x[1], beam[2] - x[2], beam[3] - x[3]};
    const P4 bp{beam[0] - proton[0], beam[1] - proton[1], beam[2] - proton[2], beam[3] - proton[3]};
    EXPECT_NEAR(value(reaction.s(), g.event), minkowski(sum(beam, target), sum(beam, target)),
                1e-11);
    EXPECT_NEAR(value(reaction.t(), g.event), minkowski(bx, bx), 1e-11);
    EXPECT_NEAR(value(reaction.u(), g.event), minkowski(bp, bp), 1e-11);
    EXPECT_NEAR(value(reaction.resonance_s(), g.event), 1.45 * 1.45, 1e-11);
    const double mp2 = 0.93827208816 * 0.93827208816;
    const double mk2 = 0.497611 * 0.497611;
    (void)mk2;
    // s + t + u = Σ m² (beam massless, target and recoil protons, X of mass 1.45).
    EXPECT_NEAR(value(reaction.s() + reaction.t() + reaction.u(), g.event), 2.0 * mp2 + 1.45 * 1.45,
                1e-10);
}

TEST(Reaction, GottfriedJacksonAnglesMatchAnIndependentComputation) {
    const Generated g = generate(-0.4, 2.2, 0.3);
    const Reaction reaction = benchmark_reaction();
    const Angles gj = reaction.gottfried_jackson_angles(Vec4::event("kshort1"));
    // Numeric chain lab → CM → X, then z = beam, y = production normal, in plain doubles.
    const P4 beam = g.event.p4.at("beam");
    const P4 proton = g.event.p4.at("proton");
    const P4 k1 = g.event.p4.at("kshort1");
    const P4 x = sum(k1, g.event.p4.at("kshort2"));
    const P4 target{0.93827208816, 0.0, 0.0, 0.0};
    const auto cm_beta = negate(numeric_beta(sum(beam, target)));
    const auto to_cm = [&](const P4& p) {
        return numeric_boost(p, cm_beta);
    };
    const auto x_beta = negate(numeric_beta(to_cm(x)));
    const auto to_x = [&](const P4& p) {
        return numeric_boost(to_cm(p), x_beta);
    };
    const P4 beam_x = to_x(beam);
    const P4 k1_x = to_x(k1);
    const P4 beam_cm = to_cm(beam);
    const P4 proton_cm = to_cm(proton);
    std::array<double, 3> n{-(beam_cm[2] * proton_cm[3] - beam_cm[3] * proton_cm[2]),
                            -(beam_cm[3] * proton_cm[1] - beam_cm[1] * proton_cm[3]),
                            -(beam_cm[1] * proton_cm[2] - beam_cm[2] * proton_cm[1])};
    const double bmag =
        std::sqrt(beam_x[1] * beam_x[1] + beam_x[2] * beam_x[2] + beam_x[3] * beam_x[3]);
    const std::array<double, 3> z{beam_x[1] / bmag, beam_x[2] / bmag, beam_x[3] / bmag};
    const double nz = n[0] * z[0] + n[1] * z[1] + n[2] * z[2];
    std::array<double, 3> y{n[0] - nz * z[0], n[1] - nz * z[1], n[2] - nz * z[2]};
    const double ymag = std::sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
    for (double& c : y) {
        c /= ymag;
    }
    const std::array<double, 3> xa{y[1] * z[2] - y[2] * z[1], y[2] * z[0] - y[0] * z[2],
                                   y[0] * z[1] - y[1] * z[0]};
    const double kmag = std::sqrt(k1_x[1] * k1_x[1] + k1_x[2] * k1_x[2] + k1_x[3] * k1_x[3]);
    const double kz = k1_x[1] * z[0] + k1_x[2] * z[1] + k1_x[3] * z[2];
    const double ky = k1_x[1] * y[0] + k1_x[2] * y[1] + k1_x[3] * y[2];
    const double kx = k1_x[1] * xa[0] + k1_x[2] * xa[1] + k1_x[3] * xa[2];
    EXPECT_NEAR(value(gj.costheta, g.event), kz / kmag, 1e-11);
    EXPECT_NEAR(value(gj.phi, g.event), std::atan2(ky, kx), 1e-10);
    // The GJ and helicity polar angles differ for a non-forward X.
    EXPECT_GT(std::abs(value(gj.costheta, g.event) + 0.4), 1e-3);
}

Channel benchmark_channel() {
    return {"gamma p -> Ks Ks p",
            {{.name = "beam", .p4_column = "beam"},
             {.name = "target"},
             {.name = "kk"},
             {.name = "proton", .p4_column = "proton"},
             {.name = "kshort1", .p4_column = "kshort1"},
             {.name = "kshort2", .p4_column = "kshort2"}},
            {{"production", {"beam", "target"}, {"kk", "proton"}},
             {"kk_decay", {"kk"}, {"kshort1", "kshort2"}}}};
}

// laddu's benchmark angles through Channel agree with the generated helicity angles and with
// Reaction (channel_test.cpp tests the topology itself).
TEST(Channel, BenchmarkAnglesThroughVertexFramesRecoverTheGeneratedAngles) {
    const Channel channel = benchmark_channel();
    const VertexFrame production = channel.vertex_frame("production");
    const VertexFrame decay = channel.vertex_frame("kk_decay");
    const Vec3 y_hint = -(production.vec3("beam").cross(production.vec3("proton")));
    const Vec3 z_axis = -decay.vec3("proton");
    const Angles angles = decay.angles("kshort1", z_axis, y_hint);
    const Reaction reaction = benchmark_reaction();
    for (double c : {-0.7, 0.1, 0.85}) {
        for (double p : {-2.0, 0.4, 2.9}) {
            const Generated g = generate(c, p, 0.45);
            EXPECT_NEAR(value(angles.costheta, g.event), c, 1e-11);
            EXPECT_NEAR(value(decay.costheta("kshort1", z_axis), g.event), c, 1e-11);
            EXPECT_NEAR(value(angles.phi, g.event), p, 1e-10);
            EXPECT_NEAR(value(decay.phi("kshort1", z_axis, y_hint), g.event), p, 1e-10);
            EXPECT_NEAR(value(decay.theta("kshort1", z_axis), g.event), std::acos(c), 1e-10);
            EXPECT_NEAR(value(production.s(), g.event), value(reaction.s(), g.event), 1e-10);
            EXPECT_NEAR(value(production.t(), g.event), value(reaction.t(), g.event), 1e-10);
            EXPECT_NEAR(value(production.u(), g.event), value(reaction.u(), g.event), 1e-10);
            EXPECT_NEAR(value(channel.mass("kk"), g.event), 1.45, 1e-12);
        }
    }
}

// Beam along z, recoil at azimuth φ_r: Φ = α - φ_r + π (wrapped), from the definition.
TEST(Polarization, AngleRelativeToTheProductionPlane) {
    for (double alpha : {0.0, 0.7, -1.9, 2.5}) {
        for (double phi_r : {0.0, 1.0, -2.3}) {
            Event event;
            event.p4["beam"] = {8.0, 0.0, 0.0, 8.0};
            event.p4["proton"] = {1.2, 0.4 * std::cos(phi_r), 0.4 * std::sin(phi_r), 0.3};
            event.scalars["pol_angle"] = alpha;
            event.scalars["pol_magnitude"] = 0.3;
            const Polarization pol =
                Polarization::event(Vec3::event("beam"), Vec3::event("proton"));
            const double expected =
                std::remainder(alpha - phi_r + std::numbers::pi, 2.0 * std::numbers::pi);
            const double got = value(pol.angle, event);
            EXPECT_NEAR(std::remainder(got - expected, 2.0 * std::numbers::pi), 0.0, 1e-12)
                << alpha << " " << phi_r;
            EXPECT_EQ(value(pol.magnitude, event), 0.3);
        }
    }
}

}  // namespace
}  // namespace laddu::physics
