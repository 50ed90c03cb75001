"""Channel-driven weighted generation (laddu's Generator): the tutorial channel, the proposals'
distributions, weights as phase-space integrals, reproducibility across thread counts, and the
errors naming edges and vertices. Seeds are fixed, so every statistical check is deterministic;
the thresholds (KS p > 1e-3, 5 sigma) are the ones a correct generator passes with margin."""

import math

import numpy as np
import pytest
from scipy import stats

import laddu_cpp as ld

M_P = ld.particles.PROTON.mass
M_K = ld.particles.K_SHORT.mass


def components(dataset, name):
    """(N, 4) array of E, px, py, pz."""
    return np.asarray(dataset.p4(name))


def minkowski2(p):
    return p[:, 0] ** 2 - p[:, 1] ** 2 - p[:, 2] ** 2 - p[:, 3] ** 2


def breakup(m, m1, m2):
    return math.sqrt((m * m - (m1 + m2) ** 2) * (m * m - (m1 - m2) ** 2)) / (2.0 * m)


def ksks_channel(*, low=1.0, high=2.0, beam=None, mass=None, production=None):
    """The generating-mc tutorial channel (X from 1.0 GeV: laddu's 0.995 is below 2 m(K_S))."""
    beam = beam or ld.InitialMomentum.uniform_energy(low=8.0, high=9.0, direction=[0.0, 0.0, 1.0])
    mass = mass or ld.MassProposal(low, high=high)
    production = production or ld.VertexProposal.t_exchange(
        incoming="gamma", outgoing="X", slope=4.0, uniform_fraction=0.2
    )
    return ld.Channel(
        "gamma p -> K_S K_S p",
        edges=[
            ld.Edge("gamma", p4="gamma", particle=ld.particles.PHOTON, output=True, initial_momentum=beam),
            ld.Edge(
                "target",
                p4="target",
                particle=ld.particles.PROTON,
                output=True,
                initial_momentum=ld.InitialMomentum.momentum([0.0, 0.0, 0.0]),
            ),
            ld.Edge("X", mass_proposal=mass),
            ld.Edge("recoil", p4="recoil", particle=ld.particles.PROTON, output=True),
            ld.Edge("ks1", p4="ks1", particle=ld.particles.K_SHORT, output=True),
            ld.Edge("ks2", p4="ks2", particle=ld.particles.K_SHORT, output=True),
        ],
        vertices=[
            ld.Vertex("production", incoming=["gamma", "target"], outgoing=["X", "recoil"], generation=production),
            ld.Vertex("decay", incoming=["X"], outgoing=["ks1", "ks2"], generation=ld.VertexProposal.isotropic()),
        ],
    )


def test_tutorial_channel_generates_conserving_events_with_its_columns_and_report():
    channel = ksks_channel()
    channel.validate_generation()
    generator = ld.Generator(
        channel,
        scalars={"pol_magnitude": ld.ScalarSource.uniform(0.2, 0.3), "pol_angle": ld.ScalarSource.fixed(0.0)},
    )
    events, report = generator.weighted(20_000, seed=17)
    assert events.p4_names() == ["gamma", "target", "X", "recoil", "ks1", "ks2"]
    assert events.scalar_names() == ["pol_magnitude", "pol_angle"]
    initial = components(events, "gamma") + components(events, "target")
    final = components(events, "recoil") + components(events, "ks1") + components(events, "ks2")
    np.testing.assert_allclose(final, initial, rtol=0, atol=1e-10 * initial[:, :1].max())
    np.testing.assert_allclose(minkowski2(components(events, "ks1")), M_K**2, atol=1e-9)
    np.testing.assert_allclose(minkowski2(components(events, "recoil")), M_P**2, atol=1e-9)
    pol = np.asarray(events.column("pol_magnitude"))
    assert pol.min() >= 0.2 and pol.max() < 0.3
    weights = np.asarray(events.weights())
    assert np.all(weights > 0)
    assert (report.requested, report.produced, report.proposals, report.rejected) == (20_000,) * 3 + (0,)
    assert report.acceptance_rate == 1.0 and report.envelope is None and report.seed == 17
    assert report.sum_weights == pytest.approx(weights.sum(), rel=1e-12)
    assert (report.maximum_weight, report.minimum_weight) == (weights.max(), weights.min())
    assert report.actual_high_water_bytes is None and report.proven_weight_interval is None
    assert report.chunk_events > 0 and report.estimated_peak_bytes > 0
    assert repr(report) == "GenerationReport(produced=20000, proposals=20000, acceptance_rate=1.000)"


