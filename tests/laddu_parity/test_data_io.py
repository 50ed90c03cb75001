"""laddu's tutorial "Reading, transforming, and writing event data" (data-io.md), each block run
with laddu and with laddu-cpp on the same events, and the results compared; the errors the
tutorial promises ("fail at construction", bad cache/memory/precision choices) have laddu's type.
The RootSink lines run both ways: laddu's read_root reads laddu-cpp's file to the same dataset,
and laddu-cpp's read_root reads laddu's (test_root.py compares read_root on uproot's files).
python/tests/test_data_io_tutorial.py
checks laddu-cpp's results on their own.
"""

import numpy as np
import pytest

from conftest import ksks_arrays, laddu, ld, multiplicity

LIBS = pytest.mark.parametrize("lib", [laddu, ld], ids=["laddu", "laddu_cpp"])


def events(lib, n=500, seed=11):
    p4s, _ = ksks_arrays(n, seed)
    rng = np.random.default_rng(seed)
    run = rng.integers(11_500, 13_500, n).astype(np.float32)
    return lib.Dataset.from_arrays(p4s={"beam": p4s["beam"], "recoil": p4s["proton"]}, scalars={"run": run},
                                   weights=rng.uniform(0.5, 1.5, n))


def columns(lib, dataset):
    """Every column of `dataset` as {name: values}, read through expressions."""
    out = {"weight": np.asarray(dataset.weights())}
    for name in dataset.p4_names():
        v = lib.Vec4.event(name)
        for part in ("e", "px", "py", "pz"):
            out[f"{name}_{part}"] = np.asarray(dataset.evaluate(getattr(v, part)(), real=True))
    for name in dataset.scalar_names():
        out[name] = np.asarray(dataset.evaluate(lib.scalar(name), real=True))
    return out


def assert_same_events(ours, theirs, weights=None):
    """The same columns as laddu's, bit for bit. A bootstrap replica's weights differ from laddu's
    by design (docs/laddu_parity.md): then `weights` are the ones ours must have."""
    a, b = columns(ld, ours), columns(laddu, theirs)
    assert list(a) == list(b)
    for name in a:
        reference = b[name] if name != "weight" or weights is None else np.asarray(weights)
        np.testing.assert_array_equal(a[name], reference, err_msg=name)


def test_construct_from_numpy_arrays():
    arrays = dict(
        p4s={"beam": np.array([[9.0, 0.0, 0.0, 9.0], [8.5, 0.0, 0.0, 8.5]], dtype=np.float32),
             "recoil": np.array([[1.1, 0.1, 0.0, 0.55], [1.2, -0.1, 0.1, 0.70]])},
        scalars={"run": np.array([12001, 12001], dtype=np.float32)},
        weights=np.array([1.0, 0.8], dtype=np.float32),
    )
    theirs, ours = laddu.Dataset.from_arrays(**arrays), ld.Dataset.from_arrays(**arrays)
    assert (len(ours), ours.p4_names(), ours.scalar_names()) == (len(theirs), theirs.p4_names(), theirs.scalar_names())
    assert ours.sum_weights() == theirs.sum_weights()
    assert_same_events(ours, theirs)


@LIBS
def test_construction_errors_are_value_errors(lib):
    beam = np.zeros((2, 4))
    run = np.zeros(2)
    with pytest.raises(ValueError):
        lib.Dataset.from_arrays(p4s={"beam": beam[:, :3]}, scalars={"run": run})
    with pytest.raises(ValueError):
        lib.Dataset.from_arrays(p4s={"beam": beam}, scalars={"run": np.zeros(3)})
    with pytest.raises(ValueError):
        lib.Dataset.from_arrays(p4s={"beam": beam}, scalars={"run": run}, weights=np.ones(3))


def test_read_parquet_glob_written_by_either_library(tmp_path):
    (tmp_path / "accepted").mkdir()
    theirs, ours = events(laddu), events(ld)
    # One file written by each library.
    theirs.write_to(laddu.ParquetSink(str(tmp_path / "accepted/a.parquet"), precision="f64"))
    ours.write_to(ld.ParquetSink(str(tmp_path / "accepted/b.parquet"), precision="f64"))
    pattern = str(tmp_path / "accepted/*.parquet")
    read_theirs, read_ours = laddu.read_parquet(pattern), ld.read_parquet(pattern)
    assert len(read_ours) == len(read_theirs) == 2 * len(ours)
    assert (read_ours.p4_names(), read_ours.scalar_names()) == (read_theirs.p4_names(), read_theirs.scalar_names())
    assert_same_events(read_ours, read_theirs)
    lazy_theirs = laddu.read_parquet(pattern, memory="2 GiB", cache="fastest")
    lazy_ours = ld.read_parquet(pattern, memory="2 GiB", cache="fastest")
    assert len(lazy_ours) == len(lazy_theirs)
    assert (lazy_ours.p4_names(), lazy_ours.scalar_names()) == (lazy_theirs.p4_names(), lazy_theirs.scalar_names())
    assert_same_events(lazy_ours, lazy_theirs)
    # Dataset(ParquetSource(...)) is what read_parquet is shorthand for.
    via_source_ours = ld.Dataset(ld.ParquetSource(pattern))
    via_source_theirs = laddu.Dataset(laddu.ParquetSource(pattern))
    assert len(via_source_ours) == len(via_source_theirs)
    assert_same_events(via_source_ours, via_source_theirs)


