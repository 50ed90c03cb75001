"""Expr.to_json()/from_json() and Model.to_json()/from_json() in laddu's format: a round trip
gives the same expression (the same text again) and the same values bit for bit, fixed
parameters and tags included; unreadable input is a ValueError, as in laddu."""

import json

import numpy as np
import pytest

import laddu_cpp as ld


def model():
    x = ld.scalar("x")
    k = ld.Vec4.event("k")
    a = ld.parameter("a", initial=0.5, bounds=(0.0, None), unit="GeV")
    b = ld.parameter("b", initial=-0.2)
    c = ld.parameter("c", initial=1.0, periodic=True, bounds=(-np.pi, np.pi))
    m = ld.matrix([[k.m() ** 2 + 2.0, a], [b, 3.0]])
    amplitude = (a * x.exp() * ld.cis(c)).tagged("s") + ld.solve(m, ld.vector([1.0, x]))[1].tagged("p")
    return ld.Model(amplitude.norm_sqr() + ld.acos(x * 0.5) + ld.atan2(x, 2.0) + x.tanh().abs())


def events():
    rng = np.random.default_rng(4)
    p = rng.normal(0, 0.3, (500, 3))
    e = np.sqrt(0.25 + (p**2).sum(axis=1))
    return ld.Dataset.from_arrays(p4s={"k": np.column_stack([e, p])}, scalars={"x": rng.uniform(-1, 1, 500)})


def test_models_round_trip_with_the_same_values_bit_for_bit():
    data = events()
    for m in (model(), model().fix("b", 0.3)):
        text = m.to_json()
        back = ld.Model.from_json(text)
        assert back.to_json() == text
        assert back.parameter_names == m.parameter_names
        np.testing.assert_array_equal(back.evaluate(data), m.evaluate(data))
        graph = json.loads(text)
        assert set(graph) == {"root", "nodes", "metadata"} and len(graph["nodes"]) == len(graph["metadata"])
    fixed = json.loads(model().fix("b", 0.3).to_json())
    states = [n["ScalarParam"]["state"] for n in fixed["nodes"] if "ScalarParam" in n]
    assert {"Fixed": 0.3} in states
    tags = sorted(t for meta in fixed["metadata"] for t in meta["tags"])
    assert tags == ["p", "s"]


def test_expressions_round_trip():
    e = model().expression
    assert ld.Expr.from_json(e.to_json()).to_json() == e.to_json()
    assert ld.Expr.from_json(e.to_json()).equation() == e.equation()


def test_unreadable_json_is_a_value_error_naming_the_problem():
    with pytest.raises(ValueError, match="does not parse"):
        ld.Expr.from_json("{")
    with pytest.raises(ValueError, match="node 0: unknown node kind 'Wobble'"):
        ld.Model.from_json('{"root":0,"nodes":[{"Wobble":1}],"metadata":[{"tags":[]}]}')
    with pytest.raises(ValueError, match="not an earlier node"):
        ld.Expr.from_json('{"root":0,"nodes":[{"Unary":{"op":"Cos","input":3}}],"metadata":[{"tags":[]}]}')
    vector = ld.vector([ld.scalar("x"), 1.0])
    with pytest.raises(ValueError, match="scalar"):
        ld.Model.from_json(vector.to_json())  # a model needs a scalar intensity


def test_quantum_numbers_round_trip_through_json():
    values = [ld.J(2.5), ld.S(1), ld.L(4), ld.M(-0.5), ld.Parity(-1), ld.Statistics.FERMION,
              ld.Isospin(1, projection=0), ld.Isospin(1.5), ld.MandelstamChannel("t")]
    texts = ['5', '2', '4', '-1', '"Negative"', '"Fermion"', '{"isospin":2,"projection":0}',
             '{"isospin":3,"projection":null}', '"T"']
    for value, text in zip(values, texts):
        assert value.to_json() == text
        assert type(value).from_json(text) == value
    with pytest.raises(ValueError, match="J must be a JSON integer"):
        ld.J.from_json('"2"')
    with pytest.raises(ValueError, match='expected one of "Positive", "Negative"'):
        ld.Parity.from_json('"Up"')
    with pytest.raises(ValueError, match="not JSON"):
        ld.L.from_json("{")


