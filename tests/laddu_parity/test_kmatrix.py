"""laddu's K-matrix benchmark (crates/laddu/benches/kmatrix_benchmark.rs): γ p → K_S K_S p with
the Kopf f0, a0, f2 and a2 K-matrices (K K̄ channel), Z_l^m with beam polarisation, summed
over two reflectivities, on ld.generate_ksks events.

laddu's Python API has no kopf_f0 & co. (they are Rust-only), so the laddu side is built from
its K-matrix primitives (blatt_weisskopf_barriers, k_matrix, p_vector, f_vector,
chew_mandelstam) with the Kopf constants of crates/laddu-amplitudes/src/kopf.rs, exactly as
that file composes them. The laddu-cpp side is ld.kmatrix_benchmark_model() and, separately,
the same model written with ld's Channel and ld.kopf_* functions.
"""

import numpy as np
import pytest

from conftest import assert_gradients_close, assert_values_close, both_datasets, ksks_arrays, ksks_channel, ksks_helicity_angles, laddu, ld

QR_DEFAULT = 0.1973
M_PI0, M_K, M_KS, M_ETA, M_ETAP = 0.1349768, 0.493677, 0.497611, 0.547862, 0.95778

# Kopf K-matrix data (couplings g[channel][pole], background c[channel][channel], pole masses,
# channel masses, orbital L, Adler zero (s0, s_norm)), from laddu 0.21.4's kopf.rs.
KOPF = {
    "f0": {
        "g": [
            [0.74987, 0.06401, -0.23417, 0.01270, -0.14242],
            [-0.01257, 0.00204, -0.01032, 0.26700, 0.22780],
            [0.27536, 0.77413, 0.72283, 0.09214, 0.15981],
            [-0.15102, 0.50999, 0.11934, 0.02742, 0.16272],
            [0.36103, 0.13112, 0.36792, -0.04025, -0.17397],
        ],
        "c": [
            [0.03728, 0.00000, -0.01398, -0.02203, 0.01397],
            [0.00000, 0.00000, 0.00000, 0.00000, 0.00000],
            [-0.01398, 0.00000, 0.02349, 0.03101, -0.04003],
            [-0.02203, 0.00000, 0.03101, -0.13769, -0.06722],
            [0.01397, 0.00000, -0.04003, -0.06722, -0.28401],
        ],
        "poles": [0.51461, 0.90630, 1.23089, 1.46104, 1.69611],
        "m1": [M_PI0, 2.0 * M_PI0, M_K, M_ETA, M_ETA],
        "m2": [M_PI0, 2.0 * M_PI0, M_KS, M_ETA, M_ETAP],
        "l": 0,
        "adler": (0.0091125, 1.0),
        "kkbar": 2,
    },
    "f2": {
        "g": [
            [0.40033, 0.01820, -0.06709, -0.49924],
            [0.15479, 0.17300, 0.22941, 0.19295],
            [-0.08900, 0.32393, -0.43133, 0.27975],
            [-0.00113, 0.15256, 0.23721, -0.03987],
        ],
        "c": [
            [-0.04319, 0.00000, 0.00984, 0.01028],
            [0.00000, 0.00000, 0.00000, 0.00000],
            [0.00984, 0.00000, -0.07344, 0.05533],
            [0.01028, 0.00000, 0.05533, -0.05183],
        ],
        "poles": [1.15299, 1.48359, 1.72923, 1.96700],
        "m1": [M_PI0, 2.0 * M_PI0, M_K, M_ETA],
        "m2": [M_PI0, 2.0 * M_PI0, M_KS, M_ETA],
        "l": 2,
        "adler": None,
        "kkbar": 2,
    },
    "a0": {
        "g": [[0.43215, 0.19000], [-0.28825, 0.43372]],
        "c": [[0.0, 0.0], [0.0, 0.0]],
        "poles": [0.95395, 1.26767],
        "m1": [M_PI0, M_K],
        "m2": [M_ETA, M_KS],
        "l": 0,
        "adler": None,
        "kkbar": 1,
    },
    "a2": {
        "g": [[0.30073, 0.68567], [0.21426, 0.12543], [-0.09162, 0.00184]],
        "c": [[-0.40184, 0.00033, -0.08707], [0.00033, -0.21416, -0.06193], [-0.08707, -0.06193, -0.17435]],
        "poles": [1.30080, 1.75351],
        "m1": [M_PI0, M_K, M_PI0],
        "m2": [M_ETA, M_KS, M_ETAP],
        "l": 2,
        "adler": None,
        "kkbar": 1,
    },
}


