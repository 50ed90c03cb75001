"""ld.amplitudes.k_matrix / p_vector / f_vector / blatt_weisskopf_barriers: laddu's keyword
signatures, and a closure fit that frees one pole mass of a 2-channel, 2-pole K-matrix."""

import numpy as np
import pytest

import laddu_cpp as ld

M_PI, M_K, M_KS = 0.13957039, 0.493677, 0.497611
M1, M2 = [M_PI, M_K], [M_PI, M_KS]
TRUTH = {"m0": 0.98, "b1 re": 0.6, "b1 im": -0.3}


def intensity(m0):
    """|F_ππ|² of a 2-channel (ππ, KK̄), 2-pole, L = 1 K-matrix with pole mass `m0`."""
    s = ld.scalar("s")
    amps = ld.amplitudes
    poles = ld.vector([m0, 1.45])
    couplings = ld.matrix([[0.62, -0.31], [0.41, 0.77]])
    barriers = amps.blatt_weisskopf_barriers(s, channel_mass_1=ld.vector(M1), channel_mass_2=ld.vector(M2),
                                             pole_masses=poles, l=1, q_r=0.1973)
    k = amps.k_matrix(s, pole_masses=poles, couplings=couplings, barriers=barriers,
                      background=ld.matrix([[0.1, -0.05], [-0.05, 0.2]]))
    production = ld.vector([1.0, ld.complex(ld.parameter("b1 re"), ld.parameter("b1 im"))])
    p = amps.p_vector(s, pole_masses=poles, production=production, couplings=couplings, barriers=barriers)
    phase_space = ld.vector([ld.chew_mandelstam(s, mass1=a, mass2=b) for a, b in zip(M1, M2)])
    f = amps.f_vector(s, pole_masses=poles, k=k, p=p, phase_space=phase_space)
    return f[0].norm_sqr()


def model():
    return ld.Model(intensity(ld.parameter("m0", initial=0.93, bounds=(0.85, 1.15))))


@pytest.fixture(scope="module")
def samples():
    rng = np.random.default_rng(26)
    mc = ld.Dataset.from_arrays(scalars={"s": rng.uniform(0.3, 2.0, 60000)})
    values = model().evaluate(mc, parameters=TRUTH, real=True)
    keep = rng.uniform(0, values.max(), len(values)) < values
    data = ld.Dataset.from_arrays(scalars={"s": mc.column("s")[keep][:4000]})
    return data, mc


def test_fit_recovers_a_free_pole_mass(samples):
    data, mc = samples
    likelihood = ld.Likelihood([ld.NLL(model(), data=data, accepted_mc=mc)])
    result = likelihood.fit({"m0": 0.93, "b1 re": 0.4, "b1 im": -0.1}, method="lbfgsb")
    assert result.converged, result.message
    for name, value, error in zip(result.parameter_names, result.values, result.uncertainties):
        assert error > 0, name
        assert abs(value - TRUTH[name]) < 3 * error, (name, value, error)


def test_free_pole_mass_equals_the_fixed_model_at_the_same_mass():
    data = ld.Dataset.from_arrays(scalars={"s": np.linspace(0.05, 3.0, 40)})
    free = ld.Model(intensity(ld.parameter("m0")))
    fixed = ld.Model(intensity(0.98))
    coupling = {"b1 re": 0.6, "b1 im": -0.3}
    np.testing.assert_allclose(free.evaluate(data, parameters={**coupling, "m0": 0.98}, real=True),
                               fixed.evaluate(data, parameters=coupling, real=True), rtol=1e-11)


def test_gradient_in_the_pole_mass_matches_central_differences():
    data = ld.Dataset.from_arrays(scalars={"s": np.linspace(0.05, 3.0, 40)})
    free = ld.Model(intensity(ld.parameter("m0")))
    point = dict(TRUTH)
    _, gradient = free.value_and_gradient(data, parameters=point, real=True)
    column = np.asarray(gradient)[:, free.parameter_names.index("m0")]
    h = 1e-6
    up = free.evaluate(data, parameters={**point, "m0": point["m0"] + h}, real=True)
    down = free.evaluate(data, parameters={**point, "m0": point["m0"] - h}, real=True)
    np.testing.assert_allclose(column, (up - down) / (2 * h), rtol=1e-6, atol=1e-6 * np.abs(column).max())


def test_signatures_and_shape_errors():
    s = ld.scalar("s")
    v = ld.vector([1.0, 1.5])
    m = ld.matrix([[1.0, 2.0], [3.0, 4.0]])
    assert ld.amplitudes.k_matrix is ld.k_matrix
    with pytest.raises(TypeError):
        ld.amplitudes.k_matrix(s, v, m, m)  # keyword-only after s
    with pytest.raises(ld.LadduError, match=r"k_matrix: barriers must be matrix\[2x2\]"):
        ld.amplitudes.k_matrix(s, pole_masses=v, couplings=m, barriers=ld.matrix([[1.0, 1.0]]))
    with pytest.raises(ld.LadduError, match="pole_masses must be a vector"):
        ld.amplitudes.p_vector(s, pole_masses=1.0, production=v, couplings=m, barriers=m)
    with pytest.raises(TypeError):
        ld.amplitudes.k_matrix(s, pole_masses=[1.0, 1.5], couplings=m, barriers=m)  # lists are not Exprs
    k = ld.amplitudes.k_matrix(s, pole_masses=v, couplings=m, barriers=m, background=None)
    assert k.at(1, 1) is not None
