"""Channel-driven unweighted generation (laddu's Generator.unweighted): the modeled-mc tutorial
blocks, unweighted samples against the weighted distribution of the same target (χ² per bin),
the report, thread-count independence, envelope growth and the errors. Seeds are fixed, so every
statistical check is deterministic; the χ² limits sit about 6σ above their means."""

import math

import numpy as np
import pytest
from scipy import stats

import laddu_cpp as ld
from test_generation_channel import components, ksks_channel, minkowski2
from test_tutorials import expressions_chapter

TRUTH = {"mass_0": 1.50, "width_0": 0.12, "second_magnitude": 0.7, "second_phase": 0.9}


def mass_x(events):
    return np.sqrt(minkowski2(components(events, "ks1") + components(events, "ks2")))


def costheta_x(events):
    """cos θ of ks1 in the K_S K_S rest frame, z along the lab z axis."""
    ks1 = components(events, "ks1")
    x = ks1 + components(events, "ks2")
    beta = -x[:, 1:] / x[:, :1]
    b2 = np.sum(beta * beta, axis=1)
    gamma = 1.0 / np.sqrt(1.0 - b2)
    bp = np.sum(beta * ks1[:, 1:], axis=1)
    p = ks1[:, 1:] + ((gamma - 1.0) * bp / b2 + gamma * ks1[:, 0])[:, None] * beta
    return p[:, 2] / np.linalg.norm(p, axis=1)


def chi2_pvalue(sample, reference, weights, low, high, bins):
    """p-value of unweighted counts against a weighted reference histogram scaled to them (both
    in [low, high]); the variance adds the counts' Poisson variance and the reference's Σw²."""
    edges = np.linspace(low, high, bins + 1)
    counts, _ = np.histogram(sample, edges)
    total, _ = np.histogram(reference, edges, weights=weights)
    total2, _ = np.histogram(reference, edges, weights=weights**2)
    n, norm = np.sum(counts), np.sum(total)  # both restricted to [low, high]
    expected = n * total / norm
    variance = expected + n * n * total2 / norm**2
    chi2 = float(np.sum((counts - expected) ** 2 / variance))
    return stats.chi2.sf(chi2, bins - 1)


@pytest.fixture(scope="module")
def tutorial():
    """modeled-mc.md on the generating-mc channel with the expressions chapter's model."""
    channel = ksks_channel()
    model = expressions_chapter(channel)["model"]
    generator = ld.Generator(channel)
    truth = {
        "mass_0": 1.50,
        "width_0": 0.12,
        "second_magnitude": 0.7,
        "second_phase": 0.9,
    }

    weighted_model_mc, weighted_report = generator.weighted(
        100_000,
        model=model,
        parameters=truth,
        seed=20,
    )

    pseudo_data, report = generator.unweighted(
        10_000,
        model,
        parameters=truth,
        seed=21,
        pilot_proposals=50_000,
        safety_factor=2.0,
        grow_envelope=True,
        max_proposals=50_000_000,
    )
    return locals()


def test_tutorial_pseudo_data_follows_the_weighted_model_mc(tutorial):
    data, report = tutorial["pseudo_data"], tutorial["report"]
    weighted = tutorial["weighted_model_mc"]
    assert len(data) == 10_000
    np.testing.assert_array_equal(np.asarray(data.weights()), 1.0)
    assert data.p4_names() == ["gamma", "target", "X", "recoil", "ks1", "ks2"]
    assert report.requested == report.produced == 10_000
    assert report.proposals == report.produced + report.rejected
    assert report.acceptance_rate == report.produced / report.proposals
    assert report.pilot_proposals in (50_000, 100_000)
    assert report.envelope_kind == "pilot"
    assert report.maximum_weight <= report.envelope
    assert report.seed == 21
    w = np.asarray(weighted.weights())
    assert chi2_pvalue(mass_x(data), mass_x(weighted), w, 1.0, 2.0, 25) > 1e-6
    assert chi2_pvalue(costheta_x(data), costheta_x(weighted), w, -1.0, 1.0, 20) > 1e-6
    # The model matters: against flat phase space the same sample fails.
    flat, _ = ld.Generator(ksks_channel()).weighted(100_000, seed=22)
    assert chi2_pvalue(mass_x(data), mass_x(flat), np.asarray(flat.weights()), 1.0, 2.0, 25) < 1e-30


