"""NLL, ExtendedNLL, penalties and Likelihood from Python, against direct numpy sums."""

import numpy as np
import pytest

import laddu_cpp as ld


def events(n, seed):
    rng = np.random.default_rng(seed)
    return ld.Dataset.from_arrays(scalars={"x": rng.uniform(-1, 1, n)}, weights=rng.uniform(0.5, 1.5, n))


def coherent_model():
    x = ld.scalar("x")
    c0 = ld.complex(ld.parameter("a0", initial=1.0), ld.parameter("b0", initial=0.0))
    c1 = ld.complex(ld.parameter("a1", initial=0.5), ld.parameter("b1", initial=0.2))
    return ld.Model((c0 * ld.cis(x) + c1 * ld.cis(2 * x) * x).norm_sqr() + 0.01)


def direct_intensity(x, p):
    a0, b0, a1, b1 = p
    return np.abs((a0 + 1j * b0) * np.exp(1j * x) + (a1 + 1j * b1) * np.exp(2j * x) * x) ** 2 + 0.01


PARAMS = [0.9, -0.1, 0.4, 0.3]


def test_nll_matches_laddus_formula():
    data, mc = events(2000, 1), events(5000, 2)
    nll = ld.NLL(coherent_model(), data=data, accepted_mc=mc)
    x, w = data.column("x"), data.weights()
    xm, wm = mc.column("x"), mc.weights()
    expected = w.sum() * np.log((wm * direct_intensity(xm, PARAMS)).sum()) - (w * np.log(direct_intensity(x, PARAMS))).sum()
    assert nll.value(PARAMS) == pytest.approx(expected, rel=1e-12)
    assert nll(PARAMS) == nll.value(PARAMS) == nll.nll(PARAMS)


def test_extended_nll_matches_its_formula():
    data, mc = events(2000, 1), events(5000, 2)
    ext = ld.ExtendedNLL(coherent_model(), data=data, accepted_mc=mc)
    x, w = data.column("x"), data.weights()
    xm, wm = mc.column("x"), mc.weights()
    expected = (wm * direct_intensity(xm, PARAMS)).sum() - (w * np.log(direct_intensity(x, PARAMS))).sum()
    assert ext.value(PARAMS) == pytest.approx(expected, rel=1e-12)


def test_gradient_matches_central_differences():
    nll = ld.NLL(coherent_model(), data=events(2000, 1), accepted_mc=events(5000, 2))
    value, gradient = nll.value_and_gradient(PARAMS)
    assert value == nll.value(PARAMS)
    for k in range(4):
        up, down = list(PARAMS), list(PARAMS)
        up[k] += 1e-6
        down[k] -= 1e-6
        fd = (nll.value(up) - nll.value(down)) / 2e-6
        assert gradient[k] == pytest.approx(fd, rel=1e-6, abs=1e-6)


def test_parameters_by_name_and_errors():
    nll = ld.NLL(coherent_model(), data=events(100, 1), accepted_mc=events(100, 2))
    assert nll.parameter_names == ["a0", "b0", "a1", "b1"]
    assert nll.default_parameters == [1.0, 0.0, 0.5, 0.2]
    assert nll.value({"a0": 0.9, "b0": -0.1, "a1": 0.4, "b1": 0.3}) == nll.value(PARAMS)
    with pytest.raises(ld.ModelError, match="unknown parameter 'zz'"):
        nll.value({"zz": 1.0})
    with pytest.raises(ValueError, match="expected 4 parameter values"):
        nll.value([1.0, 2.0])


def test_likelihood_shares_parameters_by_name_and_adds_penalties():
    model = coherent_model()
    nll_a = ld.NLL(model, data=events(500, 1), accepted_mc=events(800, 2), name="a")
    nll_b = ld.NLL(model, data=events(600, 3), accepted_mc=events(900, 4), name="b")
    ridge = ld.RidgePenalty(["a0", "b1"], lambda_=0.5)
    total = ld.Likelihood([nll_a, nll_b, ridge])
    assert total.parameter_names == ["a0", "b0", "a1", "b1"]
    value, gradient = total.value_and_gradient(PARAMS)
    expected = nll_a.value(PARAMS) + nll_b.value(PARAMS) + 0.5 * (PARAMS[0] ** 2 + PARAMS[3] ** 2)
    assert value == pytest.approx(expected, rel=1e-14)
    ga, gb = nll_a.gradient(PARAMS), nll_b.gradient(PARAMS)
    np.testing.assert_allclose(gradient, ga + gb + np.array([2 * 0.5 * PARAMS[0], 0, 0, 2 * 0.5 * PARAMS[3]]), rtol=1e-13)
    lasso = ld.LassoPenalty(["a1"], lambda_=2.0)
    assert lasso.value([-0.25]) == pytest.approx(0.5)
    np.testing.assert_array_equal(lasso.gradient([-0.25]), [-2.0])


def test_nonpositive_intensity_is_an_evaluation_error_naming_the_event():
    x = ld.scalar("x")
    model = ld.Model(x * ld.parameter("s", initial=1.0))
    data = events(100, 1)
    nll = ld.NLL(model, data=data, accepted_mc=data)
    with pytest.raises(ld.EvaluationError, match="at event"):
        nll.value([1.0])


def test_python_and_cpp_agree_bit_for_bit_across_threads():
    model = coherent_model()
    data, mc = events(3000, 5), events(3000, 6)
    one = ld.NLL(model, data=data, accepted_mc=mc, execution=ld.Execution(threads=1))
    two = ld.NLL(model, data=data, accepted_mc=mc, execution=ld.Execution(threads=2))
    v1, g1 = one.value_and_gradient(PARAMS)
    v2, g2 = two.value_and_gradient(PARAMS)
    assert v1 == v2
    np.testing.assert_array_equal(g1, g2)


def test_concurrent_calls_from_python_threads_are_safe_and_identical():
    import concurrent.futures

    nll = ld.NLL(coherent_model(), data=events(20000, 7), accepted_mc=events(20000, 8))
    expected = nll.value_and_gradient(PARAMS)
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: nll.value_and_gradient(PARAMS), range(16)))
    for value, gradient in results:
        assert value == expected[0]
        np.testing.assert_array_equal(gradient, expected[1])