def test_same_seed_gives_the_same_events_on_one_and_two_threads():
    generator = ld.Generator(ksks_channel(), scalars={"pol": ld.ScalarSource.uniform(0.2, 0.3)})
    one, _ = generator.weighted(6000, seed=5, execution=ld.Execution(threads=1))
    two, _ = generator.weighted(6000, seed=5, execution=ld.Execution(threads=2))
    other, _ = generator.weighted(6000, seed=6, execution=ld.Execution(threads=2))
    for name in one.p4_names():
        np.testing.assert_array_equal(components(one, name), components(two, name))
    np.testing.assert_array_equal(np.asarray(one.weights()), np.asarray(two.weights()))
    np.testing.assert_array_equal(np.asarray(one.column("pol")), np.asarray(two.column("pol")))
    assert not np.array_equal(np.asarray(one.weights()), np.asarray(other.weights()))


def fixed_beam_events(n, seed, *, slope=None, uniform_fraction=0.0, mass=1.5):
    production = ld.VertexProposal.t_exchange(
        incoming="gamma", outgoing="X", slope=slope, uniform_fraction=uniform_fraction
    )
    channel = ksks_channel(
        beam=ld.InitialMomentum.energy(8.5, direction=[0.0, 0.0, 1.0]),
        mass=ld.MassProposal(mass),
        production=production,
    )
    return ld.Generator(channel).weighted(n, seed=seed)


def t_interval(e_beam=8.5, m_x=1.5):
    s = M_P**2 + 2 * e_beam * M_P
    root_s = math.sqrt(s)
    p_in = breakup(root_s, 0.0, M_P)
    p_out = breakup(root_s, m_x, M_P)
    centre = m_x**2 - 2 * p_in * math.sqrt(m_x**2 + p_out**2)
    return centre - 2 * p_in * p_out, centre + 2 * p_in * p_out, root_s, p_in, p_out


def momentum_transfer(events):
    q = components(events, "gamma") - components(events, "ks1") - components(events, "ks2")
    return minkowski2(q)


def test_t_slope_is_recovered_and_weights_flatten_it():
    slope = 4.0
    events, _ = fixed_beam_events(40_000, 11, slope=slope)
    t = momentum_transfer(events)
    a, b, *_ = t_interval()
    assert t.min() >= a - 1e-9 and t.max() <= b + 1e-9
    # Proposal draws follow exp(slope t) truncated to [a, b]: mean of -t and the KS test.
    mean = (b * math.exp(slope * b) - a * math.exp(slope * a)) / (math.exp(slope * b) - math.exp(slope * a)) - 1 / slope
    assert -t.mean() == pytest.approx(-mean, abs=5 * t.std() / math.sqrt(t.size))
    cdf = lambda x: np.expm1(slope * (x - a)) / math.expm1(slope * (b - a))  # noqa: E731
    assert stats.kstest(t, cdf).pvalue > 1e-3
    # Maximum likelihood slope: solve mean(t) = E[t; s] by bisection.
    lo, hi = 1.0, 10.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        m = (b * math.exp(mid * b) - a * math.exp(mid * a)) / (math.exp(mid * b) - math.exp(mid * a)) - 1 / mid
        lo, hi = (mid, hi) if m < t.mean() else (lo, mid)
    assert 0.5 * (lo + hi) == pytest.approx(slope, rel=0.03)
    # Weighted, the sample is phase space: flat in t, so the weighted mean is the midpoint (a
    # uniform admixture keeps the weights bounded, as the tutorial recommends).
    events, _ = fixed_beam_events(40_000, 12, slope=slope, uniform_fraction=0.3)
    t = momentum_transfer(events)
    w = np.asarray(events.weights())
    weighted_mean = np.sum(w * t) / np.sum(w)
    error = math.sqrt(np.sum(w**2 * (t - weighted_mean) ** 2)) / np.sum(w)
    assert weighted_mean == pytest.approx(0.5 * (a + b), abs=5 * error)


