"""Bad arguments raise typed errors with messages a Python user can act on.

Regressions for what tests/fuzz/python_args_fuzz.py (issue 21) found: values pybind11 could not
convert inside a binding came out as a RuntimeError "Unable to cast Python instance of type
<class 'dict'> to C++ type 'std::vector<std::__cxx11::basic_string<...>>'", an int m = -2**31
hung spherical_harmonic, a NaN setting was accepted silently, and Likelihood.bootstrap_fit with
samples=2**64 never returned.
"""

import math

import numpy as np
import pytest

import laddu_cpp as ld


@pytest.fixture(scope="module")
def nll():
    m = (ld.Vec4.event("kshort1") + ld.Vec4.event("kshort2")).m()
    a = ld.complex(ld.parameter("a", initial=1.0, bounds=(0.1, 10.0)), 0.0).tagged("S")
    b = ld.complex(ld.parameter("b", initial=0.5), 0.2).tagged("D")
    model = ld.Model((a * m).norm_sqr() + (b * m * m).norm_sqr() + 0.1)
    data, mc = ld.generate_ksks(16, seed=1), ld.generate_ksks(32, seed=2)
    return ld.NLL(model, data=data, accepted_mc=mc, execution=ld.Execution(threads=1))


def no_cpp_type_names(error):
    text = str(error.value)
    assert "Unable to cast" not in text and "std::" not in text, text


@pytest.mark.parametrize(
    ("parameters", "fragment"),
    [
        ({1: 2.0}, "a parameter name must be a str, got int"),
        ({"a": "x"}, "parameter 'a' must be a float, got str"),
        ([1.0, None], "parameter 'b' must be a float, got NoneType"),
    ],
)
def test_parameter_values_of_the_wrong_type_are_type_errors(nll, parameters, fragment):
    for call in (nll.value, nll.gradient, nll.value_and_gradient, ld.Likelihood([nll]).value):
        with pytest.raises(TypeError, match=fragment) as error:
            call(parameters)
        no_cpp_type_names(error)


@pytest.mark.parametrize("tags", [5, {"S": 1}, (1, 2), [1.0]])
def test_tags_of_the_wrong_type_are_type_errors(nll, tags):
    with pytest.raises(TypeError, match="tags must be a str, a sequence of str or None") as error:
        nll.projection(tags=tags)
    no_cpp_type_names(error)
    with pytest.raises(TypeError, match="tags must be"):
        nll.fit_fraction(None, tags)


def test_fit_start_values_of_the_wrong_type_are_type_errors(nll):
    likelihood = ld.Likelihood([nll])
    with pytest.raises(TypeError, match="initial must be a dict of str to float, got dict"):
        likelihood.fit({"a": "x"}, max_steps=2)
    with pytest.raises(TypeError, match="initial must be a sequence of floats"):
        likelihood.fit(b"xy", max_steps=2)


def test_comparisons_and_between_with_non_numbers_are_type_errors():
    x = ld.scalar("x")
    with pytest.raises(TypeError, match="the other side of a comparison"):
        _ = x < np.zeros(3)
    for low, high in (("a", 1.0), (1j, 2.0), ([0.0], 1.0), (0.0, {})):
        with pytest.raises(TypeError, match="a bound of between must be a real number or an Expr"):
            ld.Predicate.between(x, low, high)
    with pytest.raises(TypeError, match="closed must be"):
        ld.Predicate.between(x, 0.0, 1.0, closed="\ud800")


def test_between_rejects_a_nan_bound():
    x = ld.scalar("x")
    for low, high in ((math.nan, 1.0), (0.0, math.nan), (math.nan, x), (x, math.nan)):
        with pytest.raises(ValueError, match="must not be NaN"):
            ld.Predicate.between(x, low, high)


def test_other_conversions_are_type_errors():
    data = ld.generate_ksks(4, seed=1)
    m = (ld.Vec4.event("kshort1") + ld.Vec4.event("kshort2")).m()
    cases = [
        (lambda: data.bin_by(m, 2**70, range=(0.0, 1.0)), "bins must be an int within the int64"),
        (lambda: data.bin_by(m, 1.5), "bins must be an ld.Bin, a bin count"),
        (lambda: ld.parameter("p", initial=np.zeros(3)), "initial must be a float or a"),
        (lambda: ld.parameter("p", bounds=lambda: 0), "bounds must be a"),
        (lambda: ld.Edge("x", p4="\ud800"), "Edge p4 must be a column name"),
        (lambda: ld.Dataset.from_arrays(scalars={1: np.ones(2)}), "a scalars key must be"),
        (lambda: ld.Model(m).evaluate({"x": 1}), "dataset must be an ld.Dataset, got dict"),
    ]
    for call, fragment in cases:
        with pytest.raises(TypeError, match=fragment) as error:
            call()
        no_cpp_type_names(error)


