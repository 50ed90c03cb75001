"""laddu's README and tutorial snippets (docs/tutorials/*.md at v0.21.4), one test each, run as
written with only `import laddu as ld` changed to `import laddu_cpp as ld`. The lines before a
snippet build the variables the tutorial defines in earlier chapters; the asserts after it check
the outcome. Snippets needing features laddu-cpp lacks are listed in docs/python.md."""

import numpy as np
import pytest

import laddu_cpp as ld

M_K = 0.497611


def ksks_events(n, seed):
    """Flat γ p → K_S K_S p events with the tutorials' column names."""
    events = ld.generate_ksks(n, seed=seed, kk_mass_max=2.0)
    return ld.Dataset.from_arrays(
        p4s={"gamma": events.p4("beam"), "recoil": events.p4("proton"), "ks1": events.p4("kshort1"),
             "ks2": events.p4("kshort2")},
        scalars={"pol_angle": events.column("pol_angle")})


def make_channel():
    edges = [ld.Edge("gamma", p4="gamma"), ld.Edge("target"), ld.Edge("X"), ld.Edge("recoil", p4="recoil"),
             ld.Edge("ks1", p4="ks1"), ld.Edge("ks2", p4="ks2")]
    vertices = [ld.Vertex("production", incoming=["gamma", "target"], outgoing=["X", "recoil"]),
                ld.Vertex("decay", incoming=["X"], outgoing=["ks1", "ks2"])]
    return ld.Channel("gamma p -> Ks Ks p", edges=edges, vertices=vertices)


def expressions_chapter(generation_channel):
    """docs/tutorials/expressions.md, every snippet in order; returns its namespace."""
    mass = generation_channel.mass("X")
    s = generation_channel.s("X")

    mass_0 = ld.parameter(
        "mass_0", initial=1.50, bounds=(1.35, 1.65), unit="GeV"
    )
    width_0 = ld.parameter(
        "width_0", initial=0.12, bounds=(0.01, 0.30), unit="GeV"
    )

    production = generation_channel.vertex("production")
    decay = generation_channel.vertex("decay")

    beam_axis = production.vec3("gamma")
    helicity_axis = production.vec3("X")
    normal = beam_axis.cross(helicity_axis)

    theta = decay.theta("ks1", z_axis=helicity_axis, y_hint=normal)
    phi = decay.phi("ks1", z_axis=helicity_axis, y_hint=normal)

    angular = ld.WignerD(ld.J(2), ld.M(0), ld.M(0)).D(
        alpha=phi,
        beta=theta,
    ).conj()

    parent = ld.Vec4.event("ks1") + ld.Vec4.event("ks2")
    daughter_in_parent_frame = ld.Vec4.event("ks1").boost(-parent.beta())

    m_k = ld.particles.K_SHORT.mass
    line_shape = ld.relativistic_breit_wigner(
        s,
        mass=mass_0,
        width=width_0,
        mass1=m_k,
        mass2=m_k,
        l=0,
    )

    second_magnitude = ld.parameter(
        "second_magnitude", initial=0.3, bounds=(0.0, 3.0)
    )
    second_phase = ld.parameter(
        "second_phase",
        initial=0.0,
        bounds=(-3.141592653589793, 3.141592653589793),
        periodic=True,
    )

    reference_wave = line_shape.tagged("reference")
    second_wave = (
        ld.polar_complex(second_magnitude, second_phase) * angular
    ).tagged("second")

    amplitude = reference_wave + second_wave
    intensity = amplitude.norm_sqr()
    model = ld.Model(intensity)

    selected_intensity = intensity.project(["reference", "second"])
    return locals()


@pytest.fixture(scope="module")
def chapter():
    """The expressions chapter plus generated MC, accepted MC and data drawn from the model."""
    generation_channel = make_channel()
    namespace = expressions_chapter(generation_channel)
    generated_mc = ksks_events(30000, seed=1)
    # A detector that loses the most forward ks1: accepted MC is the generated MC passing a cut.
    accepted_mc = generated_mc.select(ld.Vec4.event("ks1").vec3().costheta() < 0.995)
    truth = namespace["model"].evaluate(accepted_mc, real=True)
    data = ld.accept_reject(accepted_mc, truth, seed=2)
    namespace.update(generation_channel=generation_channel, generated_mc=generated_mc,
                     accepted_mc=accepted_mc, data=data)
    return namespace


