"""Cross sections (ld.CrossSection, CrossSectionIntegrals, Axis, Estimate, BinnedEstimate,
Ensemble): closure on a sample generated with a known cross section, the tutorial's relations
between observed and fitted totals, and the uncertainty arithmetic against direct computations."""

import math

import numpy as np
import pytest

import laddu_cpp as ld

# ---- a reaction with a known cross section ----
# I(x) = |e^{ix} + c e^{2ix} x|² on x in [0, 2]; the s wave alone is 1, the d wave |c|² x².
C_TRUE = 0.45 - 0.30j
SIGMA_TRUE = 40.0  # pb
LUMINOSITY = 100.0  # pb⁻¹: 4000 produced events expected
EDGES = np.linspace(0.0, 2.0, 5)


def intensity(x, c=C_TRUE, keep=("s", "d")):
    s = np.exp(1j * x) if "s" in keep else 0.0
    d = c * np.exp(2j * x) * x if "d" in keep else 0.0
    return np.abs(s + d) ** 2


def integral(lo, hi, keep=("s", "d")):
    # Gauss-Legendre on a polynomial of degree 2 in x (after |.|²: 1 + 2 Re(c e^{ix}) x + |c|² x²
    # is not polynomial, so use many nodes: exact to rounding for these smooth integrands).
    nodes, weights = np.polynomial.legendre.leggauss(64)
    x = 0.5 * (hi - lo) * nodes + 0.5 * (hi + lo)
    return 0.5 * (hi - lo) * float(np.sum(weights * intensity(x, keep=keep)))


def acceptance(x):
    return 0.25 + 0.2 * x


def model():
    x = ld.scalar("x")
    c0 = ld.complex(ld.parameter("a0", fixed=1.0), ld.parameter("b0", fixed=0.0))
    c1 = ld.complex(ld.parameter("a1", initial=0.3, bounds=(-3, 3)), ld.parameter("b1", initial=0.0, bounds=(-3, 3)))
    s = (c0 * ld.cis(x)).tagged("s")
    d = (c1 * ld.cis(2 * x) * x).tagged("d")
    return (s + d).norm_sqr()


def dataset(x, weights=None):
    kwargs = {} if weights is None else {"weights": np.asarray(weights, dtype=float)}
    return ld.Dataset.from_arrays(p4s={}, scalars={"x": np.asarray(x, dtype=float)}, **kwargs)


@pytest.fixture(scope="module")
def sample():
    rng = np.random.default_rng(20261204)
    # produced events: Poisson(σ L), x ∝ I(x) by accept-reject, then the detector keeps a fraction
    produced = rng.poisson(SIGMA_TRUE * LUMINOSITY)
    bound = intensity(np.linspace(0, 2, 2001)).max() * 1.05
    x = np.empty(0)
    while len(x) < produced:
        trial = rng.uniform(0, 2, 4 * produced)
        x = np.concatenate([x, trial[rng.uniform(0, bound, len(trial)) < intensity(trial)]])
    x = x[:produced]
    data_x = x[rng.random(produced) < acceptance(x)]
    generated_x = rng.uniform(0, 2, 40000)
    accepted_x = generated_x[rng.random(len(generated_x)) < acceptance(generated_x)]
    return {"data": dataset(data_x), "generated": dataset(generated_x), "accepted": dataset(accepted_x)}


@pytest.fixture(scope="module")
def analysis(sample):
    term = ld.NLL(ld.Model(model()), data=sample["data"], accepted_mc=sample["accepted"], name="signal")
    likelihood = ld.Likelihood([term])
    fit = likelihood.fit([0.3, 0.0])
    assert fit.converged
    boot = likelihood.bootstrap_fit(24, initial=fit.x, seed=11)
    xs = likelihood.cross_section("signal", generated_mc=sample["generated"], luminosity=LUMINOSITY,
                                  parameters=fit.x, ensemble=boot)
    return {"likelihood": likelihood, "fit": fit, "boot": boot, "xs": xs}


def within(estimate, truth, sigmas=3.0, floor=0.0):
    spread = math.hypot(estimate.std(), floor)
    assert abs(estimate.central - truth) < sigmas * spread, (estimate.central, truth, spread)


