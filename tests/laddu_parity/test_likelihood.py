"""NLL, ExtendedNLL, penalties and Likelihood sums: values and gradients at several parameter
points, on weighted data and weighted accepted MC (γ p → K_S K_S p events), with the same
model written in each library's API.
"""

import numpy as np
import pytest

from conftest import (
    assert_gradients_close,
    assert_values_close,
    both_datasets,
    by_name,
    ksks_arrays,
    ksks_channel,
    ksks_helicity_angles,
    laddu,
    ld,
    reorder,
)

M_KS = 0.497611


def helicity_angles(lib):
    channel = ksks_channel(lib)
    costheta, phi = ksks_helicity_angles(channel)
    return channel.s("kk"), costheta, phi


def intensity(lib):
    """An S-wave Breit-Wigner and a D-wave relativistic Breit-Wigner with Y_l^m and a flat
    background: seven free parameters, one fixed."""
    s, costheta, phi = helicity_angles(lib)
    bw_s = lib.breit_wigner(
        s,
        mass=lib.parameter("m_s", initial=1.5, bounds=(1.2, 1.8)),
        width=lib.parameter("g_s", initial=0.12, bounds=(0.02, 0.5)),
    )
    bw_d = lib.relativistic_breit_wigner(
        s,
        mass=lib.parameter("m_d", initial=1.27, bounds=(1.1, 1.5)),
        width=lib.parameter("g_d", initial=0.18, bounds=(0.05, 0.4)),
        mass1=M_KS,
        mass2=M_KS,
        l=2,
    )
    c_s = lib.complex(lib.parameter("c_s re", initial=1.0), lib.parameter("c_s im", fixed=0.0))
    c_d = lib.complex(lib.parameter("c_d re", initial=0.6), lib.parameter("c_d im", initial=-0.3))
    amplitude = c_s * bw_s * lib.spherical_harmonic(0, 0, costheta=costheta, phi=phi) + c_d * bw_d * lib.spherical_harmonic(
        2, 1, costheta=costheta, phi=phi
    )
    return amplitude.norm_sqr() + lib.parameter("bkg", initial=0.4, bounds=(0.0, None))


@pytest.fixture(scope="module")
def models():
    return laddu.Model(intensity(laddu)), ld.Model(intensity(ld))


@pytest.fixture(scope="module")
def samples():
    """(data, accepted MC) as (laddu, laddu_cpp) pairs; both weighted."""
    rng = np.random.default_rng(31)
    data_p4s, data_scalars = ksks_arrays(1500, seed=31, kk_mass_max=2.0)
    mc_p4s, mc_scalars = ksks_arrays(4000, seed=32, kk_mass_max=2.0)
    data_weights = rng.uniform(0.5, 1.5, size=1500)
    mc_weights = rng.uniform(0.1, 2.0, size=4000)
    return both_datasets(data_p4s, data_scalars, data_weights), both_datasets(mc_p4s, mc_scalars, mc_weights)


POINTS = ["defaults", "point1", "point2", "point3"]


def point(names, defaults, label):
    if label == "defaults":
        return by_name(names, defaults)
    rng = np.random.default_rng(POINTS.index(label))
    lows = {"m_s": 1.3, "g_s": 0.05, "m_d": 1.15, "g_d": 0.08, "c_s re": -2.0, "c_d re": -2.0, "c_d im": -2.0, "bkg": 0.01}
    highs = {"m_s": 1.7, "g_s": 0.4, "m_d": 1.45, "g_d": 0.35, "c_s re": 2.0, "c_d re": 2.0, "c_d im": 2.0, "bkg": 1.0}
    return {name: float(rng.uniform(lows[name], highs[name])) for name in names}


def compare_likelihoods(theirs, ours, label, what):
    assert ours.parameter_names == theirs.parameter_names, what
    names = theirs.parameter_names
    values = point(names, theirs.default_parameters, label)
    value_theirs, gradient_theirs = theirs.value_and_gradient(values)
    value_ours, gradient_ours = ours.value_and_gradient(values)
    assert_values_close(value_ours, value_theirs, what=f"{what} value at {label}")
    assert_gradients_close(gradient_ours, gradient_theirs, what=f"{what} gradient at {label}")
    assert_values_close(ours.value(values), theirs.value(values), what=f"{what} value() at {label}")
    # The same point as a positional vector.
    vector = [values[name] for name in names]
    assert_values_close(ours.value(vector), theirs.value(vector), what=f"{what} positional at {label}")
    return value_ours, np.asarray(gradient_ours)


