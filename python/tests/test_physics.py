"""Physics and amplitude bindings against independent numpy/scipy computations."""

from fractions import Fraction

import numpy as np
import pytest
from scipy.special import sph_harm_y

import laddu_cpp as ld

M_KS = 0.497611
M_P = 0.93827208816


def evaluate(expr, data, parameters=None, real=False):
    return ld.Model(expr).evaluate(data, parameters=parameters, real=real)


def angle_data(n=40, seed=1):
    rng = np.random.default_rng(seed)
    costheta = rng.uniform(-1.0, 1.0, n)
    phi = rng.uniform(-np.pi, np.pi, n)
    return costheta, phi, ld.Dataset.from_arrays(scalars={"c": costheta, "p": phi})


def random_p4(rng, n, mass):
    p = rng.uniform(-1.5, 1.5, size=(n, 3))
    return np.column_stack([np.sqrt(mass**2 + (p**2).sum(axis=1)), p])


def minkowski_mass(p4):
    return np.sqrt(p4[:, 0] ** 2 - (p4[:, 1:] ** 2).sum(axis=1))


def boost_np(p4, beta):
    """Boost p4 (N, 4) by velocity beta (N, 3): a vector at rest acquires velocity beta."""
    b2 = (beta**2).sum(axis=1)
    gamma = 1.0 / np.sqrt(1.0 - b2)
    bp = (beta * p4[:, 1:]).sum(axis=1)
    e = gamma * (p4[:, 0] + bp)
    coef = np.where(b2 > 0, (gamma - 1.0) * bp / np.where(b2 > 0, b2, 1.0), 0.0) + gamma * p4[:, 0]
    return np.column_stack([e, p4[:, 1:] + beta * coef[:, None]])


def two_body(rng, parent_mass, m1, m2):
    """Isotropic decay momenta (N, 4) of daughters 1 and 2 in the parent rest frame."""
    n = len(parent_mass)
    s = parent_mass**2
    q = np.sqrt((s - (m1 + m2) ** 2) * (s - (m1 - m2) ** 2)) / (2.0 * parent_mass)
    c = rng.uniform(-1.0, 1.0, n)
    ph = rng.uniform(-np.pi, np.pi, n)
    st = np.sqrt(1.0 - c**2)
    p = q[:, None] * np.column_stack([st * np.cos(ph), st * np.sin(ph), c])
    d1 = np.column_stack([np.sqrt(m1**2 + q**2), p])
    d2 = np.column_stack([np.sqrt(m2**2 + q**2), -p])
    return d1, d2


def generate_kskp(n=500, seed=7):
    """Flat gamma p -> K_S K_S p events: beam along z with E = 8.5 GeV on a proton at rest."""
    rng = np.random.default_rng(seed)
    beam = np.tile([8.5, 0.0, 0.0, 8.5], (n, 1))
    target = np.tile([M_P, 0.0, 0.0, 0.0], (n, 1))
    total = beam + target
    w = minkowski_mass(total)
    m_kk = rng.uniform(2.0 * M_KS + 1e-3, w - M_P - 1e-3)
    kk_cm, proton_cm = two_body(rng, w, m_kk, np.full(n, M_P))
    k1_kk, k2_kk = two_body(rng, m_kk, np.full(n, M_KS), np.full(n, M_KS))
    beta_cm = total[:, 1:] / total[:, 0:1]
    beta_kk = kk_cm[:, 1:] / kk_cm[:, 0:1]
    k1 = boost_np(boost_np(k1_kk, beta_kk), beta_cm)
    k2 = boost_np(boost_np(k2_kk, beta_kk), beta_cm)
    proton = boost_np(proton_cm, beta_cm)
    p4s = {"beam": beam, "proton": proton, "kshort1": k1, "kshort2": k2}
    scalars = {"pol_magnitude": rng.uniform(0.3, 0.4, n), "pol_angle": rng.uniform(-np.pi, np.pi, n)}
    return p4s, scalars


# ---- angular functions ----


