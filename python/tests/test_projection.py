"""Projections, fit fractions, bootstrap fits and sample_parameters, against numpy sums."""

import numpy as np
import pytest

import laddu_cpp as ld

from test_generation import counter_uniform


def events(n, seed):
    rng = np.random.default_rng(seed)
    return ld.Dataset.from_arrays(scalars={"x": rng.uniform(-1, 1, n)}, weights=rng.uniform(0.5, 1.5, n))


def tagged_model():
    x = ld.scalar("x")
    c0 = ld.complex(ld.parameter("a0", fixed=1.0), ld.parameter("b0", fixed=0.0))
    c1 = ld.complex(ld.parameter("a1", initial=0.5, bounds=(-3, 3)), ld.parameter("b1", initial=0.2, bounds=(-3, 3)))
    s_wave = (c0 * ld.cis(x)).tagged("s")
    d_wave = (c1 * ld.cis(2 * x) * x).tagged("d")
    return ld.Model((s_wave + d_wave).norm_sqr())


def intensities(x, p, keep=("s", "d")):
    a1, b1 = p
    s = np.exp(1j * x) if "s" in keep else 0
    d = (a1 + 1j * b1) * np.exp(2j * x) * x if "d" in keep else 0
    return np.abs(s + d) ** 2


P = [0.4, -0.3]


def test_projection_weights_follow_laddus_definition():
    data, mc = events(1500, 1), events(4000, 2)
    nll = ld.NLL(tagged_model(), data=data, accepted_mc=mc)
    xm, wm = mc.column("x"), mc.weights()
    scale = data.sum_weights() / np.sum(wm * intensities(xm, P))
    full = nll.projection().weights(P)
    np.testing.assert_allclose(full, wm * intensities(xm, P) * scale, rtol=1e-12)
    assert full.sum() == pytest.approx(data.sum_weights(), rel=1e-12)  # the fitted yield
    for tags in (["s"], ["d"], "d"):
        keep = [tags] if isinstance(tags, str) else tags
        np.testing.assert_allclose(nll.projection(tags=tags).weights(P),
                                   wm * intensities(xm, P, keep) * scale, rtol=1e-12)
        np.testing.assert_allclose(nll.projection_weights(P, tags=tags),
                                   wm * intensities(xm, P, keep) * scale, rtol=1e-12)
    with pytest.raises(ld.ModelError, match="p_wave"):
        nll.projection(tags=["p_wave"]).weights(P)


def test_likelihood_projection_maps_parameters_by_name():
    data, mc = events(800, 3), events(2000, 4)
    first = ld.NLL(tagged_model(), data=data, accepted_mc=mc, name="first")
    x = ld.scalar("x")
    other = ld.Model((ld.parameter("g", initial=1.0, bounds=(0.1, 5)) + ld.parameter("a1", initial=0.5, bounds=(-3, 3)) * x).norm_sqr() + 1)
    second = ld.NLL(other, data=events(300, 5), accepted_mc=events(300, 6), name="second")
    likelihood = ld.Likelihood([second, first])
    assert likelihood.parameter_names == ["g", "a1", "b1"]
    params = {"g": 2.0, "a1": P[0], "b1": P[1]}
    projection = likelihood.projection(first, tags=["d"])
    np.testing.assert_array_equal(projection.weights(params), first.projection(tags=["d"]).weights(P))
    np.testing.assert_array_equal(projection.weights([2.0, P[0], P[1]]), projection.weights(params))
    with pytest.raises(ld.ModelError, match="not part of this likelihood"):
        ld.Likelihood([second]).projection(first)
    by_name = likelihood.projection("first", tags=["d"])
    np.testing.assert_array_equal(by_name.weights(params), projection.weights(params))
    with pytest.raises(ld.ModelError, match="no term named 'third'"):
        likelihood.projection("third")


def test_projection_onto_generated_mc_is_acceptance_corrected():
    data, accepted = events(800, 3), events(2000, 4)
    generated = events(5000, 12)
    term = ld.NLL(tagged_model(), data=data, accepted_mc=accepted, name="signal")
    likelihood = ld.Likelihood([term])
    xa, wa = accepted.column("x"), accepted.weights()
    xg, wg = generated.column("x"), generated.weights()
    scale = data.sum_weights() / np.sum(wa * intensities(xa, P))
    for tags, keep in ((None, ["s", "d"]), (["d"], ["d"]), (["s"], ["s"])):
        projection = likelihood.projection("signal", generated_mc=generated, tags=tags)
        np.testing.assert_allclose(projection.weights(P, acceptance_corrected=True),
                                   wg * intensities(xg, P, keep) * scale, rtol=1e-12)
        np.testing.assert_array_equal(projection.weights(P, acceptance_corrected=False),
                                      term.projection(tags=tags).weights(P))
    # On the accepted MC itself the two agree.
    same = likelihood.projection(term, generated_mc=accepted, tags=["d"])
    np.testing.assert_allclose(same.weights({"a1": P[0], "b1": P[1]}),
                               same.weights(P, acceptance_corrected=False), rtol=1e-12)
    extended = ld.ExtendedNLL(tagged_model(), data=data, accepted_mc=accepted)
    weights = ld.Likelihood([extended]).projection(extended, generated_mc=generated).weights(P)
    np.testing.assert_allclose(weights, wg * intensities(xg, P), rtol=1e-12)  # no rescaling