def test_weighted_sum_is_the_two_body_phase_space_product():
    # Fixed beam and X mass: w = Phi2(sqrt(s); X, p) Phi2(m_X; K, K) / (q(t) (b - a)) on average.
    events, report = fixed_beam_events(40_000, 12, slope=3.0, uniform_fraction=0.3)
    _, _, root_s, _, p_out = t_interval()
    exact = p_out / (4 * math.pi * root_s) * breakup(1.5, M_K, M_K) / (4 * math.pi * 1.5)
    w = np.asarray(events.weights())
    error = w.std() / math.sqrt(w.size)
    assert report.sum_weights / w.size == pytest.approx(exact, abs=5 * error)
    assert error < 0.02 * exact


def test_isotropic_decay_and_uniform_mass_proposal_are_recovered():
    events, _ = ld.Generator(ksks_channel()).weighted(20_000, seed=13)
    ks1, ks2 = components(events, "ks1"), components(events, "ks2")
    x = ks1 + ks2
    m_x = np.sqrt(minkowski2(x))
    assert stats.kstest(m_x, stats.uniform(loc=1.0, scale=1.0).cdf).pvalue > 1e-3
    # cos(theta) of ks1 in the X rest frame about the lab z axis: uniform.
    beta = x[:, 1:] / x[:, :1]
    b2 = np.sum(beta**2, axis=1)
    gamma = 1 / np.sqrt(1 - b2)
    bp = np.sum(beta * ks1[:, 1:], axis=1)
    p = ks1[:, 1:] + ((gamma - 1) * bp / b2 - gamma * ks1[:, 0])[:, None] * beta
    costheta = p[:, 2] / np.linalg.norm(p, axis=1)
    assert stats.kstest(costheta, stats.uniform(loc=-1, scale=2).cdf).pvalue > 1e-3
    np.testing.assert_allclose(np.linalg.norm(p, axis=1), [breakup(m, M_K, M_K) for m in m_x], rtol=1e-9)


def test_three_body_dalitz_plot_is_flat_with_the_mass_jacobian():
    m_d, m_k, m_pi = 1.86966, ld.particles.K_PLUS.mass, ld.particles.PI_PLUS.mass
    channel = ld.Channel(
        "D -> K pi pi",
        edges=[
            ld.Edge("D", particle=ld.particles.D_PLUS, initial_momentum=ld.InitialMomentum.p4([m_d, 0, 0, 0])),
            ld.Edge("K", p4="K", particle=ld.particles.K_MINUS),
            ld.Edge("Y", mass_proposal=ld.MassProposal(2 * m_pi, high=m_d - m_k), output=False),
            ld.Edge("pi1", p4="pi1", particle=ld.particles.PI_PLUS),
            ld.Edge("pi2", p4="pi2", particle=ld.particles.PI_PLUS),
        ],
        vertices=[
            ld.Vertex("D_decay", incoming=["D"], outgoing=["K", "Y"]),  # 1 -> 2: isotropic
            ld.Vertex("Y_decay", incoming=["Y"], outgoing=["pi1", "pi2"]),
        ],
    )
    events, _ = ld.Generator(channel).weighted(100_000, seed=14)
    assert events.p4_names() == ["D", "K", "pi1", "pi2"]
    k, a, b = (components(events, n) for n in ("K", "pi1", "pi2"))
    s_ka, s_ab = minkowski2(k + a), minkowski2(a + b)
    # laddu's weight measures dm_Y; phase space is flat in (s_Ka, s_ab) = flat in dm_Y^2.
    w = np.asarray(events.weights()) * 2 * np.sqrt(s_ab)
    lo, hi = (m_k + m_pi) ** 2, (m_d - m_pi) ** 2
    bins = 30

    def width(s):
        e1 = (s - m_k**2 + m_pi**2) / (2 * np.sqrt(s))
        e2 = (m_d**2 - s - m_pi**2) / (2 * np.sqrt(s))
        return 4 * np.sqrt(np.maximum(e1**2 - m_pi**2, 0)) * np.sqrt(np.maximum(e2**2 - m_pi**2, 0))

    edges = np.linspace(lo, hi, bins + 1)
    fine = np.linspace(lo, hi, bins * 200 + 1)
    centres = 0.5 * (fine[1:] + fine[:-1])
    expected = width(centres).reshape(bins, 200).sum(axis=1)
    expected *= w.sum() / expected.sum()
    observed, _ = np.histogram(s_ka, bins=edges, weights=w)
    variance, _ = np.histogram(s_ka, bins=edges, weights=w**2)
    chi2 = np.sum((observed - expected) ** 2 / variance)
    assert stats.chi2.sf(chi2, bins - 1) > 1e-3