def test_closure_total_per_wave_and_differential(analysis):
    xs = analysis["xs"]
    total = integral(0, 2)
    observed = xs.observed_total()
    assert len(observed.draws) == 24
    within(observed, SIGMA_TRUE)
    # the bootstrap spread is the Poisson spread of the yield: about σ/√N_obs
    assert 0.4 < observed.std() / (SIGMA_TRUE / math.sqrt(analysis["likelihood"].terms[0].data_sum_weights)) < 2.0
    for wave in ("s", "d"):
        truth = SIGMA_TRUE * integral(0, 2, keep=(wave,)) / total
        within(xs.observed_total(tags=[wave]), truth)
    # interference: the coherent waves do not add up
    parts = xs.observed_total(tags=["s"]).central + xs.observed_total(tags=["d"]).central
    assert parts != pytest.approx(observed.central, rel=1e-3)
    assert xs.observed_total(tags=["s", "d"]).central == pytest.approx(observed.central, rel=1e-12)
    # the generated sample's acceptance
    within(xs.acceptance(), integral_weighted_acceptance(), floor=0.01)

    result = xs.differential(ld.Axis(ld.scalar("x"), edges=EDGES), components={"s": ["s"], "d": ["d"]})
    assert result.shape == [4] and result.edges == list(EDGES)
    widths = np.diff(EDGES)
    truth = np.array([SIGMA_TRUE * integral(a, b) / total for a, b in zip(EDGES[:-1], EDGES[1:])]) / widths
    low, high = result.data.interval(0.997)
    spread = np.std(np.array(result.data.draws), axis=0, ddof=1)
    assert np.all(np.abs(np.array(result.data.central) - truth) < 3.5 * spread)
    assert np.all(np.array(low) < np.array(high))
    # model integrates to the observed total; components on the same normalisation
    assert np.dot(result.model.central, widths) == pytest.approx(observed.central, rel=1e-3)
    for wave in ("s", "d"):
        assert np.dot(result.components[wave].central, widths) == pytest.approx(
            xs.observed_total(tags=[wave]).central, rel=1e-3)


def integral_weighted_acceptance():
    nodes, weights = np.polynomial.legendre.leggauss(64)
    x = nodes + 1.0
    return float(np.sum(weights * intensity(x) * acceptance(x)) / np.sum(weights * intensity(x)))


def test_extended_observed_and_fitted_totals(sample):
    expr = model() * ld.parameter("n", initial=10.0, bounds=(0.0, None))
    term = ld.ExtendedNLL(ld.Model(expr), data=sample["data"], accepted_mc=sample["accepted"], name="signal")
    likelihood = ld.Likelihood([term])
    fit = likelihood.fit([0.3, 0.0, 2.0])
    assert fit.converged
    xs = likelihood.cross_section("signal", generated_mc=sample["generated"], luminosity=LUMINOSITY, parameters=fit.x)
    # at the extended optimum the expected accepted yield is the observed one, so they coincide
    assert xs.fitted_total().central == pytest.approx(xs.observed_total().central, rel=1e-5)
    # away from it: σ_obs = N_obs / I_acc · σ_fit
    away = list(fit.x)
    away[2] *= 1.3
    xs = likelihood.cross_section("signal", generated_mc=sample["generated"], luminosity=LUMINOSITY, parameters=away)
    integrals = likelihood.cross_section_integrals("signal", generated_mc=sample["generated"])
    n_obs, i_acc = integrals.data_weight_sum, integrals.accepted_integral(away)
    assert xs.observed_total().central == pytest.approx(n_obs / i_acc * xs.fitted_total().central, rel=1e-12)
    assert xs.fitted_total().central == pytest.approx(1.3 * xs.observed_total().central * i_acc / n_obs / 1.3, rel=1e-12)
    assert xs.fitted_total(tags=["d"]).central == pytest.approx(
        integrals_for(likelihood, sample, ["d"]).generated_integral(away) / LUMINOSITY, rel=1e-12)


def integrals_for(likelihood, sample, tags):
    return likelihood.cross_section_integrals("signal", generated_mc=sample["generated"], tags=tags)


