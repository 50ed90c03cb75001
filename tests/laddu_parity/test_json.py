"""Expressions and models as JSON: laddu's Expr.to_json()/Model.to_json() output loads in
laddu-cpp and evaluates to laddu's values, laddu-cpp's output loads in laddu and evaluates to the
same values, and for expressions both libraries build node for node alike the texts are equal,
character for character."""

import numpy as np
import pytest

from conftest import assert_values_close, ksks_arrays, laddu, ld


def kinematic_model(lib, fixed):
    """A model using every node laddu's Python API builds: parameters (bounded, fixed, with a
    unit), event scalars and four-momenta, complex numbers, the unary functions, powers, atan2,
    vectors, matrices and a linear solve, and tags."""
    x = lib.scalar("x")
    k = lib.Vec4.event("kshort1") + lib.Vec4.event("kshort2")
    mass = lib.parameter("mass", initial=1.1, bounds=(0.9, None), unit="GeV")
    width = lib.parameter("width", initial=0.2, bounds=(0.01, 1.0))
    phase = lib.parameter("phase", initial=0.3, periodic=True, bounds=(-np.pi, np.pi))
    s = k.m() ** 2
    bw = lib.complex(mass * width, 0.0) / lib.complex(mass * mass - s, -(mass * width))
    matrix = lib.matrix([[s + 2.0, mass], [width, s + 3.0]])
    solved = lib.solve(matrix, lib.vector([1.0, x]))
    amplitude = (bw * lib.cis(phase)).tagged("bw") + (solved[0] * x.cos() + lib.atan2(x, 2.0)).tagged("bg")
    model = lib.Model((amplitude.norm_sqr() + (x * x).exp() * 0.01 + lib.acos(x * 0.1)).real())
    return model.fix("width", 0.25) if fixed else model


@pytest.mark.parametrize("fixed", [False, True])
def test_laddus_model_json_loads_and_evaluates_the_same(fixed):
    p4s, _ = ksks_arrays(400, 5)
    x = np.random.default_rng(5).uniform(-1.0, 1.0, 400)
    theirs = kinematic_model(laddu, fixed)
    text = theirs.to_json()
    ours = ld.Model.from_json(text)
    assert ours.parameter_names == theirs.parameter_names
    data = {"p4s": {k: p4s[k] for k in ("kshort1", "kshort2")}, "scalars": {"x": x}}
    params = [v * 1.05 for v in theirs.default_parameters]
    values_theirs = theirs.evaluate(laddu.Dataset.from_arrays(**data), parameters=params, real=True)
    values_ours = ours.evaluate(ld.Dataset.from_arrays(**data), parameters=params, real=True)
    assert_values_close(values_ours, values_theirs, rtol=1e-12)
    # Our text (our builders' canonical graph, which may share or fold nodes differently) loads
    # in laddu with the same parameters and values, and reads back to our model exactly.
    again = laddu.Model.from_json(ours.to_json())
    assert again.parameter_names == theirs.parameter_names
    values_again = again.evaluate(laddu.Dataset.from_arrays(**data), parameters=params, real=True)
    assert_values_close(values_again, values_theirs, rtol=1e-12)
    assert ld.Model.from_json(ours.to_json()).to_json() == ours.to_json()


def test_expressions_read_across_the_libraries():
    p4s, _ = ksks_arrays(200, 9)
    rng = np.random.default_rng(9)
    data = {"p4s": {"k": p4s["kshort1"]}, "scalars": {"x": rng.uniform(-1, 1, 200), "y": rng.uniform(-1, 1, 200)}}
    events = {laddu: laddu.Dataset.from_arrays(**data), ld: ld.Dataset.from_arrays(**data)}
    for build in (lambda lib: lib.scalar("x") * lib.parameter("a", initial=0.5) + 1.0,
                  lambda lib: (lib.Vec4.event("k").m() * lib.parameter("m", initial=1.0, bounds=(0.5, None))).cos().norm_sqr(),
                  lambda lib: lib.complex(lib.scalar("x"), 2.0).tagged("A").conj(),
                  lambda lib: lib.dot(lib.vector([lib.scalar("x"), 1.0]), lib.vector([2.0, lib.scalar("y")]))):
        theirs, ours = build(laddu), build(ld)
        # Each library's helpers may build a different graph for the same function (laddu's
        # Vec4.m() subtracts the components one by one, and our sums of products are fused
        # dots), so compare values, both ways; m² cancels, so the last bits spread to 1e-14.
        for lib, expression in ((ld, ld.Expr.from_json(theirs.to_json())), (laddu, laddu.Expr.from_json(ours.to_json()))):
            reference = (theirs if lib is laddu else ours)
            values = lib.Model(expression).evaluate(events[lib])
            assert_values_close(values, lib.Model(reference).evaluate(events[lib]), rtol=1e-13)
    # Where both build the same graph the texts are equal, character for character.
    x = {lib: lib.scalar("x") * lib.parameter("a", initial=0.5) + 1.0 for lib in (laddu, ld)}
    assert x[ld].to_json() == x[laddu].to_json()


def test_malformed_json_is_a_value_error_in_both():
    for lib in (laddu, ld):
        with pytest.raises(ValueError):
            lib.Expr.from_json("{")
        with pytest.raises(ValueError):
            lib.Expr.from_json('{"root":0,"nodes":[{"Wobble":1}],"metadata":[{"source":"Const","name":null,"tags":[]}]}')


def quantum_values(lib):
    """Every quantum value type, with integer and half-integer values where they have them."""
    return [lib.J(0), lib.J(1.5), lib.J(4), lib.S(0.5), lib.S(2), lib.L(0), lib.L(3), lib.M(-1.5),
            lib.M(0), lib.M(2), lib.Parity(1), lib.Parity(-1), lib.Statistics.BOSON, lib.Statistics.FERMION,
            lib.Isospin(1, projection=-1), lib.Isospin(0.5), lib.MandelstamChannel("s"),
            lib.MandelstamChannel("u")]


def test_quantum_numbers_write_laddus_json_and_read_it_back():
    for theirs, ours in zip(quantum_values(laddu), quantum_values(ld)):
        text = theirs.to_json()
        assert ours.to_json() == text, type(ours).__name__
        assert type(ours).from_json(text) == ours
        assert type(theirs).from_json(ours.to_json()) == theirs


@pytest.mark.parametrize("cls,text", [("J", '"Positive"'), ("J", "-1"), ("J", "1.5"), ("L", "-2"), ("M", "true"),
                                      ("Parity", '"Up"'), ("Parity", "1"), ("Statistics", '"Anyon"'),
                                      ("Isospin", "[]"),
                                      ("MandelstamChannel", '"s"'), ("J", "{")])
def test_bad_quantum_json_is_a_value_error_in_both(cls, text):
    for lib in (laddu, ld):
        with pytest.raises(ValueError):
            getattr(lib, cls).from_json(text)


def test_an_impossible_isospin_projection_is_refused():
    """laddu's Isospin.from_json accepts I = 1/2 with I3 = 3/2 (its constructor refuses it);
    laddu-cpp applies the constructor's rule to JSON too (docs/laddu_parity.md)."""
    text = '{"isospin":1,"projection":3}'
    assert repr(laddu.Isospin.from_json(text)) == "Isospin(J(1/2), M(3/2))"
    with pytest.raises(ValueError, match="-J <= m <= J"):
        ld.Isospin.from_json(text)
