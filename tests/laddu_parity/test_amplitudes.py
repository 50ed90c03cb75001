"""Line shapes and K-matrix amplitudes: laddu 0.21.4 against laddu-cpp.

Breit-Wigners (fixed width, relativistic with every L both support, the custom form with and
without barrier factors and several q_R), the Kopf ρ and π1 K-matrices (every channel), on a
grid of s with the masses, widths and production couplings as parameters at several points;
per-event gradients against laddu's Model.value_and_gradient. The disagreements are decided by
independent numpy/scipy/mpmath computations (including a K-matrix built here from the published
Kopf constants) and listed in docs/laddu_parity.md.
"""

import mpmath
import numpy as np
import pytest
from conftest import (
    GRADIENT_RTOL,
    assert_values_close,
    central_differences,
    cpp_gradients,
    expression_values,
    laddu,
    laddu_gradients,
    ld,
    scaled_atol,
)
from scipy.special import spherical_jn, spherical_yn

M1, M2 = 0.1349768, 0.493677
THRESHOLD = (M1 + M2) ** 2
S_ABOVE = np.array([0.4, 0.5, 0.7, 0.9, 1.1, 1.3, 1.44, 1.6, 2.0, 2.6, 3.5])
S_BELOW = np.array([0.05, 0.14, 0.25, 0.38])  # below threshold (0.05: below the pseudo-threshold too)
POINTS = [{"mass": 1.2, "width": 0.2}, {"mass": 0.95, "width": 0.06}, {"mass": 1.6, "width": 0.45}]
COMMON_L = [0, 1, 2, 3, 4, 5, 7, 8]


def _mass_width(lib):
    return lib.parameter("mass", initial=1.2), lib.parameter("width", initial=0.2)


def _bw(lib, s):
    mass, width = _mass_width(lib)
    if lib is laddu:
        return laddu.breit_wigner(s, mass=mass, width=width)
    return ld.breit_wigner(s, mass, width)


def _rbw(lib, s, l, custom=None):
    mass, width = _mass_width(lib)
    kwargs = dict(mass=mass, width=width, mass1=M1, mass2=M2)
    if custom is None:
        return lib.relativistic_breit_wigner(s, l=l, **kwargs)
    barrier_factors, q_r = custom
    return lib.relativistic_breit_wigner_custom(s, l=l, barrier_factors=barrier_factors, q_r=q_r, **kwargs)


def _compare(build, events, points=POINTS, what="", atol_floor=1e-12):
    for point in points:
        theirs = expression_values(laddu, build(laddu), events, point)
        ours = expression_values(ld, build(ld), events, point)
        assert np.all(np.isfinite(theirs)), what
        assert_values_close(ours, theirs, atol=scaled_atol(theirs, floor=atol_floor), what=f"{what} at {point}")


def _compare_gradients(build, events, point, names, what=""):
    theirs = laddu_gradients(build(laddu), events, point, names)
    ours = cpp_gradients(build(ld), events, point, names)
    assert_values_close(ours, theirs, rtol=GRADIENT_RTOL, atol=scaled_atol(theirs, GRADIENT_RTOL), what=what)


# ---- Breit-Wigners ----


def test_breit_wigner():
    s = {"s": np.concatenate([S_BELOW, S_ABOVE])}
    _compare(lambda L: _bw(L, L.scalar("s")), s, what="breit_wigner")
    _compare_gradients(lambda L: _bw(L, L.scalar("s")), {"s": S_ABOVE[[2, 6, 9]]}, POINTS[1], ["mass", "width"])


@pytest.mark.parametrize("l", [None, *COMMON_L])
def test_relativistic_breit_wigner(l):
    """Above threshold, l omitted (S wave) or given."""
    def build(L):
        if l is None:
            mass, width = _mass_width(L)
            return L.relativistic_breit_wigner(L.scalar("s"), mass=mass, width=width, mass1=M1, mass2=M2)
        return _rbw(L, L.scalar("s"), l)

    _compare(build, {"s": S_ABOVE}, what=f"rbw l={l}")
    _compare_gradients(build, {"s": S_ABOVE[[1, 6, 10]]}, POINTS[0], ["mass", "width"], what=f"rbw l={l}")


