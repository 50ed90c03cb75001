"""Likelihood.fit from Python: a closure fit recovers the truth within its uncertainties."""

import numpy as np
import pytest

import laddu_cpp as ld


def model():
    s = ld.scalar("s")
    mass = ld.parameter("mass", initial=1.0, bounds=(0.8, 1.2))
    width = ld.parameter("width", initial=0.1, bounds=(0.02, 0.3))
    return ld.Model((1.0 / (mass**2 - s - 1j * mass * width)).norm_sqr() * mass * width + 0.2)


@pytest.fixture(scope="module")
def samples():
    rng = np.random.default_rng(11)
    mc = ld.Dataset.from_arrays(scalars={"s": rng.uniform(0.5, 1.5, 100000)})
    truth = {"mass": 1.02, "width": 0.12}
    intensity = model().evaluate(mc, parameters=truth, real=True)
    keep = rng.uniform(0, intensity.max(), len(intensity)) < intensity
    data = ld.Dataset.from_arrays(scalars={"s": mc.column("s")[keep][:5000]})
    return data, mc, truth


@pytest.mark.parametrize("method", ["lbfgsb", "migrad", "nelder_mead"])
def test_closure_fit_recovers_the_truth(samples, method):
    data, mc, truth = samples
    likelihood = ld.Likelihood([ld.NLL(model(), data=data, accepted_mc=mc)])
    result = likelihood.fit({"mass": 0.97, "width": 0.09}, method=method)
    assert result.converged, result.message
    assert result.parameter_names == ["mass", "width"]
    for name, value, error in zip(result.parameter_names, result.values, result.uncertainties):
        assert error > 0
        assert abs(value - truth[name]) < 3 * error, (name, value, error)
    cov = result.covariance
    assert cov.shape == (2, 2)
    np.testing.assert_allclose(np.sqrt(np.diag(cov)), result.uncertainties, rtol=1e-12)
    assert result.fx == pytest.approx(likelihood.value(result.values), rel=1e-14)
    assert "mass" in str(result)


def test_progress_callback_sees_iterations_and_can_stop(samples):
    data, mc, _ = samples
    likelihood = ld.Likelihood([ld.NLL(model(), data=data, accepted_mc=mc)])
    seen = []

    def progress(iteration, value, x):
        seen.append((iteration, value, list(x)))
        return len(seen) < 2

    result = likelihood.fit(progress=progress)
    assert len(seen) == 2
    assert not result.converged
    assert result.termination != ""


def test_unknown_start_names_and_methods_are_errors(samples):
    data, mc, _ = samples
    likelihood = ld.Likelihood([ld.NLL(model(), data=data, accepted_mc=mc)])
    with pytest.raises(ld.ModelError, match="nope"):
        likelihood.fit({"nope": 1.0})
    with pytest.raises(ValueError, match="method must be"):
        likelihood.fit(method="sgd")
    with pytest.raises(ValueError, match="expected 2 initial values"):
        likelihood.fit([1.0])


def test_restarts_are_deterministic(samples):
    data, mc, _ = samples
    likelihood = ld.Likelihood([ld.NLL(model(), data=data, accepted_mc=mc)])
    fits_a = likelihood.fit_restarts(3, seed=5)
    fits_b = likelihood.fit_restarts(3, seed=5)
    assert len(fits_a) == 3
    assert [f.values for f in fits_a] == [f.values for f in fits_b]


def test_restarts_start_from_the_initial_ranges_as_laddu_draws_them(samples):
    """initial=(low, high) is a range starts are drawn from (fastrand's stream, as laddu), not
    its midpoint: fit_restarts fits from sample_parameters(seed + k·0x9E3779B97F4A7C15), the
    first from `initial` when it is given."""
    data, mc, _ = samples
    s = ld.scalar("s")
    mass = ld.parameter("mass", initial=(0.9, 1.1), bounds=(0.8, 1.2))
    width = ld.parameter("width", initial=0.1, bounds=(0.02, 0.3))
    ranged = ld.Model((1.0 / (mass**2 - s - 1j * mass * width)).norm_sqr() * mass * width + 0.2)
    likelihood = ld.Likelihood([ld.NLL(ranged, data=data, accepted_mc=mc)])
    assert likelihood.default_parameters == [1.0, 0.1]
    starts = [likelihood.sample_parameters(seed=(7 + k * 0x9E3779B97F4A7C15) % 2**64) for k in range(3)]
    assert len({start[0] for start in starts}) == 3
    assert all(0.9 <= start[0] < 1.1 and start[1] == 0.1 for start in starts)
    fits = likelihood.fit_restarts(3, seed=7, terminators=[ld.ganesh.MaxSteps(3)])
    assert [f.x for f in fits] == [likelihood.fit(start, terminators=[ld.ganesh.MaxSteps(3)]).x for start in starts]
    first = likelihood.fit_restarts(2, [1.05, 0.12], seed=7, terminators=[ld.ganesh.MaxSteps(3)])
    assert first[0].x == likelihood.fit([1.05, 0.12], terminators=[ld.ganesh.MaxSteps(3)]).x
    assert first[1].x == fits[1].x
    with pytest.raises(ValueError, match="restarts must be positive"):
        likelihood.fit_restarts(0)


def test_fit_results_carry_ganeshs_summary_fields(samples):
    """laddu's fit returns ganesh's MinimizationSummary: x, x0, fx, std, covariance, evals,
    message, parameter_names; FitResult has each of them (message as text)."""
    data, mc, _ = samples
    likelihood = ld.Likelihood([ld.NLL(model(), data=data, accepted_mc=mc)])
    result = likelihood.fit([0.98, 0.11])
    assert result.x0 == [0.98, 0.11]
    assert result.std == result.errors == result.uncertainties
    assert result.evals.f == result.value_evaluations and result.evals.g == result.gradient_evaluations
    assert result.evals.h == 0 and result.evals.f > 0
    assert result.fx == likelihood.nll(result.x)
    assert result.parameter_names == ["mass", "width"]
    # ganesh's StatusMessage, which is also the text
    assert result.message.success is result.converged and result.message.text == result.message
    assert isinstance(result.message, str) and "tolerance" in result.message


def test_fit_terminators_and_observers_are_ganeshs_callbacks(samples, capsys):
    """laddu's fit callbacks: a terminator is called (step, StatusSnapshot) and stops on True;
    observers are called (step, StatusSnapshot) every step; ProgressObserver prints
    `step=<n> <status>` every `interval` steps."""
    data, mc, _ = samples
    likelihood = ld.Likelihood([ld.NLL(model(), data=data, accepted_mc=mc)])
    seen = []
    stopped = likelihood.fit([0.97, 0.09], terminators=[lambda step, status: step == 2],
                             observers=[lambda step, status: seen.append((step, status.message))])
    assert not stopped.converged and stopped.iterations == 2
    assert [step for step, _ in seen] == [1, 2] and seen[0][1].startswith("fx=")
    full = likelihood.fit([0.97, 0.09], observers=[ld.ganesh.ProgressObserver(interval=2), ld.ganesh.DebugObserver()])
    out = capsys.readouterr().out
    assert full.converged
    lines = out.splitlines()
    assert sum(line.startswith("step=") for line in lines) == full.iterations // 2 and "step=2 fx=" in out
    assert sum(line.startswith("Step: ") for line in lines) == full.iterations
    with pytest.raises(TypeError, match="return a bool"):
        likelihood.fit([0.97, 0.09], terminators=[lambda step, status: None])
    with pytest.raises(TypeError, match="observers must be callables"):
        likelihood.fit([0.97, 0.09], observers=[3])