def test_histogram_sources_sample_their_bins():
    class Histogram:  # laddu's Histogram attributes
        bin_edges = [8.0, 8.5, 9.0]
        counts = [1.0, 3.0]

    beam = ld.InitialMomentum.histogram_energy(Histogram(), direction=[0.0, 0.0, 1.0])
    t_hist = type("T", (), {"bin_edges": [-20.0, -1.0, 0.0], "counts": [1.0, 1.0]})()
    channel = ksks_channel(
        beam=beam, production=ld.VertexProposal.t_exchange_histogram(incoming="gamma", outgoing="X", histogram=t_hist)
    )
    events, _ = ld.Generator(channel, scalars={"h": ld.ScalarSource.histogram(Histogram())}).weighted(20_000, seed=15)
    energy = components(events, "gamma")[:, 0]
    cdf = lambda e: np.where(e < 8.5, (e - 8.0) / 0.5 * 0.25, 0.25 + (e - 8.5) / 0.5 * 0.75)  # noqa: E731
    assert stats.kstest(energy, cdf).pvalue > 1e-3
    assert stats.kstest(np.asarray(events.column("h")), cdf).pvalue > 1e-3
    with pytest.raises(TypeError, match="bin_edges and counts"):
        ld.ScalarSource.histogram(3)
    with pytest.raises(ld.ModelError):
        ld.ScalarSource.histogram(type("H", (), {"bin_edges": [0.0, 1.0], "counts": [0.0]})())


def test_pole_proposal_and_t_limits():
    production = ld.VertexProposal.t_exchange_pole(incoming="gamma", outgoing="X", exchange_mass=0.14, power=2.0)
    events, _ = ld.Generator(ksks_channel(production=production)).weighted(2000, seed=16)
    assert np.all(momentum_transfer(events) < 0)
    limited = ld.VertexProposal.t_exchange(incoming="gamma", outgoing="X", slope=2.0, t_min=-1.0, t_max=-0.2)
    events, _ = ld.Generator(ksks_channel(production=limited)).weighted(2000, seed=16)
    t = momentum_transfer(events)
    assert t.min() >= -1.0 - 1e-9 and t.max() <= -0.2 + 1e-9


def test_diagnostics_columns_and_memory_budget():
    generator = ld.Generator(ksks_channel())
    events, report = generator.weighted(500, seed=3, diagnostics=True, memory="64 MiB")
    w = np.asarray(events.weights())
    np.testing.assert_array_equal(np.asarray(events.column("__laddu_proposal_weight")), w)
    np.testing.assert_array_equal(np.asarray(events.column("__laddu_target_weight")), w)
    np.testing.assert_array_equal(np.asarray(events.column("__laddu_model_weight")), 1.0)
    with pytest.raises(ld.ModelError, match="more than the memory budget"):
        generator.weighted(500, seed=3, memory=1000)


