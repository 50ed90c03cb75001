"""ld.ganesh's other minimisers (laddu-cpp runs them from Likelihood.fit(config=...); laddu 0.21.4
takes only NelderMeadConfig and LBFGSBConfig there): each reaches the L-BFGS-B minimum of a
Breit-Wigner closure fit, every option changes the run, the stochastic ones are deterministic by
seed, and bad values are TypeError or ValueError saying what is wrong. Also the helpers Bounds,
ScaleTransform, PeriodicTransform, TransformChain, VectorInit and MultiStartSummary."""

import math

import numpy as np
import pytest

import laddu_cpp as ld

from test_fit_configs import START, likelihood  # noqa: F401  (the Breit-Wigner fit fixture)

g = ld.ganesh


@pytest.fixture(scope="module")
def reference(likelihood):
    return likelihood.fit(START)


CONFIGS = {
    "cmaes": lambda: g.CMAESConfig(),
    "pso": lambda: g.PSOConfig(),
    "differential_evolution": lambda: g.DifferentialEvolutionConfig(),
    "simulated_annealing": lambda: g.SimulatedAnnealingConfig(),
    "conjugate_gradient": lambda: g.ConjugateGradientConfig(),
    "trust_region": lambda: g.TrustRegionConfig(),
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_each_minimiser_reaches_the_lbfgsb_minimum(likelihood, reference, name):
    config = CONFIGS[name]()
    assert config.method == name
    # Annealing's default schedule takes 6905 steps to cool below 1e-3 and is a random walk of
    # 0.1-steps in the internal parameters: it lands within a fraction of an uncertainty.
    result = likelihood.fit(START, config=config, max_steps=20000)
    assert result.converged, result.message
    tolerance = 0.2 if name == "simulated_annealing" else 1e-3
    for value, best, error in zip(result.values, reference.values, reference.uncertainties):
        assert abs(value - best) < tolerance * error, (name, value, best, error)
    assert result.fx == pytest.approx(reference.fx, abs=0.05 if name == "simulated_annealing" else 1e-6)
    np.testing.assert_allclose(result.uncertainties, reference.uncertainties, rtol=0.05)
    gradient_free = name not in ("conjugate_gradient", "trust_region")
    # Only the Hessian for the uncertainties (2n gradients) uses the gradient in the gradient-free fits.
    assert (result.gradient_evaluations <= 2 * 2 + 2) == gradient_free


def test_method_names_run_the_same_minimisers(likelihood):
    by_config = likelihood.fit(START, config=g.DifferentialEvolutionConfig(), terminators=[g.MaxSteps(5)])
    by_name = likelihood.fit(START, method="differential_evolution", max_steps=5)
    assert by_config.values == by_name.values
    with pytest.raises(ValueError, match="trust_region"):
        likelihood.fit(START, method="cg")


@pytest.mark.parametrize("name", ["cmaes", "pso", "differential_evolution", "simulated_annealing"])
def test_stochastic_fits_are_functions_of_their_seed(likelihood, name):
    cls = type(CONFIGS[name]())

    def run(seed):
        return likelihood.fit(START, config=cls(seed=seed), terminators=[g.MaxSteps(10)]).values

    assert run(0) == run(0)
    assert run(0) != run(3)


def profile(likelihood, config, steps=8, terminators=()):
    """Evaluations and the point after a few steps: an ignored option leaves both unchanged."""
    result = likelihood.fit(START, config=config, terminators=[g.MaxSteps(steps), *terminators])
    return result.value_evaluations, result.iterations, tuple(result.values)


OPTIONS = [
    (g.CMAESConfig, {"population_size": 12}),
    (g.CMAESConfig, {"initial_sigma": 0.1}),
    (g.PSOConfig, {"particles": 7}),
    (g.PSOConfig, {"inertia": 0.3}),
    (g.PSOConfig, {"cognitive": 0.5}),
    (g.PSOConfig, {"social": 0.5}),
    (g.PSOConfig, {"initial_scale": 0.2}),
    (g.PSOConfig, {"position_bounds": [(0.9, 1.1), (0.05, 0.2)]}),
    (g.PSOConfig, {"topology": "ring"}),
    (g.PSOConfig, {"update_method": "asynchronous"}),
    (g.PSOConfig, {"velocity_scale": 0.3}),
    (g.DifferentialEvolutionConfig, {"population_size": 9}),
    (g.DifferentialEvolutionConfig, {"differential_weight": 0.4}),
    (g.DifferentialEvolutionConfig, {"crossover_probability": 0.2}),
    (g.DifferentialEvolutionConfig, {"initial_scale": 0.2}),
    (g.SimulatedAnnealingConfig, {"initial_temperature": 50.0}),
    (g.SimulatedAnnealingConfig, {"cooling_rate": 0.5}),
    (g.SimulatedAnnealingConfig, {"proposal_scale": 0.5}),
    (g.ConjugateGradientConfig, {"update": "fletcher_reeves"}),
    (g.ConjugateGradientConfig, {"update": "hestenes_stiefel_plus"}),
    (g.ConjugateGradientConfig, {"update": "dai_yuan"}),
    (g.ConjugateGradientConfig, {"update": "hager_zhang"}),
    (g.ConjugateGradientConfig, {"line_search": g.HagerZhangLineSearch()}),
    (g.ConjugateGradientConfig, {"line_search": g.MoreThuenteLineSearch(c2=0.1)}),
    (g.TrustRegionConfig, {"subproblem": "cauchy_point"}),
    (g.TrustRegionConfig, {"initial_radius": 0.01}),
    (g.TrustRegionConfig, {"eta": 0.9}),
]


@pytest.mark.parametrize("cls, change", OPTIONS, ids=[f"{c.__name__}-{next(iter(o))}-{i}" for i, (c, o) in
                                                      enumerate(OPTIONS)])
def test_every_option_changes_the_fit(likelihood, cls, change):
    # The swarm's best point moves from about the 10th iteration; annealing accepts few steps.
    steps = {g.SimulatedAnnealingConfig: 40, g.PSOConfig: 15}.get(cls, 8)
    assert profile(likelihood, cls(**change), steps) != profile(likelihood, cls(), steps)


def test_ring_radius_and_max_radius_change_the_fit(likelihood):
    ring = profile(likelihood, g.PSOConfig(topology="ring", particles=12), steps=15)
    assert profile(likelihood, g.PSOConfig(topology="ring", particles=12, ring_radius=4), steps=15) != ring
    small = dict(initial_radius=0.001)
    capped = profile(likelihood, g.TrustRegionConfig(max_radius=0.002, **small), steps=30)
    assert capped != profile(likelihood, g.TrustRegionConfig(**small), steps=30)


def test_terminators_join_the_default_rules(likelihood):
    steps = 100000
    annealing = likelihood.fit(START, config=g.SimulatedAnnealingConfig(),
                               terminators=[g.SimulatedAnnealingTerminator(min_temperature=0.5), g.MaxSteps(steps)])
    assert annealing.converged and annealing.iterations == 693  # 0.999^693 < 0.5
    assert "temperature" in annealing.message
    for config, loose in ((g.ConjugateGradientConfig(), g.ConjugateGradientGTerminator(eps_abs=1e3)),
                          (g.TrustRegionConfig(), g.TrustRegionGTerminator(eps_abs=1e3))):
        default = likelihood.fit(START, config=config)
        early = likelihood.fit(START, config=config, terminators=[loose])
        assert early.iterations < default.iterations
    default = likelihood.fit(START, config=g.CMAESConfig())
    for loose, message in ((g.CMAESTolFunTerminator(value=1.0), "TOL FUN"),
                           (g.CMAESSigmaTerminator(value=1e-2), "SIGMA"),
                           (g.CMAESTolXTerminator(value=1e-2), "TOL X"),
                           (g.CMAESConditionCovTerminator(value=1.5), "CONDITION"),
                           (g.CMAESTolXUpTerminator(value=0.5), "TOL X UP")):
        early = likelihood.fit(START, config=g.CMAESConfig(), terminators=[loose])
        assert message in early.message and early.iterations < default.iterations, (loose, early.message)
    for unit in (g.CMAESNoEffectAxisTerminator(), g.CMAESNoEffectCoordTerminator(),
                 g.CMAESEqualFunValuesTerminator(), g.CMAESStagnationTerminator()):
        same = likelihood.fit(START, config=g.CMAESConfig(), terminators=[unit])
        assert same.values == default.values  # already on by default
    with pytest.raises(TypeError, match="SimulatedAnnealingConfig"):
        likelihood.fit(START, config=g.CMAESConfig(), terminators=[g.SimulatedAnnealingTerminator()])
    with pytest.raises(TypeError, match="CMAESConfig"):
        likelihood.fit(START, terminators=[g.CMAESSigmaTerminator()])


def test_vector_init_and_multistart_summary(likelihood, reference):
    start = g.VectorInit([0.97, 0.09])
    np.testing.assert_array_equal(start.values, [0.97, 0.09])
    assert likelihood.fit(start).values == likelihood.fit([0.97, 0.09]).values
    with pytest.raises(ValueError, match="expected 2 initial values"):
        likelihood.fit(g.VectorInit([1.0]))
    runs = likelihood.fit_restarts(3, seed=2)
    summary = g.MultiStartSummary(runs)
    assert summary.restart_count == 2 and len(summary.runs) == 3
    assert summary.best is runs[summary.best_run_index]
    assert summary.best.fx == min(r.fx for r in runs)
    assert "MULTISTART" in str(summary) and "best_run=" in repr(summary)
    empty = g.MultiStartSummary([])
    assert empty.best is None and empty.best_run_index is None and empty.restart_count == 0
    with pytest.raises(TypeError, match="fit result"):
        g.MultiStartSummary([1.0])


def test_transform_specifications_validate_and_are_not_accepted_by_fits():
    chain = g.TransformChain([g.Bounds([(0.0, 1.0), (-math.inf, 2.0)]), g.ScaleTransform([2.0, 4.0]),
                              g.PeriodicTransform([None, (-math.pi, math.pi)])])
    assert len(chain.transforms) == 3
    with pytest.raises(ValueError, match="ordered"):
        g.Bounds([(1.0, 0.0)])
    with pytest.raises(g.GaneshConfigError, match="nonzero"):
        g.ScaleTransform([1.0, 0.0])
    assert g.ScaleTransform([-2.0]).scales == [-2.0]  # ganesh: finite and nonzero
    with pytest.raises(ValueError, match="finite and ordered"):
        g.PeriodicTransform([(0.0, math.inf)])
    with pytest.raises(ValueError, match="at least one transform"):
        g.TransformChain([])
    with pytest.raises(ValueError, match="Ganesh bounds, scale, periodic"):
        g.TransformChain([1.0])
    for cls in (g.CMAESConfig, g.PSOConfig, g.DifferentialEvolutionConfig, g.SimulatedAnnealingConfig,
                g.ConjugateGradientConfig, g.TrustRegionConfig):
        with pytest.raises(ValueError, match="not supported by laddu-cpp"):
            cls(transform=chain)
        with pytest.raises(ValueError, match="Ganesh bounds"):
            cls(transform="bounds")


def test_defaults_are_ganeshs():
    c = g.CMAESConfig()
    assert (c.population_size, c.initial_sigma, c.seed) == (0, 0.5, 0)
    p = g.PSOConfig()
    assert (p.particles, p.inertia, p.cognitive, p.social, p.initial_scale, p.position_bounds, p.topology,
            p.ring_radius, p.update_method, p.velocity_scale) == (0, 0.7298, 1.49618, 1.49618, 1.0, None,
                                                                  "global", 1, "synchronous", None)
    d = g.DifferentialEvolutionConfig()
    assert (d.population_size, d.differential_weight, d.crossover_probability, d.initial_scale) == (0, 0.8, 0.9, 1.0)
    a = g.SimulatedAnnealingConfig()
    assert (a.initial_temperature, a.cooling_rate, a.proposal_scale) == (1.0, 0.999, 0.1)
    assert g.SimulatedAnnealingTerminator().min_temperature == 1e-3
    assert g.ConjugateGradientConfig().update == "polak_ribiere_plus"
    t = g.TrustRegionConfig()
    assert (t.subproblem, t.initial_radius, t.max_radius, t.eta) == ("dogleg", 1.0, 1000.0, 1e-4)
    assert g.ConjugateGradientGTerminator().eps_abs == pytest.approx(2.220446049250313e-16 ** (1 / 3))
    assert g.TrustRegionGTerminator().eps_abs == pytest.approx(2.220446049250313e-16 ** (1 / 3))
    assert (g.CMAESSigmaTerminator().value, g.CMAESConditionCovTerminator().value, g.CMAESTolXUpTerminator().value,
            g.CMAESTolFunTerminator().value, g.CMAESTolXTerminator().value) == (1e-10, 1e14, 1e4, 1e-12, 0.0)


BAD = [
    (lambda: g.CMAESConfig(population_size=1), ValueError, "population_size must be 0"),
    (lambda: g.CMAESConfig(population_size=2.5), TypeError, "population_size must be an int"),
    (lambda: g.CMAESConfig(initial_sigma=0.0), ValueError, "initial_sigma must be finite"),
    (lambda: g.CMAESConfig(initial_sigma="1"), TypeError, "initial_sigma must be a float"),
    (lambda: g.CMAESConfig(seed=-1), ValueError, "seed must be in"),
    (lambda: g.CMAESConfig(seed=1.0), TypeError, "seed must be an int"),
    (lambda: g.PSOConfig(particles=1), ValueError, "particles must be 0"),
    (lambda: g.PSOConfig(inertia=-0.1), ValueError, "inertia must be finite and non-negative"),
    (lambda: g.PSOConfig(cognitive=math.nan), ValueError, "cognitive must be finite"),
    (lambda: g.PSOConfig(social=-1.0), ValueError, "social must be finite"),
    (lambda: g.PSOConfig(initial_scale=0.0), ValueError, "initial_scale must be finite"),
    (lambda: g.PSOConfig(position_bounds=[(0.0, math.inf)]), ValueError, "finite and ordered"),
    (lambda: g.PSOConfig(position_bounds=[1.0]), TypeError, "pair"),
    (lambda: g.PSOConfig(topology="star"), ValueError, "topology must be one of global, ring"),
    (lambda: g.PSOConfig(update_method="batch"), ValueError, "update_method must be one of"),
    (lambda: g.PSOConfig(ring_radius=-1), ValueError, "ring_radius must be at least 0"),
    (lambda: g.PSOConfig(velocity_scale=-1.0), ValueError, "velocity_scale must be finite"),
    (lambda: g.DifferentialEvolutionConfig(population_size=3), ValueError, "at least 4"),
    (lambda: g.DifferentialEvolutionConfig(differential_weight=0.0), ValueError, "differential_weight"),
    (lambda: g.DifferentialEvolutionConfig(crossover_probability=1.5), ValueError, "between 0 and 1"),
    (lambda: g.DifferentialEvolutionConfig(initial_scale=-1.0), ValueError, "initial_scale"),
    (lambda: g.SimulatedAnnealingConfig(initial_temperature=0.0), ValueError, "temperature must be greater"),
    (lambda: g.SimulatedAnnealingConfig(cooling_rate=1.0), ValueError, r"Cooling rate must be in \(0, 1\)"),
    (lambda: g.SimulatedAnnealingConfig(proposal_scale=0.0), ValueError, "proposal_scale"),
    (lambda: g.SimulatedAnnealingTerminator(min_temperature=0.0), ValueError, "min_temperature"),
    (lambda: g.ConjugateGradientConfig(update="newton"), ValueError, "update must be one of"),
    (lambda: g.ConjugateGradientConfig(line_search="wolfe"), TypeError, "line_search must be"),
    (lambda: g.ConjugateGradientGTerminator(eps_abs=0.0), ValueError, "eps_abs"),
    (lambda: g.TrustRegionConfig(subproblem="exact"), ValueError, "subproblem must be one of dogleg, cauchy_point"),
    (lambda: g.TrustRegionConfig(initial_radius=0.0), ValueError, "Initial radius"),
    (lambda: g.TrustRegionConfig(max_radius=math.inf), ValueError, "Maximum radius"),
    (lambda: g.TrustRegionConfig(eta=1.0), ValueError, r"eta must be finite and in the range \[0, 1\)"),
    (lambda: g.TrustRegionGTerminator(eps_abs=-1.0), ValueError, "eps_abs"),
    (lambda: g.CMAESSigmaTerminator(value=-1.0), ValueError, "value must be finite and non-negative"),
    (lambda: g.CMAESTolXTerminator(value=math.inf), ValueError, "value must be finite"),
    (lambda: g.VectorInit([]), ValueError, "non-empty and finite"),
    (lambda: g.VectorInit([1.0, math.nan]), ValueError, "non-empty and finite"),
    (lambda: g.VectorInit(["a"]), TypeError, "sequence of floats"),
    (lambda: g.CMAESConfig(parameter_names="mass"), TypeError, "parameter_names"),
]


@pytest.mark.parametrize("make, error, match", BAD, ids=[str(i) for i in range(len(BAD))])
def test_bad_values_say_what_is_wrong(make, error, match):
    with pytest.raises(error, match=match) as caught:
        make()
    if error is ValueError:  # ganesh's config error, which laddu raises, is also a ValueError
        assert isinstance(caught.value, g.GaneshConfigError)


def test_position_bounds_and_names_must_fit_the_likelihood(likelihood):
    with pytest.raises(ValueError, match="position_bounds has 1"):
        likelihood.fit(START, config=g.PSOConfig(position_bounds=[(0.9, 1.1)]))
    with pytest.raises((ValueError, ld.ModelError), match="parameter_names|mass"):
        likelihood.fit(START, config=g.CMAESConfig(parameter_names=["a", "b"]))
