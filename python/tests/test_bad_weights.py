"""Weights that would make a likelihood meaningless are DataErrors when the term is prepared
(when it is built with an execution, else at its first use, as laddu prepares its terms): a NaN
or infinite weight names its event; an NLL over no events or weights summing to zero or less
says so. An ExtendedNLL over no events stays valid (its minimum has no yield)."""

import math

import numpy as np
import pytest

import laddu_cpp as ld


def model():
    x = ld.scalar("x")
    a = ld.parameter("a", initial=0.5)
    return ld.Model((1.0 + a * x).norm_sqr())


def dataset(weights):
    weights = np.asarray(weights, dtype=float)
    x = np.linspace(-0.5, 0.5, len(weights))
    return ld.Dataset.from_arrays(scalars={"x": x}, weights=weights)


MC = dataset(np.ones(5000))


def built(term, data, accepted_mc, prepare):
    """The term built without an execution and used (prepare="use"), or built with one."""
    if prepare == "use":
        nll = term(model(), data=data, accepted_mc=accepted_mc)
        nll.value([0.5])
        return nll
    return term(model(), data=data, accepted_mc=accepted_mc, execution=ld.Execution())


PREPARE = pytest.mark.parametrize("prepare", ["use", "build"])


@PREPARE
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("term", [ld.NLL, ld.ExtendedNLL])
def test_a_non_finite_data_weight_names_its_event(term, bad, prepare):
    weights = np.ones(10000)
    weights[6007] = bad
    with pytest.raises(ld.DataError, match=r"event 6007 has weight .*must be finite"):
        built(term, dataset(weights), MC, prepare)


@PREPARE
def test_a_non_finite_mc_weight_names_its_event(prepare):
    weights = np.ones(300)
    weights[0] = math.nan
    with pytest.raises(ld.DataError, match=r"event 0 has weight nan"):
        built(ld.NLL, dataset(np.ones(100)), dataset(weights), prepare)


@PREPARE
def test_an_nll_over_no_events_is_a_data_error(prepare):
    with pytest.raises(ld.DataError, match="has no events"):
        built(ld.NLL, dataset([]), MC, prepare)


@PREPARE
@pytest.mark.parametrize("weights", [np.zeros(50), np.r_[np.ones(25), -np.ones(25)], -np.ones(3)])
def test_an_nll_whose_weights_do_not_sum_to_a_positive_value_is_a_data_error(weights, prepare):
    with pytest.raises(ld.DataError, match="do not sum to a positive value"):
        built(ld.NLL, dataset(weights), MC, prepare)


def test_a_term_built_without_an_execution_checks_its_columns_at_once():
    other = ld.Dataset.from_arrays(scalars={"y": np.ones(10)})
    with pytest.raises(ld.DataError, match="x"):
        ld.NLL(model(), data=other, accepted_mc=MC)
    with pytest.raises(ld.DataError, match="x"):
        ld.NLL(model(), data=MC, accepted_mc=other)
    with pytest.raises(ld.ModelError, match="complex-valued"):
        ld.NLL(ld.Model(ld.scalar("x") * ld.complex(0.0, 1.0)), data=MC, accepted_mc=MC)


def test_an_extended_nll_over_no_events_is_its_normalisation_integral():
    nll = ld.ExtendedNLL(model(), data=dataset([]), accepted_mc=MC)
    value = nll.value([0.5])
    assert math.isfinite(value) and value > 0


def test_sideband_weights_with_a_positive_sum_are_accepted():
    weights = np.r_[np.ones(60), -np.ones(40)]
    value = ld.NLL(model(), data=dataset(weights), accepted_mc=MC).value([0.5])
    assert math.isfinite(value)