def test_phase_space_unweighted_follows_weighted_and_reports_the_pilot():
    generator = ld.Generator(ksks_channel(), scalars={"pol": ld.ScalarSource.uniform(0.2, 0.3)})
    weighted, _ = generator.weighted(200_000, seed=1)
    events, report = generator.unweighted(20_000, seed=2, diagnostics=True)
    assert events.scalar_names() == ["pol", "__laddu_proposal_weight", "__laddu_model_weight",
                                     "__laddu_target_weight"]
    np.testing.assert_array_equal(np.asarray(events.column("__laddu_model_weight")), 1.0)
    np.testing.assert_array_equal(np.asarray(events.column("__laddu_proposal_weight")),
                                  np.asarray(events.column("__laddu_target_weight")))
    assert report.pilot_proposals == 10_000 and report.envelope_updates == 0
    assert np.max(np.asarray(events.column("__laddu_target_weight"))) <= report.envelope
    w = np.asarray(weighted.weights())
    t = minkowski2(components(weighted, "gamma") - components(weighted, "ks1") - components(weighted, "ks2"))
    t_data = minkowski2(components(events, "gamma") - components(events, "ks1") - components(events, "ks2"))
    assert chi2_pvalue(mass_x(events), mass_x(weighted), w, 1.0, 2.0, 20) > 1e-6
    assert chi2_pvalue(t_data, t, w, -3.0, 0.0, 20) > 1e-6
    assert chi2_pvalue(np.asarray(events.column("pol")), np.asarray(weighted.column("pol")), w, 0.2, 0.3, 10) > 1e-6


def test_same_events_on_one_and_two_threads(tutorial):
    generator, model = tutorial["generator"], tutorial["model"]
    runs = [generator.unweighted(1000, model, parameters=TRUTH, seed=5, execution=ld.Execution(threads=t))
            for t in (1, 2)]
    (one, r1), (two, r2) = runs
    for name in one.p4_names():
        np.testing.assert_array_equal(components(one, name), components(two, name))
    for field in ("proposals", "rejected", "envelope", "pilot_proposals", "sum_weights", "maximum_weight"):
        assert getattr(r1, field) == getattr(r2, field), field
    other, _ = generator.unweighted(1000, model, parameters=TRUTH, seed=6)
    assert not np.array_equal(components(other, "ks1"), components(one, "ks1"))


def test_strict_envelope_overflow_and_growth():
    generator = ld.Generator(ksks_channel())
    with pytest.raises(ld.ModelError, match=r"exceeds the envelope 1e-06 at proposal \d+: pass grow_envelope=True"):
        generator.unweighted(100, seed=5, max_weight=1e-6)
    events, report = generator.unweighted(500, seed=5, max_weight=1e-6, grow_envelope=True)
    assert len(events) == 500
    assert report.envelope_kind == "strict" and report.pilot_proposals == 0
    assert report.envelope_updates >= 1
    assert report.maximum_weight <= report.envelope <= 2.0 * report.maximum_weight
    fixed, fixed_report = generator.unweighted(500, seed=5, max_weight=report.envelope)
    assert fixed_report.envelope_updates == 0 and fixed_report.envelope == report.envelope


