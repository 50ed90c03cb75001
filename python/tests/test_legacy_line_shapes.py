"""The line shapes of laddu's older releases (Voigt, PolPhase, PhotonSDME, LookupTable,
PiecewiseScalar) against scipy and hand-written numpy, on the interpreter and the JIT."""

import numpy as np
import pytest
from scipy.special import voigt_profile as scipy_voigt_profile
from scipy.special import wofz

import laddu_cpp as ld

HAS_JIT = ld.capabilities()["jit"]
EXECUTIONS = [ld.Execution("cpu", threads=2)] + ([ld.Execution("jit", threads=2)] if HAS_JIT else [])


def evaluate(expr, data, parameters=None, real=False, execution=None):
    return ld.Model(expr).evaluate(data, parameters=parameters, real=real, execution=execution)


def gradient_vs_central_differences(expr, data, point, h=1e-6):
    model = ld.Model(expr)
    names = model.free_parameter_names
    point = {name: point[name] for name in names}
    _, gradient = model.value_and_gradient(data, parameters=point, real=True)
    for k, name in enumerate(names):
        up, down = dict(point), dict(point)
        up[name] += h
        down[name] -= h
        fd = (model.evaluate(data, parameters=up) - model.evaluate(data, parameters=down)) / (2 * h)
        np.testing.assert_allclose(gradient[:, k], fd, rtol=1e-6, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("execution", EXECUTIONS, ids=lambda e: e.backend)
def test_faddeeva_matches_scipy_wofz_in_the_upper_half_plane(execution):
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.uniform(-60, 60, 3000), rng.uniform(-4, 4, 3000), [0.0, 1e-9, 25.0]])
    y = np.concatenate([10 ** rng.uniform(-6, 3, 3000), 10 ** rng.uniform(-6, 1, 3000), [0.0, 0.0, 0.0]])
    data = ld.Dataset.from_arrays(scalars={"x": x, "y": y})
    w = evaluate(ld.faddeeva(ld.complex(ld.scalar("x"), ld.scalar("y"))), data, execution=execution)
    reference = wofz(x + 1j * y)
    assert np.max(np.abs(w - reference)) < 2e-15
    # Re w, which the Voigt profile uses, to 1e-10 relative away from the real axis.
    away = y >= 1e-4
    np.testing.assert_allclose(w.real[away], reference.real[away], rtol=1e-10)


@pytest.mark.parametrize("execution", EXECUTIONS, ids=lambda e: e.backend)
def test_voigt_matches_scipy_voigt_profile(execution):
    m = np.linspace(0.5, 1.5, 401)
    data = ld.Dataset.from_arrays(scalars={"m": m})
    point = {"m0": 0.98, "gamma": 0.07, "sigma": 0.02}
    args = (ld.scalar("m"), ld.parameter("m0"), ld.parameter("gamma"), ld.parameter("sigma"))
    profile = evaluate(ld.voigt_profile(*args), data, parameters=point, real=True, execution=execution)
    # scipy's gamma is the half width Γ/2.
    expected = scipy_voigt_profile(m - 0.98, 0.02, 0.035)
    np.testing.assert_allclose(profile, expected, rtol=1e-12, atol=1e-14)
    amplitude = evaluate(ld.amplitudes.voigt(*args), data, parameters=point, execution=execution)
    np.testing.assert_allclose(amplitude, np.sqrt(expected), rtol=1e-12, atol=1e-12)


def test_voigt_gradients_match_central_differences():
    data = ld.Dataset.from_arrays(scalars={"m": np.linspace(0.8, 1.2, 41)})
    expr = ld.voigt(ld.scalar("m"), ld.parameter("m0"), ld.parameter("gamma"), ld.parameter("sigma"))
    gradient_vs_central_differences(expr, data, {"m0": 1.01, "gamma": 0.05, "sigma": 0.03})


def test_voigt_rejects_negative_widths():
    with pytest.raises(ld.ModelError, match="width = -0.1.* must be >= 0"):
        ld.voigt(ld.scalar("m"), 1.0, -0.1, 0.02)
    with pytest.raises(ld.ModelError, match="sigma = 0.* must be > 0"):
        ld.voigt_profile(ld.scalar("m"), 1.0, 0.1, 0.0)


@pytest.mark.parametrize("execution", EXECUTIONS, ids=lambda e: e.backend)
def test_pol_phase_and_photon_sdme_match_numpy(execution):
    rng = np.random.default_rng(3)
    phi = rng.uniform(-np.pi, np.pi, 100)
    p = rng.uniform(0, 1, 100)
    data = ld.Dataset.from_arrays(scalars={"phi": phi, "p": p})
    angle, magnitude = ld.scalar("phi"), ld.scalar("p")
    np.testing.assert_allclose(
        evaluate(ld.pol_phase(angle, magnitude), data, execution=execution), p * np.exp(2j * phi), rtol=1e-14, atol=1e-15
    )
    # Schilling-Seyboth-Wolf: rho = (1 - P (cos 2phi sigma_x + sin 2phi sigma_y)) / 2 in the (+1, -1) basis.
    for hel, hel_prime, expected in [
        (1, 1, np.full(100, 0.5)),
        (-1, -1, np.full(100, 0.5)),
        (1, -1, -0.5 * p * np.exp(-2j * phi)),
        (-1, 1, -0.5 * p * np.exp(2j * phi)),
    ]:
        rho = ld.photon_sdme(hel, hel_prime, pol_angle=angle, pol_magnitude=magnitude)
        np.testing.assert_allclose(evaluate(rho, data, execution=execution), expected, rtol=1e-14, atol=1e-15)
    np.testing.assert_array_equal(evaluate(ld.photon_sdme(1, -1) + ld.scalar("p") * 0, data), np.zeros(100))