def test_readme_example_runs_as_written(capsys):
    s = ld.scalar("s")
    mass = ld.parameter("mass", initial=1.0, bounds=(0.5, 1.5))
    width = ld.parameter("width", initial=0.1, bounds=(0.01, 0.5))
    amplitude = 1.0 / (mass**2 - s - 1j * mass * width)
    model = ld.Model(amplitude.norm_sqr())
    print(model.parameter_names)
    assert capsys.readouterr().out == "['mass', 'width']\n"


def test_expressions_build_the_model_and_inspect_it(chapter):
    model, generated_mc = chapter["model"], chapter["generated_mc"]
    # "Inspect a model before fitting", as written:
    parameters = model.default_parameters
    values = model.evaluate(generated_mc, parameters=parameters, real=True)
    assert model.parameter_names == ["mass_0", "width_0", "second_magnitude", "second_phase"]
    assert np.all(np.isfinite(values)) and np.all(values > 0)
    # The projection onto both tags is the full intensity.
    both = ld.Model(chapter["selected_intensity"]).evaluate(generated_mc, parameters=parameters)
    np.testing.assert_allclose(both, values, rtol=1e-13)
    boosted = generated_mc.evaluate(chapter["daughter_in_parent_frame"].m())
    np.testing.assert_allclose(boosted, M_K, rtol=1e-9)


def test_likelihoods_shape_extended_and_regularized(chapter):
    model, data, accepted_mc = chapter["model"], chapter["data"], chapter["accepted_mc"]
    shape_intensity = chapter["intensity"]

    shape_term = ld.NLL(
        model,
        data=data,
        accepted_mc=accepted_mc,
        name="signal",
    )
    shape_likelihood = ld.Likelihood([shape_term])

    yield_scale = ld.parameter(
        "yield_scale",
        initial=1.0,
        bounds=(0.0, None),
    )
    extended_model = ld.Model(yield_scale * shape_intensity)

    extended_term = ld.ExtendedNLL(
        extended_model,
        data=data,
        accepted_mc=accepted_mc,
        name="signal",
    )
    extended_likelihood = ld.Likelihood([extended_term])

    regularized = ld.Likelihood(
        [
            shape_term,
            ld.RidgePenalty(["second_magnitude"], lambda_=0.1),
        ]
    )

    theta = model.default_parameters
    assert regularized.value(theta) == pytest.approx(shape_likelihood.value(theta) + 0.1 * 0.3**2, rel=1e-12)
    assert extended_likelihood.parameter_names == ["yield_scale"] + model.parameter_names
    # The shape-only NLL is invariant under I -> c I; the extended one is not.
    scaled = ld.NLL(extended_model, data=data, accepted_mc=accepted_mc)
    assert scaled.value([3.0] + theta) == pytest.approx(shape_term.value(theta), rel=1e-12)
    assert extended_term.value([3.0] + theta) != pytest.approx(extended_term.value([1.0] + theta))


def test_fitting_chapter(chapter):
    model, data, accepted_mc, generated_mc = (chapter[k] for k in ("model", "data", "accepted_mc", "generated_mc"))

    term = ld.NLL(model, data=data, accepted_mc=accepted_mc, name="signal")
    likelihood = ld.Likelihood([term])

    initial = likelihood.sample_parameters(seed=100)
    value, gradient = likelihood.value_and_gradient(initial)
    assert np.isfinite(value) and np.all(np.isfinite(gradient))

    reference_re = ld.parameter("reference_re", fixed=1.0)
    reference_im = ld.parameter("reference_im", fixed=0.0)

    mass_fixed_model = model.fix("mass_0", 1.50)
    mass_freed_model = mass_fixed_model.free("mass_0")
    assert "mass_0" not in mass_fixed_model.free_parameter_names
    assert mass_freed_model.free_parameter_names == model.free_parameter_names

    fit = likelihood.fit(
        initial=initial,
        terminators=[ld.ganesh.MaxSteps(500)],
    )

    fitted = dict(zip(fit.parameter_names, fit.x, strict=True))
    assert fit.converged
    assert fitted["mass_0"] == pytest.approx(1.50, abs=0.01)

    fit = likelihood.fit(
        initial={"mass_0": 1.52, "width_0": 0.11},
    )
    assert fit.converged
    truth = model.default_parameters
    for k in range(3):  # the phase of a 0.3 wave is loosely constrained
        assert abs(fit.x[k] - truth[k]) < 4 * fit.errors[k], fit.parameter_names[k]

    projection = likelihood.projection(
        "signal",
        generated_mc=generated_mc,
        tags=["reference", "second"],
    )

    projection_weights = projection.weights(
        fit.x,
        acceptance_corrected=True,
    )
    # Both tags are the whole model: the corrected yield exceeds the observed one by 1/acceptance.
    accepted = likelihood.projection("signal").weights(fit.x)
    assert accepted.sum() == pytest.approx(data.sum_weights(), rel=1e-10)
    assert projection_weights.sum() > accepted.sum()

    bootstrap = likelihood.bootstrap_fit(
        8,  # laddu's tutorial runs 200 replicas
        initial=fit.x,
        seed=12345,
        terminators=[ld.ganesh.MaxSteps(500)],
    )
    assert len(bootstrap) == 8
    spread = np.array(bootstrap.std())
    assert np.all(spread > 0) and np.all(spread < 5 * np.array(fit.errors) + 1e-3)


