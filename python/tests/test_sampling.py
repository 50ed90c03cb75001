"""Likelihood.sample (the affine-invariant ensemble sampler) and walker_positions from Python:
the Breit-Wigner closure posterior against the fit's Hessian errors, every option of the
ld.ganesh settings changing the run, the summary's fields and the errors."""

import numpy as np
import pytest

import laddu_cpp as ld
from test_fit import model, samples  # noqa: F401  (the closure model and its data fixture)


@pytest.fixture(scope="module")
def fitted(samples):  # noqa: F811
    data, mc, _ = samples
    likelihood = ld.Likelihood([ld.NLL(model(), data=data, accepted_mc=mc)])
    return likelihood, likelihood.fit({"mass": 0.97, "width": 0.09})


def test_posterior_width_agrees_with_the_hessian_errors(fitted):
    likelihood, fit = fitted
    walkers = likelihood.walker_positions(fit.values, 24, scale=1e-2, seed=1)
    assert walkers.shape == (24, 2)
    summary = likelihood.sample(ld.ganesh.AIESInit(walkers), seed=2, terminators=[ld.ganesh.MaxSteps(1500)],
                                config=ld.ganesh.AIESConfig(parameter_names=likelihood.parameter_names))
    assert summary.dimension == (24, 1501, 2)
    assert summary.chain.shape == (24, 1501, 2)
    assert summary.evals.f == 24 * 1501
    assert summary.message.success and summary.message.text == "Maximum number of steps reached"
    assert summary.parameter_names == ["mass", "width"]
    tau = summary.autocorrelation_times(discard=0.3)
    assert np.all(np.asarray(tau) < 60)
    kept = summary.chain[:, 450:, :].reshape(-1, 2)
    effective = kept.shape[0] / max(tau)
    for k, name in enumerate(likelihood.parameter_names):
        error = fit.uncertainties[k]
        # The posterior of a large sample is the Gaussian of the Hessian: its width within 15 %,
        # its mean within 4 Monte Carlo errors of the minimum.
        assert np.std(kept[:, k]) == pytest.approx(error, rel=0.15), name
        assert abs(np.mean(kept[:, k]) - fit.values[k]) < 4 * error / np.sqrt(effective) + 0.1 * error, name
    assert all(0.2 < a < 0.9 for a in summary.acceptance_fraction)


def test_every_option_changes_the_run(fitted):
    likelihood, fit = fitted
    init = ld.ganesh.AIESInit(likelihood.walker_positions(fit.values, 8, scale=1e-2, seed=3))
    stop = [ld.ganesh.MaxSteps(30)]
    base = likelihood.sample(init, seed=4, terminators=stop).chain
    np.testing.assert_array_equal(base, likelihood.sample(init, seed=4, terminators=stop).chain)
    assert not np.array_equal(base, likelihood.sample(init, seed=5, terminators=stop).chain)
    variants = [
        ld.ganesh.AIESConfig(stretch_scale=3.0),
        ld.ganesh.AIESConfig(moves=[ld.ganesh.AIESMove.walk()]),
        ld.ganesh.AIESConfig(moves=[ld.ganesh.AIESMove.stretch(scale=1.5)]),
        ld.ganesh.AIESConfig(moves=[ld.ganesh.AIESMove.stretch(weight=0.5), ld.ganesh.AIESMove.walk(weight=0.5)]),
    ]
    for config in variants:
        assert not np.array_equal(base, likelihood.sample(init, config=config, seed=4, terminators=stop).chain), config
    rolling = likelihood.sample(init, config=ld.ganesh.AIESConfig(chain_storage=ld.ganesh.ChainStorage.rolling(5)),
                                seed=4, terminators=stop)
    np.testing.assert_array_equal(rolling.chain, base[:, -5:, :])
    sampled = likelihood.sample(init, config=ld.ganesh.AIESConfig(chain_storage=ld.ganesh.ChainStorage.sampled(10)),
                                seed=4, terminators=stop)
    np.testing.assert_array_equal(sampled.chain, base[:, ::10, :])
    capped = likelihood.sample(
        init, config=ld.ganesh.AIESConfig(chain_storage=ld.ganesh.ChainStorage.sampled(10, max_samples=2)),
        seed=4, terminators=stop)
    np.testing.assert_array_equal(capped.chain, base[:, 20::10, :])
    full = likelihood.sample(init, config=ld.ganesh.AIESConfig(chain_storage=ld.ganesh.ChainStorage.full()),
                             seed=4, terminators=stop)
    np.testing.assert_array_equal(full.chain, base)