def test_integrals_against_direct_sums(analysis, sample):
    likelihood, p = analysis["likelihood"], analysis["fit"].x
    x_gen = sample["generated"].column("x")
    x_acc = sample["accepted"].column("x")
    c = complex(p[0], p[1])
    for tags, keep in ((None, ("s", "d")), (["d"], ("d",)), (["s"], ("s",))):
        ints = likelihood.cross_section_integrals("signal", generated_mc=sample["generated"], tags=tags)
        acc = math.fsum(intensity(x_acc, c, keep))
        gen = math.fsum(intensity(x_gen, c, keep))
        full = math.fsum(intensity(x_acc, c))
        assert ints.accepted_integral(p) == pytest.approx(acc, rel=1e-12)
        assert ints.generated_integral(p) == pytest.approx(gen, rel=1e-12)
        assert ints.full_accepted_integral(p) == pytest.approx(full, rel=1e-12)
        assert ints.acceptance(p) == pytest.approx(acc / gen, rel=1e-12)
        n = ints.data_weight_sum
        assert ints.observed_cross_section(p, luminosity=2.0) == pytest.approx(n * gen / full / 2.0, rel=1e-12)
        assert ints.cross_section(p, luminosity=2.0) == ints.observed_cross_section(p, luminosity=2.0)
        assert ints.acceptance_corrected_yield(p, accepted_yield=7.0) == pytest.approx(7.0 * gen / acc, rel=1e-12)
        with pytest.raises(ld.ModelError, match="shape-only"):
            ints.fitted_cross_section(p, luminosity=1.0)
        # a dict by name gives the same numbers; an unknown name is a TypeError, as in laddu
        assert ints.generated_integral({"a1": p[0], "b1": p[1]}) == ints.generated_integral(p)
        with pytest.raises(TypeError, match="unknown free parameter"):
            ints.generated_integral({"nope": 1.0})


def test_bootstrap_draws_use_their_replica_data(analysis, sample):
    xs, boot = analysis["xs"], analysis["boot"]
    assert len(boot.replicas) == len(boot) == 24 and boot.seeds == list(range(11, 35))
    draws = xs.observed_total().draws
    for k in (0, 5):
        replica = boot.replicas[k]
        direct = replica.cross_section("signal", generated_mc=sample["generated"], luminosity=LUMINOSITY,
                                       parameters=boot.draws[k]).observed_total().central
        assert draws[k] == pytest.approx(direct, rel=1e-13)
    # the replica data differ from the original, so the yields do too
    yields = {r.terms[0].data_sum_weights for r in boot.replicas}
    assert len(yields) > 20


def test_multidimensional_axes_are_row_major(analysis, sample):
    xs = analysis["xs"]
    axes = [ld.Axis(ld.scalar("x"), edges=[0.0, 1.0, 2.0]), ld.Axis(ld.scalar("x") * ld.scalar("x"), edges=[0.0, 0.5, 4.0])]
    result = xs.differential(axes)
    assert result.shape == [2, 2] and result.axes == [[0.0, 1.0, 2.0], [0.0, 0.5, 4.0]]
    with pytest.raises(ld.ModelError, match="one-dimensional"):
        result.edges
    model = np.array(result.model.central).reshape(result.shape)
    # x in [1, 2) has x² >= 1 > 0.5, so bin (1, 0) is empty: zero model, NaN data (no acceptance)
    assert model[1, 0] == 0.0 and math.isnan(np.array(result.data.central).reshape(2, 2)[1, 0])
    volumes = np.array([[1.0 * 0.5, 1.0 * 3.5], [1.0 * 0.5, 1.0 * 3.5]])
    one_d = xs.differential(ld.Axis(ld.scalar("x"), edges=[0.0, 1.0, 2.0]))
    np.testing.assert_allclose((model * volumes).sum(axis=1), one_d.model.central, rtol=1e-12)


