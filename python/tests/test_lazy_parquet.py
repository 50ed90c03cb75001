"""ld.read_parquet(path, memory=, cache=): events read when needed under laddu's cache policies,
giving the bits of the resident dataset."""

import numpy as np
import pytest

import laddu_cpp as ld


@pytest.fixture(scope="module")
def ksks_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("lazy") / "ksks.parquet"
    ld.generate_ksks(3000, seed=31, kk_mass_max=2.0).write_to(ld.ParquetSink(str(path)))
    return path


def benchmark_value_and_gradient(data):
    model = ld.kmatrix_benchmark_model()
    nll = ld.NLL(model, data=data, accepted_mc=data)
    return nll.value_and_gradient([0.25] * len(model.free_parameter_names))


def test_read_parquet_returns_a_file_backed_dataset(ksks_file):
    data = ld.read_parquet(ksks_file)
    assert isinstance(data, ld.Dataset)
    assert (data.is_resident, data.memory_policy, data.memory) == (False, "fastest", None)
    assert repr(data) == 'Dataset(n_events=3000, memory_policy="fastest", memory=None)'
    assert ld.Dataset(ld.ParquetSource(ksks_file)).sum_weights() == data.sum_weights()
    assert data.to_resident().is_resident


def test_every_cache_policy_gives_the_resident_bits(ksks_file):
    resident_value, resident_gradient = benchmark_value_and_gradient(ld.read_parquet(ksks_file).to_resident())
    for cache in ("fastest", "resident", "streaming"):
        events = ld.read_parquet(ksks_file, memory="2 GiB", cache=cache)
        assert isinstance(events, ld.Dataset)
        assert events.memory_policy == cache
        assert len(events) == 3000
        assert events.p4_names() == ["beam", "kshort1", "kshort2", "proton"]
        value, gradient = benchmark_value_and_gradient(events)
        assert value.hex() == resident_value.hex(), cache
        np.testing.assert_array_equal(gradient, resident_gradient)
    lazy = ld.read_parquet(ksks_file, cache="streaming")
    assert lazy.memory is None
    assert lazy.with_cache("resident").memory_policy == "resident"
    np.testing.assert_array_equal(lazy.to_resident().p4("beam"), lazy.p4("beam"))


def test_a_resident_cache_that_exceeds_the_budget_is_a_data_error(ksks_file):
    events = ld.read_parquet(ksks_file, memory="1 KiB", cache="resident")
    assert "1024" in events.memory
    with pytest.raises(ld.DataError):
        benchmark_value_and_gradient(events)
    # The execution's own budget wins over the data's.
    model = ld.kmatrix_benchmark_model()
    nll = ld.NLL(model, data=events, accepted_mc=events, execution=ld.Execution(memory="2 GiB"))
    assert np.isfinite(nll.value([0.25] * len(model.free_parameter_names)))


def test_bad_arguments_name_the_choices(ksks_file):
    # ValueError, as in laddu.
    with pytest.raises(ValueError, match="'fastest', 'resident', or 'streaming'"):
        ld.read_parquet(ksks_file, cache="sometimes")
    with pytest.raises(ValueError, match="memory budget 'lots'"):
        ld.read_parquet(ksks_file, memory="lots")
    with pytest.raises(ValueError, match="nulls"):
        ld.read_parquet(ksks_file, nulls="zero")
    with pytest.raises(TypeError, match="data must be an ld.Dataset, got list"):
        ld.NLL(ld.kmatrix_benchmark_model(), data=[1, 2], accepted_mc=[1, 2])


def test_file_backed_transforms_stay_on_file_and_match_the_resident_ones(ksks_file, tmp_path):
    lazy = ld.read_parquet(ksks_file)
    resident = lazy.to_resident()
    mass = (ld.Vec4.event("kshort1") + ld.Vec4.event("kshort2")).m()
    for make in (lambda d: d.subsample(0.4, seed=3).bootstrap(seed=8),
                 lambda d: d.select(mass < 1.5).subsample(0.5, seed=1),
                 lambda d: d[10:2000:7].bootstrap(seed=2),
                 lambda d: d.bin_by(mass, ld.Bin.uniform(4, low=1.0, high=2.0))[2].dataset):
        a, b = make(lazy), make(resident)
        assert not a.is_resident and b.is_resident
        assert len(a) == len(b) and a.sum_weights() == b.sum_weights()
        np.testing.assert_array_equal(a.weights(), b.weights())
        np.testing.assert_array_equal(a.evaluate(mass, real=True), b.evaluate(mass, real=True))
        np.testing.assert_array_equal(a.p4("beam"), b.p4("beam"))
        # write_to streams the file-backed events; the file is the resident one's, byte for byte.
        a.write_to(ld.ParquetSink(str(tmp_path / "a.parquet")))
        b.write_to(ld.ParquetSink(str(tmp_path / "b.parquet")))
        assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()


def test_memory_decision_reports_the_last_preparation(ksks_file):
    data = ld.read_parquet(ksks_file, memory="64 MiB", cache="streaming")
    assert data.memory_decision() is None
    mass = (ld.Vec4.event("kshort1") + ld.Vec4.event("kshort2")).m()
    data.evaluate(mass)
    decision = data.memory_decision()
    assert decision["strategy"] == "streaming" and decision["events"] == 3000
    assert decision["budget_bytes"] == 64 << 20
    resident = ld.read_parquet(ksks_file)
    model = ld.kmatrix_benchmark_model()
    ld.NLL(model, data=resident, accepted_mc=resident, execution=ld.Execution(normalization="general"))
    assert resident.memory_decision()["strategy"] == "resident"
    assert resident.memory_decision()["events"] == 3000
