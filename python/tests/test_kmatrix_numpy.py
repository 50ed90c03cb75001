"""The numpy K-matrix benchmark NLL (bench/kmatrix_numpy.py) against laddu's published values,
against itself by two independent routes, and against `laddu-cpp bench kmatrix`.

The CLI comparison runs only when LADDU_CPP_CLI names the laddu-cpp binary, e.g.
    LADDU_CPP_CLI=build/<dir>/apps/laddu-cpp/laddu-cpp python3 -m pytest python/tests
"""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import laddu_cpp as ld

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import kmatrix_numpy as kn  # noqa: E402

# laddu v0.21.4 kopf.rs `evaluation_matches_expected_values`: β = 0.1+0.2i, 0.3+0.4i, ... at
# s = 1.8889166211166355, one channel per family.
KOPF_S = 1.8889166211166355
KOPF_BETA = np.array([0.1 + 0.2j, 0.3 + 0.4j, 0.5 + 0.6j, 0.7 + 0.8j, 0.9 + 1.0j])
KOPF_EXPECTED = [
    (kn.KOPF_F0, 1, 0.2674945594859746 + 0.728945115184662j),  # 4π
    (kn.KOPF_F2, 1, 0.02463134381292893 + 0.3964232300397033j),  # 4π
    (kn.KOPF_A0, 1, -0.800275915726 - 0.13593066320582162j),  # KK̄
    (kn.KOPF_A2, 1, -0.2087815057065276 - 0.10173200171306504j),  # KK̄
    (kn.KOPF_RHO, 1, 0.09449011845747245 + 0.2609094192601879j),  # 4π
    (kn.KOPF_PI1, 1, -0.1102837189594736 + 0.263468912197887j),  # πη′
]


def weighted_events(n, seed):
    events = kn.generate_ksks(n, seed)
    events.weights = np.random.default_rng(seed + 1).uniform(0.5, 1.5, n)
    return events


def random_parameters(seed):
    rng = np.random.default_rng(seed)
    return {name: float(rng.uniform(-1.0, 1.0)) for name in kn.PARAMETER_NAMES}


@pytest.mark.parametrize("table,channel,expected", KOPF_EXPECTED,
                         ids=[t.name for t, _, _ in KOPF_EXPECTED])
def test_kopf_f_vector_reproduces_laddus_unit_test_values(table, channel, expected):
    beta = KOPF_BETA[: len(table.poles)]
    f = kn.kopf_f_vector(table, np.array([KOPF_S]), beta)[0, channel]
    assert abs(f - expected) <= 1e-13 * abs(expected)


def test_kkbar_basis_is_the_f_vector_of_unit_couplings():
    s = np.linspace(1.0, 4.0, 7)
    for table in (kn.KOPF_F0, kn.KOPF_A0, kn.KOPF_F2, kn.KOPF_A2):
        basis = kn.kopf_kkbar_basis(table, s)
        beta = KOPF_BETA[: len(table.poles)]
        direct = kn.kopf_f_vector(table, s, beta)[:, kn.KKBAR[table.name]]
        np.testing.assert_allclose(basis @ beta, direct, rtol=1e-12, atol=0)


def test_chew_mandelstam_imaginary_part_is_minus_rho_above_threshold():
    m1, m2 = kn.M_K_CHARGED, kn.M_K0
    s = np.linspace((m1 + m2) ** 2 + 1e-3, 5.0, 50)
    rho = 2.0 * kn.breakup_momentum(s, m1, m2).real / np.sqrt(s)
    np.testing.assert_allclose(kn.chew_mandelstam(s, m1, m2).imag, -rho, rtol=1e-13)
    # Continuous through threshold: below it Σ is real (ρ imaginary, unit-modulus ratio).
    threshold = (m1 + m2) ** 2
    below, above = kn.chew_mandelstam(np.array([threshold * (1 - 1e-9), threshold * (1 + 1e-9)]),
                                      m1, m2)
    assert below.imag == 0.0
    assert abs(below - above) < 1e-3