def test_combination_pools_exposures(analysis, sample):
    xs = analysis["xs"]
    likelihood = analysis["likelihood"]
    other = likelihood.cross_section("signal", generated_mc=sample["generated"], luminosity=2 * LUMINOSITY,
                                     parameters=analysis["fit"].x)
    combined = ld.CrossSection.combine([xs, other])
    n = likelihood.terms[0].data_sum_weights
    eps = xs.acceptance().central
    # two measurements of the same yield: (N + N) / (L ε + 2 L ε)
    assert combined.observed_total().central == pytest.approx(2 * n / (3 * LUMINOSITY * eps), rel=1e-12)
    half = ld.CrossSection.combine([xs, other], factors=[1.0, 0.5])
    assert half.observed_total().central == pytest.approx(2 * n / (2 * LUMINOSITY * eps), rel=1e-12)
    # draws: the members with an ensemble give them (`other` contributes its central values)
    draws = combined.observed_total().draws
    assert len(draws) == 24 and np.std(draws) > 0
    with pytest.raises(ld.ModelError, match="combined"):
        combined.acceptance()
    with pytest.raises(ld.ModelError, match="positive"):
        ld.CrossSection.combine([xs, other], factors=[1.0, 0.0])
    with pytest.raises(ld.ModelError, match="at least one"):
        ld.CrossSection.combine([])
    result = combined.differential(ld.Axis(ld.scalar("x"), edges=EDGES))
    assert result.shape == [4] and np.all(np.isfinite(result.data.central))


def test_estimate_arithmetic_keeps_correlations():
    a = ld.Estimate(2.0, draws=[1.0, 3.0], source_id=17)
    scaled = a * 4.0
    assert scaled.central == 8.0 and list(scaled.draws) == [4.0, 12.0] and scaled.source_id == 17
    assert list((a - a).draws) == [0.0, 0.0]  # same source: draw by draw
    b = ld.Estimate(1.0, draws=[10.0, 20.0, 30.0])
    assert b.source_id not in (None, 17)
    mixed = a + b
    assert mixed.central == 3.0 and len(mixed.draws) == 2 and mixed.source_id not in (17, b.source_id)
    # laddu's pairing of unrelated sources: index (k · 6364136223846793005 + 1) mod 2^64 mod 3
    pairs = [((k * 6364136223846793005 + 1) % 2**64) % 3 for k in range(2)]
    assert list(mixed.draws) == [a.draws[k] + b.draws[j] for k, j in enumerate(pairs)]
    assert (2.0 * a).central == 4.0 and (1.0 - a).central == -1.0 and (8.0 / a).central == 4.0
    with pytest.raises(TypeError):
        a + "x"


def test_estimate_statistics():
    draws = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]
    e = ld.Estimate(3.5, draws=draws)
    assert e.mean() == pytest.approx(np.mean(draws), rel=1e-15)
    assert e.std() == pytest.approx(np.std(draws, ddof=1), rel=1e-15)
    for q in (0.0, 0.16, 0.5, 0.84, 1.0):
        assert e.quantile(q) == pytest.approx(np.quantile(draws, q), rel=1e-15)
    assert e.median() == np.median(draws)
    assert e.interval(0.68) == pytest.approx((np.quantile(draws, 0.16), np.quantile(draws, 0.84)))
    with pytest.raises(ld.ModelError, match=r"\[0, 1\]"):
        e.quantile(1.5)
    with pytest.raises(ld.ModelError, match=r"\(0, 1\)"):
        e.interval(1.0)
    lone = ld.Estimate(1.0)
    assert lone.source_id is None and len(lone.draws) == 0
    with pytest.raises(ld.ModelError, match="uncertainty draw"):
        lone.std()
    with pytest.raises(ld.ModelError, match="finite"):
        ld.Estimate(math.nan)
    with pytest.raises(ld.ModelError, match="finite"):
        ld.Estimate(1.0, draws=[1.0, math.inf])


def test_binned_estimate_covariance_and_intervals(analysis):
    result = analysis["xs"].differential(ld.Axis(ld.scalar("x"), edges=EDGES))
    draws = np.array(result.model.draws)
    np.testing.assert_allclose(result.model.covariance(), np.cov(draws, rowvar=False), rtol=1e-12, atol=1e-15)
    low, high = result.model.interval(0.9)
    np.testing.assert_allclose(low, np.quantile(draws, 0.05, axis=0), rtol=1e-14)
    np.testing.assert_allclose(high, np.quantile(draws, 0.95, axis=0), rtol=1e-14)