def test_binned_fits_chapter(chapter):
    generation_channel, data, accepted_mc = (chapter[k] for k in ("generation_channel", "data", "accepted_mc"))
    decay = generation_channel.vertex("decay")
    z = generation_channel.vertex("production").vec3("X")
    costheta = decay.costheta("ks1", z_axis=z, y_hint=ld.Vec3.y_axis())
    s_wave = ld.spherical_harmonic(0, 0, costheta=costheta, phi=0.0)
    d_wave = ld.spherical_harmonic(2, 0, costheta=costheta, phi=0.0)

    mass = generation_channel.mass("X")
    mass_edges = np.linspace(1.0, 2.0, 31, dtype=np.float32)
    binning = ld.Bin(mass_edges)

    data_bins = data.bin_by(mass, bins=binning)
    accepted_bins = accepted_mc.bin_by(mass, bins=binning)

    terms = []

    for observed, normalization in zip(data_bins, accepted_bins, strict=True):
        if len(observed.dataset) == 0 or len(normalization.dataset) == 0:
            continue

        prefix = f"bin_{observed.index:02d}"
        magnitude = ld.parameter(
            f"{prefix}_d_magnitude",
            initial=0.2,
            bounds=(0.0, 5.0),
        )
        phase = ld.parameter(
            f"{prefix}_d_phase",
            initial=0.0,
            bounds=(-3.141592653589793, 3.141592653589793),
            periodic=True,
        )

        amplitude = s_wave + ld.polar_complex(magnitude, phase) * d_wave
        bin_model = ld.Model(amplitude.norm_sqr())
        terms.append(
            ld.NLL(
                bin_model,
                data=observed.dataset,
                accepted_mc=normalization.dataset,
                name=prefix,
            )
        )

    likelihood = ld.Likelihood(terms)
    fit = likelihood.fit(
        initial=likelihood.sample_parameters(seed=9),
        terminators=[ld.ganesh.MaxSteps(1000)],
    )

    assert len(data_bins) == len(accepted_bins) == 30
    assert 10 <= len(terms) <= 30
    assert len(fit.parameter_names) == 2 * len(terms)
    assert fit.parameter_names[0].startswith("bin_")
    assert fit.iterations <= 1000


