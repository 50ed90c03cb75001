"""ld.ganesh's fit configurations, line searches and minimiser terminators: every option changes
the fit (evaluations, iterations or the point after a few steps), and bad values are TypeError or
ValueError with what to pass."""

import math

import numpy as np
import pytest

import laddu_cpp as ld

g = ld.ganesh
START = {"mass": 0.97, "width": 0.09}


@pytest.fixture(scope="module")
def likelihood():
    s = ld.scalar("s")
    mass = ld.parameter("mass", initial=1.0, bounds=(0.8, 1.2))
    width = ld.parameter("width", initial=0.1, bounds=(0.02, 0.3))
    model = ld.Model((1.0 / (mass**2 - s - 1j * mass * width)).norm_sqr() * mass * width + 0.2)
    rng = np.random.default_rng(11)
    mc = ld.Dataset.from_arrays(scalars={"s": rng.uniform(0.5, 1.5, 20000)})
    values = model.evaluate(mc, parameters={"mass": 1.02, "width": 0.12}, real=True)
    keep = rng.uniform(0, values.max(), len(values)) < values
    data = ld.Dataset.from_arrays(scalars={"s": mc.column("s")[keep][:2000]})
    return ld.Likelihood([ld.NLL(model, data=data, accepted_mc=mc)])


@pytest.fixture(scope="module")
def bumpy():
    """h(V(a, b)), V = a² + b² + 40 (sin²(1.5 a) + sin²(1.5 b)): bumps along every line, so the
    line searches bracket and bisect, and Nelder-Mead shrinks."""
    s = ld.scalar("s")
    a, b = ld.parameter("a", initial=2.0), ld.parameter("b", initial=-1.5)
    v = a * a + b * b + 40.0 * ((1.5 * a).sin().powi(2) + (1.5 * b).sin().powi(2))
    model = ld.Model((-0.05 * v * s).exp())
    rng = np.random.default_rng(5)
    mc = ld.Dataset.from_arrays(scalars={"s": rng.uniform(0.0, 1.0, 2000)})
    data = ld.Dataset.from_arrays(scalars={"s": rng.uniform(0.0, 1.0, 500) ** 2})
    return ld.Likelihood([ld.NLL(model, data=data, accepted_mc=mc)])


def signature(fit):
    return (fit.iterations, fit.value_evaluations, tuple(np.round(fit.x, 12)))


def run(likelihood, config, terminators=(), start=START):
    return likelihood.fit(start, config=config, terminators=list(terminators))


# --- L-BFGS-B -------------------------------------------------------------------------------


def test_lbfgsb_defaults_converge(likelihood):
    fit = run(likelihood, g.LBFGSBConfig())
    assert fit.converged, fit.message
    assert np.all(np.asarray(fit.errors) > 0)


@pytest.mark.parametrize("options", [{"history_size": 1}, {"max_step": 1e-3}])
def test_lbfgsb_options_change_the_fit(likelihood, options):
    base = run(likelihood, g.LBFGSBConfig(), [g.MaxSteps(4)])
    changed = run(likelihood, g.LBFGSBConfig(**options), [g.MaxSteps(4)])
    assert signature(changed) != signature(base)


def test_max_step_caps_the_step(likelihood):
    fit = run(likelihood, g.LBFGSBConfig(max_step=1e-9), [g.MaxSteps(3)])
    assert max(abs(fit.x[0] - START["mass"]), abs(fit.x[1] - START["width"])) < 1e-4


def test_error_mode_skip_leaves_no_uncertainties(likelihood):
    exact = run(likelihood, g.LBFGSBConfig(error_mode="exact_hessian"))
    skip = run(likelihood, g.LBFGSBConfig(error_mode="skip"))
    assert np.all(np.isnan(skip.errors)) and np.all(np.asarray(exact.errors) > 0)
    assert skip.value_evaluations < exact.value_evaluations
    np.testing.assert_array_equal(skip.x, exact.x)


@pytest.mark.parametrize("search", [g.MoreThuenteLineSearch(), g.HagerZhangLineSearch()])
def test_line_searches_reach_the_minimum_on_their_own_path(likelihood, search):
    base = run(likelihood, g.LBFGSBConfig())
    fit = run(likelihood, g.LBFGSBConfig(line_search=search))
    assert fit.converged, fit.message
    assert signature(fit)[:2] != signature(base)[:2]
    np.testing.assert_allclose(fit.x, base.x, atol=3e-3 * np.max(base.errors))


