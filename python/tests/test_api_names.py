"""laddu's spellings that laddu-cpp provides as aliases or thin accessors."""

import numpy as np
import pytest

import laddu_cpp as ld


def test_laddu_error_is_the_base_of_every_engine_error():
    assert ld.LadduError is ld.Error
    with pytest.raises(ld.LadduError):
        ld.Bin([1.0])


def test_execution_reports_its_backend_and_autodiff():
    assert ld.Execution().backend == "auto"
    assert ld.Execution("jit").backend == "jit"
    assert ld.Execution("auto", autodiff="reverse").autodiff == "reverse"
    assert ld.Execution(autodiff="forward").autodiff == "forward"


def test_likelihood_nll_is_value():
    data = ld.Dataset.from_arrays(scalars={"x": np.linspace(-1, 1, 50)})
    model = ld.Model((ld.parameter("a", initial=1.0) + ld.scalar("x")).norm_sqr() + 0.1)
    likelihood = ld.Likelihood([ld.NLL(model, data=data, accepted_mc=data)])
    assert likelihood.nll([0.7]) == likelihood.value([0.7])
    assert likelihood.nll({"a": 0.3}) == likelihood.value([0.3])