def test_cross_sections_chapter(chapter):
    """docs/tutorials/cross-sections.md on the chapter's fit. Its second axis is laddu's
    ld.scalar("cos_theta"), a column these events do not have: the decay's cos θ expression
    stands in for it."""
    generation_channel, data, accepted_mc, generated_mc, model = (
        chapter[k] for k in ("generation_channel", "data", "accepted_mc", "generated_mc", "model"))
    likelihood = ld.Likelihood([ld.NLL(model, data=data, accepted_mc=accepted_mc, name="signal")])
    fit = likelihood.fit()
    integrated_luminosity = 12.5

    cross_section = likelihood.cross_section(
        "signal",
        generated_mc=generated_mc,
        luminosity=integrated_luminosity,
        parameters=fit.x,
    )

    observed = cross_section.observed_total()
    acceptance = cross_section.acceptance()
    corrected_yield = cross_section.corrected_yield()
    # σ_obs = N_obs / (L ε); the corrected yield is N_obs / ε
    assert observed.central == pytest.approx(data.sum_weights() / (integrated_luminosity * acceptance.central))
    assert corrected_yield.central == pytest.approx(observed.central * integrated_luminosity)
    assert 0.9 < acceptance.central < 1.0  # the cut loses the most forward ks1 only
    assert observed.draws.size == 0  # central only without an ensemble
    with pytest.raises(ld.ModelError, match="shape-only"):
        cross_section.fitted_total()  # an NLL term has no absolute rate

    reference_observed = cross_section.observed_total(tags=["reference"])
    reference_acceptance = cross_section.acceptance(tags=["reference"])
    assert 0 < reference_observed.central < observed.central
    assert 0.9 < reference_acceptance.central < 1.0

    mass_axis = ld.Axis(
        generation_channel.mass("X"),
        edges=np.linspace(1.0, 2.0, 51, dtype=np.float32),
    )

    distribution = cross_section.differential(
        mass_axis,
        components={
            "reference": ["reference"],
            "second": ["second"],
        },
    )
    widths = np.diff(np.asarray(mass_axis.edges))
    # the axis starts at 1 GeV, above the K_S K_S threshold (0.995 GeV): a sliver is outside it
    integral = np.dot(distribution.model.central, widths)
    assert integral < observed.central and integral == pytest.approx(observed.central, rel=1e-3)
    assert set(distribution.components) == {"reference", "second"}

    decay = generation_channel.vertex("decay")
    z = generation_channel.vertex("production").vec3("X")
    cos_theta = decay.costheta("ks1", z_axis=z, y_hint=ld.Vec3.y_axis())
    result = cross_section.differential(
        [
            ld.Axis(
                generation_channel.mass("X"),
                edges=np.linspace(1.0, 2.0, 51),
            ),
            ld.Axis(
                cos_theta,
                edges=np.linspace(-1.0, 1.0, 41),
            ),
        ]
    )

    model_grid = np.asarray(result.model.central).reshape(result.shape)
    assert model_grid.shape == (50, 40) and len(result.axes) == 2
    # summed over cos θ (which the axis covers whole) it is the mass distribution (float64 edges)
    mass_only = cross_section.differential(ld.Axis(generation_channel.mass("X"), edges=np.linspace(1.0, 2.0, 51)))
    assert (model_grid.sum(axis=1) * 0.05) == pytest.approx(np.asarray(mass_only.model.central), rel=1e-9)

    bootstrap = likelihood.bootstrap_fit(
        6,  # laddu's tutorial runs 200 replicas
        initial=fit.x,
        seed=12345,
        terminators=[ld.ganesh.MaxSteps(500)],
    )

    cross_section = likelihood.cross_section(
        "signal",
        generated_mc=generated_mc,
        luminosity=integrated_luminosity,
        parameters=fit.x,
        ensemble=bootstrap,
    )

    low, high = cross_section.observed_total().interval(0.68)
    covariance = cross_section.differential(mass_axis).model.covariance()
    assert low < high and np.asarray(covariance).shape == (50, 50)

    summary = likelihood.sample(
        ld.ganesh.AIESInit(likelihood.walker_positions(fit.x, 6, scale=1e-3, seed=1)), seed=2,
        terminators=[ld.ganesh.MaxSteps(40)])
    posterior = ld.Ensemble.from_mcmc(summary, discard=20, thin=10)
    assert len(posterior) == 6 * len(range(20, summary.chain.shape[1], 10))

    period_a = cross_section
    period_b = likelihood.cross_section("signal", generated_mc=generated_mc, luminosity=2 * integrated_luminosity,
                                        parameters=fit.x)
    combined = ld.CrossSection.combine([period_a, period_b])
    combined_observed = combined.observed_total()
    # the same yield twice over three times the exposure
    assert combined_observed.central == pytest.approx(2 * observed.central / 3)
    all_modes = ld.CrossSection.combine(
        [period_a, period_b],
        factors=[0.5, ld.Estimate(0.25, draws=[0.2, 0.3])],
    )
    assert all_modes.observed_total().central > combined_observed.central

    integrals = likelihood.cross_section_integrals(
        "signal",
        generated_mc=generated_mc,
        tags=["reference"],
    )

    i_acc = integrals.accepted_integral(fit.x)
    i_gen = integrals.generated_integral(fit.x)
    sigma_obs = integrals.observed_cross_section(
        fit.x,
        luminosity=integrated_luminosity,
    )
    assert i_acc / i_gen == pytest.approx(reference_acceptance.central)
    assert sigma_obs == pytest.approx(reference_observed.central)