def test_max_proposals_and_bad_arguments_are_errors():
    generator = ld.Generator(ksks_channel())
    message = (r"accepted \d+ of 1000 requested events after exhausting max_proposals=1500 proposals "
               r"\(envelope [0-9.e-]+, acceptance rate [0-9.e-]+; about \d+ proposals are needed at this "
               r"acceptance rate\): raise max_proposals")
    with pytest.raises(ld.ModelError, match=message):
        generator.unweighted(1000, seed=1, max_proposals=1500)
    with pytest.raises(ld.ModelError, match="at least the requested event count"):
        generator.unweighted(10, max_proposals=5)
    with pytest.raises(ValueError, match="parameters require a model"):
        generator.unweighted(10, parameters=[1.0])
    with pytest.raises(ValueError, match="mutually exclusive"):
        generator.unweighted(10, proven_envelope=True, max_weight=1.0)
    with pytest.raises(ValueError, match="valid only when model is omitted"):
        generator.unweighted(10, ld.Model(ld.constant(1.0)), proven_envelope=True)
    with pytest.raises(ValueError, match="cannot be combined with grow_envelope"):
        generator.unweighted(10, proven_envelope=True, grow_envelope=True)
    with pytest.raises(ld.ModelError, match="pilot_proposals must be positive"):
        generator.unweighted(10, pilot_proposals=0)
    with pytest.raises(ld.ModelError, match="safety_factor finite and greater than one"):
        generator.unweighted(10, safety_factor=1.0)
    with pytest.raises(ld.ModelError, match="positive number of events"):
        generator.unweighted(0)
    with pytest.raises(ld.ModelError, match="reduce pilot_proposals"):
        generator.unweighted(10, memory=200_000)
    with pytest.raises(ld.EvaluationError, match="the model value -1 is not finite and positive"):
        generator.unweighted(10, ld.Model(ld.constant(-1.0)))
    with pytest.raises(TypeError, match="model must be an ld.Model"):
        generator.unweighted(10, ld.constant(1.0))


def test_proven_envelope_bounds_every_weight_and_drives_unweighted_generation():
    """Generator.phase_space_envelope: a bound no weighted event exceeds, within 1 % of the
    largest of 200,000; unweighted(proven_envelope=True) uses it without a pilot."""
    generator = ld.Generator(ksks_channel(), scalars={"pol": ld.ScalarSource.uniform(0.2, 0.3)})
    proven = generator.phase_space_envelope()
    assert isinstance(proven, ld.ProvenEnvelopeReport)
    low, high = proven.weight_interval
    assert low == 0.0 and high == proven.maximum_weight
    # beam energy, m(X), two per vertex, the scalar; the t mixture has two analytic regions
    assert proven.continuous_dimensions == 7
    assert proven.piecewise_regions == 2
    assert proven.subdivisions > 0
    assert repr(proven).startswith("ProvenEnvelopeReport(weight_interval=[0, ")
    _, weighted = generator.weighted(200_000, seed=3)
    assert weighted.maximum_weight <= proven.maximum_weight < 1.01 * weighted.maximum_weight

    events, report = generator.unweighted(2000, seed=3, proven_envelope=True)
    assert len(events) == 2000
    assert report.envelope == proven.maximum_weight
    assert report.envelope_kind == "proven_phase_space"
    assert report.pilot_proposals == 0
    assert report.proven_weight_interval == proven.weight_interval
    assert report.proven_continuous_dimensions == 7
    assert report.proven_piecewise_regions == 2
    assert report.proven_subdivisions == proven.subdivisions
    # Exactly the events of a strict envelope of the same value.
    strict, strict_report = generator.unweighted(2000, seed=3, max_weight=proven.maximum_weight)
    assert strict_report.proposals == report.proposals
    np.testing.assert_array_equal(np.asarray(strict.column("ks1_e")), np.asarray(events.column("ks1_e")))
    assert strict_report.proven_weight_interval is None


def test_proven_envelope_refuses_an_unbounded_weight():
    """A massless pole at the forward edge of elastic scattering makes the weight unbounded."""
    pion = ld.particles.PI_PLUS
    channel = ld.Channel(
        "pi pi -> pi pi",
        edges=[
            ld.Edge("a", p4="a", particle=pion, output=True,
                    initial_momentum=ld.InitialMomentum.momentum([0.0, 0.0, 2.0])),
            ld.Edge("b", p4="b", particle=pion, output=True,
                    initial_momentum=ld.InitialMomentum.momentum([0.0, 0.0, -2.0])),
            ld.Edge("c", p4="c", particle=pion, output=True),
            ld.Edge("d", p4="d", particle=pion, output=True),
        ],
        vertices=[ld.Vertex("scatter", incoming=["a", "b"], outgoing=["c", "d"],
                            generation=ld.VertexProposal.t_exchange_pole(incoming="a", outgoing="c",
                                                                         exchange_mass=0.0, power=2.0))],
    )
    generator = ld.Generator(channel)
    with pytest.raises(ld.ModelError, match="vertex `scatter`: the t pole of its proposal reaches the physical t range"):
        generator.phase_space_envelope()
    with pytest.raises(ld.ModelError, match="t pole"):
        generator.unweighted(10, proven_envelope=True)
