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


def test_without_memory_or_cache_read_parquet_still_returns_a_dataset(ksks_file):
    assert isinstance(ld.read_parquet(ksks_file), ld.Dataset)


def test_every_cache_policy_gives_the_resident_bits(ksks_file):
    resident_value, resident_gradient = benchmark_value_and_gradient(ld.read_parquet(ksks_file))
    for cache in ("fastest", "resident", "streaming"):
        events = ld.read_parquet(ksks_file, memory="2 GiB", cache=cache)
        assert isinstance(events, ld.EventData)
        assert events.cache == cache
        assert len(events) == 3000
        assert events.p4_names() == ["beam", "kshort1", "kshort2", "proton"]
        value, gradient = benchmark_value_and_gradient(events)
        assert value.hex() == resident_value.hex(), cache
        np.testing.assert_array_equal(gradient, resident_gradient)
    lazy = ld.read_parquet(ksks_file, cache="streaming")
    assert lazy.memory is None
    assert lazy.with_cache("resident").cache == "resident"
    np.testing.assert_array_equal(lazy.to_dataset().p4("beam"), ld.read_parquet(ksks_file).p4("beam"))


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
    with pytest.raises(TypeError, match="ld.Dataset or an ld.EventData"):
        ld.NLL(ld.kmatrix_benchmark_model(), data=[1, 2], accepted_mc=[1, 2])
    lazy = ld.read_parquet(ksks_file, cache="fastest")
    nll = ld.NLL(ld.kmatrix_benchmark_model(), data=lazy, accepted_mc=lazy, name="lazy")
    with pytest.raises(ld.FitError, match="to_dataset"):
        ld.Likelihood([nll]).bootstrap_fit(2)