MORE_THUENTE = [{"c1": 0.45}, {"c2": 0.1}, {"max_iterations": 0}, {"max_zoom": 0}]
HAGER_ZHANG = [{"delta": 0.4}, {"sigma": 0.2}, {"epsilon": 0.5}, {"theta": 0.1}, {"gamma": 0.1},
               {"max_iterations": 0}, {"max_bisects": 0}]


def profile(likelihood, bumpy, config, steps=30):
    """Evaluation counts and points from a few starts of both likelihoods (an option that
    matters shows up here)."""
    starts = [START, {"mass": 1.15, "width": 0.25}, {"mass": 0.85, "width": 0.03}]
    out = [signature(run(likelihood, config, [g.MaxSteps(steps)], start)) for start in starts]
    for start in ([2.0, -1.5], [3.1, 2.7], [-4.2, 0.3]):
        out.append(signature(bumpy.fit(start, config=config, terminators=[g.MaxSteps(steps)])))
    return out


@pytest.mark.parametrize("options", MORE_THUENTE)
def test_more_thuente_settings_change_the_search(likelihood, bumpy, options):
    base = profile(likelihood, bumpy, g.LBFGSBConfig(line_search=g.MoreThuenteLineSearch()))
    changed = g.LBFGSBConfig(line_search=g.MoreThuenteLineSearch(**options))
    assert profile(likelihood, bumpy, changed) != base


@pytest.mark.parametrize("options", HAGER_ZHANG)
def test_hager_zhang_settings_change_the_search(likelihood, bumpy, options):
    base = profile(likelihood, bumpy, g.LBFGSBConfig(line_search=g.HagerZhangLineSearch()))
    changed = g.LBFGSBConfig(line_search=g.HagerZhangLineSearch(**options))
    assert profile(likelihood, bumpy, changed) != base


def test_bounds_replace_the_parameters_bounds(likelihood):
    free = run(likelihood, g.LBFGSBConfig())
    assert free.x[0] > 1.0
    fit = run(likelihood, g.LBFGSBConfig(bounds=[(0.8, 1.0), (None, None)]))
    assert fit.x[0] == pytest.approx(1.0) and fit.errors[0] == 0.0
    wider = run(likelihood, g.LBFGSBConfig(bounds=[(0.8, 1.2), (0.0, 0.05)]))
    assert wider.x[1] == pytest.approx(0.05)


def test_parameter_names_must_be_the_likelihoods(likelihood):
    fit = run(likelihood, g.LBFGSBConfig(parameter_names=["mass", "width"]))
    assert fit.converged
    with pytest.raises(ValueError, match="parameter_names"):
        run(likelihood, g.LBFGSBConfig(parameter_names=["width", "mass"]))
    with pytest.raises(ValueError, match="parameter_names"):
        run(likelihood, g.NelderMeadConfig(parameter_names=["m"]))


def test_fit_checks_bounds_and_simplex_against_the_likelihood(likelihood):
    with pytest.raises(ValueError, match="2 parameters"):
        run(likelihood, g.LBFGSBConfig(bounds=[(0.0, 1.0)]))
    with pytest.raises(ValueError, match="3 vertices of 2 values"):
        run(likelihood, g.NelderMeadConfig(initial_simplex=[[1.0], [2.0]]))


# --- L-BFGS-B terminators --------------------------------------------------------------------


def test_lbfgsb_terminators_stop_the_fit(likelihood):
    base = run(likelihood, g.LBFGSBConfig())
    f = run(likelihood, g.LBFGSBConfig(), [g.LBFGSBFTerminator(eps_abs=1e-1)])
    assert f.converged and f.iterations < base.iterations and f.termination == "value change below tolerance"
    for terminator in (g.LBFGSBGTerminator(eps_abs=10.0), g.LBFGSBInfNormGTerminator(eps_abs=10.0)):
        fit = run(likelihood, g.LBFGSBConfig(), [terminator])
        assert fit.converged and fit.iterations < base.iterations
        assert fit.termination == "projected gradient below tolerance"
        gradient = np.asarray(likelihood.value_and_gradient(list(fit.x))[1])
        assert np.max(np.abs(gradient)) < 10.0
    tight = run(likelihood, g.LBFGSBConfig(), [g.LBFGSBFTerminator(eps_abs=1e-14), g.LBFGSBGTerminator(eps_abs=1e-9)])
    assert tight.iterations >= base.iterations


def test_terminators_of_the_other_family_are_type_errors(likelihood):
    with pytest.raises(TypeError, match="NelderMeadFTerminator"):
        run(likelihood, g.LBFGSBConfig(), [g.NelderMeadFTerminator()])
    with pytest.raises(TypeError, match="LBFGSBGTerminator"):
        run(likelihood, g.NelderMeadConfig(), [g.LBFGSBGTerminator()])
    with pytest.raises(TypeError, match="MaxSteps"):
        run(likelihood, g.LBFGSBConfig(), [object()])