def test_integers_beyond_the_cpp_range():
    x = ld.scalar("x")
    with pytest.raises(ValueError, match="int32 range"):
        _ = x ** (2**70)
    with pytest.raises(OverflowError):
        _ = x + 10**400
    with pytest.raises(ValueError, match="reflectivity must be"):
        ld.zlm(1, 0, 2**70, costheta=x, phi=x, pol_angle=x, pol_magnitude=x)


def test_spherical_harmonic_with_m_of_int_min_is_an_error_not_a_hang():
    # std::abs(INT_MIN) is undefined: the check let m = -2**31 through to a 2**31-step loop.
    with pytest.raises(ld.ModelError, match="invalid"):
        ld.spherical_harmonic(3, -(2**31), costheta=0.5, phi=0.1)
    with pytest.raises(ld.ModelError, match="invalid"):
        ld.zlm(3, -(2**31), "+", costheta=0.5, phi=0.1, pol_angle=0.0, pol_magnitude=0.3)


@pytest.mark.parametrize(
    "options",
    [
        {"kk_mass_max": math.nan},
        {"kk_mass_max": -1.0},
        {"pol_magnitude_min": math.nan},
        {"pol_magnitude_max": math.nan},
        {"pol_magnitude_min": 0.5, "pol_magnitude_max": 0.4},
        {"pol_magnitude_max": 1.5},
        {"beam_energy_max": math.inf},
    ],
)
def test_generate_ksks_rejects_nan_and_out_of_range_settings(options):
    with pytest.raises(ld.ModelError, match="generate_ksks"):
        ld.generate_ksks(2, **options)


@pytest.mark.parametrize("q_r", [math.nan, math.inf, 0.0, -1.0])
def test_relativistic_breit_wigner_rejects_a_bad_barrier_scale_even_when_unused(q_r):
    s = ld.scalar("s")
    with pytest.raises(ld.ModelError, match="q_r"):
        ld.relativistic_breit_wigner_custom(
            s, mass=1.0, width=0.1, mass1=0.1, mass2=0.1, l=0, barrier_factors=False, q_r=q_r
        )


def test_likelihood_bootstrap_fit_checks_its_counts_as_the_compiled_one_does(nll):
    likelihood = ld.Likelihood([nll])
    with pytest.raises(OverflowError, match="within 2\\*\\*64"):
        likelihood.bootstrap_fit(2**64)
    with pytest.raises(OverflowError, match="within 2\\*\\*64"):
        likelihood.bootstrap_fit(1, seed=-1)
    with pytest.raises(TypeError):
        likelihood.bootstrap_fit(1.5)
    with pytest.raises(TypeError):
        likelihood.bootstrap_fit(1, seed=ld.scalar("x"))


def test_bin_by_with_edges_and_a_range_is_an_error_not_an_ignored_range():
    data = ld.generate_ksks(4, seed=1)
    m = (ld.Vec4.event("kshort1") + ld.Vec4.event("kshort2")).m()
    with pytest.raises(ValueError, match="range= only with an integer bin count"):
        data.bin_by(m, [1.0, 1.5, 2.0], range=(math.nan, math.inf))


def test_a_bad_reflectivity_message_does_not_stringify_the_value():
    deep = []
    for _ in range(10_000):
        deep = [deep]
    x = ld.scalar("x")
    with pytest.raises(ValueError, match="reflectivity must be .* got a list"):
        ld.zlm(1, 0, deep, costheta=x, phi=x, pol_angle=x, pol_magnitude=x)


@pytest.mark.parametrize("observer", [ld.ganesh.ProgressObserver, ld.ganesh.DebugObserver])
@pytest.mark.parametrize("step, status", [(1, {}), (1, 2**64), (1, (1.0,)), (1, slice(None)),
                                          ([[[]]], None), (1.5, None), (True, None), ("1", None)])
def test_observers_reject_a_call_that_is_not_step_and_snapshot(observer, step, status, capsys):
    snapshot = ld.ganesh.StatusSnapshot(2, True, "converging")
    with pytest.raises(TypeError, match=observer.__name__ + " takes \\(step, StatusSnapshot\\)"):
        observer()(step, snapshot if status is None else status)
    observer()(np.int64(2), snapshot)
    assert "converging" in capsys.readouterr().out


def test_an_error_message_shows_a_deeply_nested_value_bounded():
    deep = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(ValueError, match="ESSMove kind must be"):
        ld.ganesh.ESSMove(deep, 1.0)
