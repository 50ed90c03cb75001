"""Shared pieces of the laddu parity suite: the two engines and the tolerances.

Every test here runs one scenario twice, with laddu 0.21.4 (``laddu``, from the pinned test
venv) and with laddu-cpp (``ld``), and compares what they return. Where the two disagree an
independent computation (scipy, mpmath, an analytic value) decides, and the test asserts that
laddu-cpp matches it; docs/laddu_parity.md lists every such case.
"""

import numpy as np
import pytest

laddu = pytest.importorskip("laddu", reason="laddu 0.21.4 comes from the test venv (scripts/make-venv.sh)")
import laddu_cpp as ld  # noqa: E402

# f64 values agree to 1e-10 relative, gradients to 1e-8 (issue 20's contract).
VALUE_RTOL = 1e-10
GRADIENT_RTOL = 1e-8


def assert_values_close(ours, theirs, rtol=VALUE_RTOL, atol=0.0, what="value"):
    """Elementwise |ours - theirs| <= atol + rtol * |theirs| for real or complex arrays."""
    ours = np.asarray(ours)
    theirs = np.asarray(theirs)
    assert ours.shape == theirs.shape, f"{what}: shape {ours.shape} vs laddu's {theirs.shape}"
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, err_msg=what)


def assert_gradients_close(ours, theirs, rtol=GRADIENT_RTOL, atol=0.0, what="gradient"):
    assert_values_close(ours, theirs, rtol=rtol, atol=atol, what=what)


@pytest.fixture(scope="session")
def engines():
    """(laddu, laddu_cpp): both modules, so a scenario can be written once and run on each."""
    return laddu, ld


# ---- the counter-based generators of Dataset.subsample and Dataset.bootstrap ----


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & (2**64 - 1)
    z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
    return z ^ (z >> 31)


def counter_uniform(seed, index):
    return (splitmix64(int(seed) ^ int(index)) >> 11) / 2.0**53


def poisson1(u):
    k, p = 0, np.exp(-1.0)
    cdf = p
    while u > cdf:
        k += 1
        p /= k
        cdf += p
    return k


def multiplicity(seed, index):
    """laddu-cpp's bootstrap multiplicity: Poisson(1) from the counter-based uniform of the
    splitmix64-mixed seed."""
    return poisson1(counter_uniform(splitmix64(int(seed) % 2**64), index))


# ---- shared events for the kinematics, dataset, likelihood, fit and K-matrix files ----

KSKS_P4S = ("beam", "proton", "kshort1", "kshort2")
KSKS_SCALARS = ("pol_magnitude", "pol_angle")


def ksks_arrays(n, seed, kk_mass_max=0.0):
    """Flat γ p → K_S K_S p events from ld.generate_ksks as numpy arrays (p4s, scalars)."""
    events = ld.generate_ksks(n, seed=seed, kk_mass_max=kk_mass_max)
    p4s = {name: np.ascontiguousarray(events.p4(name)) for name in KSKS_P4S}
    scalars = {name: np.ascontiguousarray(events.column(name)) for name in KSKS_SCALARS}
    return p4s, scalars


def both_datasets(p4s, scalars, weights=None):
    """The same arrays as a laddu Dataset and a laddu_cpp Dataset: (theirs, ours)."""
    kwargs = {} if weights is None else {"weights": np.asarray(weights, dtype=np.float64)}
    theirs = laddu.Dataset.from_arrays(p4s=dict(p4s), scalars=dict(scalars), **kwargs)
    ours = ld.Dataset.from_arrays(p4s=dict(p4s), scalars=dict(scalars), **kwargs)
    return theirs, ours


def by_name(names, values):
    """A {name: value} dict, for passing one parameter point to both libraries."""
    return dict(zip(names, (float(v) for v in values), strict=True))


def reorder(names_from, values, names_to):
    """`values` (ordered as names_from) reordered to names_to."""
    lookup = dict(zip(names_from, values, strict=True))
    return np.array([lookup[name] for name in names_to])


