"""Likelihood(terms, execution=), Likelihood.diagnostics() and Model.value_and_gradient: laddu
0.21.4 against laddu-cpp on the same γ p → K_S K_S p events and the same models.

The likelihood values and gradients agree to the suite's tolerances with every backend; the
per-event model values to 1e-12 and gradients to 1e-11. The diagnostics are compared field by field
where both libraries mean the same thing (term, role, event counts, weight sums, the
normalisation path); the fields laddu-cpp cannot fill are None, as its docstring says.
"""

import numpy as np
import pytest

from conftest import (
    assert_gradients_close,
    assert_values_close,
    both_datasets,
    ksks_arrays,
    ksks_channel,
    ksks_helicity_angles,
    laddu,
    ld,
    reorder,
)

M_KS = 0.497611
HAS_JIT = ld.capabilities()["jit"]


def waves(lib):
    """An S-wave Breit-Wigner and a D-wave relativistic Breit-Wigner with Y_l^m: the complex
    amplitude (four free parameters besides the couplings) and its two couplings."""
    channel = ksks_channel(lib)
    costheta, phi = ksks_helicity_angles(channel)
    s = channel.s("kk")
    bw_s = lib.breit_wigner(s, mass=lib.parameter("m_s", initial=1.5), width=lib.parameter("g_s", initial=0.12))
    bw_d = lib.relativistic_breit_wigner(
        s, mass=lib.parameter("m_d", initial=1.27), width=lib.parameter("g_d", initial=0.18), mass1=M_KS, mass2=M_KS, l=2
    )
    c_s = lib.complex(lib.parameter("c_s re", initial=1.0), lib.parameter("c_s im", fixed=0.0))
    c_d = lib.complex(lib.parameter("c_d re", initial=0.6), lib.parameter("c_d im", initial=-0.3))
    return c_s * bw_s * lib.spherical_harmonic(0, 0, costheta=costheta, phi=phi) + c_d * bw_d * lib.spherical_harmonic(
        2, 1, costheta=costheta, phi=phi
    )


def intensity(lib):
    """Not a Hermitian form in its parameters (masses and widths): an MC pass normalises it."""
    return waves(lib).norm_sqr() + lib.parameter("bkg", initial=0.4)


def couplings_only(lib):
    """|c_s A_s + c_d A_d|² with fixed line shapes: laddu and laddu-cpp both find the Hermitian form."""
    channel = ksks_channel(lib)
    costheta, phi = ksks_helicity_angles(channel)
    s = channel.s("kk")
    a_s = lib.breit_wigner(s, mass=1.5, width=0.12) * lib.spherical_harmonic(0, 0, costheta=costheta, phi=phi)
    a_d = lib.breit_wigner(s, mass=1.27, width=0.18) * lib.spherical_harmonic(2, 1, costheta=costheta, phi=phi)
    c_s = lib.complex(lib.parameter("c_s re", initial=1.0), lib.parameter("c_s im", fixed=0.0))
    c_d = lib.complex(lib.parameter("c_d re", initial=0.6), lib.parameter("c_d im", initial=-0.3))
    return (c_s * a_s + c_d * a_d).norm_sqr()


@pytest.fixture(scope="module")
def samples():
    """(data, accepted MC) as (laddu, laddu_cpp) pairs, weighted."""
    rng = np.random.default_rng(7)
    data_p4s, data_scalars = ksks_arrays(1200, seed=71, kk_mass_max=2.0)
    mc_p4s, mc_scalars = ksks_arrays(3000, seed=72, kk_mass_max=2.0)
    return (
        both_datasets(data_p4s, data_scalars, rng.uniform(0.5, 1.5, size=1200)),
        both_datasets(mc_p4s, mc_scalars, rng.uniform(0.2, 2.0, size=3000)),
    )


def point(names, defaults, shift):
    return [v * (1.0 + shift) + 0.01 * shift for v in defaults]


def likelihood_pair(make, samples, backend):
    (data_theirs, data_ours), (mc_theirs, mc_ours) = samples
    theirs = laddu.Likelihood(
        [laddu.NLL(laddu.Model(make(laddu)), data=data_theirs, accepted_mc=mc_theirs, name="signal")],
        execution=laddu.Execution(backend),
    )
    ours = ld.Likelihood(
        [ld.NLL(ld.Model(make(ld)), data=data_ours, accepted_mc=mc_ours, name="signal")],
        execution=ld.Execution(backend),
    )
    return theirs, ours


