#include "demo_model.hpp"

#include <array>

#include <laddu/amplitudes/couplings.hpp>
#include <laddu/amplitudes/kopf.hpp>
#include <laddu/physics/channel.hpp>
#include <laddu/physics/harmonics.hpp>
#include <laddu/physics/reaction.hpp>

namespace laddu::cli {

using expr::Expr;
using physics::Reflectivity;

namespace {

Expr fixed_zero(const std::string& name) {
    return expr::parameter(name, {.fixed = 0.0});
}

// As the benchmark: f0(500) fixed to 0, f0(980) real.
std::array<Expr, 5> f0_couplings(const std::string& sign) {
    return {expr::complex(fixed_zero("f0" + sign + " c00 re"), fixed_zero("f0" + sign + " c00 im")),
            expr::complex(expr::parameter("f0(980)" + sign + " re"),
                          fixed_zero("f0(980)" + sign + " im_fix")),
            amplitudes::cartesian_coupling("f0(1370)" + sign),
            amplitudes::cartesian_coupling("f0(1500)" + sign),
            amplitudes::cartesian_coupling("f0(1710)" + sign)};
}

}  // namespace

expr::Model tagged_kmatrix_model() {
    using amplitudes::cartesian_coupling;
    using amplitudes::component;
    physics::Channel channel("gamma p -> Ks Ks p");
    channel.edge("beam", "beam")
        .edge("target")
        .edge("kk")
        .edge("proton", "proton")
        .edge("kshort1", "kshort1")
        .edge("kshort2", "kshort2")
        .vertex("production", {"beam", "target"}, {"kk", "proton"})
        .vertex("kk_decay", {"kk"}, {"kshort1", "kshort2"});
    const physics::VertexFrame production = channel.vertex_frame("production");
    const physics::VertexFrame decay = channel.vertex_frame("kk_decay");
    const physics::Vec3 y_hint = -(production.vec3("beam").cross(production.vec3("proton")));
    const physics::Angles angles = decay.angles("kshort1", -decay.vec3("proton"), y_hint);
    const auto polarization =
        physics::Polarization::event(channel.p4("beam").vec3(), channel.p4("proton").vec3());
    const Expr s = channel.s("kk");
    const auto z = [&](int l, int m, Reflectivity r) {
        return physics::zlm(l, m, r, angles.costheta, angles.phi, polarization.angle,
                            polarization.magnitude);
    };
    const Expr z00p = z(0, 0, Reflectivity::kPositive);
    const Expr z00n = z(0, 0, Reflectivity::kNegative);
    const Expr z22p = z(2, 2, Reflectivity::kPositive);

    const Expr f0p =
        component(amplitudes::kopf_f0(s, f0_couplings("+")), amplitudes::KopfF0Channel::kKKbar);
    const Expr a0p = component(
        amplitudes::kopf_a0(s, {cartesian_coupling("a0(980)+"), cartesian_coupling("a0(1450)+")}),
        amplitudes::KopfA0Channel::kKKbar);
    const Expr f2 = component(
        amplitudes::kopf_f2(s, {cartesian_coupling("f2(1270)"), cartesian_coupling("f2(1525)"),
                                cartesian_coupling("f2(1850)"), cartesian_coupling("f2(1910)")}),
        amplitudes::KopfF2Channel::kKKbar);
    const Expr a2 = component(
        amplitudes::kopf_a2(s, {cartesian_coupling("a2(1320)"), cartesian_coupling("a2(1700)")}),
        amplitudes::KopfA2Channel::kKKbar);
    const Expr f0n =
        component(amplitudes::kopf_f0(s, f0_couplings("-")), amplitudes::KopfF0Channel::kKKbar);
    const Expr a0n = component(
        amplitudes::kopf_a0(s, {cartesian_coupling("a0(980)-"), cartesian_coupling("a0(1450)-")}),
        amplitudes::KopfA0Channel::kKKbar);

    // One tagged node per wave, shared by both terms it appears in, so a projection drops it
    // everywhere.
    const Expr s_plus = (f0p + a0p).tagged("S+");
    const Expr s_minus = (f0n + a0n).tagged("S-");
    const Expr d_plus = (f2 + a2).tagged("D+");
    const Expr pos_re = expr::norm_sqr(s_plus * expr::real(z00p) + d_plus * expr::real(z22p));
    const Expr pos_im = expr::norm_sqr(s_plus * expr::imag(z00p) + d_plus * expr::imag(z22p));
    const Expr neg_re = expr::norm_sqr(s_minus * expr::real(z00n));
    const Expr neg_im = expr::norm_sqr(s_minus * expr::imag(z00n));
    return expr::Model(pos_re + pos_im + neg_re + neg_im);
}

std::vector<std::string> demo_wave_tags() {
    return {"S+", "D+", "S-"};
}

}  // namespace laddu::cli
