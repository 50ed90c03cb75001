"""Weights that would make a likelihood meaningless are DataErrors when the term is built:
a NaN or infinite weight names its event; an NLL over no events or weights summing to zero or
less says so. An ExtendedNLL over no events stays valid (its minimum has no yield)."""

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


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("term", [ld.NLL, ld.ExtendedNLL])
def test_a_non_finite_data_weight_names_its_event(term, bad):
    weights = np.ones(10000)
    weights[6007] = bad
    with pytest.raises(ld.DataError, match=r"event 6007 has weight .*must be finite"):
        term(model(), data=dataset(weights), accepted_mc=MC)


def test_a_non_finite_mc_weight_names_its_event():
    weights = np.ones(300)
    weights[0] = math.nan
    with pytest.raises(ld.DataError, match=r"event 0 has weight nan"):
        ld.NLL(model(), data=dataset(np.ones(100)), accepted_mc=dataset(weights))


def test_an_nll_over_no_events_is_a_data_error():
    with pytest.raises(ld.DataError, match="has no events"):
        ld.NLL(model(), data=dataset([]), accepted_mc=MC)


@pytest.mark.parametrize("weights", [np.zeros(50), np.r_[np.ones(25), -np.ones(25)], -np.ones(3)])
def test_an_nll_whose_weights_do_not_sum_to_a_positive_value_is_a_data_error(weights):
    with pytest.raises(ld.DataError, match="do not sum to a positive value"):
        ld.NLL(model(), data=dataset(weights), accepted_mc=MC)


def test_an_extended_nll_over_no_events_is_its_normalisation_integral():
    nll = ld.ExtendedNLL(model(), data=dataset([]), accepted_mc=MC)
    value = nll.value([0.5])
    assert math.isfinite(value) and value > 0


def test_sideband_weights_with_a_positive_sum_are_accepted():
    weights = np.r_[np.ones(60), -np.ones(40)]
    value = ld.NLL(model(), data=dataset(weights), accepted_mc=MC).value([0.5])
    assert math.isfinite(value)