@pytest.mark.parametrize("backend", ["cpu", "jit"] if HAS_JIT else ["cpu"])
@pytest.mark.parametrize("make", [intensity, couplings_only])
def test_likelihood_with_an_execution_matches_laddu(samples, backend, make):
    theirs, ours = likelihood_pair(make, samples, backend)
    assert ours.terms[0].backend == ("jit" if backend == "jit" else "interpreter")
    for shift in (0.0, 0.03):
        at = point(theirs.parameter_names, theirs.default_parameters, shift)
        value, gradient = theirs.value_and_gradient(at)
        our_at = reorder(theirs.parameter_names, at, ours.parameter_names)
        our_value, our_gradient = ours.value_and_gradient(our_at)
        assert_values_close(our_value, value)
        assert_gradients_close(our_gradient, reorder(theirs.parameter_names, gradient, ours.parameter_names))


@pytest.mark.parametrize("make, strategy", [(intensity, "general"), (couplings_only, "hermitian")])
def test_diagnostics_match_laddu(samples, make, strategy):
    theirs, ours = likelihood_pair(make, samples, "cpu")
    for likelihood in (theirs, ours):
        at = likelihood.default_parameters
        likelihood.value(at)
        likelihood.nll(at)
        likelihood.value_and_gradient(at)
    d_theirs, d_ours = theirs.diagnostics(), ours.diagnostics()
    assert (d_ours.objective_evaluations, d_ours.gradient_evaluations) == (
        d_theirs.objective_evaluations,
        d_theirs.gradient_evaluations,
    )
    laddu_fields = [name for name in dir(laddu.DatasetDiagnostics) if not name.startswith("_")]
    assert len(d_ours.datasets) == len(d_theirs.datasets) == 2
    for mine, reference in zip(d_ours.datasets, d_theirs.datasets):
        for field in laddu_fields:
            getattr(mine, field)
        for field in ("term", "role", "storage", "local_events", "global_events", "uses_quadratic_normalization",
                      "normalization_strategy"):
            assert getattr(mine, field) == getattr(reference, field), field
        if mine.sum_weights is not None:
            assert mine.sum_weights == pytest.approx(reference.sum_weights, rel=1e-12)
    assert d_ours.datasets[1].normalization_strategy == strategy
    laddu_keys = set(d_theirs.memory_decisions[0])
    assert d_ours.memory_decisions and all(laddu_keys <= set(decision) for decision in d_ours.memory_decisions)


def assert_model_close(ours, theirs, our_model, their_model):
    """Per-event values to 1e-12 and gradients to 1e-11 relative, each with an absolute floor of
    1e-13 of the largest magnitude (a real part that cancels to near zero has no relative
    precision). The two autodiff implementations order their operations differently, which
    leaves gradients a few 1e-12 apart."""
    (our_values, our_gradients), (values, gradients) = ours, theirs
    assert our_values.dtype == values.dtype and our_gradients.dtype == gradients.dtype
    assert_values_close(our_values, values, rtol=1e-12, atol=1e-13 * np.max(np.abs(values)), what="values")
    columns = [our_model.parameter_names.index(name) for name in their_model.parameter_names]
    assert_gradients_close(
        our_gradients[:, columns], gradients, rtol=1e-11, atol=1e-13 * np.max(np.abs(gradients)), what="gradients"
    )


@pytest.mark.parametrize("real", [False, True])
@pytest.mark.parametrize("make", [waves, intensity])
def test_model_value_and_gradient_matches_laddu(samples, make, real):
    (data_theirs, data_ours), _ = samples
    theirs, ours = laddu.Model(make(laddu)), ld.Model(make(ld))
    for parameters in (None, {"m_s": 1.42, "g_d": 0.21, "c_d im": 0.35}):
        values, gradients = theirs.value_and_gradient(data_theirs, parameters=parameters, real=real)
        our_values, our_gradients = ours.value_and_gradient(data_ours, parameters=parameters, real=real)
        assert our_gradients.shape == gradients.shape
        assert_model_close((our_values, our_gradients), (values, gradients), ours, theirs)


def test_model_value_and_gradient_with_positional_parameters_and_execution(samples):
    (data_theirs, data_ours), _ = samples
    theirs, ours = laddu.Model(intensity(laddu)), ld.Model(intensity(ld))
    at = point(theirs.parameter_names, theirs.default_parameters, 0.02)
    values, gradients = theirs.value_and_gradient(data_theirs, parameters=at, execution=laddu.Execution("cpu"))
    our_values, our_gradients = ours.value_and_gradient(
        data_ours, parameters=reorder(theirs.parameter_names, at, ours.parameter_names), execution=ld.Execution("cpu")
    )
    assert_model_close((our_values, our_gradients), (values, gradients), ours, theirs)
