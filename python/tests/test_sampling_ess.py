"""Likelihood.sample with the ensemble slice sampler (ld.ganesh.ESSInit / ESSConfig / ESSMove):
the Breit-Wigner closure posterior against the fit's Hessian errors, every ESSConfig and ESSMove
option changing the run, and the type and value errors."""

import numpy as np
import pytest

import laddu_cpp as ld
from test_fit import model, samples  # noqa: F401  (the closure model and its data fixture)

ganesh = ld.ganesh


@pytest.fixture(scope="module")
def fitted(samples):  # noqa: F811
    data, mc, _ = samples
    likelihood = ld.Likelihood([ld.NLL(model(), data=data, accepted_mc=mc)])
    return likelihood, likelihood.fit({"mass": 0.97, "width": 0.09})


@pytest.mark.parametrize("moves", [None, [ganesh.ESSMove.gaussian()],
                                   [ganesh.ESSMove.differential(weight=0.6), ganesh.ESSMove.global_(weight=0.4)]])
def test_posterior_width_agrees_with_the_hessian_errors(fitted, moves):
    likelihood, fit = fitted
    walkers = likelihood.walker_positions(fit.values, 12, scale=1e-2, seed=1)
    config = ganesh.ESSConfig(moves=moves, adaptive_steps=20, parameter_names=likelihood.parameter_names)
    summary = likelihood.sample(ganesh.ESSInit(walkers), config=config, seed=2,
                                terminators=[ganesh.MaxSteps(600)])
    assert summary.dimension == (12, 601, 2)
    assert summary.message.success and summary.message.text == "Maximum number of steps reached"
    assert summary.parameter_names == ["mass", "width"]
    # Every slice update moves its walker and costs at least three evaluations.
    assert summary.acceptance_fraction == [1.0] * 12
    assert summary.evals.f >= 12 * (1 + 3 * 600)
    tau = summary.autocorrelation_times(discard=0.2)
    assert np.all(np.asarray(tau) < 30), tau
    kept = summary.chain[:, 120:, :].reshape(-1, 2)
    effective = kept.shape[0] / max(tau)
    for k, name in enumerate(likelihood.parameter_names):
        error = fit.uncertainties[k]
        # The posterior of a large sample is the Gaussian of the Hessian: its width within 15 %,
        # its mean within 4 Monte Carlo errors of the minimum.
        assert np.std(kept[:, k]) == pytest.approx(error, rel=0.15), name
        assert abs(np.mean(kept[:, k]) - fit.values[k]) < 4 * error / np.sqrt(effective) + 0.1 * error, name


def test_every_option_changes_the_run(fitted):
    likelihood, fit = fitted
    init = ganesh.ESSInit(likelihood.walker_positions(fit.values, 8, scale=1e-2, seed=3))
    stop = [ganesh.MaxSteps(30)]

    def run(config=None, seed=4):
        return likelihood.sample(init, config=config, seed=seed, terminators=stop).chain

    base = run()
    np.testing.assert_array_equal(base, run())
    np.testing.assert_array_equal(base, run(ganesh.ESSConfig()))  # the defaults are the defaults
    assert not np.array_equal(base, run(seed=5))
    move = getattr(ganesh.ESSMove, "global")  # laddu's spelling
    variants = [
        ganesh.ESSConfig(bracket_width=0.3),
        ganesh.ESSConfig(direction_scale=3.0),
        ganesh.ESSConfig(adaptive_steps=10),
        ganesh.ESSConfig(moves=[ganesh.ESSMove.gaussian()]),
        ganesh.ESSConfig(moves=[move()]),
        ganesh.ESSConfig(moves=[ganesh.ESSMove.differential(weight=0.5), ganesh.ESSMove.gaussian(weight=0.5)]),
    ]
    for config in variants:
        assert not np.array_equal(base, run(config)), config
    # Move weights decide which move a step takes; (move, weight) pairs set them too.
    d, g = ganesh.ESSMove.differential, ganesh.ESSMove.gaussian
    mostly_d = run(ganesh.ESSConfig(moves=[d(weight=0.9), g(weight=0.1)]))
    assert not np.array_equal(mostly_d, run(ganesh.ESSConfig(moves=[d(weight=0.1), g(weight=0.9)])))
    np.testing.assert_array_equal(mostly_d, run(ganesh.ESSConfig(moves=[(d(), 0.9), (g(), 0.1)])))
    # The global move's own settings.
    global_base = run(ganesh.ESSConfig(moves=[move()]))
    for changed in (move(scale=0.3), move(rescale_covariance=0.5), move(components=2)):
        assert not np.array_equal(global_base, run(ganesh.ESSConfig(moves=[changed]))), changed
    # max_shrink_steps = 1 truncates the wide brackets a small bracket width needs.
    short = [ganesh.MaxSteps(2)]
    tiny = likelihood.sample(init, config=ganesh.ESSConfig(bracket_width=1e-2), seed=4, terminators=short)
    capped = likelihood.sample(init, config=ganesh.ESSConfig(bracket_width=1e-2, max_shrink_steps=1), seed=4,
                               terminators=short)
    assert capped.evals.f < tiny.evals.f
    assert not np.array_equal(tiny.chain, capped.chain)
    rolling = likelihood.sample(init, config=ganesh.ESSConfig(chain_storage=ganesh.ChainStorage.rolling(5)),
                                seed=4, terminators=stop)
    np.testing.assert_array_equal(rolling.chain, base[:, -5:, :])
    sampled = likelihood.sample(init, config=ganesh.ESSConfig(chain_storage=ganesh.ChainStorage.sampled(10)),
                                seed=4, terminators=stop)
    np.testing.assert_array_equal(sampled.chain, base[:, ::10, :])