def laddu_kopf(name, s, production):
    """The K K̄ component of Kopf's F vector, from laddu's K-matrix primitives."""
    data = KOPF[name]
    n_channels, n_poles = len(data["m1"]), len(data["poles"])
    poles = laddu.vector(data["poles"])
    couplings = laddu.matrix(data["g"])
    barriers = laddu.blatt_weisskopf_barriers(
        s,
        channel_mass_1=laddu.vector(data["m1"]),
        channel_mass_2=laddu.vector(data["m2"]),
        pole_masses=poles,
        l=data["l"],
        q_r=QR_DEFAULT,
    )
    background = laddu.matrix(
        [
            [
                sum((barriers.at(i, p) * data["c"][i][j] * barriers.at(j, p) for p in range(n_poles)), laddu.Expr(0.0))
                for j in range(n_channels)
            ]
            for i in range(n_channels)
        ]
    )
    k = laddu.k_matrix(s, pole_masses=poles, couplings=couplings, barriers=barriers, background=background)
    if data["adler"] is not None:
        s0, s_norm = data["adler"]
        adler = (s - s0) / s_norm
        k = laddu.matrix([[adler * k.at(i, j) for j in range(n_channels)] for i in range(n_channels)])
    p = laddu.p_vector(s, pole_masses=poles, production=laddu.vector(production), couplings=couplings, barriers=barriers)
    phase_space = laddu.matrix(
        [
            [
                laddu.chew_mandelstam(s, mass1=data["m1"][i], mass2=data["m2"][i]) if i == j else laddu.Expr(0.0)
                for j in range(n_channels)
            ]
            for i in range(n_channels)
        ]
    )
    return laddu.f_vector(s, pole_masses=poles, k=k, p=p, phase_space=phase_space)[data["kkbar"]]


def ld_kopf(name, s, production):
    function = {"f0": ld.kopf_f0, "f2": ld.kopf_f2, "a0": ld.kopf_a0, "a2": ld.kopf_a2}[name]
    return function(s, production)[KOPF[name]["kkbar"]]


def reaction(lib):
    channel = ksks_channel(lib)
    costheta, phi = ksks_helicity_angles(channel)
    angle = lib.scalar("pol_angle")
    polarization = lib.Vec3(angle.cos(), angle.sin(), 0.0)
    beam, recoil = lib.Vec4.event("beam").vec3(), lib.Vec4.event("proton").vec3()
    normal = beam.cross(-recoil).unit()
    big_phi = lib.atan2(normal.dot(polarization), beam.unit().dot(polarization.cross(normal)))
    return channel.s("kk"), costheta, phi, big_phi


def zlm(lib, l, m, positive, costheta, phi, big_phi):
    p_gamma = lib.scalar("pol_magnitude")
    rotated = lib.spherical_harmonic(l, m, costheta=costheta, phi=phi) * lib.cis(-big_phi)
    a, b = (1.0 + p_gamma).sqrt(), (1.0 - p_gamma).sqrt()
    return lib.complex(a * rotated.real(), b * rotated.imag()) if positive else lib.complex(b * rotated.real(), a * rotated.imag())


def benchmark_intensity(lib, kopf):
    """The benchmark's intensity with `lib`'s API and `kopf(name, s, production)`."""
    s, costheta, phi, big_phi = reaction(lib)

    def coupling(name):
        return lib.complex(lib.parameter(f"{name} re"), lib.parameter(f"{name} im"))

    def f0_production(sign):
        return [
            lib.complex(lib.parameter(f"f0{sign} c00 re", fixed=0.0), lib.parameter(f"f0{sign} c00 im", fixed=0.0)),
            lib.complex(lib.parameter(f"f0(980){sign} re"), lib.parameter(f"f0(980){sign} im_fix", fixed=0.0)),
            coupling(f"f0(1370){sign}"),
            coupling(f"f0(1500){sign}"),
            coupling(f"f0(1710){sign}"),
        ]

    f0p = kopf("f0", s, f0_production("+"))
    a0p = kopf("a0", s, [coupling("a0(980)+"), coupling("a0(1450)+")])
    f0n = kopf("f0", s, f0_production("-"))
    a0n = kopf("a0", s, [coupling("a0(980)-"), coupling("a0(1450)-")])
    f2 = kopf("f2", s, [coupling("f2(1270)"), coupling("f2(1525)"), coupling("f2(1850)"), coupling("f2(1910)")])
    a2 = kopf("a2", s, [coupling("a2(1320)"), coupling("a2(1700)")])
    z00p = zlm(lib, 0, 0, True, costheta, phi, big_phi)
    z00n = zlm(lib, 0, 0, False, costheta, phi, big_phi)
    z22p = zlm(lib, 2, 2, True, costheta, phi, big_phi)
    s0p, s0n, d2p = f0p + a0p, f0n + a0n, f2 + a2
    pos_re = (s0p * z00p.real() + d2p * z22p.real()).norm_sqr()
    pos_im = (s0p * z00p.imag() + d2p * z22p.imag()).norm_sqr()
    neg_re = (s0n * z00n.real()).norm_sqr()
    neg_im = (s0n * z00n.imag()).norm_sqr()
    return pos_re + pos_im + neg_re + neg_im


@pytest.fixture(scope="module")
def models():
    """laddu (from primitives), laddu-cpp's built-in benchmark model, laddu-cpp from ld.kopf_*."""
    return (
        laddu.Model(benchmark_intensity(laddu, laddu_kopf)),
        ld.kmatrix_benchmark_model(),
        ld.Model(benchmark_intensity(ld, ld_kopf)),
    )