def built_in_amplitudes():
    """One expression from every built-in amplitude builder, with free parameters where they take
    them (real scalars of s, x, y, the polarisation and a 2-D lookup)."""
    s, x, y = ld.scalar("s"), ld.scalar("x"), ld.scalar("y")
    m, w = ld.parameter("m", initial=1.2), ld.parameter("w", initial=0.1)
    angle, magnitude = ld.scalar("pol_angle"), ld.scalar("pol_magnitude")
    beta2 = [ld.complex(ld.parameter("b0 re", initial=1.0), 0.0), ld.complex(0.3, ld.parameter("b1 im"))]
    beta5 = beta2 + [0.5, 0.25j, 0.1]
    return {
        "breit_wigner": ld.breit_wigner(s, m, w),
        "relativistic_breit_wigner": ld.relativistic_breit_wigner(s, mass=m, width=w, mass1=0.14, mass2=0.14, l=2),
        "flatte": ld.flatte(s, m, observed=(0.14, 0.14, w), alternative=(0.497, 0.497, 0.3)),
        "voigt": ld.voigt(s.sqrt(), m, w, 0.02),
        "pol_phase": ld.pol_phase(angle, magnitude),
        "photon_sdme": ld.photon_sdme(1, -1, pol_angle=angle, pol_magnitude=magnitude),
        "lookup_table": ld.lookup_table([x, y], [[-1.0, 0.0, 1.0], [0.0, 1.0]], [1.0, m, 2.0, 0.5, w, 3.0],
                                        interpolation="linear"),
        "piecewise": ld.piecewise(x, 3, (-1.0, 1.0), [m, 2.0, w]),
        "zlm": ld.zlm(2, 1, "+", costheta=x, phi=y, pol_angle=angle, pol_magnitude=magnitude),
        "spherical_harmonic": ld.spherical_harmonic(2, -1, costheta=x, phi=y),
        "blatt_weisskopf": ld.blatt_weisskopf(s, l=3),
        "chew_mandelstam": ld.chew_mandelstam(s, mass1=0.14, mass2=0.14),
        "kopf_f0": ld.kopf_f0(s, beta5)[2],
        "kopf_a0_resampled": ld.kopf_a0_resampled(s, beta2, 7)[1],
        "k_matrix_blocks": ld.f_vector(
            s,
            pole_masses=ld.vector([m, 1.6]),
            k=ld.k_matrix(s, pole_masses=ld.vector([m, 1.6]), couplings=ld.matrix([[0.4, 0.2], [0.3, w]]),
                          barriers=ld.matrix([[1.0, 1.0], [1.0, 1.0]])),
            p=ld.p_vector(s, pole_masses=ld.vector([m, 1.6]), production=ld.vector(beta2),
                          couplings=ld.matrix([[0.4, 0.2], [0.3, w]]), barriers=ld.matrix([[1.0, 1.0], [1.0, 1.0]])),
            phase_space=ld.vector([ld.chew_mandelstam(s, mass1=0.14, mass2=0.14),
                                   ld.chew_mandelstam(s, mass1=0.497, mass2=0.497)]),
        )[0],
        "kmatrix_benchmark": ld.kmatrix_benchmark_intensity(tag_waves=True),
    }


@pytest.mark.parametrize("name", sorted(built_in_amplitudes()))
def test_every_built_in_amplitude_round_trips_bit_for_bit(name):
    expression = built_in_amplitudes()[name]
    model = ld.Model(expression.norm_sqr() if not name == "kmatrix_benchmark" else expression)
    text = model.to_json()
    back = ld.Model.from_json(text)
    assert back.to_json() == text
    assert back.parameter_names == model.parameter_names
    if name == "kmatrix_benchmark":
        return  # needs the K_S K_S columns; its graph identity is the check
    rng = np.random.default_rng(8)
    data = ld.Dataset.from_arrays(scalars={
        "s": rng.uniform(0.3, 4.0, 300), "x": rng.uniform(-1.0, 1.0, 300), "y": rng.uniform(-3.0, 3.0, 300),
        "pol_angle": rng.uniform(-3.0, 3.0, 300), "pol_magnitude": rng.uniform(0.0, 1.0, 300)})
    np.testing.assert_array_equal(back.evaluate(data), model.evaluate(data))