@pytest.mark.parametrize("q_r", [0.1973, 1.0, 3.0])
@pytest.mark.parametrize("barrier_factors", [True, False])
@pytest.mark.parametrize("l", [0, 1, 2, 3, 5, 8])
def test_relativistic_breit_wigner_custom(l, barrier_factors, q_r):
    build = lambda L: _rbw(L, L.scalar("s"), l, (barrier_factors, q_r))  # noqa: E731
    _compare(build, {"s": S_ABOVE}, points=POINTS[:2], what=f"rbw custom l={l} bf={barrier_factors} q_r={q_r}")
    if q_r == 1.0:
        _compare_gradients(build, {"s": S_ABOVE[[0, 5, 8]]}, POINTS[1], ["mass", "width"])


def test_relativistic_breit_wigner_with_parameter_daughter_masses():
    def build(L):
        mass, width = _mass_width(L)
        m1, m2 = L.parameter("m1", initial=M1), L.parameter("m2", initial=M2)
        return L.relativistic_breit_wigner(L.scalar("s"), mass=mass, width=width, mass1=m1, mass2=m2, l=2)

    point = {"mass": 1.3, "width": 0.15, "m1": 0.14, "m2": 0.5}
    _compare(build, {"s": S_ABOVE[1:]}, points=[point], what="rbw with mass parameters")
    _compare_gradients(build, {"s": S_ABOVE[[2, 7]]}, point, list(point))


def _barrier(l, q, q_r):
    """F_L(q) = √(z^L D_L(1) / D_L(z)), z = (q/q_R)², with mpmath's principal square root (so a
    complex q below threshold is allowed); D_L from _barrier_polynomial."""
    coefficients = [int(c) for c in _barrier_polynomial(l)]  # highest power first
    z = (mpmath.mpc(q) / q_r) ** 2

    def denominator(x):
        return mpmath.fsum(c * x ** (len(coefficients) - 1 - k) for k, c in enumerate(coefficients))

    return complex(mpmath.sqrt(z**l * denominator(mpmath.mpf(1)) / denominator(z)))


def _barrier_polynomial(l):
    """D_L(z) = z^{L+1} |h_L(√z)|² as polynomial coefficients (highest power first), fitted
    exactly from scipy's spherical Bessel functions at L + 1 points."""
    zs = np.arange(1.0, l + 2.0)
    xs = np.sqrt(zs)
    values = zs ** (l + 1) * (spherical_jn(l, xs) ** 2 + spherical_yn(l, xs) ** 2)
    return np.round(np.polyfit(zs, values, l))


def _rbw_reference(s, mass, width, l, q_r=0.1973, barrier_factors=True):
    def q(x):
        return complex(mpmath.sqrt(mpmath.mpc((x - (M1 + M2) ** 2) * (x - (M1 - M2) ** 2))) / (2 * mpmath.sqrt(x)))

    q0, qs = q(mass**2), q(s)
    if barrier_factors:
        running = width * mass / np.sqrt(s) * (qs / q0) * (_barrier(l, qs, q_r) / _barrier(l, q0, q_r)) ** 2
    else:
        running = width * mass / np.sqrt(s) * (qs / q0) ** (2 * l + 1)
    return 1.0 / (mass**2 - s - 1j * mass * running)


@pytest.mark.parametrize("l", [0, 1, 2])
def test_relativistic_breit_wigner_below_threshold(l):
    """Below threshold laddu-cpp continues q to +i|q| (so the running width is complex), as the
    mpmath reference does; laddu, given a real s, sets q to 0 there (the real part of its
    complex square root), so its running width vanishes. With a complex s laddu continues too
    and agrees with laddu-cpp."""
    point = POINTS[0]
    expected = np.array([_rbw_reference(s, point["mass"], point["width"], l) for s in S_BELOW])
    ours = expression_values(ld, _rbw(ld, ld.scalar("s"), l), {"s": S_BELOW}, point)
    assert_values_close(ours, expected, rtol=1e-12, what=f"rbw l={l} below threshold vs mpmath")
    theirs_complex = expression_values(laddu, _rbw(laddu, laddu.complex(laddu.scalar("s"), 0.0), l), {"s": S_BELOW}, point)
    assert_values_close(ours, theirs_complex, what="laddu with complex s")
    theirs = expression_values(laddu, _rbw(laddu, laddu.scalar("s"), l), {"s": S_BELOW}, point)
    # below the pseudo-threshold (s = 0.05) the radicand is positive again and laddu agrees;
    # between pseudo-threshold and threshold laddu's running width is 0 (laddu differs)
    assert_values_close(theirs[:1], expected[:1], rtol=1e-12)
    zero_width = 1.0 / (point["mass"] ** 2 - S_BELOW[1:])
    assert_values_close(theirs[1:], zero_width + 0j, rtol=1e-12, what="laddu: zero running width")