@pytest.fixture(scope="module")
def events():
    data = ksks_arrays(1500, seed=61)
    mc = ksks_arrays(3000, seed=62)
    weights = np.random.default_rng(61).uniform(0.5, 1.5, size=1500)
    return both_datasets(*data, weights), both_datasets(*mc)


def parameter_point(names, label):
    if label == "unit":
        return {name: 1.0 for name in names}
    rng = np.random.default_rng({"small": 1, "benchmark": 2, "mixed": 3}[label])
    scale = {"small": 1.0, "benchmark": 100.0, "mixed": 10.0}[label]
    return {name: float(rng.uniform(-scale, scale)) for name in names}


LABELS = ["unit", "small", "mixed", "benchmark"]


def test_parameter_names(models):
    theirs, ours, ours_built = models
    # Same free parameters; laddu-cpp's built-in model orders them as it builds its waves.
    assert sorted(ours.free_parameter_names) == sorted(theirs.parameter_names)
    assert ours_built.free_parameter_names == theirs.parameter_names
    assert len(theirs.parameter_names) == 34


@pytest.mark.parametrize("component", ["f0", "f2", "a0", "a2"])
def test_kopf_components_per_event(events, component):
    """Each Kopf K K̄ amplitude per event, laddu's primitives against ld.kopf_*."""
    (data_t, data_o), _ = events
    n = len(KOPF[component]["poles"])
    production = [(0.3 + 0.1 * k) - (0.2 * k - 0.4) * 1j for k in range(n)]

    def build(lib, kopf):
        s = (lib.Vec4.event("kshort1") + lib.Vec4.event("kshort2")).m2()
        return kopf(component, s, [lib.complex(c.real, c.imag) for c in production])

    theirs = np.asarray(data_t.evaluate(build(laddu, laddu_kopf), real=False))
    ours = np.asarray(data_o.evaluate(build(ld, ld_kopf), real=False))
    assert_values_close(ours, theirs, what=f"Kopf {component} K K̄ amplitude")


@pytest.mark.parametrize("label", LABELS)
def test_benchmark_intensity_per_event(models, events, label):
    (data_t, data_o), _ = events
    theirs, ours, ours_built = models
    point = parameter_point(theirs.parameter_names, label)
    expected = np.asarray(theirs.evaluate(data_t, parameters=point, real=True))
    assert_values_close(ours.evaluate(data_o, parameters=point, real=True), expected, what=f"intensity at {label}")
    assert_values_close(ours_built.evaluate(data_o, parameters=point, real=True), expected, what=f"ld-built intensity at {label}")


@pytest.mark.parametrize("extended", [False, True], ids=["nll", "extended_nll"])
@pytest.mark.parametrize("label", LABELS)
def test_benchmark_nll_value_and_gradient(models, events, label, extended):
    (data_t, data_o), (mc_t, mc_o) = events
    theirs_model, ours_model, ours_built = models
    term_t, term_o = (laddu.ExtendedNLL, ld.ExtendedNLL) if extended else (laddu.NLL, ld.NLL)
    theirs = laddu.Likelihood([term_t(theirs_model, data=data_t, accepted_mc=mc_t, name="K-Matrix")])
    names = theirs.parameter_names
    point = parameter_point(names, label)
    value_t, gradient_t = theirs.value_and_gradient(point)
    for what, model in [("kmatrix_benchmark_model", ours_model), ("ld.kopf_* model", ours_built)]:
        ours = ld.Likelihood([term_o(model, data=data_o, accepted_mc=mc_o, name="K-Matrix")])
        assert sorted(ours.parameter_names) == sorted(names)
        value_o, gradient_o = ours.value_and_gradient(point)
        assert_values_close(value_o, value_t, what=f"{what} value at {label}")
        gradient_o = dict(zip(ours.parameter_names, np.asarray(gradient_o)))
        assert_gradients_close([gradient_o[n] for n in names], gradient_t, atol=1e-12 * np.max(np.abs(gradient_t)),
                               what=f"{what} gradient at {label}")


def test_benchmark_nll_same_data_and_mc(models, events):
    """The benchmark's own set-up: one dataset as data and as accepted MC."""
    (data_t, data_o), _ = events
    theirs = laddu.Likelihood([laddu.NLL(models[0], data=data_t, accepted_mc=data_t)])
    ours = ld.Likelihood([ld.NLL(models[1], data=data_o, accepted_mc=data_o)])
    point = parameter_point(theirs.parameter_names, "benchmark")
    value_t, gradient_t = theirs.value_and_gradient(point)
    value_o, gradient_o = ours.value_and_gradient(point)
    assert_values_close(value_o, value_t, what="value")
    gradient_o = dict(zip(ours.parameter_names, np.asarray(gradient_o)))
    assert_gradients_close([gradient_o[n] for n in theirs.parameter_names], gradient_t,
                           atol=1e-12 * np.max(np.abs(gradient_t)))