def test_threads_evaluate_walkers_at_once_and_give_the_same_chain(samples):  # noqa: F811
    data, mc, _ = samples
    # One thread per evaluation, so the walkers' evaluations really overlap.
    likelihood = ld.Likelihood([ld.NLL(model(), data=data, accepted_mc=mc, execution=ld.Execution(threads=1))])
    center = {"mass": 0.97, "width": 0.09}
    init = ld.ganesh.AIESInit(likelihood.walker_positions(center, 12, scale=1e-2, seed=3))
    stop = [ld.ganesh.MaxSteps(40)]
    serial = likelihood.sample(init, seed=4, terminators=stop)
    for threads in (2, 5):
        parallel = likelihood.sample(init, seed=4, terminators=stop, threads=threads)
        np.testing.assert_array_equal(parallel.chain, serial.chain)
        np.testing.assert_array_equal(parallel.acceptance_fraction, serial.acceptance_fraction)
        assert parallel.evals.f == serial.evals.f
    with pytest.raises(ValueError, match="threads must be between 1"):
        likelihood.sample(init, terminators=stop, threads=0)
    with pytest.raises(ValueError, match="affine-invariant sampler"):
        likelihood.sample(ld.ganesh.ESSInit(init.walkers), terminators=stop, threads=2)


def test_terminators_and_observers(fitted, capsys):
    likelihood, fit = fitted
    init = ld.ganesh.AIESInit(likelihood.walker_positions(fit.values, 16, scale=1e-2, seed=6))
    check = ld.ganesh.AutocorrelationTerminator(n_check=100, n_taus_threshold=20, dtau_threshold=0.2, verbose=True)
    summary = likelihood.sample(init, seed=7, terminators=[check, ld.ganesh.MaxSteps(20000)])
    assert summary.message.success and summary.message.text.startswith("converged")
    assert summary.dimension[1] < 20001 and len(check.taus) >= 1
    assert "Integrated Autocorrelation Analysis" in capsys.readouterr().out
    # terminate=False only records τ.
    quiet = ld.ganesh.AutocorrelationTerminator(n_check=50, terminate=False)
    summary = likelihood.sample(init, seed=7, terminators=[quiet, ld.ganesh.MaxSteps(200)])
    assert summary.dimension[1] == 201 and len(quiet.taus) == 4
    seen = []
    summary = likelihood.sample(init, seed=7, terminators=[lambda step, status: step == 5],
                                observers=[lambda step, status: seen.append((step, status.step, status.message))])
    assert summary.dimension[1] == 6
    assert seen[0] == (1, 1, "Stretch Move") and len(seen) == 5
    assert summary.message.text == "stopped by a terminator"


def test_bad_input_is_an_error(fitted):
    likelihood, fit = fitted
    walkers = likelihood.walker_positions(fit.values, 4, seed=1)
    with pytest.raises(ld.ModelError, match="needs a terminator"):
        likelihood.sample(ld.ganesh.AIESInit(walkers))
    with pytest.raises(ValueError, match="each walker needs 2 values"):
        likelihood.sample(ld.ganesh.AIESInit(np.ones((4, 3))), terminators=[ld.ganesh.MaxSteps(2)])
    with pytest.raises(ValueError, match="at least 2 walkers"):
        ld.ganesh.AIESInit(np.ones((1, 2)))
    with pytest.raises(ValueError, match="transform"):
        ld.ganesh.AIESConfig(transform=object())
    with pytest.raises(ValueError, match=r"AIESConfig.parameter_names must be the likelihood's parameter names \[mass, width\]"):
        likelihood.sample(ld.ganesh.AIESInit(walkers), config=ld.ganesh.AIESConfig(parameter_names=["width", "mass"]),
                          terminators=[ld.ganesh.MaxSteps(2)])
    # Without a config the summary still names the parameters (as laddu's).
    plain = likelihood.sample(ld.ganesh.AIESInit(walkers), terminators=[ld.ganesh.MaxSteps(2)])
    assert plain.parameter_names == ["mass", "width"]
    with pytest.raises(ValueError, match="stretch scale"):
        ld.ganesh.AIESMove.stretch(scale=1.0)
    with pytest.raises(TypeError, match="observers must be callables"):
        likelihood.sample(ld.ganesh.AIESInit(walkers), terminators=[ld.ganesh.MaxSteps(2)], observers=[3])
    with pytest.raises(TypeError, match="must return a bool"):
        likelihood.sample(ld.ganesh.AIESInit(walkers), terminators=[lambda step, status: None])
    outside = np.array([[5.0, 0.1], [5.1, 0.1]])
    with pytest.raises(ld.ModelError, match="walker 0 starts where the log density is -inf"):
        likelihood.sample(ld.ganesh.AIESInit(outside), terminators=[ld.ganesh.MaxSteps(2)])
    with pytest.raises(ld.ModelError, match="could not generate a bounded walker coordinate for `mass`"):
        likelihood.walker_positions({"mass": 1.2, "width": 0.1}, 4, scale=1e6)
    with pytest.raises(ld.ModelError, match="n_walkers must be at least 2"):
        likelihood.walker_positions(fit.values, 1)