@pytest.mark.parametrize("l,m", [(0, 0), (1, 0), (1, 1), (1, -1), (2, 2), (2, -1), (3, -3), (4, 2)])
def test_spherical_harmonic_matches_scipy(l, m):
    costheta, phi, data = angle_data()
    y = ld.spherical_harmonic(l, m, costheta=ld.scalar("c"), phi=ld.scalar("p"))
    values = evaluate(y, data)
    expected = sph_harm_y(l, m, np.arccos(costheta), phi)
    np.testing.assert_allclose(values, expected, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("l,m", [(89, 89), (100, -100), (120, 60), (200, 150), (200, -171),
                                 (300, 5), (500, 499)])
def test_spherical_harmonic_is_accurate_at_high_l(l, m):
    # The oracle is mpmath at 40 digits; the factorials of an unnormalised recursion overflow
    # or underflow here (l + |m| > 170), the normalised one must not.
    import mpmath

    mpmath.mp.dps = 40
    costheta = np.array([-0.97, -0.5, -0.1, 0.0, 0.3, 0.71, 0.99])
    phi = np.linspace(-3.0, 3.0, len(costheta))
    data = ld.Dataset.from_arrays(scalars={"c": costheta, "p": phi})
    y = ld.spherical_harmonic(l, m, costheta=ld.scalar("c"), phi=ld.scalar("p"))
    values = evaluate(y, data)
    expected = np.array([complex(mpmath.spherharm(l, m, mpmath.acos(mpmath.mpf(c)), mpmath.mpf(p)))
                         for c, p in zip(costheta, phi)])
    scale = np.max(np.abs(expected))
    assert scale > 0.0
    np.testing.assert_allclose(values, expected, rtol=0, atol=1e-11 * scale)
    assert np.all(np.isfinite(values))


def test_zlm_follows_the_gluex_form():
    costheta, phi, _ = angle_data()
    rng = np.random.default_rng(5)
    big_phi = rng.uniform(-np.pi, np.pi, len(phi))
    pol = rng.uniform(0.1, 0.9, len(phi))
    data = ld.Dataset.from_arrays(scalars={"c": costheta, "p": phi, "Phi": big_phi, "P": pol})
    rot = sph_harm_y(2, 2, np.arccos(costheta), phi) * np.exp(-1j * big_phi)
    for refl, (a, b) in {"+": (1.0, -1.0), -1: (-1.0, 1.0)}.items():
        z = ld.zlm(2, 2, refl, costheta=ld.scalar("c"), phi=ld.scalar("p"),
                   pol_angle=ld.scalar("Phi"), pol_magnitude=ld.scalar("P"))
        expected = np.sqrt(1 + a * pol) * rot.real + 1j * np.sqrt(1 + b * pol) * rot.imag
        np.testing.assert_allclose(evaluate(z, data), expected, rtol=1e-12, atol=1e-13)
    with pytest.raises(ValueError, match="reflectivity"):
        ld.zlm(0, 0, 2, costheta=0.1, phi=0.2, pol_angle=0.0, pol_magnitude=0.5)


def test_wigner_d_matches_closed_forms():
    beta = np.linspace(-3.0, 3.0, 25)
    data = ld.Dataset.from_arrays(scalars={"b": beta})
    b = ld.scalar("b")
    cases = [
        ((1, 1, 0), -np.sin(beta) / np.sqrt(2.0)),
        ((1, 1, 1), (1.0 + np.cos(beta)) / 2.0),
        ((1, 1, -1), (1.0 - np.cos(beta)) / 2.0),
        ((0.5, 0.5, -0.5), -np.sin(beta / 2.0)),
        ((Fraction(3, 2), Fraction(3, 2), Fraction(1, 2)), -np.sqrt(3.0) * np.cos(beta / 2) ** 2 * np.sin(beta / 2)),
        ((2, 2, 0), np.sqrt(6.0) / 4.0 * np.sin(beta) ** 2),
        ((ld.J(2), ld.M(0), ld.M(0)), 1.5 * np.cos(beta) ** 2 - 0.5),
    ]
    for (j, mp, m), expected in cases:
        values = evaluate(ld.WignerD(j, mp, m).d(b), data, real=True)
        np.testing.assert_allclose(values, expected, atol=1e-13, err_msg=f"d^{j}_{mp},{m}")
    alpha, gamma = 0.7, -1.3
    big = evaluate(ld.WignerD(1, 1, 0).D(alpha=alpha, beta=b, gamma=gamma), data)
    np.testing.assert_allclose(big, np.exp(-1j * alpha) * (-np.sin(beta) / np.sqrt(2.0)), atol=1e-13)
    with pytest.raises(ld.LadduError, match="half-integer"):
        ld.WignerD(1, 0.3, 0)
    with pytest.raises(ld.ModelError):
        ld.WignerD(1, 2, 0)


def test_clebsch_gordan_and_spins():
    assert ld.clebsch_gordan(j1=0.5, m1=0.5, j2=0.5, m2=-0.5, j=1, m=0) == pytest.approx(np.sqrt(0.5), abs=1e-15)
    assert ld.clebsch_gordan(j1=1, m1=1, j2=1, m2=-1, j=0, m=0) == pytest.approx(1 / np.sqrt(3), abs=1e-15)
    assert ld.clebsch_gordan(j1=1, m1=1, j2=1, m2=0, j=2, m=1) == pytest.approx(np.sqrt(0.5), abs=1e-15)
    assert ld.clebsch_gordan(j1=1, m1=1, j2=1, m2=1, j=1, m=0) == 0.0  # m1 + m2 != m
    assert ld.wigner_3j(1, 1, 0, 0, 0, 0) == pytest.approx(-1 / np.sqrt(3), abs=1e-15)
    j = ld.J(Fraction(3, 2))
    assert j.doubled == 3 and j.value == 1.5
    assert [p.doubled for p in j.projections()] == [-3, -1, 1, 3]
    assert ld.M(-0.5).doubled == -1
    with pytest.raises(ld.LadduError, match="nonnegative"):
        ld.J(-1)


def test_spherical_harmonic_rejects_bad_m():
    with pytest.raises(ld.ModelError):
        ld.spherical_harmonic(1, 2, costheta=0.1, phi=0.2)


# ---- vectors ----


def test_vec4_mass_and_components_match_numpy():
    rng = np.random.default_rng(2)
    a, b = random_p4(rng, 200, 0.14), random_p4(rng, 200, 0.49)
    data = ld.Dataset.from_arrays(p4s={"a": a, "b": b})
    pa, pb = ld.Vec4.event("a"), ld.Vec4.event("b")
    np.testing.assert_allclose(evaluate((pa + pb).m(), data, real=True), minkowski_mass(a + b), rtol=1e-13)
    np.testing.assert_allclose(evaluate((pa - pb).m2(), data, real=True),
                               (a - b)[:, 0] ** 2 - ((a - b)[:, 1:] ** 2).sum(axis=1), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(evaluate(pa @ pb, data, real=True),
                               a[:, 0] * b[:, 0] - (a[:, 1:] * b[:, 1:]).sum(axis=1), rtol=1e-13)
    np.testing.assert_allclose(evaluate(pa.gamma(), data, real=True), a[:, 0] / 0.14, rtol=1e-12)
    np.testing.assert_allclose(evaluate(pa.beta().z(), data, real=True), a[:, 3] / a[:, 0], rtol=1e-13)
    np.testing.assert_allclose(evaluate(pb.vec3().costheta(), data, real=True),
                               b[:, 3] / np.linalg.norm(b[:, 1:], axis=1), rtol=1e-13)
    cross = np.cross(a[:, 1:], b[:, 1:])
    np.testing.assert_allclose(evaluate(pa.vec3().cross(pb.vec3()).y(), data, real=True), cross[:, 1], atol=1e-13)
    made = ld.Vec3(pa.px(), pa.py(), pa.pz()).with_mass(0.14)
    np.testing.assert_allclose(evaluate(made.e(), data, real=True), a[:, 0], rtol=1e-13)
    np.testing.assert_allclose(evaluate((2 * ld.Vec3.event("a") / 4).x(), data, real=True), a[:, 1] / 2, rtol=1e-15)


def test_boosts_preserve_mass_and_reach_the_rest_frame():
    rng = np.random.default_rng(4)
    a, b = random_p4(rng, 200, 0.14), random_p4(rng, 200, 0.94)
    data = ld.Dataset.from_arrays(p4s={"a": a, "b": b})
    pa, pb = ld.Vec4.event("a"), ld.Vec4.event("b")
    boosted = pa.boost(pb.beta())
    np.testing.assert_allclose(evaluate(boosted.m(), data, real=True), np.full(200, 0.14), rtol=1e-10)
    np.testing.assert_allclose(evaluate(boosted.e(), data, real=True), boost_np(a, b[:, 1:] / b[:, 0:1])[:, 0],
                               rtol=1e-12)
    rest = pb.boost(-pb.beta())
    np.testing.assert_allclose(evaluate(rest.vec3().mag(), data, real=True), np.zeros(200), atol=1e-12)
    np.testing.assert_allclose(evaluate(rest.e(), data, real=True), np.full(200, 0.94), rtol=1e-12)


def test_vectors_reject_non_expressions():
    with pytest.raises(TypeError, match="as an expression"):
        ld.Vec3(1.0, "y", 0.0)
    with pytest.raises(TypeError, match="bool"):
        ld.Vec4(True, 0, 0, 0)


# ---- channel ----


def benchmark_channel():
    edges = [ld.Edge("beam", p4="beam"), ld.Edge("target"), ld.Edge("kk"), ld.Edge("proton", p4="proton"),
             ld.Edge("kshort1", p4="kshort1"), ld.Edge("kshort2", p4="kshort2")]
    vertices = [ld.Vertex("production", incoming=["beam", "target"], outgoing=["kk", "proton"]),
                ld.Vertex("kk_decay", incoming=["kk"], outgoing=["kshort1", "kshort2"])]
    return ld.Channel("gamma p -> Ks Ks p", edges=edges, vertices=vertices)


def test_channel_infers_momenta_and_gives_helicity_angles():
    p4s, scalars = generate_kskp(200)
    data = ld.Dataset.from_arrays(p4s=p4s, scalars=scalars)
    ch = benchmark_channel()
    assert ch.edge_names == ["beam", "target", "kk", "proton", "kshort1", "kshort2"]
    assert ch.vertex_names == ["production", "kk_decay"]
    beam, proton, k1, k2 = (p4s[k] for k in ("beam", "proton", "kshort1", "kshort2"))
    kk = k1 + k2
    np.testing.assert_allclose(evaluate(ch.mass("target"), data, real=True), np.full(200, M_P), rtol=1e-9)
    np.testing.assert_allclose(evaluate(ch.s("kk"), data, real=True), minkowski_mass(kk) ** 2, rtol=1e-12)
    prod = ch.vertex("production")
    diff = beam - kk
    np.testing.assert_allclose(evaluate(prod.t(), data, real=True),
                               diff[:, 0] ** 2 - (diff[:, 1:] ** 2).sum(axis=1), rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(evaluate(prod.s(), data, real=True), minkowski_mass(kk + proton) ** 2,
                               rtol=1e-9)
    # numpy helicity angles: lab -> CM -> kk, z = -proton, y = -(beam x proton) in the CM.
    total = kk + proton  # beam + target, with the target inferred as kk + proton - beam
    to_cm = -total[:, 1:] / total[:, 0:1]
    beam_cm, proton_cm, kk_cm, k1_cm = (boost_np(v, to_cm) for v in (beam, proton, kk, k1))
    to_kk = -kk_cm[:, 1:] / kk_cm[:, 0:1]
    proton_kk, k1_kk = boost_np(proton_cm, to_kk), boost_np(k1_cm, to_kk)
    z = -proton_kk[:, 1:] / np.linalg.norm(proton_kk[:, 1:], axis=1)[:, None]
    y = -np.cross(beam_cm[:, 1:], proton_cm[:, 1:])
    y = y - z * (y * z).sum(axis=1)[:, None]
    y /= np.linalg.norm(y, axis=1)[:, None]
    x = np.cross(y, z)
    p = k1_kk[:, 1:]
    costheta = (p * z).sum(axis=1) / np.linalg.norm(p, axis=1)
    phi = np.arctan2((p * y).sum(axis=1), (p * x).sum(axis=1))
    decay = ch.vertex("kk_decay")
    z_axis = -decay.vec3("proton")
    y_hint = -prod.vec3("beam").cross(prod.vec3("proton"))
    np.testing.assert_allclose(evaluate(decay.costheta("kshort1", z_axis=z_axis, y_hint=y_hint), data, real=True), costheta,
                               atol=1e-9)
    np.testing.assert_allclose(evaluate(decay.phi("kshort1", z_axis=z_axis, y_hint=y_hint), data, real=True), phi, atol=1e-8)
    with pytest.raises(ld.ModelError):
        ch.vertex("nope")
    with pytest.raises(TypeError, match="Edge p4"):
        ld.Edge("x", p4=3)


def test_polarization_angle_for_a_beam_along_z():
    p4s, scalars = generate_kskp(100)
    data = ld.Dataset.from_arrays(p4s=p4s, scalars=scalars)
    phi_big = ld.polarization_angle(ld.Vec3.event("beam"), ld.Vec3.event("proton"), ld.scalar("pol_angle"))
    proton = p4s["proton"]
    expected = scalars["pol_angle"] - np.arctan2(proton[:, 2], proton[:, 1]) + np.pi
    expected = np.angle(np.exp(1j * expected))
    values = evaluate(phi_big, data, real=True)
    np.testing.assert_allclose(np.angle(np.exp(1j * (values - expected))), np.zeros(100), atol=1e-10)


# ---- line shapes ----


def mass_data():
    s = np.linspace(0.3, 3.5, 41)
    return s, ld.Dataset.from_arrays(scalars={"s": s})


def test_breit_wigner_matches_numpy():
    s, data = mass_data()
    m, g = 1.27, 0.185
    bw = ld.breit_wigner(ld.scalar("s"), ld.parameter("m"), ld.parameter("g"))
    values = evaluate(bw, data, parameters={"m": m, "g": g})
    np.testing.assert_allclose(values, 1.0 / (m**2 - s - 1j * m * g), rtol=1e-13)
    nr = evaluate(ld.non_relativistic_breit_wigner(ld.scalar("s"), m, g), data)
    np.testing.assert_allclose(nr, (g / 2) / (m - np.sqrt(s) - 0.5j * g), rtol=1e-13)


def q_np(s, m1, m2):
    return np.sqrt(np.asarray((s - (m1 + m2) ** 2) * (s - (m1 - m2) ** 2), dtype=complex)) / (2 * np.sqrt(s))


def test_relativistic_breit_wigner_matches_numpy():
    s, data = mass_data()
    s, m1, m2, m, g, q_r = s[s > 0.2], 0.13957039, 0.13957039, 0.775, 0.149, 0.1973
    bw = ld.relativistic_breit_wigner(ld.scalar("s"), mass=m, width=g, mass1=m1, mass2=m2, l=1)
    q, q0 = q_np(s, m1, m2), q_np(m**2, m1, m2)
    f1 = lambda qq: np.sqrt(2 * (qq / q_r) ** 2 / ((qq / q_r) ** 2 + 1))  # noqa: E731
    width = g * (m / np.sqrt(s)) * (q / q0) * (f1(q) / f1(q0)) ** 2
    np.testing.assert_allclose(evaluate(bw, data), 1.0 / (m**2 - s - 1j * m * width), rtol=1e-11)
    plain = ld.relativistic_breit_wigner_custom(ld.scalar("s"), mass=m, width=g, mass1=m1, mass2=m2, l=1,
                                                barrier_factors=False)
    width = g * (m / np.sqrt(s)) * (q / q0) ** 3
    np.testing.assert_allclose(evaluate(plain, data), 1.0 / (m**2 - s - 1j * m * width), rtol=1e-11)


def test_two_body_functions_and_barriers():
    s, data = mass_data()
    m1, m2 = 0.1349768, 0.547862
    sc = ld.scalar("s")
    q = q_np(s, m1, m2)
    np.testing.assert_allclose(evaluate(ld.q(sc, mass1=m1, mass2=m2), data), q, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(evaluate(ld.q(sc, mass1=m1, mass2=m2, sheet=ld.Sheet.Unphysical), data), -q,
                               rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(evaluate(ld.rho(sc, mass1=m1, mass2=m2), data), 2 * q / np.sqrt(s), rtol=1e-12,
                               atol=1e-14)
    cm = evaluate(ld.chew_mandelstam(sc, mass1=m1, mass2=m2), data)
    above = s > (m1 + m2) ** 2
    np.testing.assert_allclose(cm[above].imag, -(2 * q / np.sqrt(s))[above].real, rtol=1e-12)
    z = (q / 0.1973) ** 2
    f2 = np.sqrt(13 * z**2 / ((z - 3) ** 2 + 9 * z))
    np.testing.assert_allclose(evaluate(ld.blatt_weisskopf(ld.q(sc, mass1=m1, mass2=m2), l=2), data), f2,
                               rtol=1e-11)
    z = (q / 1.0) ** 2
    tensor = np.sqrt(2 * z / (z + 1)) / q
    np.testing.assert_allclose(
        evaluate(ld.blatt_weisskopf_custom(ld.q(sc, mass1=m1, mass2=m2), l=1, kind=ld.BarrierKind.Tensor, q_r=1.0),
                 data)[above], tensor[above], rtol=1e-11)
    with pytest.raises(ld.ModelError):
        ld.blatt_weisskopf(1.0, l=9)


def test_flatte_matches_numpy():
    s, data = mass_data()
    m0, g1, g2 = 0.98, 0.33, 0.55
    mpi, meta, mk, mk0 = 0.13957039, 0.547862, 0.493677, 0.497611
    f = ld.flatte(ld.scalar("s"), m0, observed=(mpi, meta, g1), alternative=(mk, mk0, g2))
    rho1, rho2 = 2 * q_np(s, mpi, meta) / np.sqrt(s), 2 * q_np(s, mk, mk0) / np.sqrt(s)
    np.testing.assert_allclose(evaluate(f, data), 1.0 / (m0**2 - s - 1j * m0 * (g1 * rho1 + g2 * rho2)),
                               rtol=1e-12)
    with pytest.raises(ValueError, match="mass1, mass2, coupling"):
        ld.flatte(1.0, m0, observed=(mpi, meta), alternative=(mk, mk0, g2))


# ---- K-matrices ----

S_KSKS = 1.8889166211166355  # laddu kopf.rs unit test point
BETA = [0.1 + 0.2j, 0.3 + 0.4j, 0.5 + 0.6j, 0.7 + 0.8j, 0.9 + 1.0j]


@pytest.mark.parametrize(
    "function,n,channel,expected",
    [
        (ld.kopf_f0, 5, 1, 0.2674945594859746 + 0.728945115184662j),
        (ld.kopf_f2, 4, 1, 0.02463134381292893 + 0.3964232300397033j),
        (ld.kopf_a0, 2, 1, -0.800275915726 - 0.13593066320582162j),
        (ld.kopf_a2, 2, 1, -0.2087815057065276 - 0.10173200171306504j),
        (ld.kopf_rho, 2, 1, 0.09449011845747245 + 0.2609094192601879j),
        (ld.kopf_pi1, 1, 1, -0.1102837189594736 + 0.263468912197887j),
    ],
)
def test_kopf_matches_laddu_unit_test_values(function, n, channel, expected):
    data = ld.Dataset.from_arrays(scalars={"s": np.array([S_KSKS, S_KSKS])})
    f = function(ld.scalar("s"), BETA[:n])
    values = evaluate(f[channel], data)
    np.testing.assert_allclose(values, [expected, expected], rtol=0, atol=1e-10)


def test_kopf_rejects_wrong_coupling_counts():
    with pytest.raises(ld.ModelError, match="5 production couplings"):
        ld.kopf_f0(1.0, BETA[:3])
    assert ld.amplitudes.kopf_pi1 is ld.kopf_pi1


def test_kmatrix_benchmark_model_has_laddus_parameters_and_is_positive():
    model = ld.amplitudes.kmatrix_benchmark_model()
    assert isinstance(model, ld.Model)
    names = model.free_parameter_names
    assert model.n_free == 34 and len(names) == 34
    for name in ["f0(980)+ re", "f0(1370)+ im", "a0(980)+ re", "f2(1270) re", "a2(1700) im", "f0(1710)- re",
                 "a0(1450)- im"]:
        assert name in names
    assert "f0(980)+ im_fix" not in names and "f0+ c00 re" not in names
    p4s, scalars = generate_kskp(500)
    data = ld.Dataset.from_arrays(p4s=p4s, scalars=scalars)
    rng = np.random.default_rng(11)
    params = rng.uniform(-1.0, 1.0, 34)
    values = model.evaluate(data, parameters=params)
    assert values.shape == (500,)
    assert np.all(np.isfinite(values)) and np.all(values > 0)
    # The intensity is quadratic in the couplings.
    np.testing.assert_allclose(model.evaluate(data, parameters=2 * params), 4 * values, rtol=1e-10)


def test_tagged_benchmark_model_has_the_same_values_and_projects_waves():
    plain = ld.amplitudes.kmatrix_benchmark_model()
    tagged = ld.amplitudes.kmatrix_benchmark_model(tag_waves=True)
    assert tagged.free_parameter_names == plain.free_parameter_names
    p4s, scalars = generate_kskp(200)
    data = ld.Dataset.from_arrays(p4s=p4s, scalars=scalars)
    params = np.random.default_rng(3).uniform(-1.0, 1.0, 34)
    np.testing.assert_array_equal(tagged.evaluate(data, parameters=params),
                                  plain.evaluate(data, parameters=params))
    # Keeping only D+ drops the S-wave couplings (f0, a0) from the model.
    d_only = tagged.projection(["D+"])
    assert all(name.startswith(("f2", "a2")) for name in d_only.free_parameter_names)
    assert "f2(1270) re" in d_only.free_parameter_names


def test_particles_catalogue():
    assert ld.particles.K_SHORT.mass == M_KS
    assert ld.particles.PROTON.mass == M_P
    assert ld.particles.PROTON.spin == 0.5 and ld.particles.PROTON.parity == ld.Parity.POSITIVE
    assert ld.particles.PI_PLUS.charge == 1 and ld.particles.PI_ZERO.mass == pytest.approx(0.1349768)
    assert ld.particles.ETA.name == "eta"
