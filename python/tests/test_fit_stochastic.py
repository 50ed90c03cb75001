"""Likelihood.fit_stochastic (Adam on mini-batches, laddu's): it reaches the L-BFGS-B minimum of
the Breit-Wigner closure within the fit's errors, a seed decides the run, every AdamConfig and
terminator setting changes it, and bad input is refused."""

import numpy as np
import pytest

import laddu_cpp as ld
from test_fit import model, samples  # noqa: F401  (the closure model and its data fixture)


@pytest.fixture(scope="module")
def likelihood(samples):  # noqa: F811
    data, mc, _ = samples
    return ld.Likelihood([ld.NLL(model(), data=data, accepted_mc=mc)])


def test_adam_reaches_the_lbfgsb_minimum(likelihood):
    reference = likelihood.fit({"mass": 0.97, "width": 0.09})
    result = likelihood.fit_stochastic({"mass": 0.97, "width": 0.09}, fraction=0.3, seed=5,
                                       config=ld.ganesh.AdamConfig(alpha=0.002),
                                       terminators=[ld.ganesh.MaxSteps(1500),
                                                    ld.ganesh.AdamEMATerminator(eps_loss=1e-9, patience=50)])
    for k, name in enumerate(reference.parameter_names):
        # The last point of a stochastic run scatters with the batch: within 2 σ of the minimum.
        assert abs(result.values[k] - reference.values[k]) < 2 * reference.uncertainties[k], name
    assert np.all(np.isnan(result.uncertainties))
    assert result.gradient_evaluations == result.iterations + 1
    assert "Adam" in result.message


def test_the_seed_and_every_setting_change_the_run(likelihood):
    start = {"mass": 0.97, "width": 0.09}

    def run(**kwargs):
        kwargs.setdefault("terminators", [ld.ganesh.MaxSteps(15)])
        return list(likelihood.fit_stochastic(start, **kwargs).values)

    base = run(seed=1)
    assert run(seed=1) == base
    assert run(seed=2) != base
    assert run(seed=1, fraction=0.5) != base
    for config in (ld.ganesh.AdamConfig(alpha=0.01), ld.ganesh.AdamConfig(beta_1=0.5),
                   ld.ganesh.AdamConfig(beta_2=0.9), ld.ganesh.AdamConfig(epsilon=1e-2)):
        assert run(seed=1, config=config) != base, config
    assert run(seed=1, terminators=[ld.ganesh.MaxSteps(7)]) != base
    # A loose EMA rule stops at once; a callable stops where it says; observers see each step.
    loose = likelihood.fit_stochastic(start, seed=1, terminators=[ld.ganesh.AdamEMATerminator(eps_loss=1e9)])
    assert loose.iterations == 1 and loose.converged
    seen = []
    stopped = likelihood.fit_stochastic(start, seed=1, terminators=[lambda step, status: step == 4],
                                        observers=[lambda step, status: seen.append(status.step)])
    assert stopped.iterations == 4 and not stopped.converged
    assert seen == [1, 2, 3, 4]


def test_bad_input_is_an_error(likelihood):
    with pytest.raises(ValueError, match=r"fraction must be in \(0, 1\]"):
        likelihood.fit_stochastic(fraction=0.0)
    with pytest.raises(ValueError, match="beta_1"):
        ld.ganesh.AdamConfig(beta_1=1.0)
    with pytest.raises(ValueError, match="transform"):
        ld.ganesh.AdamConfig(transform=object())
    with pytest.raises(ValueError, match="AdamConfig.parameter_names must be the likelihood's parameter names"):
        likelihood.fit_stochastic(config=ld.ganesh.AdamConfig(parameter_names=["m"]))
    with pytest.raises(TypeError, match="config must be an ld.ganesh.AdamConfig"):
        likelihood.fit_stochastic(config=ld.ganesh.LBFGSBConfig())
    with pytest.raises(TypeError, match="terminators must be"):
        likelihood.fit_stochastic(terminators=[3])
    with pytest.raises(TypeError, match="must return a bool"):
        likelihood.fit_stochastic(terminators=[lambda step, status: None])