def test_zlm_reflectivities_sum_to_twice_ylm_squared():
    kin = weighted_events(200, 3).kinematics()
    for l, m in ((0, 0), (2, 2)):
        total = (np.abs(kn.zlm(l, m, True, kin)) ** 2 + np.abs(kn.zlm(l, m, False, kin)) ** 2)
        ylm = (1.0 / (4 * np.pi) if l == 0
               else 15.0 / (32.0 * np.pi) * (1.0 - kin.costheta ** 2) ** 2)
        np.testing.assert_allclose(total, 2.0 * ylm, rtol=1e-13)


def test_helicity_angles_are_physical_and_s_is_above_threshold():
    kin = weighted_events(500, 4).kinematics()
    assert np.all(kin.s > 4 * kn.M_KS ** 2)
    assert np.all(np.abs(kin.costheta) <= 1.0)
    assert np.all(np.abs(kin.phi) <= np.pi) and np.all(np.abs(kin.pol_angle) <= np.pi)
    # The generator decays isotropically: <cos θ> ≈ 0 within a few standard errors.
    assert abs(np.mean(kin.costheta)) < 4.0 / math.sqrt(3 * 500)


def test_single_wave_intensity_matches_closed_form():
    # Only a0(980)+ re = 1: I = |F_a0,KK̄(β = e₀)|² Y₀₀² (1 + P cos 2Φ).
    events = weighted_events(300, 5)
    params = {name: 0.0 for name in kn.PARAMETER_NAMES}
    params["a0(980)+ re"] = 1.0
    kin = events.kinematics()
    f = kn.kopf_f_vector(kn.KOPF_A0, kin.s, [1.0, 0.0])[:, 1]
    expected = np.abs(f) ** 2 / (4 * np.pi) * (1.0 + kin.pol_magnitude * np.cos(2 * kin.pol_angle))
    np.testing.assert_allclose(kn.intensity(events, params), expected, rtol=1e-12)


def test_cached_nll_equals_from_scratch_nll():
    data, mc = weighted_events(400, 6), weighted_events(900, 7)
    params = random_parameters(8)
    cached = kn.CachedNLL(data, mc)(params)
    scratch = kn.nll_from_scratch(data, mc, params)
    assert abs(cached - scratch) <= 1e-11 * abs(scratch)


def test_read_parameters_defaults_and_rejects_unknown_names(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"f2(1270) im": -0.5}))
    values = kn.read_parameters(path)
    assert values["f2(1270) im"] == -0.5 and values["a2(1700) re"] == 0.25
    assert len(values) == 34
    path.write_text(json.dumps({"f0(500)+ re": 1.0}))
    with pytest.raises(ValueError, match="not free parameters"):
        kn.read_parameters(path)


CLI = os.environ.get("LADDU_CPP_CLI")


@pytest.mark.skipif(not CLI, reason="set LADDU_CPP_CLI to the laddu-cpp binary")
@pytest.mark.parametrize("point", ["default", "random"])
def test_numpy_nll_matches_laddu_cpp_bench_kmatrix(tmp_path, point):
    events = weighted_events(3000, 9)
    parquet = tmp_path / "ksks.parquet"
    kn.to_dataset(events).write_to(ld.ParquetSink(str(parquet)))
    command = [CLI, "bench", "kmatrix", "--data", str(parquet), "--threads", "1", "--repeat", "1",
               "--json"]
    params = kn.read_parameters()
    if point == "random":
        params = random_parameters(10)
        (tmp_path / "params.json").write_text(json.dumps(params))
        command += ["--params", str(tmp_path / "params.json")]
    result = subprocess.run(command, capture_output=True, text=True, check=True, timeout=300)
    out = json.loads(result.stdout)
    assert list(out["gradient"]) == kn.PARAMETER_NAMES
    # Read back what the CLI read (float64 round trip), then compare the NLLs.
    reread = kn.Events.from_dataset(ld.read_parquet(str(parquet)))
    np.testing.assert_array_equal(reread.weights, events.weights)
    expected = kn.CachedNLL(reread, reread)(params)
    assert abs(out["nll"] - expected) <= 1e-10 * abs(expected)
    # The CLI gradient against central differences of the numpy NLL.
    nll = kn.CachedNLL(reread, reread)
    for name in kn.PARAMETER_NAMES:
        h = 1e-5
        up, down = dict(params), dict(params)
        up[name] += h
        down[name] -= h
        fd = (nll(up) - nll(down)) / (2 * h)
        assert abs(out["gradient"][name] - fd) <= 1e-5 * max(1.0, abs(fd)), name