def test_relativistic_breit_wigner_above_threshold_matches_reference():
    for l in (0, 2, 4):
        for point in POINTS:
            expected = np.array([_rbw_reference(s, point["mass"], point["width"], l) for s in S_ABOVE])
            ours = expression_values(ld, _rbw(ld, ld.scalar("s"), l), {"s": S_ABOVE}, point)
            assert_values_close(ours, expected, rtol=1e-11, what=f"rbw l={l} vs mpmath")


@pytest.mark.parametrize("custom", [None, (True, 1.0)])
def test_relativistic_breit_wigner_l6(custom):
    """L = 6 goes through laddu's F_6, whose normalisation is wrong (test_functions.py):
    laddu-cpp matches the mpmath reference, laddu does not."""
    point = POINTS[0]
    q_r = 0.1973 if custom is None else custom[1]
    expected = np.array([_rbw_reference(s, point["mass"], point["width"], 6, q_r=q_r) for s in S_ABOVE])
    ours = expression_values(ld, _rbw(ld, ld.scalar("s"), 6, custom), {"s": S_ABOVE}, point)
    assert_values_close(ours, expected, rtol=1e-11, what="rbw l=6 vs mpmath")
    theirs = expression_values(laddu, _rbw(laddu, laddu.scalar("s"), 6, custom), {"s": S_ABOVE}, point)
    assert np.max(np.abs(theirs / expected - 1.0)) > 1e-2  # laddu differs
    # without barrier factors L = 6 is (q/q0)^13 in both
    _compare(lambda L: _rbw(L, L.scalar("s"), 6, (False, 1.0)), {"s": S_ABOVE}, points=[point])


def test_amplitudes_submodule():
    """laddu.amplitudes and ld.amplitudes both carry the common line shapes; they are the
    top-level functions."""
    common = {n for n in dir(laddu.amplitudes) if not n.startswith("_")} & {n for n in dir(ld.amplitudes) if not n.startswith("_")}
    assert {"breit_wigner", "relativistic_breit_wigner", "relativistic_breit_wigner_custom", "kopf_rho", "kopf_pi1"} <= common
    s = {"s": S_ABOVE}
    for lib in (laddu, ld):
        mass, width = _mass_width(lib)
        direct = _rbw(lib, lib.scalar("s"), 2)
        via = lib.amplitudes.relativistic_breit_wigner(lib.scalar("s"), mass=mass, width=width, mass1=M1, mass2=M2, l=2)
        assert_values_close(expression_values(lib, via, s), expression_values(lib, direct, s))


# ---- laddu-cpp's extra line shapes (laddu has none in Python): closed forms ----


def test_non_relativistic_breit_wigner_is_laddu_cpp_only():
    assert not hasattr(laddu, "non_relativistic_breit_wigner")
    mass, width = _mass_width(ld)
    s = np.concatenate([S_BELOW, S_ABOVE])
    for point in POINTS:
        ours = expression_values(ld, ld.non_relativistic_breit_wigner(ld.scalar("s"), mass, width), {"s": s}, point)
        m, w = point["mass"], point["width"]
        assert_values_close(ours, (w / 2) / (m - np.sqrt(s) - 0.5j * w), rtol=1e-13)
    events = {"s": S_ABOVE[[1, 5]]}
    expr = ld.non_relativistic_breit_wigner(ld.scalar("s"), mass, width)
    exact = cpp_gradients(expr, events, POINTS[0], ["mass", "width"])
    numeric = central_differences(ld, expr, events, POINTS[0], ["mass", "width"])
    assert_values_close(exact, numeric, rtol=1e-6, atol=1e-8)


def test_flatte_is_laddu_cpp_only():
    assert not hasattr(laddu, "flatte")
    m0 = ld.parameter("m0", initial=0.98)
    g1, g2 = ld.parameter("g1", initial=0.2), ld.parameter("g2", initial=0.5)
    expr = ld.flatte(ld.scalar("s"), m0, observed=(0.13957, 0.13957, g1), alternative=(0.493677, 0.493677, g2))
    s = np.concatenate([S_BELOW, S_ABOVE])
    ours = expression_values(ld, expr, {"s": s}, {"m0": 0.98, "g1": 0.2, "g2": 0.5})

    def rho(x, m):
        return complex(2 * mpmath.sqrt(mpmath.mpc(x * (x - 4 * m * m))) / (2 * x))

    expected = [1.0 / (0.98**2 - x - 1j * 0.98 * (0.2 * rho(x, 0.13957) + 0.5 * rho(x, 0.493677))) for x in s]
    assert_values_close(ours, np.array(expected), rtol=1e-12, what="flatte vs closed form")