def test_model_parameters(models):
    theirs, ours = models
    assert ours.parameter_names == theirs.parameter_names == ours.free_parameter_names
    assert_values_close(ours.default_parameters, theirs.default_parameters, what="defaults")
    fixed_theirs, fixed_ours = theirs.fix("g_s", 0.2), ours.fix("g_s", 0.2)
    assert fixed_ours.parameter_names == fixed_theirs.parameter_names
    assert fixed_ours.free("g_s").parameter_names == fixed_theirs.free("g_s").parameter_names


@pytest.mark.parametrize("label", POINTS)
def test_model_evaluate(models, samples, label):
    (data_t, data_o), _ = samples
    theirs, ours = models
    values = point(theirs.parameter_names, theirs.default_parameters, label)
    assert_values_close(
        ours.evaluate(data_o, parameters=values, real=True),
        theirs.evaluate(data_t, parameters=values, real=True),
        what=f"intensity at {label}",
    )


@pytest.mark.parametrize("label", POINTS)
def test_nll(models, samples, label):
    (data_t, data_o), (mc_t, mc_o) = samples
    theirs = laddu.Likelihood([laddu.NLL(models[0], data=data_t, accepted_mc=mc_t)])
    ours = ld.Likelihood([ld.NLL(models[1], data=data_o, accepted_mc=mc_o)])
    value, gradient = compare_likelihoods(theirs, ours, label, "NLL")
    # Independent: the definition N_w ln(Σ_acc w I) − Σ_data w ln I, from per-event intensities.
    values = point(theirs.parameter_names, theirs.default_parameters, label)
    i_data = np.asarray(models[1].evaluate(data_o, parameters=values, real=True))
    i_mc = np.asarray(models[1].evaluate(mc_o, parameters=values, real=True))
    w_data, w_mc = np.asarray(data_o.weights()), np.asarray(mc_o.weights())
    expected = w_data.sum() * np.log((w_mc * i_mc).sum()) - (w_data * np.log(i_data)).sum()
    assert_values_close(value, expected, rtol=1e-12, what="NLL vs numpy")


@pytest.mark.parametrize("label", POINTS)
def test_extended_nll(models, samples, label):
    (data_t, data_o), (mc_t, mc_o) = samples
    theirs = laddu.Likelihood([laddu.ExtendedNLL(models[0], data=data_t, accepted_mc=mc_t)])
    ours = ld.Likelihood([ld.ExtendedNLL(models[1], data=data_o, accepted_mc=mc_o)])
    value, _ = compare_likelihoods(theirs, ours, label, "ExtendedNLL")
    values = point(theirs.parameter_names, theirs.default_parameters, label)
    i_data = np.asarray(models[1].evaluate(data_o, parameters=values, real=True))
    i_mc = np.asarray(models[1].evaluate(mc_o, parameters=values, real=True))
    expected = (np.asarray(mc_o.weights()) * i_mc).sum() - (np.asarray(data_o.weights()) * np.log(i_data)).sum()
    assert_values_close(value, expected, rtol=1e-12, what="ExtendedNLL vs numpy")


@pytest.mark.parametrize("label", POINTS)
def test_nll_with_ridge_and_lasso(models, samples, label):
    (data_t, data_o), (mc_t, mc_o) = samples

    def terms(lib, model, data, mc):
        return lib.Likelihood(
            [
                lib.NLL(model, data=data, accepted_mc=mc, name="signal"),
                lib.RidgePenalty(["c_d re", "c_d im"], lambda_=0.3),
                lib.LassoPenalty(["c_s re", "bkg"], lambda_=0.05, name="sparse"),
            ]
        )

    compare_likelihoods(terms(laddu, models[0], data_t, mc_t), terms(ld, models[1], data_o, mc_o), label, "NLL+ridge+lasso")


@pytest.mark.parametrize("label", POINTS)
def test_simultaneous_terms_share_parameters(models, samples, label):
    """An NLL and an ExtendedNLL on different halves of the data, one model, shared names."""
    (data_t, data_o), (mc_t, mc_o) = samples
    half_weights = np.asarray(data_o.weights())

    def halves(lib, data):
        idx_mass = (lib.Vec4.event("kshort1") + lib.Vec4.event("kshort2")).m()
        return data.select(idx_mass < 1.4), data.select(idx_mass >= 1.4)

    low_t, high_t = halves(laddu, data_t)
    low_o, high_o = halves(ld, data_o)
    assert len(low_o) == len(low_t) and len(low_o) + len(high_o) == len(half_weights)
    theirs = laddu.Likelihood(
        [
            laddu.NLL(models[0], data=low_t, accepted_mc=mc_t, name="low"),
            laddu.ExtendedNLL(models[0], data=high_t, accepted_mc=mc_t, name="high"),
        ]
    )
    ours = ld.Likelihood(
        [
            ld.NLL(models[1], data=low_o, accepted_mc=mc_o, name="low"),
            ld.ExtendedNLL(models[1], data=high_o, accepted_mc=mc_o, name="high"),
        ]
    )
    compare_likelihoods(theirs, ours, label, "NLL(low)+ExtendedNLL(high)")