def test_fit_fraction_and_its_gradient():
    data, mc = events(1000, 7), events(3000, 8)
    nll = ld.NLL(tagged_model(), data=data, accepted_mc=mc)
    xm, wm = mc.column("x"), mc.weights()

    def fraction(p):
        return np.sum(wm * intensities(xm, p, ["d"])) / np.sum(wm * intensities(xm, p))

    value, gradient = nll.fit_fraction(P, ["d"])
    assert value == pytest.approx(fraction(P), rel=1e-12)
    h = 1e-6
    for k in range(2):
        up, down = list(P), list(P)
        up[k] += h
        down[k] -= h
        assert gradient[k] == pytest.approx((fraction(up) - fraction(down)) / (2 * h), rel=1e-6)
    with pytest.raises(ld.ModelError):
        nll.fit_fraction(P, [])


def test_fit_result_fit_fraction_propagates_the_covariance():
    truth = [0.6, -0.4]
    mc = events(20000, 9)
    intensity = intensities(mc.column("x"), truth)
    data = ld.accept_reject(mc, intensity, seed=1)
    nll = ld.NLL(tagged_model(), data=data, accepted_mc=mc)
    result = ld.Likelihood([nll]).fit()
    assert result.converged
    value, sigma = result.fit_fraction(nll, ["d"])
    f, g = nll.fit_fraction(result.values, ["d"])
    assert value == f
    assert sigma == pytest.approx(np.sqrt(g @ result.covariance @ g), rel=1e-12)
    assert 0 < sigma < 0.1


def test_bootstrap_fit_refits_each_poisson_replica():
    model = tagged_model()
    data, mc = events(600, 10), events(1500, 11)
    boot = ld.bootstrap_fit(model, data=data, accepted_mc=mc, samples=3, seed=5)
    assert boot.seeds == [5, 6, 7]
    assert len(boot) == 3
    values = []
    for seed, fit in zip(boot.seeds, boot.fits):
        replica = ld.NLL(model, data=data.bootstrap(seed), accepted_mc=mc)
        direct = ld.Likelihood([replica]).fit(model.default_parameters)
        np.testing.assert_allclose(fit.values, direct.values, rtol=1e-10, atol=1e-12)
        values.append(fit.values)
    np.testing.assert_allclose(boot.mean(), np.mean(values, axis=0), rtol=1e-12)
    np.testing.assert_allclose(boot.std(), np.std(values, axis=0, ddof=1), rtol=1e-10)
    with pytest.raises(ld.FitError):
        ld.bootstrap_fit(model, data=data, accepted_mc=mc, samples=0)


def test_likelihood_bootstrap_fit_resamples_every_nll_term():
    model = tagged_model()
    data, mc = events(600, 10), events(1500, 11)
    term = ld.NLL(model, data=data, accepted_mc=mc, name="signal")
    penalty = ld.RidgePenalty(["a1"], lambda_=0.5)
    likelihood = ld.Likelihood([term, penalty])
    boot = likelihood.bootstrap_fit(3, initial=[0.5, 0.2], seed=40, terminators=[ld.ganesh.MaxSteps(200)])
    assert boot.seeds == [40, 41, 42]
    for seed, fit in zip(boot.seeds, boot.fits):
        replica = ld.NLL(model, data=data.bootstrap(seed), accepted_mc=mc, name="signal")
        direct = ld.Likelihood([replica, penalty]).fit([0.5, 0.2], max_steps=200)
        np.testing.assert_array_equal(fit.values, direct.values)
    values = np.array([f.values for f in boot.fits])
    np.testing.assert_allclose(boot.std(), values.std(axis=0, ddof=1), rtol=1e-12)
    # Without a penalty and from the same start the C++ bootstrap agrees.
    cpp = ld.bootstrap_fit(model, data=data, accepted_mc=mc, samples=2, seed=40, initial=[0.5, 0.2])
    python = ld.Likelihood([term]).bootstrap_fit(2, initial=[0.5, 0.2], seed=40)
    for a, b in zip(cpp.fits, python.fits):
        np.testing.assert_allclose(a.values, b.values, rtol=1e-10, atol=1e-12)
    with pytest.raises(ld.FitError, match="at least one sample"):
        likelihood.bootstrap_fit(0)


def wyrand_stream(seed):
    """fastrand 2.5's wyrand (laddu's parameter sampling), in big integers: f64() values."""
    state = seed
    while True:
        state = (state + 0x2D358DCCAA6C78A5) % 2**64
        t = state * (state ^ 0x8BB84B93962EACC9)
        u = float((((t % 2**64) ^ (t >> 64)) >> 1)) * 2.0**-63
        if u < 1.0:
            yield u


def test_sample_parameters_draws_the_initial_ranges_with_laddus_generator():
    mass = ld.parameter("mass", initial=1.0, bounds=(0.5, 1.5))
    free = ld.parameter("free", initial=(0.25, 0.75))
    half_open = ld.parameter("scale", initial=(1.0, 3.0), bounds=(0.0, None))
    model = ld.Model((mass + free * ld.scalar("x") + half_open).norm_sqr())
    nll = ld.NLL(model, data=events(10, 1), accepted_mc=events(10, 2))
    likelihood = ld.Likelihood([nll])
    sample = likelihood.sample_parameters(seed=9)
    draws = wyrand_stream(9)
    # a value stays; each range takes the next draw u · (high − low) + low
    assert sample == [1.0, next(draws) * 0.5 + 0.25, next(draws) * 2.0 + 1.0]
    assert model.sample_parameters(seed=9) == sample
    assert likelihood.sample_parameters(seed=10) != sample
    assert likelihood.default_parameters == [1.0, 0.5, 2.0]
    with pytest.raises(ld.ModelError, match="initial range"):
        ld.parameter("bad", initial=(2.0, 3.0), bounds=(0.0, 2.5))
    with pytest.raises(ld.ModelError, match="low <= high"):
        ld.parameter("bad", initial=(3.0, 2.0))
