#include <string>

#include <laddu/amplitudes/couplings.hpp>
#include <laddu/amplitudes/kmatrix_benchmark.hpp>
#include <laddu/amplitudes/kopf.hpp>
#include <laddu/physics/channel.hpp>
#include <laddu/physics/harmonics.hpp>
#include <laddu/physics/reaction.hpp>

namespace laddu::amplitudes {

using expr::Expr;
using physics::Reflectivity;

namespace {

Expr fixed_zero(const std::string& name) {
    return expr::parameter(name, {.fixed = 0.0});
}

// f0 production couplings for reflectivity `sign` ("+" or "-"): the f0(500) coupling is fixed
// to 0 and the f0(980) one is real (its imaginary part is fixed to 0), as in laddu.
std::array<Expr, 5> f0_couplings(const std::string& sign) {
    return {expr::complex(fixed_zero("f0" + sign + " c00 re"), fixed_zero("f0" + sign + " c00 im")),
            expr::complex(expr::parameter("f0(980)" + sign + " re"),
                          fixed_zero("f0(980)" + sign + " im_fix")),
            cartesian_coupling("f0(1370)" + sign), cartesian_coupling("f0(1500)" + sign),
            cartesian_coupling("f0(1710)" + sign)};
}

}  // namespace

Expr kmatrix_benchmark_intensity(const KMatrixBenchmarkOptions& options) {
    // laddu's channel: target and kk are inferred from the measured momenta.
    const physics::Channel channel("gamma p -> Ks Ks p",
                                   {{.name = "beam", .p4_column = "beam"},
                                    {.name = "target"},
                                    {.name = "kk"},
                                    {.name = "proton", .p4_column = "proton"},
                                    {.name = "kshort1", .p4_column = "kshort1"},
                                    {.name = "kshort2", .p4_column = "kshort2"}},
                                   {{"production", {"beam", "target"}, {"kk", "proton"}},
                                    {"kk_decay", {"kk"}, {"kshort1", "kshort2"}}});
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

    const Expr f0p = component(kopf_f0(s, f0_couplings("+")), KopfF0Channel::kKKbar);
    const Expr a0p =
        component(kopf_a0(s, {cartesian_coupling("a0(980)+"), cartesian_coupling("a0(1450)+")}),
                  KopfA0Channel::kKKbar);
    const Expr f2 =
        component(kopf_f2(s, {cartesian_coupling("f2(1270)"), cartesian_coupling("f2(1525)"),
                              cartesian_coupling("f2(1850)"), cartesian_coupling("f2(1910)")}),
                  KopfF2Channel::kKKbar);
    const Expr a2 =
        component(kopf_a2(s, {cartesian_coupling("a2(1320)"), cartesian_coupling("a2(1700)")}),
                  KopfA2Channel::kKKbar);
    const Expr f0n = component(kopf_f0(s, f0_couplings("-")), KopfF0Channel::kKKbar);
    const Expr a0n =
        component(kopf_a0(s, {cartesian_coupling("a0(980)-"), cartesian_coupling("a0(1450)-")}),
                  KopfA0Channel::kKKbar);

    // One node per coherent wave, shared by both terms it appears in, so a projection on the
    // tags (when they are set) drops or keeps it everywhere.
    const auto wave = [&](const Expr& amplitude, const char* tag) {
        return options.tag_waves ? amplitude.tagged(tag) : amplitude;
    };
    const Expr s0p = wave(f0p + a0p, "S+");
    const Expr s0n = wave(f0n + a0n, "S-");
    const Expr d2p = wave(f2 + a2, "D+");
    const Expr pos_re = expr::norm_sqr(s0p * expr::real(z00p) + d2p * expr::real(z22p));
    const Expr pos_im = expr::norm_sqr(s0p * expr::imag(z00p) + d2p * expr::imag(z22p));
    const Expr neg_re = expr::norm_sqr(s0n * expr::real(z00n));
    const Expr neg_im = expr::norm_sqr(s0n * expr::imag(z00n));
    return pos_re + pos_im + neg_re + neg_im;
}

expr::Model kmatrix_benchmark_model(const KMatrixBenchmarkOptions& options) {
    return expr::Model(kmatrix_benchmark_intensity(options));
}

std::vector<std::string> kmatrix_benchmark_wave_tags() {
    return {"S+", "D+", "S-"};
}

}  // namespace laddu::amplitudes