# ---- Kopf K-matrices ----

KOPF = {"kopf_rho": (2, 3), "kopf_pi1": (1, 2)}  # name -> (poles, channels)
S_KOPF = np.array([0.1, 0.3, 0.5, 0.7, 0.9, 1.0, 1.2, 1.5, 1.9, 2.4, 3.0, 4.0])


def _production(lib, poles):
    return [lib.complex(lib.parameter(f"p{i} re", initial=0.3 + i), lib.parameter(f"p{i} im", initial=-0.2 * i)) for i in range(poles)]


def _kopf(lib, name, s):
    poles, _ = KOPF[name]
    if lib is laddu:
        return getattr(laddu, name)(s, production=_production(laddu, poles))
    return getattr(ld, name)(s, _production(ld, poles))


def _kopf_points(poles):
    names = [f"p{i} {part}" for i in range(poles) for part in ("re", "im")]
    return names, [dict(zip(names, values, strict=True)) for values in ([1.0, 0.0] * poles, np.linspace(-0.7, 1.3, 2 * poles))]


@pytest.mark.parametrize("name", sorted(KOPF))
def test_kopf(name):
    """Every channel of F(s): laddu-cpp with a real s against laddu with a complex s (laddu with
    a real s drops the imaginary parts of q and Σ: test_kopf_real_s)."""
    poles, channels = KOPF[name]
    names, points = _kopf_points(poles)
    for channel in range(channels):
        build = lambda L, c=channel: _kopf(L, name, L.scalar("s") if L is ld else L.complex(L.scalar("s"), 0.0))[c]  # noqa: E731
        _compare(build, {"s": S_KOPF}, points=points, what=f"{name}[{channel}]")
        _compare_gradients(build, {"s": S_KOPF[[2, 6, 10]]}, points[1], names, what=f"{name}[{channel}] gradient")


# Published constants (Kopf et al., Eur. Phys. J. C 81 (2021) 1056) for an independent K-matrix.
_PI0, _KC, _K0, _ETA, _ETAP = 0.1349768, 0.493677, 0.497611, 0.547862, 0.95778
KOPF_TABLES = {
    "kopf_pi1": dict(
        l=1, poles=[1.38552], couplings=[[0.80564], [1.04595]],
        background=[[1.05, 0.15163], [0.15163, -0.24611]],
        masses=[(_PI0, _ETA), (_PI0, _ETAP)],
    ),
    "kopf_rho": dict(
        l=1, poles=[0.71093, 1.58660], couplings=[[0.28023, 0.16318], [0.01806, 0.53879], [0.06501, 0.00495]],
        background=[[-0.06948, 0.0, 0.07958], [0.0, 0.0, 0.0], [0.07958, 0.0, -0.6]],
        masses=[(_PI0, _PI0), (2 * _PI0, 2 * _PI0), (_KC, _K0)],
    ),
}


def _mp_q(s, m1, m2):
    return complex(mpmath.sqrt(mpmath.mpc((s - (m1 + m2) ** 2) * (s - (m1 - m2) ** 2))) / (2 * mpmath.sqrt(s)))


def _mp_chew_mandelstam(s, m1, m2):
    s = mpmath.mpc(s, mpmath.mpf("1e-40"))
    rho = mpmath.sqrt((1 - (m1 + m2) ** 2 / s) * (1 - (m1 - m2) ** 2 / s))
    chi = 1 - (m1 + m2) ** 2 / s
    value = rho * mpmath.log((chi + rho) / (chi - rho))
    if m1 != m2:
        value -= chi * (m2 - m1) / (m1 + m2) * mpmath.log(mpmath.mpf(m2) / m1)
    return complex(value / mpmath.pi)


