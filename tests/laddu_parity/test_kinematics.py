"""Channel kinematics: invariant masses, Mandelstam invariants, helicity and Gottfried-Jackson
angles and the polarisation angle of γ p → K_S K_S p events, built with each library's
Channel / Edge / Vertex / VertexFrame API and evaluated on the same four-momenta.

Two event samples: flat γ p → K_S K_S p phase space from ld.generate_ksks (beam along z), and
numpy events with a beam in a random direction and off-shell momenta, so the frames are general
boosts rather than boosts along z.
"""

import numpy as np
import pytest

from conftest import assert_values_close, both_datasets, ksks_arrays, ksks_channel, laddu, ld

N_EVENTS = 2000


def numpy_arrays(n=N_EVENTS, seed=11):
    """Four-momenta in general directions: beam off the z axis, final state with mass spread."""
    rng = np.random.default_rng(seed)

    def p4(mass, scale):
        p = rng.normal(0.0, scale, size=(n, 3))
        return np.column_stack([np.sqrt((p**2).sum(axis=1) + mass**2), p])

    direction = rng.normal(size=(n, 3)) + np.array([0.0, 0.0, 3.0])
    direction /= np.linalg.norm(direction, axis=1)[:, None]
    energy = rng.uniform(3.0, 9.0, size=n)
    beam = np.column_stack([energy, energy[:, None] * direction])
    p4s = {
        "beam": beam,
        "proton": p4(0.938272, 0.6),
        "kshort1": p4(rng.uniform(0.45, 0.55, size=n), 0.9),
        "kshort2": p4(0.497611, 0.9),
    }
    scalars = {"pol_magnitude": rng.uniform(0.2, 0.5, size=n), "pol_angle": rng.uniform(-np.pi, np.pi, size=n)}
    return p4s, scalars


SAMPLES = {"ksks": lambda: ksks_arrays(N_EVENTS, seed=5), "numpy": numpy_arrays}


@pytest.fixture(scope="module", params=sorted(SAMPLES))
def sample(request):
    p4s, scalars = SAMPLES[request.param]()
    theirs, ours = both_datasets(p4s, scalars)
    return request.param, p4s, scalars, theirs, ours


def evaluate_both(theirs, ours, build):
    """build(lib) -> Expr, evaluated per event as real numbers by each library."""
    return (
        np.asarray(ours.evaluate(build(ld), real=True)),
        np.asarray(theirs.evaluate(build(laddu), real=True)),
    )


def wrapped_difference(a, b):
    return np.angle(np.exp(1j * (np.asarray(a) - np.asarray(b))))


def assert_angles_close(ours, theirs, what):
    """Angles compared modulo 2π (atan2's cut at ±π), to VALUE_RTOL of π."""
    assert np.max(np.abs(wrapped_difference(ours, theirs))) <= 1e-10 * np.pi, what


def numpy_mass2(p):
    return p[:, 0] ** 2 - (p[:, 1:] ** 2).sum(axis=1)


# ---- invariant masses -------------------------------------------------------------------


@pytest.mark.parametrize("edge", ["kk", "proton", "kshort1", "kshort2", "target"])
def test_channel_mass_and_s(sample, edge):
    _, p4s, _, theirs, ours = sample
    ours_s, theirs_s = evaluate_both(theirs, ours, lambda lib: ksks_channel(lib).s(edge))
    ours_m, theirs_m = evaluate_both(theirs, ours, lambda lib: ksks_channel(lib).mass(edge))
    assert_values_close(ours_s, theirs_s, what=f"s({edge})")
    timelike = theirs_s >= 0.0
    assert_values_close(ours_m[timelike], theirs_m[timelike], what=f"mass({edge})")
    # A spacelike edge (the inferred target of the numpy sample) has no real mass: laddu-cpp
    # gives NaN (real sqrt of m² < 0), laddu gives 0 (the real part of the complex root).
    # docs/laddu_parity.md, "Channel.mass of a spacelike edge".
    assert np.all(np.isnan(ours_m[~timelike]))
    assert np.all(theirs_m[~timelike] == 0.0)
    assert np.all(ours_s[~timelike] < 0.0)
    # Independent: numpy on the measured or momentum-conservation momenta.
    inferred = {
        "kk": p4s["kshort1"] + p4s["kshort2"],
        "target": p4s["kshort1"] + p4s["kshort2"] + p4s["proton"] - p4s["beam"],
    }
    expected = numpy_mass2(inferred.get(edge, p4s.get(edge)))
    assert_values_close(ours_s, expected, rtol=1e-9, what=f"s({edge}) vs numpy")