def test_bad_inputs_are_typed_errors_naming_the_edge_or_vertex():
    with pytest.raises(ValueError, match="uniform mass requires low < high"):
        ld.MassProposal(2.0, high=1.0)
    with pytest.raises(ValueError, match="fixed mass must be non-negative"):
        ld.MassProposal(-1.0)
    with pytest.raises(ValueError, match="mass limits must be finite"):
        ld.MassProposal(math.inf)
    with pytest.raises(ValueError, match="uniform energy requires finite low < high"):
        ld.InitialMomentum.uniform_energy(low=9.0, high=8.0, direction=[0, 0, 1])
    with pytest.raises(ValueError, match="uniform_fraction must be between 0 and 1"):
        ld.VertexProposal.t_exchange(incoming="gamma", outgoing="X", slope=4.0, uniform_fraction=1.5)
    with pytest.raises(ValueError, match="t slope must be finite"):
        ld.VertexProposal.t_exchange(incoming="gamma", outgoing="X", slope=math.nan)
    with pytest.raises(ld.ModelError, match="t_min < t_max"):
        ld.VertexProposal.t_exchange(incoming="gamma", outgoing="X", t_min=-1.0, t_max=-2.0)
    with pytest.raises(ValueError, match="pole exchange_mass"):
        ld.VertexProposal.t_exchange_pole(incoming="gamma", outgoing="X", exchange_mass=-1.0, power=1.0)
    with pytest.raises(ld.ModelError, match="uniform scalar source"):
        ld.ScalarSource.uniform(1.0, 1.0)

    missing_momentum = ld.Channel(
        "c",
        edges=[ld.Edge("a", particle=ld.particles.PROTON), ld.Edge("b", particle=ld.particles.PI_PLUS),
               ld.Edge("c", particle=ld.particles.PI_PLUS)],
        vertices=[ld.Vertex("v", incoming=["a"], outgoing=["b", "c"])],
    )
    with pytest.raises(ld.ModelError, match="initial edge `a` has no momentum source"):
        missing_momentum.validate_generation()
    with pytest.raises(ld.ModelError, match="initial edge `a` has no momentum source"):
        ld.Generator(missing_momentum)
    no_mass = ld.Channel(
        "c",
        edges=[ld.Edge("a", particle=ld.particles.PROTON, initial_momentum=ld.InitialMomentum.momentum([0, 0, 1])),
               ld.Edge("b"), ld.Edge("c", particle=ld.particles.PI_PLUS)],
        vertices=[ld.Vertex("v", incoming=["a"], outgoing=["b", "c"])],
    )
    with pytest.raises(ld.ModelError, match="edge `b` has neither a particle mass nor a mass proposal"):
        no_mass.validate_generation()
    wrong_pairing = ksks_channel(
        production=ld.VertexProposal.t_exchange(incoming="beam", outgoing="X", slope=4.0)
    )
    with pytest.raises(ld.ModelError, match="vertex `production`"):
        wrong_pairing.validate_generation()
    wrong_arity = ksks_channel(production=ld.VertexProposal.isotropic())
    with pytest.raises(ld.ModelError, match="vertex `production`: an isotropic decay"):
        ld.Generator(wrong_arity)
    # laddu's tutorial range starts below 2 m(K_S): the decay fails at run time, naming it.
    with pytest.raises(ld.ModelError, match="event 3782: vertex `decay` failed: the two-body threshold is closed"):
        ld.Generator(ksks_channel(low=0.995)).weighted(20_000, seed=17)
    generator = ld.Generator(ksks_channel())
    with pytest.raises(ld.ModelError, match="scalar column name `ks1`"):
        ld.Generator(ksks_channel(), scalars={"ks1": ld.ScalarSource.fixed(1.0)})
    with pytest.raises(TypeError, match="a scalars value must be an ld.ScalarSource"):
        ld.Generator(ksks_channel(), scalars={"pol": 1.0})
    with pytest.raises(TypeError, match="model must be an ld.Model"):
        generator.weighted(10, model=ld.constant(1.0))
    with pytest.raises(ValueError, match="parameters require a model"):
        generator.weighted(10, parameters=[1.0])
    with pytest.raises(ld.EvaluationError, match="event 0: the model value -1 is not finite and positive"):
        generator.weighted(10, model=ld.Model(ld.constant(-1.0)))
    with pytest.raises(ld.ModelError, match="positive number of events"):
        generator.weighted(0)