def test_photon_sdme_and_pol_phase_reject_bad_input():
    with pytest.raises(ld.ModelError, match="use \\+1 or -1"):
        ld.photon_sdme(0, 1)
    with pytest.raises(ld.ModelError, match="give both pol_angle and pol_magnitude"):
        ld.photon_sdme(1, -1, pol_angle=ld.scalar("phi"))
    with pytest.raises(ld.ModelError, match="use 0 <= P <= 1"):
        ld.pol_phase(ld.scalar("phi"), 1.5)


def lookup_numpy(x, edges, values, boundary):
    index = np.searchsorted(edges, x, side="right") - 1
    inside = (x >= edges[0]) & (x < edges[-1])
    if boundary == "clamp":
        return np.asarray(values)[np.clip(index, 0, len(values) - 1)]
    return np.where(inside, np.asarray(values)[np.clip(index, 0, len(values) - 1)], 0)


@pytest.mark.parametrize("execution", EXECUTIONS, ids=lambda e: e.backend)
@pytest.mark.parametrize("boundary", ["zero", "clamp"])
def test_lookup_table_matches_numpy(execution, boundary):
    edges = np.array([0.0, 0.25, 0.75, 1.0, 1.6])
    values = [1.0, 2 + 3j, 4.0, -1j]
    x = np.concatenate([np.linspace(-0.5, 2.0, 301), edges])
    data = ld.Dataset.from_arrays(scalars={"x": x})
    table = ld.lookup_table([ld.scalar("x")], [list(edges)], values, boundary_mode=boundary)
    np.testing.assert_array_equal(evaluate(table, data, execution=execution), lookup_numpy(x, edges, values, boundary))
    # Linear: numpy.interp inside; laddu's clamp holds the end values outside.
    points = [0.0, 0.5, 1.5, 2.0]
    grid = [1.0, -2.0, 0.5, 3.0]
    linear = ld.lookup_table([ld.scalar("x")], [points], grid, interpolation="linear", boundary_mode=boundary)
    expected = np.interp(x, points, grid)
    if boundary == "zero":
        expected = np.where((x >= 0.0) & (x <= 2.0), expected, 0.0)
    np.testing.assert_allclose(evaluate(linear, data, real=True, execution=execution), expected, rtol=1e-14, atol=1e-15)


def test_two_dimensional_lookup_and_piecewise_with_parameters():
    rng = np.random.default_rng(5)
    x, y = rng.uniform(0, 2, 200), rng.uniform(0, 3, 200)
    data = ld.Dataset.from_arrays(scalars={"x": x, "y": y})
    params = [ld.parameter(f"v{k}") for k in range(6)]
    point = {f"v{k}": 0.5 + k for k in range(6)}
    table = ld.amplitudes.lookup_table([ld.scalar("x"), ld.scalar("y")], [[0, 1, 2], [0, 1, 2, 3]], params)
    index = np.floor(x).astype(int) * 3 + np.floor(y).astype(int)
    np.testing.assert_allclose(evaluate(table, data, parameters=point, real=True), 0.5 + index, rtol=1e-15)
    gradient_vs_central_differences(table, data, point)
    bilinear = ld.lookup_table([ld.scalar("x"), ld.scalar("y")], [[0, 2], [0, 3]], params[:4], interpolation="linear")
    gradient_vs_central_differences(bilinear, data, point)
    piecewise = ld.piecewise(ld.scalar("x"), 4, (0.0, 2.0), params[:4])
    np.testing.assert_allclose(
        evaluate(piecewise, data, parameters={f"v{k}": 0.5 + k for k in range(4)}, real=True),
        0.5 + np.floor(x / 0.5),
        rtol=1e-15,
    )


def test_lookup_table_rejects_malformed_tables():
    x = ld.scalar("x")
    with pytest.raises(ld.ModelError, match="strictly increasing.*sort them"):
        ld.lookup_table([x], [[0.0, 1.0, 0.5]], [1.0, 2.0])
    with pytest.raises(ld.ModelError, match="3 values for a table of 2 entries"):
        ld.lookup_table([x], [[0.0, 1.0, 2.0]], [1.0, 2.0, 3.0])
    with pytest.raises(ld.ModelError, match="1 variables but 2 axes"):
        ld.lookup_table([x], [[0.0, 1.0], [0.0, 1.0]], [1.0])
    with pytest.raises(ld.ModelError, match="use 'nearest' or 'linear'"):
        ld.lookup_table([x], [[0.0, 1.0]], [1.0], interpolation="cubic")
    with pytest.raises(ld.ModelError, match="use 'zero' or 'clamp'"):
        ld.lookup_table([x], [[0.0, 1.0]], [1.0], boundary_mode="wrap")
    with pytest.raises(ld.ModelError, match="bins = 3 but 2 values"):
        ld.piecewise(x, 3, (0.0, 1.0), [1.0, 2.0])