def test_channel_edge_and_vertex_names():
    theirs, ours = ksks_channel(laddu), ksks_channel(ld)
    assert ours.edge_names == theirs.edge_names
    assert ours.vertex_names == theirs.vertex_names
    assert ours.name == theirs.name


# ---- Mandelstam invariants of the production vertex -------------------------------------


@pytest.mark.parametrize("invariant", ["s", "t", "u"])
def test_production_mandelstam(sample, invariant):
    _, p4s, _, theirs, ours = sample
    ours_v, theirs_v = evaluate_both(theirs, ours, lambda lib: getattr(ksks_channel(lib).vertex("production"), invariant)())
    assert_values_close(ours_v, theirs_v, what=f"{invariant} of the production vertex")
    # mandelstam(MandelstamChannel) gives the same as the named helpers.
    theirs_m, ours_m = (
        np.asarray(data.evaluate(ksks_channel(lib).vertex("production").mandelstam(lib.MandelstamChannel(invariant)), real=True))
        for lib, data in ((laddu, theirs), (ld, ours))
    )
    assert_values_close(ours_m, theirs_m, what=f"mandelstam {invariant}")
    np.testing.assert_array_equal(ours_m, ours_v)
    kk = p4s["kshort1"] + p4s["kshort2"]
    expected = {
        "s": numpy_mass2(kk + p4s["proton"]),
        "t": numpy_mass2(p4s["beam"] - kk),
        "u": numpy_mass2(p4s["beam"] - p4s["proton"]),
    }[invariant]
    assert_values_close(ours_v, expected, rtol=1e-9, what=f"{invariant} vs numpy")


# ---- decay angles --------------------------------------------------------------------------


def frame_axes(lib, system):
    """(decay frame, z axis, y hint) for the helicity or Gottfried-Jackson system."""
    ch = ksks_channel(lib)
    production = ch.vertex("production")
    decay = ch.vertex("kk_decay")
    y_hint = -production.vec3("beam").cross(production.vec3("proton"))
    z_axis = -decay.vec3("proton") if system == "helicity" else decay.vec3("beam")
    return decay, z_axis, y_hint


@pytest.mark.parametrize("system", ["helicity", "gottfried_jackson"])
@pytest.mark.parametrize("daughter", ["kshort1", "kshort2"])
def test_decay_angles(sample, system, daughter):
    _, _, _, theirs, ours = sample

    def angle(kind):
        def build(lib):
            decay, z_axis, y_hint = frame_axes(lib, system)
            return getattr(decay, kind)(daughter, z_axis=z_axis, y_hint=y_hint)

        return evaluate_both(theirs, ours, build)

    ours_c, theirs_c = angle("costheta")
    assert_values_close(ours_c, theirs_c, atol=1e-13, what=f"{system} cos theta")
    ours_t, theirs_t = angle("theta")
    assert_values_close(ours_t, theirs_t, atol=1e-12, what=f"{system} theta")
    ours_p, theirs_p = angle("phi")
    assert_angles_close(ours_p, theirs_p, f"{system} phi")
    assert np.all(np.abs(ours_c) <= 1.0) and np.all(np.abs(ours_p) <= np.pi)


def test_decay_frame_momenta(sample):
    """Every component of the daughters' and the spectators' momenta in the K_S K_S rest frame."""
    _, _, _, theirs, ours = sample
    for edge in ["kshort1", "kshort2", "proton", "beam"]:
        ours_vec, theirs_vec = ksks_channel(ld).vertex("kk_decay").vec3(edge), ksks_channel(laddu).vertex("kk_decay").vec3(edge)
        ours_v = [ours.evaluate(c, real=True) for c in (ours_vec.px(), ours_vec.py(), ours_vec.pz())]
        theirs_v = [theirs.evaluate(c, real=True) for c in (theirs_vec.px(), theirs_vec.py(), theirs_vec.pz())]
        np.testing.assert_array_equal(ours_v[0], ours.evaluate(ours_vec.x(), real=True))
        scale = np.max(np.abs(theirs_v))
        assert_values_close(np.array(ours_v), np.array(theirs_v), rtol=1e-10, atol=1e-13 * scale, what=edge)
    # In the K_S K_S rest frame the two kaons are back to back.
    k1 = ksks_channel(ld).vertex("kk_decay").vec3("kshort1")
    k2 = ksks_channel(ld).vertex("kk_decay").vec3("kshort2")
    total = np.array([ours.evaluate(c, real=True) for c in ((k1 + k2).x(), (k1 + k2).y(), (k1 + k2).z())])
    assert np.max(np.abs(total)) < 1e-12


# ---- polarisation ----------------------------------------------------------------------