# --- Nelder-Mead -----------------------------------------------------------------------------


def test_nelder_mead_defaults_converge(likelihood):
    fit = run(likelihood, g.NelderMeadConfig())
    base = run(likelihood, g.LBFGSBConfig())
    assert fit.converged, fit.message
    np.testing.assert_allclose(fit.x, base.x, atol=1e-3 * np.max(base.errors))


NELDER_MEAD = [{"reflection": 0.8}, {"expansion": 3.0}, {"contraction": 0.3}, {"shrink": 0.9},
               {"initial_step": 0.2}, {"expansion_method": "greedy_expansion"},
               {"initial_simplex": [[0.97, 0.09], [1.05, 0.09], [0.97, 0.15]]}]


@pytest.mark.parametrize("options", NELDER_MEAD)
def test_nelder_mead_options_change_the_fit(likelihood, bumpy, options):
    if "initial_simplex" in options:
        changed = run(likelihood, g.NelderMeadConfig(**options), [g.MaxSteps(25)])
        assert signature(changed) != signature(run(likelihood, g.NelderMeadConfig(), [g.MaxSteps(25)]))
        return
    base = profile(likelihood, bumpy, g.NelderMeadConfig(), steps=60)
    assert profile(likelihood, bumpy, g.NelderMeadConfig(**options), steps=60) != base


def test_initial_zero_step_moves_a_zero_coordinate():
    # A two-parameter likelihood would need a parameter at 0 in its bounds: use a free one.
    s = ld.scalar("s")
    shift = ld.parameter("shift", initial=0.0)
    model = ld.Model((s - shift) ** 2 + 1.0)
    data = ld.Dataset.from_arrays(scalars={"s": np.linspace(0.1, 1.0, 50)})
    lik = ld.Likelihood([ld.NLL(model, data=data, accepted_mc=data)])
    one = lik.fit([0.0], config=g.NelderMeadConfig(initial_zero_step=0.5), terminators=[g.MaxSteps(1)])
    other = lik.fit([0.0], config=g.NelderMeadConfig(initial_zero_step=0.01), terminators=[g.MaxSteps(1)])
    assert one.x[0] != other.x[0]


@pytest.mark.parametrize("kind", ["stddev", "absolute", "amoeba"])
def test_nelder_mead_f_terminator_kinds(likelihood, kind):
    loose = run(likelihood, g.NelderMeadConfig(), [g.NelderMeadFTerminator(kind=kind, tolerance=1e-2)])
    tight = run(likelihood, g.NelderMeadConfig(), [g.NelderMeadFTerminator(kind=kind, tolerance=1e-9)])
    assert loose.converged and loose.termination == "simplex values within tolerance"
    assert loose.iterations < tight.iterations


@pytest.mark.parametrize("kind", ["diameter", "higham", "rowan", "singer"])
def test_nelder_mead_x_terminator_kinds(likelihood, kind):
    loose = run(likelihood, g.NelderMeadConfig(), [g.NelderMeadXTerminator(kind=kind, tolerance=1e-1)])
    tight = run(likelihood, g.NelderMeadConfig(), [g.NelderMeadXTerminator(kind=kind, tolerance=1e-6)])
    assert loose.converged and loose.termination == "simplex size below tolerance"
    assert loose.iterations < tight.iterations


def test_fit_restarts_reads_the_config(likelihood):
    fits = likelihood.fit_restarts(2, START, config=g.LBFGSBConfig(error_mode="skip"), seed=3)
    assert all(np.all(np.isnan(fit.errors)) for fit in fits)


# --- validation ------------------------------------------------------------------------------


def test_defaults_are_ganeshs():
    eps = 2.220446049250313e-16
    assert g.LBFGSBFTerminator().eps_abs == math.sqrt(eps)
    assert g.LBFGSBGTerminator().eps_abs == pytest.approx(eps ** (1 / 3), rel=1e-15)
    assert g.LBFGSBInfNormGTerminator().eps_abs == pytest.approx(eps ** (1 / 3), rel=1e-15)
    assert g.NelderMeadFTerminator().kind == "stddev" and g.NelderMeadFTerminator().tolerance == eps**0.25
    assert g.NelderMeadXTerminator().kind == "singer" and g.NelderMeadXTerminator().tolerance == eps**0.25
    config = g.LBFGSBConfig()
    assert (config.history_size, config.max_step, config.error_mode, config.line_search) == (10, 1e8, "exact_hessian", None)
    nm = g.NelderMeadConfig()
    assert (nm.reflection, nm.expansion, nm.contraction, nm.shrink, nm.initial_step, nm.initial_zero_step) == (
        1.0, 2.0, 0.5, 0.5, 0.05, 0.00025)