def test_simultaneous_fits_chapter(chapter):
    """docs/tutorials/simultaneous-fits.md: two periods with different acceptance sharing the
    resonance shape (period b loses more forward kaons)."""
    intensity, generated_mc, data_a, accepted_mc_a = (
        chapter[k] for k in ("intensity", "generated_mc", "data", "accepted_mc"))
    generated_mc_a = generated_mc
    accepted_mc_b = generated_mc.select(ld.Vec4.event("ks1").vec3().costheta() < 0.9)
    data_b = ld.accept_reject(accepted_mc_b, chapter["model"].evaluate(accepted_mc_b, real=True), seed=3)
    shared_shape_a = shared_shape_b = intensity

    scale_a = ld.parameter("period_a_scale", initial=1.0, bounds=(0.0, None))
    scale_b = ld.parameter("period_b_scale", initial=1.0, bounds=(0.0, None))

    model_a = ld.Model(scale_a * shared_shape_a)
    model_b = ld.Model(scale_b * shared_shape_b)

    term_a = ld.ExtendedNLL(
        model_a,
        data=data_a,
        accepted_mc=accepted_mc_a,
        name="period_a",
    )
    term_b = ld.ExtendedNLL(
        model_b,
        data=data_b,
        accepted_mc=accepted_mc_b,
        name="period_b",
    )

    joint = ld.Likelihood([term_a, term_b])

    fit = joint.fit(
        initial=joint.sample_parameters(seed=12),
        terminators=[ld.ganesh.MaxSteps(1000)],
    )

    period_a_projection = joint.projection(
        "period_a",
        generated_mc=generated_mc_a,
        tags=["reference", "second"],
    )
    assert fit.converged
    fitted = dict(zip(fit.parameter_names, fit.x))
    assert sorted(fit.parameter_names) == sorted(
        ["mass_0", "width_0", "second_magnitude", "second_phase", "period_a_scale", "period_b_scale"])
    assert abs(fitted["mass_0"] - 1.50) < 0.02
    # each period's scale makes its expected accepted yield its observed one
    for term, scale in ((term_a, "period_a_scale"), (term_b, "period_b_scale")):
        values = [fitted[n] for n in term.parameter_names]
        assert term.normalization_integral(values) == pytest.approx(term.data_sum_weights, rel=1e-3)
    # the joint NLL is the sum of the terms'
    values = {n: v for n, v in zip(fit.parameter_names, fit.x)}
    assert joint.nll(fit.x) == pytest.approx(
        sum(t.value([values[n] for n in t.parameter_names]) for t in (term_a, term_b)), rel=1e-12)
    assert period_a_projection.weights(fit.x).sum() > term_a.data_sum_weights

    global_scale = ld.parameter("global_scale", initial=1.0, bounds=(0.0, None))
    exposure_ratio = 0.5
    model_a = ld.Model(global_scale * shared_shape_a)
    model_b = ld.Model(global_scale * exposure_ratio * shared_shape_b)
    shared = ld.Likelihood([ld.ExtendedNLL(model_a, data=data_a, accepted_mc=accepted_mc_a, name="a"),
                            ld.ExtendedNLL(model_b, data=data_b, accepted_mc=accepted_mc_b, name="b")])
    assert shared.parameter_names.count("global_scale") == 1