def test_ensembles_from_arrays_and_mcmc():
    e = ld.Ensemble.from_arrays([[1.0, 2.0], [3.0, 4.0]], parameter_names=["a", "b"], source_id=5)
    assert len(e) == 2 and e.source_id == 5 and e.parameter_names == ["a", "b"]
    np.testing.assert_array_equal(e.draws, [[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ld.ModelError, match="finite"):
        ld.Ensemble.from_arrays([[1.0, math.nan]], parameter_names=["a", "b"])
    with pytest.raises(ld.ModelError, match="at least one draw"):
        ld.Ensemble.from_arrays(np.empty((0, 2)), parameter_names=["a", "b"])

    class Summary:  # the two attributes Ensemble.from_mcmc reads
        parameter_names = ["x"]
        chain = np.arange(8.0).reshape(2, 4, 1)

    thinned = ld.Ensemble.from_mcmc(Summary(), discard=1, thin=2)
    np.testing.assert_array_equal(thinned.draws, [[1.0], [3.0], [5.0], [7.0]])
    with pytest.raises(ld.ModelError, match="discard"):
        ld.Ensemble.from_mcmc(Summary(), discard=4)
    with pytest.raises(ld.ModelError, match="thinning"):
        ld.Ensemble.from_mcmc(Summary(), discard=0, thin=0)


def test_mcmc_ensemble_propagates_into_the_cross_section(analysis, sample):
    likelihood = analysis["likelihood"]
    init = ld.ganesh.AIESInit(likelihood.walker_positions(analysis["fit"].x, 6, scale=1e-2, seed=1))
    summary = likelihood.sample(init, seed=3, terminators=[ld.ganesh.MaxSteps(30)])
    ensemble = ld.Ensemble.from_mcmc(summary, discard=10, thin=5)
    steps = summary.chain.shape[1]
    assert len(ensemble) == 6 * len(range(10, steps, 5))
    np.testing.assert_array_equal(ensemble.draws[1], summary.chain[0, 15])
    xs = likelihood.cross_section("signal", generated_mc=sample["generated"], luminosity=LUMINOSITY,
                                  parameters=analysis["fit"].x, ensemble=ensemble)
    observed = xs.observed_total()
    # posterior draws against the original data: the spread is the model's, not the yield's
    assert len(observed.draws) == len(ensemble) and observed.std() < analysis["xs"].observed_total().std()


def test_bad_input_is_refused_with_the_remedy(analysis, sample):
    likelihood, p = analysis["likelihood"], analysis["fit"].x
    with pytest.raises(ld.ModelError, match="luminosity"):
        likelihood.cross_section("signal", generated_mc=sample["generated"], luminosity=0.0, parameters=p)
    with pytest.raises(ld.ModelError, match="no term named"):
        likelihood.cross_section("nope", generated_mc=sample["generated"], luminosity=1.0, parameters=p)
    with pytest.raises(ld.ModelError, match="expected 2 parameter values"):
        likelihood.cross_section("signal", generated_mc=sample["generated"], luminosity=1.0, parameters=[1.0])
    with pytest.raises(TypeError, match="Dataset"):
        likelihood.cross_section("signal", generated_mc=[1.0], luminosity=1.0, parameters=p)
    wrong = ld.Ensemble.from_arrays([[1.0, 2.0]], parameter_names=["b1", "a1"])
    with pytest.raises(ld.ModelError, match="ensemble parameter names"):
        likelihood.cross_section("signal", generated_mc=sample["generated"], luminosity=1.0, parameters=p, ensemble=wrong)
    with pytest.raises(ld.ModelError, match="increasing"):
        ld.Axis(ld.scalar("x"), edges=[0.0, 0.0, 1.0])
    with pytest.raises(ld.ModelError, match="increasing"):
        ld.Axis(ld.scalar("x"), edges=[0.0])
    with pytest.raises(TypeError, match="Expr"):
        ld.Axis("x", edges=[0.0, 1.0])
    with pytest.raises(ld.ModelError, match="at least one differential axis"):
        analysis["xs"].differential([])
    assert ld.Model(model()).amplitude_tags == ["d", "s"]
    with pytest.raises(ld.ModelError, match=r"no amplitude tagged 'unknown'; its tags are \[d, s\]"):
        analysis["xs"].observed_total(tags=["unknown"])
    with pytest.raises(ld.ModelError, match="tags is empty"):
        analysis["xs"].observed_total(tags=[])
    for cls in (ld.CrossSection, ld.CrossSectionIntegrals, ld.DifferentialCrossSection, ld.BinnedEstimate, ld.Ensemble):
        with pytest.raises(TypeError):
            cls()