@pytest.mark.parametrize(
    "make, error",
    [
        (lambda: g.LBFGSBConfig(history_size=0), ValueError),
        (lambda: g.LBFGSBConfig(history_size=1.5), TypeError),
        (lambda: g.LBFGSBConfig(max_step=0.0), ValueError),
        (lambda: g.LBFGSBConfig(max_step=math.inf), ValueError),
        (lambda: g.LBFGSBConfig(max_step="1"), TypeError),
        (lambda: g.LBFGSBConfig(error_mode="approximate"), ValueError),
        (lambda: g.LBFGSBConfig(error_mode=1), TypeError),
        (lambda: g.LBFGSBConfig(line_search="more_thuente"), TypeError),
        (lambda: g.LBFGSBConfig(bounds=[(1.0, 1.0)]), ValueError),
        (lambda: g.LBFGSBConfig(bounds=[(math.nan, 1.0)]), ValueError),
        (lambda: g.LBFGSBConfig(bounds=[1.0]), TypeError),
        (lambda: g.LBFGSBConfig(bounds="ab"), TypeError),
        (lambda: g.LBFGSBConfig(parameter_names="mass"), TypeError),
        (lambda: g.LBFGSBConfig(transform=object()), ValueError),
        (lambda: g.MoreThuenteLineSearch(c1=0.9, c2=0.5), ValueError),
        (lambda: g.MoreThuenteLineSearch(c2=1.0), ValueError),
        (lambda: g.MoreThuenteLineSearch(max_zoom=-1), ValueError),
        (lambda: g.MoreThuenteLineSearch(max_iterations=None), TypeError),
        (lambda: g.HagerZhangLineSearch(delta=0.95), ValueError),
        (lambda: g.HagerZhangLineSearch(epsilon=0.0), ValueError),
        (lambda: g.HagerZhangLineSearch(theta=1.0), ValueError),
        (lambda: g.HagerZhangLineSearch(gamma=0.0), ValueError),
        (lambda: g.HagerZhangLineSearch(max_bisects=-2), ValueError),
        (lambda: g.NelderMeadConfig(reflection=0.0), ValueError),
        (lambda: g.NelderMeadConfig(expansion=1.0), ValueError),
        (lambda: g.NelderMeadConfig(reflection=2.5, expansion=2.0), ValueError),
        (lambda: g.NelderMeadConfig(contraction=1.0), ValueError),
        (lambda: g.NelderMeadConfig(shrink=0.0), ValueError),
        (lambda: g.NelderMeadConfig(initial_step=0.0), ValueError),
        (lambda: g.NelderMeadConfig(initial_zero_step=-1.0), ValueError),
        (lambda: g.NelderMeadConfig(expansion_method="greedy"), ValueError),
        (lambda: g.NelderMeadConfig(initial_simplex=[[0.0, 1.0], [1.0, 0.0]]), ValueError),
        (lambda: g.NelderMeadConfig(initial_simplex=[[0.0], [math.inf]]), ValueError),
        (lambda: g.NelderMeadConfig(initial_simplex=[["a"], ["b"]]), TypeError),
        (lambda: g.NelderMeadConfig(transform=object()), ValueError),
        (lambda: g.LBFGSBFTerminator(eps_abs=0.0), ValueError),
        (lambda: g.LBFGSBGTerminator(eps_abs="small"), TypeError),
        (lambda: g.LBFGSBInfNormGTerminator(eps_abs=-1.0), ValueError),
        (lambda: g.NelderMeadFTerminator(kind="relative"), ValueError),
        (lambda: g.NelderMeadFTerminator(tolerance=0.0), ValueError),
        (lambda: g.NelderMeadXTerminator(kind="volume"), ValueError),
        (lambda: g.NelderMeadXTerminator(kind=None), TypeError),
    ],
)
def test_bad_values_are_explained(make, error):
    with pytest.raises(error):
        make()


def test_options_are_keyword_only():
    for cls in (g.LBFGSBConfig, g.NelderMeadConfig, g.MoreThuenteLineSearch, g.HagerZhangLineSearch,
                g.LBFGSBFTerminator, g.NelderMeadFTerminator, g.NelderMeadXTerminator):
        with pytest.raises(TypeError):
            cls(1)