def test_model_weights_are_proposal_weights_times_the_model():
    channel = ksks_channel()
    generator = ld.Generator(channel, scalars={"pol": ld.ScalarSource.uniform(0.2, 0.3)})
    # The model reads X, an edge with no p4 column of its own, and a generated scalar.
    model = ld.Model(ld.parameter("a") * channel.s("X") + ld.scalar("pol"))
    plain, _ = generator.weighted(5000, seed=21)
    events, report = generator.weighted(5000, seed=21, model=model, parameters={"a": 2.0}, diagnostics=True)
    x = components(plain, "ks1") + components(plain, "ks2")
    values = 2.0 * minkowski2(x) + np.asarray(plain.column("pol"))
    np.testing.assert_allclose(np.asarray(events.column("__laddu_model_weight")), values, rtol=1e-12)
    np.testing.assert_array_equal(np.asarray(events.column("__laddu_proposal_weight")), np.asarray(plain.weights()))
    np.testing.assert_allclose(np.asarray(events.weights()), np.asarray(plain.weights()) * values, rtol=1e-12)
    assert report.sum_weights == pytest.approx(float(np.sum(np.asarray(events.weights()))), rel=1e-12)
    same, _ = generator.weighted(5000, seed=21, model=model, parameters=[2.0])
    np.testing.assert_array_equal(np.asarray(same.weights()), np.asarray(events.weights()))


def test_weighted_to_streams_the_weighted_events_to_a_parquet_sink(tmp_path):
    """Generator.weighted_to: weighted()'s events and report, written batch by batch (pyarrow
    reads the file; a small memory budget makes many row groups)."""
    import pyarrow.parquet as pq

    generator = ld.Generator(ksks_channel(), scalars={"pol": ld.ScalarSource.uniform(0.2, 0.3)})
    events, report = generator.weighted(20_000, seed=4)
    path = tmp_path / "mc.parquet"
    streamed = generator.weighted_to(ld.ParquetSink(path), 20_000, seed=4, memory=1 << 20)
    assert streamed.sum_weights == report.sum_weights
    assert streamed.estimated_peak_bytes <= 1 << 20
    table = pq.read_table(path)
    metadata = pq.ParquetFile(path).metadata
    assert metadata.num_row_groups > 1
    assert table.num_rows == 20_000
    for name in events.p4_names():
        for suffix in ("e", "px", "py", "pz"):
            column = f"{name}_{suffix}"
            np.testing.assert_array_equal(table[column].to_numpy(), np.asarray(events.column(column)))
    np.testing.assert_array_equal(table["pol"].to_numpy(), np.asarray(events.column("pol")))
    np.testing.assert_array_equal(table["weight"].to_numpy(), np.asarray(events.weights()))
    reread = ld.read_parquet(str(path))
    assert len(reread) == 20_000
    f32 = tmp_path / "mc32.parquet"
    generator.weighted_to(ld.ParquetSink(f32, precision="f32"), 100, seed=4)
    assert str(pq.read_table(f32).schema.field("ks1_e").type) == "float"
    with pytest.raises(ld.ModelError, match="memory budget"):
        generator.weighted_to(ld.ParquetSink(tmp_path / "x.parquet"), 10, memory=64)
    assert not (tmp_path / "x.parquet").exists()


def test_weighted_to_streams_the_weighted_events_to_a_root_sink(tmp_path):
    """Generator.weighted_to(ld.RootSink): the same events as weighted(), in baskets of at most
    one batch (read back by ld.read_root; uproot and jsroot reading RootSink files is
    test_root_io.py)."""
    generator = ld.Generator(ksks_channel(), scalars={"pol": ld.ScalarSource.uniform(0.2, 0.3)})
    events, report = generator.weighted(20_000, seed=4)
    path = tmp_path / "mc.root"
    streamed = generator.weighted_to(ld.RootSink(path, tree="mc"), 20_000, seed=4, memory=1 << 20)
    assert streamed.sum_weights == report.sum_weights
    reread = ld.read_root(str(path), tree="mc")
    assert len(reread) == 20_000
    for name in events.p4_names():
        np.testing.assert_array_equal(np.asarray(reread.p4(name)), np.asarray(events.p4(name)))
    np.testing.assert_array_equal(np.asarray(reread.column("pol")), np.asarray(events.column("pol")))
    np.testing.assert_array_equal(np.asarray(reread.weights()), np.asarray(events.weights()))
    with pytest.raises(TypeError, match="ParquetSink or RootSink"):
        generator.weighted_to(str(tmp_path / "x.root"), 10)