@pytest.mark.parametrize("label", POINTS)
def test_nll_with_a_fixed_parameter(models, samples, label):
    (data_t, data_o), (mc_t, mc_o) = samples
    theirs = laddu.Likelihood([laddu.NLL(models[0].fix("m_d", 1.3), data=data_t, accepted_mc=mc_t)])
    ours = ld.Likelihood([ld.NLL(models[1].fix("m_d", 1.3), data=data_o, accepted_mc=mc_o)])
    compare_likelihoods(theirs, ours, label, "NLL with m_d fixed")


def test_unweighted_nll(models):
    p4s, scalars = ksks_arrays(800, seed=41, kk_mass_max=2.0)
    mc_p4s, mc_scalars = ksks_arrays(1600, seed=42, kk_mass_max=2.0)
    data_t, data_o = both_datasets(p4s, scalars)
    mc_t, mc_o = both_datasets(mc_p4s, mc_scalars)
    theirs = laddu.Likelihood([laddu.NLL(models[0], data=data_t, accepted_mc=mc_t)])
    ours = ld.Likelihood([ld.NLL(models[1], data=data_o, accepted_mc=mc_o)])
    for label in POINTS:
        compare_likelihoods(theirs, ours, label, "unweighted NLL")


PENALTY_POINTS = {
    "zeros": {"c_s re": 0.0, "c_d re": 0.0, "c_d im": 0.0},
    "mixed": {"c_s re": -1.5, "c_d re": 0.0, "c_d im": 2.25},
    "negative": {"c_s re": -0.3, "c_d re": -4.0, "c_d im": -1e-9},
}


@pytest.mark.parametrize("label", sorted(PENALTY_POINTS))
def test_penalties(models, samples, label):
    """Ridge λΣθ², Lasso λΣ|θ| with gradient λ sign θ (0 at θ = 0), in a Likelihood sum: the
    sum minus the NLL alone is the penalty, in both libraries. (laddu does not accept a
    penalty naming a parameter that no model term defines, so there is always an NLL.)"""
    (data_t, data_o), (mc_t, mc_o) = samples
    values = PENALTY_POINTS[label]

    def build(lib, model, data, mc, penalties):
        terms = [lib.NLL(model, data=data, accepted_mc=mc)]
        if penalties:
            terms += [
                lib.RidgePenalty(["c_s re", "c_d im"], lambda_=0.7),
                lib.LassoPenalty(["c_s re", "c_d re"], lambda_=0.2),
            ]
        return lib.Likelihood(terms)

    results = {}
    for lib, model, data, mc in [(laddu, models[0], data_t, mc_t), (ld, models[1], data_o, mc_o)]:
        with_penalties = build(lib, model, data, mc, True)
        alone = build(lib, model, data, mc, False)
        assert with_penalties.parameter_names == alone.parameter_names
        value, gradient = with_penalties.value_and_gradient(values)
        value0, gradient0 = alone.value_and_gradient(values)
        results[lib.__name__] = (value - value0, np.asarray(gradient) - np.asarray(gradient0), alone.parameter_names)
    (v_t, g_t, names), (v_o, g_o, _) = results["laddu"], results["laddu_cpp"]
    a, b, c = values["c_s re"], values["c_d re"], values["c_d im"]
    expected = 0.7 * (a * a + c * c) + 0.2 * (abs(a) + abs(b))
    assert v_o == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert v_t == pytest.approx(expected, rel=1e-9, abs=1e-12)
    expected_gradient = {"c_s re": 1.4 * a + 0.2 * np.sign(a), "c_d re": 0.2 * np.sign(b), "c_d im": 1.4 * c}
    expected_gradient = np.array([expected_gradient.get(name, 0.0) for name in names])
    assert_gradients_close(g_o, g_t, atol=1e-9)
    assert_gradients_close(g_o, expected_gradient, atol=1e-9)


def test_penalty_only_likelihood():
    """laddu rejects a penalty whose parameters no model term defines; laddu-cpp accepts it
    (the penalty then defines them). docs/laddu_parity.md."""
    with pytest.raises(laddu.LadduError, match="unknown parameter"):
        laddu.Likelihood([laddu.RidgePenalty(["a"], lambda_=1.0)])
    ours = ld.Likelihood([ld.RidgePenalty(["a"], lambda_=1.0)])
    assert ours.value({"a": 3.0}) == 9.0