def laddu_polarization_angle():
    """The polarisation angle as laddu's K-matrix benchmark writes it, with lab momenta."""
    angle = laddu.scalar("pol_angle")
    polarization = laddu.Vec3(angle.cos(), angle.sin(), 0.0)
    beam = laddu.Vec4.event("beam").vec3()
    recoil = laddu.Vec4.event("proton").vec3()
    normal = beam.cross(-recoil).unit()
    return laddu.atan2(normal.dot(polarization), beam.unit().dot(polarization.cross(normal)))


def test_polarization_angle_and_magnitude(sample):
    _, p4s, scalars, theirs, ours = sample
    ours_angle = np.asarray(
        ours.evaluate(
            ld.polarization_angle(ld.Vec4.event("beam").vec3(), ld.Vec4.event("proton").vec3(), ld.scalar("pol_angle")),
            real=True,
        )
    )
    theirs_angle = np.asarray(theirs.evaluate(laddu_polarization_angle(), real=True))
    assert_angles_close(ours_angle, theirs_angle, "polarisation angle")
    # Independent: numpy with the same definition.
    beam, recoil = p4s["beam"][:, 1:], p4s["proton"][:, 1:]
    pol = np.column_stack([np.cos(scalars["pol_angle"]), np.sin(scalars["pol_angle"]), np.zeros(len(beam))])
    normal = np.cross(beam, -recoil)
    normal /= np.linalg.norm(normal, axis=1)[:, None]
    unit_beam = beam / np.linalg.norm(beam, axis=1)[:, None]
    expected = np.arctan2((normal * pol).sum(axis=1), (unit_beam * np.cross(pol, normal)).sum(axis=1))
    assert np.max(np.abs(wrapped_difference(ours_angle, expected))) < 1e-12
    ours_mag, theirs_mag = evaluate_both(theirs, ours, lambda lib: lib.scalar("pol_magnitude"))
    np.testing.assert_array_equal(ours_mag, theirs_mag)
    np.testing.assert_array_equal(ours_mag, scalars["pol_magnitude"])


# ---- four-vector algebra -----------------------------------------------------------------


FOUR_VECTOR_QUANTITIES = {
    "m2": lambda lib: (lib.Vec4.event("kshort1") + lib.Vec4.event("kshort2")).m2(),
    "dot": lambda lib: lib.Vec4.event("beam").dot(lib.Vec4.event("proton")),
    "gamma": lambda lib: (lib.Vec4.event("kshort1") + lib.Vec4.event("proton")).gamma(),
    "boosted_e": lambda lib: lib.Vec4.event("kshort1")
    .boost(-(lib.Vec4.event("kshort1") + lib.Vec4.event("kshort2")).beta())
    .e(),
    "boosted_pz": lambda lib: lib.Vec4.event("proton").boost(-(lib.Vec4.event("beam") + lib.Vec4.event("proton")).beta()).pz(),
    "lab_costheta": lambda lib: lib.Vec4.event("proton").vec3().costheta(),
    "lab_phi": lambda lib: lib.Vec4.event("kshort2").vec3().phi(),
    "mag": lambda lib: lib.Vec4.event("kshort1").vec3().mag(),
}


@pytest.mark.parametrize("quantity", sorted(FOUR_VECTOR_QUANTITIES))
def test_four_vector_algebra(sample, quantity):
    _, _, _, theirs, ours = sample
    ours_v, theirs_v = evaluate_both(theirs, ours, FOUR_VECTOR_QUANTITIES[quantity])
    if quantity == "lab_phi":
        assert_angles_close(ours_v, theirs_v, quantity)
    else:
        assert_values_close(ours_v, theirs_v, atol=1e-13 * np.max(np.abs(theirs_v)), what=quantity)


def test_vec3_component_names():
    """laddu's Vec3 components are px()/py()/pz(); its x()/y()/z() are the static unit axes.
    laddu-cpp has px()/py()/pz() too, and its x()/y()/z() are the components
    (docs/laddu_parity.md)."""
    assert isinstance(laddu.Vec4.event("beam").vec3().x(), laddu.Vec3)
    assert isinstance(ld.Vec4.event("beam").vec3().x(), ld.Expr)
    p4s, scalars = ksks_arrays(50, seed=3)
    theirs, ours = both_datasets(p4s, scalars)
    for k, name in enumerate(["px", "py", "pz"]):
        ours_c = ours.evaluate(getattr(ld.Vec4.event("kshort1").vec3(), name)(), real=True)
        theirs_c = theirs.evaluate(getattr(laddu.Vec4.event("kshort1").vec3(), name)(), real=True)
        np.testing.assert_array_equal(ours_c, theirs_c)
        np.testing.assert_array_equal(ours_c, p4s["kshort1"][:, k + 1])
    axis = laddu.Vec3.x_axis()
    np.testing.assert_array_equal(theirs.evaluate(axis.px(), real=True), np.ones(50))
