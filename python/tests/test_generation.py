"""Generation from Python: KsKs phase space, n-body phase space and accept-reject, checked with
kinematics computed in numpy and with laddu's counter-based generator re-implemented here."""

import numpy as np
import pytest

import laddu_cpp as ld

M_K = 0.497611
M_P = 0.93827208816
MASK64 = (1 << 64) - 1


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def counter_uniform(seed, i):
    return (splitmix64(seed ^ i) >> 11) / 2.0**53


def mass(p):
    return np.sqrt(np.maximum(p[:, 0] ** 2 - np.sum(p[:, 1:] ** 2, axis=1), 0.0))


def test_generate_ksks_has_the_benchmark_columns_and_kinematics():
    data = ld.generate_ksks(2000, seed=3, kk_mass_max=2.0)
    assert len(data) == 2000
    assert data.p4_names() == ["beam", "proton", "kshort1", "kshort2"]
    assert data.scalar_names() == ["pol_magnitude", "pol_angle"]
    beam, proton, k1, k2 = (data.p4(n) for n in ("beam", "proton", "kshort1", "kshort2"))
    np.testing.assert_allclose(mass(k1), M_K, rtol=1e-9)
    np.testing.assert_allclose(mass(proton), M_P, rtol=1e-9)
    assert np.all((beam[:, 0] >= 8.0) & (beam[:, 0] <= 9.0))
    np.testing.assert_allclose(beam[:, 3], beam[:, 0])  # along +z
    # Four-momentum conservation with the proton target at rest.
    total_in = beam + np.array([M_P, 0, 0, 0])
    np.testing.assert_allclose(proton + k1 + k2, total_in, atol=1e-9)
    mkk = mass(k1 + k2)
    assert np.all((mkk >= 2 * M_K - 1e-12) & (mkk <= 2.0 + 1e-12))
    pol = data.column("pol_magnitude")
    assert np.all((pol >= 0.3) & (pol <= 0.4))
    np.testing.assert_array_equal(data.weights(), np.ones(2000))


def test_generate_ksks_is_deterministic_in_the_seed_and_checks_its_options():
    a, b, c = ld.generate_ksks(50, seed=1), ld.generate_ksks(50, seed=1), ld.generate_ksks(50, seed=2)
    np.testing.assert_array_equal(a.p4("kshort1"), b.p4("kshort1"))
    assert not np.array_equal(a.p4("kshort1"), c.p4("kshort1"))
    with pytest.raises(ld.ModelError):
        ld.generate_ksks(10, beam_energy_min=9.0, beam_energy_max=8.0)
    with pytest.raises(ld.ModelError):
        ld.generate_ksks(10, kk_mass_max=0.5)


def test_nbody_phase_space_conserves_momentum_and_bounds_its_weight():
    parent = 1.8696
    masses = [0.4937, 0.1396, 0.1396]
    space = ld.NBodyPhaseSpace(parent, masses)
    assert space.masses == masses
    data = space.generate(3000, seed=5, names=["k", "pi1", "pi2"])
    assert data.p4_names() == ["k", "pi1", "pi2"]
    ps = [data.p4(n) for n in ("k", "pi1", "pi2")]
    for p, m in zip(ps, masses):
        np.testing.assert_allclose(mass(p), m, rtol=1e-9)
    np.testing.assert_allclose(ps[0] + ps[1] + ps[2], np.tile([parent, 0, 0, 0], (3000, 1)), atol=1e-12)
    w = data.weights()
    assert np.all((w > 0) & (w <= space.max_weight))
    unweighted = space.generate(100, seed=5, unweighted=True)
    np.testing.assert_array_equal(unweighted.weights(), np.ones(100))
    assert unweighted.p4_names() == ["p1", "p2", "p3"]
    with pytest.raises(ld.ModelError):
        ld.NBodyPhaseSpace(0.5, [0.4937, 0.1396])
    with pytest.raises(ld.ModelError, match="2 names given for 3 daughters"):
        space.generate(1, names=["a", "b"])


def test_accept_reject_keeps_exactly_the_events_laddus_generator_keeps():
    events = ld.generate_ksks(400, seed=7)
    x = ld.scalar("pol_angle")
    intensity = events.evaluate(1.0 + 0.8 * x.cos(), real=True)
    kept = ld.accept_reject(events, intensity, seed=11)
    imax = intensity.max()
    expected = [i for i in range(len(events)) if counter_uniform(11, i) * imax < intensity[i]]
    assert len(kept) == len(expected)
    np.testing.assert_array_equal(kept.column("pol_angle"), events.column("pol_angle")[expected])
    with pytest.raises(ld.DataError):
        ld.accept_reject(events, intensity[:-1])
    bad = intensity.copy()
    bad[3] = -1.0
    with pytest.raises(ld.EvaluationError, match="3"):
        ld.accept_reject(events, bad)
    with pytest.raises(ld.ModelError):
        ld.accept_reject(events, intensity, max_intensity=0.5 * imax)