def test_coupled_channel_chapter():
    """docs/tutorials/coupled-channel.md: X → K_S K_S and X → π⁺π⁻ sharing the pole."""
    def two_body_channel(name, d1, d2, particle):
        edges = [ld.Edge("gamma", p4="gamma"), ld.Edge("target"), ld.Edge("X"), ld.Edge("recoil", p4="recoil"),
                 ld.Edge(d1, p4=d1, particle=particle), ld.Edge(d2, p4=d2, particle=particle)]
        vertices = [ld.Vertex("production", incoming=["gamma", "target"], outgoing=["X", "recoil"]),
                    ld.Vertex("decay", incoming=["X"], outgoing=[d1, d2])]
        return ld.Channel(name, edges=edges, vertices=vertices)

    channel_a = two_body_channel("X -> Ks Ks", "a1", "a2", ld.particles.K_SHORT)
    channel_b = two_body_channel("X -> Ks Ks (b)", "b1", "b2", ld.particles.K_SHORT)

    pole_mass = ld.parameter(
        "pole_mass",
        initial=1.50,
        bounds=(1.30, 1.70),
        unit="GeV",
    )
    pole_width = ld.parameter(
        "pole_width",
        initial=0.15,
        bounds=(0.01, 0.50),
        unit="GeV",
    )

    daughter_a1 = channel_a.particle("a1")
    daughter_a2 = channel_a.particle("a2")
    daughter_b1 = channel_b.particle("b1")
    daughter_b2 = channel_b.particle("b2")

    line_a = ld.relativistic_breit_wigner(
        channel_a.s("X"),
        mass=pole_mass,
        width=pole_width,
        mass1=daughter_a1.mass,
        mass2=daughter_a2.mass,
        l=0,
    )
    line_b = ld.relativistic_breit_wigner(
        channel_b.s("X"),
        mass=pole_mass,
        width=pole_width,
        mass1=daughter_b1.mass,
        mass2=daughter_b2.mass,
        l=0,
    )

    coupling_a = ld.complex(
        ld.parameter("channel_a_re", fixed=1.0),
        ld.parameter("channel_a_im", fixed=0.0),
    )
    coupling_b = ld.polar_complex(
        ld.parameter("channel_b_magnitude", initial=0.5, bounds=(0.0, None)),
        ld.parameter(
            "channel_b_phase",
            initial=0.0,
            bounds=(-3.141592653589793, 3.141592653589793),
            periodic=True,
        ),
    )

    model_a = ld.Model((coupling_a * line_a).norm_sqr())
    model_b = ld.Model((coupling_b * line_b).norm_sqr())

    def events(names, seed):
        raw = ld.generate_ksks(20000, seed=seed, kk_mass_max=2.0)
        return ld.Dataset.from_arrays(p4s={"gamma": raw.p4("beam"), "recoil": raw.p4("proton"),
                                           names[0]: raw.p4("kshort1"), names[1]: raw.p4("kshort2")})

    accepted_mc_a, accepted_mc_b = events(("a1", "a2"), 1), events(("b1", "b2"), 2)
    truth = {"pole_mass": 1.48, "pole_width": 0.10}
    data_a = ld.accept_reject(accepted_mc_a, model_a.evaluate(accepted_mc_a, parameters=truth, real=True), seed=3)
    data_b = ld.accept_reject(accepted_mc_b, model_b.evaluate(
        accepted_mc_b, parameters={**truth, "channel_b_magnitude": 0.5, "channel_b_phase": 0.0}, real=True), seed=4)

    joint = ld.Likelihood(
        [
            ld.NLL(model_a, data=data_a, accepted_mc=accepted_mc_a, name="channel_a"),
            ld.NLL(model_b, data=data_b, accepted_mc=accepted_mc_b, name="channel_b"),
        ]
    )

    fit = joint.fit(
        initial={"pole_mass": 1.52, "pole_width": 0.12},
        terminators=[ld.ganesh.MaxSteps(1000)],
    )
    assert fit.converged
    fitted = dict(zip(fit.parameter_names, fit.x))
    assert "channel_a_re" not in fitted  # fixed: the phase convention
    assert abs(fitted["pole_mass"] - truth["pole_mass"]) < 0.01
    assert abs(fitted["pole_width"] - truth["pole_width"]) < 0.01
    # With one wave per channel, channel b's coupling is not measured: its phase is a global
    # phase, and NLL normalises each channel's intensity by its own accepted MC, so its magnitude
    # cancels (the Hessian is singular, the uncertainties NaN). Fixing both, the shared pole is
    # constrained better by both channels than by channel a alone.
    fixed_b = model_b.fix("channel_b_phase", 0.0).fix("channel_b_magnitude", 0.5)
    both = ld.Likelihood([joint.terms[0], ld.NLL(fixed_b, data=data_b, accepted_mc=accepted_mc_b, name="channel_b")])
    both_fit = both.fit({"pole_mass": 1.52, "pole_width": 0.12})
    alone = ld.Likelihood([joint.terms[0]]).fit({"pole_mass": 1.52, "pole_width": 0.12})
    errors = dict(zip(both_fit.parameter_names, both_fit.errors))
    alone_errors = dict(zip(alone.parameter_names, alone.errors))
    assert errors["pole_mass"] < alone_errors["pole_mass"]
    assert abs(both_fit.x[both_fit.parameter_names.index("pole_mass")] - truth["pole_mass"]) < 4 * errors["pole_mass"]