@pytest.mark.parametrize("fraction,seed", [(0.3, 4), (0.9, 0)])
def test_file_backed_transforms_give_laddus_events(tmp_path, fraction, seed):
    path = str(tmp_path / "events.parquet")
    events(ld, 400).write_to(ld.ParquetSink(path, precision="f64"))
    results = {}
    for lib, data in ((laddu, laddu.read_parquet(path)), (ld, ld.read_parquet(path)), ("resident", events(ld, 400))):
        run = (ld if lib == "resident" else lib).scalar("run")
        selected = data.select(run >= 12000.5)
        chain = selected.subsample(fraction, seed=seed).bootstrap(seed=seed + 1)
        results[lib] = (data.subsample(fraction, seed=seed), data.bootstrap(seed=seed), selected, chain,
                        chain.evaluate(run, real=True))
    for k, (theirs, ours, twin) in enumerate(zip(results[laddu][:4], results[ld][:4], results["resident"][:4])):
        assert len(ours) == len(theirs)
        replica = k in (1, 3)  # the bootstrap replicas
        assert ours.sum_weights() == (twin if replica else theirs).sum_weights()
        assert_same_events(ours, theirs, weights=twin.weights() if replica else None)
    np.testing.assert_array_equal(results[ld][4], results[laddu][4])


@LIBS
def test_bad_cache_and_memory_choices(lib, tmp_path):
    path = str(tmp_path / "x.parquet")
    events(lib, 10).write_to(lib.ParquetSink(path, precision="f64"))
    with pytest.raises(ValueError, match="cache must be 'fastest', 'resident', or 'streaming'"):
        lib.read_parquet(path, cache="sometimes")
    with pytest.raises(ValueError):
        lib.read_parquet(path, memory="lots")
    assert len(lib.read_parquet(path, memory="2 GiB", cache=" Resident ")) == 10
    with pytest.raises(ValueError, match="precision must be 'f32' or 'f64'"):
        lib.ParquetSink(path, precision="f16")


def test_evaluate_and_transform():
    results = {}
    for lib in (laddu, ld):
        data = events(lib)
        run = lib.scalar("run")
        run_values = data.evaluate(run, real=True)
        selected = data.select((run >= 12000) & (run < 13000))
        small = selected.subsample(0.1, seed=4)
        replica = selected.bootstrap(seed=5)
        results[lib] = (run_values, selected, small, replica)
    (v0, s0, sm0, r0), (v1, s1, sm1, r1) = results[laddu], results[ld]
    np.testing.assert_array_equal(v1, v0)
    # The same events kept and drawn; the bootstrap weights are ours (docs/laddu_parity.md).
    assert_same_events(s1, s0)
    assert_same_events(sm1, sm0)
    # a select starts a new source (as in laddu), so the bootstrap after it is keyed on its rows
    expected = np.asarray(s1.weights()) * [multiplicity(5, row) for row in range(len(s1))]
    assert_same_events(r1, r0, weights=expected)


def test_bin_event_data():
    results = {}
    for lib in (laddu, ld):
        run = lib.scalar("run")
        selected = events(lib).select((run >= 12000) & (run < 13000))
        uniform = lib.Bin.uniform(20, low=12000.0, high=13000.0)
        explicit = lib.Bin(np.linspace(12000.0, 13000.0, 21, dtype=np.float32))
        run_bins = selected.bin_by(run, bins=explicit)
        results[lib] = (uniform, explicit, run_bins)
    assert results[ld][0].edges == results[laddu][0].edges
    assert results[ld][1].edges == results[laddu][1].edges
    ours, theirs = results[ld][2], results[laddu][2]
    assert len(ours) == len(theirs) == 20
    for a, b in zip(ours, theirs, strict=True):
        assert (a.index, a.low, a.high) == (b.index, b.low, b.high)
        assert_same_events(a.dataset, b.dataset)


@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_write_transformed_data(tmp_path, precision):
    pq = pytest.importorskip("pyarrow.parquet")
    tables = {}
    for lib in (laddu, ld):
        run = lib.scalar("run")
        selected = events(lib).select((run >= 12000) & (run < 13000))
        path = tmp_path / f"{lib.__name__}.parquet"
        selected.write_to(lib.ParquetSink(str(path), precision=precision))
        tables[lib] = pq.read_table(path)
    ours, theirs = tables[ld], tables[laddu]
    assert ours.schema == theirs.schema
    assert ours.equals(theirs)


@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_root_sink_files_read_by_either_library(tmp_path, precision):
    for writer in (laddu, ld):
        path = tmp_path / f"{writer.__name__}.root"
        events(writer).write_to(writer.RootSink(str(path), tree="events", precision=precision))
    ours_file, theirs_file = tmp_path / "laddu_cpp.root", tmp_path / "laddu.root"
    # laddu reads laddu-cpp's file to the events laddu itself wrote and reads back.
    theirs_from_ours = laddu.read_root(str(ours_file))
    theirs_from_theirs = laddu.read_root(str(theirs_file))
    a, b = columns(laddu, theirs_from_ours), columns(laddu, theirs_from_theirs)
    assert list(a) == list(b)
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)
    # laddu-cpp reads laddu's file to the same dataset laddu reads.
    assert_same_events(ld.read_root(str(theirs_file)), theirs_from_theirs)
    assert_same_events(ld.read_root(str(ours_file)), theirs_from_ours)


def test_root_sink_errors_have_laddus_types(tmp_path):
    for lib in (laddu, ld):
        with pytest.raises(ValueError, match="precision must be 'f32' or 'f64'"):
            lib.RootSink(str(tmp_path / "x.root"), precision="f16")
        with pytest.raises(TypeError, match="Dataset sink must be a ParquetSink or RootSink"):
            events(lib, 5).write_to(str(tmp_path / "x.root"))
