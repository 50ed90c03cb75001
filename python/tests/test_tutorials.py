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