def test_observers_see_the_move(fitted):
    likelihood, fit = fitted
    init = ganesh.ESSInit(likelihood.walker_positions(fit.values, 6, scale=1e-2, seed=6))
    seen = []
    config = ganesh.ESSConfig(moves=[ganesh.ESSMove.gaussian()])
    summary = likelihood.sample(init, config=config, seed=7, terminators=[lambda step, status: step == 3],
                                observers=[lambda step, status: seen.append(status.message)])
    assert summary.dimension == (6, 4, 2)
    assert seen == ["Gaussian Move"] * 3
    assert summary.message.text == "stopped by a terminator"


def test_wrong_types_and_values_are_errors(fitted):
    likelihood, fit = fitted
    walkers = likelihood.walker_positions(fit.values, 4, seed=1)
    stop = [ganesh.MaxSteps(2)]
    with pytest.raises(TypeError, match=r"init is an ld.ganesh.ESSInit, so config must be an ld.ganesh.ESSConfig"):
        likelihood.sample(ganesh.ESSInit(walkers), config=ganesh.AIESConfig(), terminators=stop)
    with pytest.raises(TypeError, match=r"init is an ld.ganesh.AIESInit, so config must be an ld.ganesh.AIESConfig"):
        likelihood.sample(ganesh.AIESInit(walkers), config=ganesh.ESSConfig(), terminators=stop)
    with pytest.raises(TypeError, match="AIESInit .* or ld.ganesh.ESSInit"):
        likelihood.sample(walkers, terminators=stop)
    with pytest.raises(ValueError, match="ESS requires at least 3 walkers"):
        ganesh.ESSInit(walkers[:2])
    with pytest.raises(ValueError, match="each walker needs 2 values"):
        likelihood.sample(ganesh.ESSInit(np.ones((4, 3))), terminators=stop)
    with pytest.raises(ValueError, match="bracket_width must be finite"):
        ganesh.ESSConfig(bracket_width=0.0)
    with pytest.raises(ValueError, match="max_shrink_steps must be at least 1"):
        ganesh.ESSConfig(max_shrink_steps=0)
    with pytest.raises(TypeError, match="max_shrink_steps must be an int"):
        ganesh.ESSConfig(max_shrink_steps=2.5)
    with pytest.raises(ValueError, match="adaptive_steps must be at least 0"):
        ganesh.ESSConfig(adaptive_steps=-1)
    with pytest.raises(ValueError, match="direction_scale must be finite"):
        ganesh.ESSConfig(direction_scale=float("nan"))
    with pytest.raises(ValueError, match="include a positive entry"):
        ganesh.ESSConfig(moves=[])
    with pytest.raises(ValueError, match="include a positive entry"):
        ganesh.ESSConfig(moves=[ganesh.ESSMove.gaussian(weight=0.0)])
    with pytest.raises(TypeError, match="moves must be ld.ganesh.ESSMove objects"):
        ganesh.ESSConfig(moves=[ganesh.AIESMove.walk()])
    with pytest.raises(TypeError, match="chain_storage must be an ld.ganesh.ChainStorage"):
        ganesh.ESSConfig(chain_storage="full")
    with pytest.raises(ValueError, match="transform"):
        ganesh.ESSConfig(transform=object())
    with pytest.raises(ValueError, match="weight must be finite and non-negative"):
        ganesh.ESSMove.differential(weight=-1.0)
    with pytest.raises(ValueError, match="components must be at least 2"):
        ganesh.ESSMove.global_(components=1)
    with pytest.raises(ValueError, match="rescale_covariance must be finite"):
        ganesh.ESSMove.global_(rescale_covariance=0.0)
    with pytest.raises(ValueError, match="scale must be finite"):
        getattr(ganesh.ESSMove, "global")(scale=-1.0)
    with pytest.raises(ValueError, match=r"ESSConfig.parameter_names must be the likelihood's parameter names"):
        likelihood.sample(ganesh.ESSInit(walkers), config=ganesh.ESSConfig(parameter_names=["width", "mass"]),
                          terminators=stop)
    with pytest.raises(ld.ModelError, match="needs a terminator"):
        likelihood.sample(ganesh.ESSInit(walkers))
    outside = np.array([[5.0, 0.1], [5.1, 0.1], [5.2, 0.1]])
    with pytest.raises(ld.ModelError, match="walker 0 starts where the log density is -inf"):
        likelihood.sample(ganesh.ESSInit(outside), terminators=stop)
    # A config edited after construction is still checked by the sampler.
    config = ganesh.ESSConfig()
    config.bracket_width = -1.0
    with pytest.raises(ld.ModelError, match="bracket width must be finite and positive"):
        likelihood.sample(ganesh.ESSInit(walkers), config=config, terminators=stop)