def _kopf_reference(name, s, production):
    """F = (I + K Σ)⁻¹ P in numpy with B_iα = F_L(q_i(s)) / F_L(q_i(m_α²)) (q_R = 0.1973),
    K_ij = Σ_α B_iα B_jα (g_iα g_jα / (m_α² − s) + c_ij), P_i = Σ_α β_α g_iα B_iα / (m_α² − s)."""
    table = KOPF_TABLES[name]
    g, c = np.array(table["couplings"]), np.array(table["background"])
    n, poles = g.shape
    b = np.array([[_barrier(table["l"], _mp_q(s, *table["masses"][i]), 0.1973)
                   / _barrier(table["l"], _mp_q(m**2, *table["masses"][i]), 0.1973) for m in table["poles"]] for i in range(n)])
    denominators = np.array(table["poles"]) ** 2 - s
    k = np.zeros((n, n), dtype=complex)
    for a in range(poles):
        k += np.outer(b[:, a], b[:, a]) * (np.outer(g[:, a], g[:, a]) / denominators[a] + c)
    p = (b * g) @ (np.asarray(production) / denominators)
    sigma = np.diag([_mp_chew_mandelstam(s, *table["masses"][i]) for i in range(n)])
    return np.linalg.solve(np.eye(n) + k @ sigma, p)


# s between a channel's pseudo-threshold and threshold, where its q is imaginary: KK̄ for ρ;
# πη and πη′ for π1.
KOPF_WINDOWS = {"kopf_rho": np.array([0.9, 0.95]), "kopf_pi1": np.array([0.3, 0.8, 1.0])}


@pytest.mark.parametrize("name", sorted(KOPF))
def test_kopf_real_s(name):
    """laddu-cpp with a real s matches the independent K-matrix everywhere. laddu, given a real
    s, agrees above every threshold but not where a channel sits between its pseudo-threshold
    and threshold: there it sets that channel's q (and so its barrier factors) to the real part
    of the continuation, 0, instead of +i|q|."""
    poles, channels = KOPF[name]
    _, points = _kopf_points(poles)
    point = points[1]
    production = [point[f"p{i} re"] + 1j * point[f"p{i} im"] for i in range(poles)]
    above, window = np.array([1.2, 1.5, 2.0, 3.0]), KOPF_WINDOWS[name]
    for s, laddu_agrees in ((above, True), (window, False)):
        expected = np.array([_kopf_reference(name, x, production) for x in s])
        for channel in range(channels):
            ours = expression_values(ld, _kopf(ld, name, ld.scalar("s"))[channel], {"s": s}, point)
            assert_values_close(ours, expected[:, channel], rtol=1e-10, what=f"{name}[{channel}] vs numpy K-matrix")
            theirs = expression_values(laddu, _kopf(laddu, name, laddu.scalar("s"))[channel], {"s": s}, point)
            if laddu_agrees:
                assert_values_close(theirs, expected[:, channel], rtol=1e-10)
            else:
                difference = np.abs(theirs - expected[:, channel]) / np.abs(expected[:, channel])
                assert np.max(difference) > 1e-4, f"laddu {name}[{channel}] now agrees"  # laddu differs


@pytest.mark.parametrize(("name", "poles", "channels"), [("kopf_f0", 5, 5), ("kopf_f2", 4, 4), ("kopf_a0", 2, 2), ("kopf_a2", 2, 3)])
def test_kopf_laddu_cpp_only(name, poles, channels):
    """laddu 0.21.4 builds f0, f2, a0, a2 in Rust but binds none in Python (its k_matrix,
    p_vector, f_vector primitives are not in laddu_cpp): check the shape, linearity in the
    production couplings, and the gradient against central differences."""
    assert not hasattr(laddu, name)
    production = _production(ld, poles)
    names, points = _kopf_points(poles)
    expr = getattr(ld, name)(ld.scalar("s"), production)
    s = {"s": S_KOPF[5:9]}
    for channel in range(channels):
        total = expression_values(ld, expr[channel], s, points[1])
        parts = sum(
            (points[1][f"p{i} re"] + 1j * points[1][f"p{i} im"])
            * expression_values(ld, expr[channel], s, {n: float(n == f"p{i} re") for n in names})
            for i in range(poles)
        )
        assert_values_close(total, parts, rtol=1e-10, atol=1e-12, what=f"{name}[{channel}] linear in β")
    exact = cpp_gradients(expr[0], {"s": S_KOPF[[6]]}, points[1], names)
    numeric = central_differences(ld, expr[0], {"s": S_KOPF[[6]]}, points[1], names)
    assert_values_close(exact, numeric, rtol=1e-6, atol=1e-8)