# ---- expressions, functions and amplitudes (test_expr*, test_func*, test_amp*) ----


def scalar_events(lib, scalars):
    """A Dataset of `lib` (laddu or laddu_cpp) with only scalar columns."""
    return lib.Dataset.from_arrays(p4s={}, scalars={k: np.asarray(v, dtype=np.float64) for k, v in scalars.items()})


def expression_values(lib, expression, scalars, parameters=None):
    """Complex per-event values of `expression` built with `lib`; parameters by name or None."""
    model = lib.Model(expression)
    values = model.evaluate(scalar_events(lib, scalars), parameters=parameters, real=False)
    return np.asarray(values, dtype=np.complex128)


def laddu_gradients(expression, scalars, parameters, names):
    """laddu's per-event complex gradient (Model.value_and_gradient), columns in `names` order."""
    model = laddu.Model(expression)
    _, gradient = model.value_and_gradient(scalar_events(laddu, scalars), parameters=parameters, real=False)
    gradient = np.asarray(gradient, dtype=np.complex128)
    return np.stack([gradient[:, model.parameter_names.index(name)] for name in names], axis=1)


def cpp_gradients(expression, scalars, parameters, names):
    """laddu-cpp's per-event complex gradient (Model.value_and_gradient), columns in `names` order."""
    model = ld.Model(expression)
    _, gradient = model.value_and_gradient(scalar_events(ld, scalars), parameters=parameters, real=False)
    gradient = np.asarray(gradient, dtype=np.complex128)
    return np.stack([gradient[:, model.parameter_names.index(name)] for name in names], axis=1)


def central_differences(lib, expression, scalars, parameters, names, step=1e-6):
    """Per-event complex derivatives of `expression` by central differences in each parameter."""
    columns = []
    for name in names:
        h = step * max(1.0, abs(parameters[name]))
        up = expression_values(lib, expression, scalars, {**parameters, name: parameters[name] + h})
        down = expression_values(lib, expression, scalars, {**parameters, name: parameters[name] - h})
        columns.append((up - down) / (2.0 * h))
    return np.stack(columns, axis=1)


def scaled_atol(reference, rtol=VALUE_RTOL, floor=1.0):
    """An absolute tolerance rtol · max(|reference|, floor): for values that pass through zero,
    where a relative test alone would compare rounding noise."""
    reference = np.asarray(reference)
    finite = np.abs(reference[np.isfinite(reference)])
    return rtol * max(float(finite.max()) if finite.size else 0.0, floor)


def ksks_channel(lib):
    """laddu's benchmark reaction gamma p -> K_S K_S p in `lib`'s API: target and kk inferred,
    beam, proton and both kaons measured."""
    edges = [
        lib.Edge("beam", p4="beam"),
        lib.Edge("target"),
        lib.Edge("kk"),
        lib.Edge("proton", p4="proton"),
        lib.Edge("kshort1", p4="kshort1"),
        lib.Edge("kshort2", p4="kshort2"),
    ]
    vertices = [
        lib.Vertex("production", incoming=["beam", "target"], outgoing=["kk", "proton"]),
        lib.Vertex("kk_decay", incoming=["kk"], outgoing=["kshort1", "kshort2"]),
    ]
    return lib.Channel("gamma p -> Ks Ks p", edges=edges, vertices=vertices)


def ksks_helicity_angles(channel):
    """cos(theta) and phi of kshort1 in the kk helicity frame (z opposite the recoil proton,
    y along the production plane's normal), as laddu's benchmark defines them."""
    production, decay = channel.vertex("production"), channel.vertex("kk_decay")
    y_hint = -production.vec3("beam").cross(production.vec3("proton"))
    z_axis = -decay.vec3("proton")
    costheta = decay.costheta("kshort1", z_axis=z_axis, y_hint=y_hint)
    phi = decay.phi("kshort1", z_axis=z_axis, y_hint=y_hint)
    return costheta, phi
