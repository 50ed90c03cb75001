"""laddu's tutorial "Reading, transforming, and writing event data" (docs/tutorials/data-io.md at
v0.21.4), one test per Python block, with our own events: what each block does, run on data
made here, with its results checked (values, shapes, column names, round trips).

The `ld.read_root(...)` line of "Read file-backed data" reads a tree uproot writes here;
`ld.RootSink(...)` in "Write transformed data" writes a tree that ld.read_root reads back.
The tutorial has no GPU block. tests/laddu_parity/test_data_io.py runs the same blocks with
laddu and compares.
"""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import laddu_cpp as ld

RUN_LOW, RUN_HIGH = 12000, 13000


def tutorial_arrays():
    """The tutorial's two events, with its dtypes (float32 beam, float64 recoil)."""
    beam = np.array([[9.0, 0.0, 0.0, 9.0], [8.5, 0.0, 0.0, 8.5]], dtype=np.float32)
    recoil = np.array([[1.1, 0.1, 0.0, 0.55], [1.2, -0.1, 0.1, 0.70]])
    run = np.array([12001, 12001], dtype=np.float32)
    weights = np.array([1.0, 0.8], dtype=np.float32)
    return beam, recoil, run, weights


def run_events(n=600, seed=7):
    """γ p → K_S K_S p events with a `run` number per event, some outside [12000, 13000)."""
    generated = ld.generate_ksks(n, seed=seed)
    rng = np.random.default_rng(seed)
    run = rng.integers(11_500, 13_500, n).astype(np.float64)
    run[:4] = [RUN_LOW, RUN_HIGH, RUN_HIGH - 1, RUN_LOW - 1]  # both ends of the selection
    return ld.Dataset.from_arrays(
        p4s={"beam": generated.p4("beam"), "recoil": generated.p4("proton")},
        scalars={"run": run},
        weights=rng.uniform(0.5, 1.5, n),
    )


def p4_columns(dataset, name):
    v = ld.Vec4.event(name)
    return np.column_stack([dataset.evaluate(c, real=True) for c in (v.e(), v.px(), v.py(), v.pz())])


@pytest.fixture
def accepted(tmp_path, monkeypatch):
    """accepted/part0.parquet and accepted/part1.parquet in a working directory of their own;
    returns the events they hold, in file order."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "accepted").mkdir()
    events = run_events(300)
    parts = [events[:120], events[120:]]
    for i, part in enumerate(parts):
        part.write_to(ld.ParquetSink(f"accepted/part{i}.parquet"))
    return events


# ---- "Construct data from NumPy arrays" ----


def test_construct_from_numpy_arrays():
    beam, recoil, run, weights = tutorial_arrays()
    events = ld.Dataset.from_arrays(
        p4s={"beam": beam, "recoil": recoil},
        scalars={"run": run},
        weights=weights,
    )
    assert len(events) == 2
    assert events.p4_names() == ["beam", "recoil"]
    assert events.scalar_names() == ["run"]
    # float32 and float64 are both converted to the internal float64, value for value.
    np.testing.assert_array_equal(p4_columns(events, "beam"), beam.astype(np.float64))
    np.testing.assert_array_equal(p4_columns(events, "recoil"), recoil)
    np.testing.assert_array_equal(events.evaluate(ld.scalar("run"), real=True), [12001.0, 12001.0])
    assert events.weights().dtype == np.float64
    np.testing.assert_array_equal(events.weights(), weights.astype(np.float64))
    assert events.sum_weights() == float(np.float32(1.0)) + float(np.float32(0.8))
    # The columns are copied: changing the arrays afterwards changes nothing.
    recoil[0, 0] = 99.0
    assert p4_columns(events, "recoil")[0, 0] == 1.1
    # Without weights every event weighs 1.
    unweighted = ld.Dataset.from_arrays(p4s={"beam": beam}, scalars={"run": run})
    np.testing.assert_array_equal(unweighted.weights(), [1.0, 1.0])


def test_construction_rejects_bad_shapes_and_lengths():
    # "All columns must contain the same number of events. ... invalid four-vector shapes, and
    # length mismatches fail at construction." laddu raises ValueError for each.
    beam, recoil, run, weights = tutorial_arrays()
    with pytest.raises(ValueError, match=r"\(N, 4\)"):
        ld.Dataset.from_arrays(p4s={"beam": beam[:, :3]}, scalars={"run": run})
    with pytest.raises(ValueError, match=r"\(N, 4\)"):
        ld.Dataset.from_arrays(p4s={"beam": beam.reshape(-1)}, scalars={"run": run})
    with pytest.raises(ValueError, match="same number of events"):
        ld.Dataset.from_arrays(p4s={"beam": beam}, scalars={"run": np.append(run, run)})
    with pytest.raises(ValueError, match="same number of events"):
        ld.Dataset.from_arrays(p4s={"beam": beam, "recoil": recoil[:1]}, scalars={"run": run})
    with pytest.raises(ValueError, match="same number of events"):
        ld.Dataset.from_arrays(p4s={"beam": beam}, scalars={"run": run}, weights=weights[:1])


# ---- "Read file-backed data" ----


def test_read_parquet_glob_and_inspect_the_schema(accepted):
    data = ld.read_parquet("accepted/*.parquet")
    # "Use p4_names() and scalar_names() to check unfamiliar files."
    assert data.p4_names() == ["beam", "recoil"]
    assert data.scalar_names() == ["run"]
    assert len(data) == len(accepted)
    # Both files, in name order, each event as written (f64 columns round-trip exactly).
    for name in ("beam", "recoil"):
        np.testing.assert_array_equal(p4_columns(data, name), p4_columns(accepted, name))
    np.testing.assert_array_equal(data.evaluate(ld.scalar("run"), real=True),
                                  accepted.evaluate(ld.scalar("run"), real=True))
    np.testing.assert_array_equal(data.weights(), accepted.weights())


def test_read_parquet_infers_the_schema_from_column_names(tmp_path, monkeypatch):
    # A file written by another tool: p4 columns <name>_e/_px/_py/_pz, scalars, a weight column.
    monkeypatch.chdir(tmp_path)
    n = 5
    rng = np.random.default_rng(3)
    p = rng.normal(size=(n, 3))
    e = np.sqrt((p**2).sum(axis=1) + 0.497611**2)
    pq.write_table(pa.table({"kaon_e": e, "kaon_px": p[:, 0], "kaon_py": p[:, 1], "kaon_pz": p[:, 2],
                             "run": np.arange(n, dtype=np.float32), "weight": np.full(n, 0.5)}),
                   "other.parquet")
    data = ld.read_parquet("other.parquet")
    assert data.p4_names() == ["kaon"] and data.scalar_names() == ["run"]
    np.testing.assert_allclose(data.evaluate(ld.Vec4.event("kaon").m(), real=True), 0.497611, rtol=1e-12)
    np.testing.assert_array_equal(data.evaluate(ld.scalar("run"), real=True), np.arange(n))
    np.testing.assert_array_equal(data.weights(), np.full(n, 0.5))


def test_a_model_schema_mismatch_is_reported_when_the_expression_is_prepared(accepted):
    data = ld.read_parquet("accepted/*.parquet")
    model = ld.Model(ld.scalar("pol_angle") * ld.parameter("a", initial=1.0))  # no such column
    with pytest.raises(ld.DataError, match=r"\[pol_angle\].*scalars \[run\]"):
        model.evaluate(data)
    lazy = ld.read_parquet("accepted/*.parquet", cache="fastest")
    with pytest.raises(ld.DataError, match="pol_angle"):
        ld.NLL(model, data=lazy, accepted_mc=lazy)


def test_a_glob_matching_no_file_is_an_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ld.DataError, match="no file matches"):
        ld.read_parquet("accepted/*.parquet")


def test_read_parquet_is_file_backed_by_default(accepted):
    data = ld.read_parquet("accepted/*.parquet")
    assert (data.is_resident, data.memory_policy) == (False, "fastest")


def test_read_root_control_tree(tmp_path, monkeypatch):
    uproot = pytest.importorskip("uproot")
    monkeypatch.chdir(tmp_path)
    p4s = run_events(40)
    columns = {"weight": np.asarray(p4s.weights())}
    for name in p4s.p4_names():
        for i, part in enumerate(("e", "px", "py", "pz")):
            columns[f"{name}_{part}"] = np.asarray(p4s.p4(name))[:, i]
    with uproot.recreate("control.root") as f:
        f.mktree("events", {key: value.dtype for key, value in columns.items()})
        f["events"].extend(columns)
    control = ld.read_root("control.root", tree="events")
    assert control.p4_names() == p4s.p4_names()
    for name in p4s.p4_names():
        np.testing.assert_array_equal(control.p4(name), p4s.p4(name))


def test_root_reader_and_sink(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    selected = run_events(50)
    selected.write_to(ld.RootSink("selected.root", tree="events", precision="f32"))
    control = ld.read_root("selected.root", tree="events")
    assert control.p4_names() == ["beam", "recoil"]
    assert len(control) == len(selected)
    for name in control.p4_names():
        np.testing.assert_array_equal(control.p4(name), selected.p4(name).astype(np.float32))


# ---- "Read file-backed data": memory and cache controls ----


def test_read_parquet_with_memory_and_cache(accepted):
    data = ld.read_parquet(
        "accepted/*.parquet",
        memory="2 GiB",
        cache="fastest",
    )
    assert isinstance(data, ld.Dataset) and not data.is_resident
    assert (len(data), data.memory_policy) == (len(accepted), "fastest")
    assert data.memory == f"{2 * 1024**3} B"  # the budget, as MemoryBudget("2 GiB") spells it
    assert data.p4_names() == ["beam", "recoil"] and data.scalar_names() == ["run"]
    everything = data.to_resident()
    np.testing.assert_array_equal(everything.weights(), accepted.weights())
    np.testing.assert_array_equal(p4_columns(everything, "recoil"), p4_columns(accepted, "recoil"))
    # The other policies, spelled as laddu accepts them, and a MemoryBudget as the budget.
    for cache in ("resident", "streaming", " Streaming "):
        other = ld.read_parquet("accepted/*.parquet", memory=ld.MemoryBudget("1 GiB"), cache=cache)
        assert other.memory_policy == cache.strip().lower()
        np.testing.assert_array_equal(other.weights(), accepted.weights())


def test_cached_and_streamed_data_give_the_same_likelihood(accepted):
    # "fastest caches decoded data when it fits and otherwise streams chunks. resident requires a
    # fully cached dataset; streaming requires rereads." Every choice gives the same numbers.
    mass = ld.Vec4.event("recoil").m()
    a = ld.parameter("a", initial=0.3)
    model = ld.Model((mass - a).norm_sqr() + 0.1)
    values = {}
    for cache in ("fastest", "resident", "streaming"):
        data = ld.read_parquet("accepted/*.parquet", memory="2 GiB", cache=cache)
        values[cache] = ld.NLL(model, data=data, accepted_mc=data).value_and_gradient([0.5])
    resident = ld.read_parquet("accepted/*.parquet")
    values["dataset"] = ld.NLL(model, data=resident, accepted_mc=resident).value_and_gradient([0.5])
    reference = values["dataset"]
    for value, gradient in values.values():
        assert value.hex() == reference[0].hex()
        assert [g.hex() for g in gradient] == [g.hex() for g in reference[1]]


def test_bad_memory_and_cache_choices_are_value_errors(accepted):
    with pytest.raises(ValueError, match="cache must be 'fastest', 'resident', or 'streaming'"):
        ld.read_parquet("accepted/*.parquet", cache="sometimes")
    with pytest.raises(ValueError, match="memory budget"):
        ld.read_parquet("accepted/*.parquet", memory="lots")
    with pytest.raises(ValueError, match="memory budget"):
        ld.read_parquet("accepted/*.parquet", memory=-1)


# ---- "Evaluate and transform" ----


def test_evaluate_and_transform():
    events = run_events()
    run = ld.scalar("run")
    run_values = events.evaluate(run, real=True)

    selected = events.select((run >= 12000) & (run < 13000))
    small = selected.subsample(0.1, seed=4)
    replica = selected.bootstrap(seed=5)

    assert run_values.shape == (len(events),) and run_values.dtype == np.float64
    keep = (run_values >= RUN_LOW) & (run_values < RUN_HIGH)
    assert keep[:4].tolist() == [True, False, True, False]  # the interval is [12000, 13000)
    assert len(selected) == keep.sum()
    np.testing.assert_array_equal(selected.evaluate(run, real=True), run_values[keep])
    np.testing.assert_array_equal(selected.weights(), events.weights()[keep])
    np.testing.assert_array_equal(p4_columns(selected, "beam"), p4_columns(events, "beam")[keep])

    # subsample: a reproducible subset, retained weights unchanged.
    assert 0 < len(small) < len(selected)
    assert abs(len(small) - 0.1 * len(selected)) < 5 * np.sqrt(0.1 * len(selected))
    position = {v: i for i, v in enumerate(selected.evaluate(ld.Vec4.event("beam").e(), real=True))}
    kept = [position[v] for v in small.evaluate(ld.Vec4.event("beam").e(), real=True)]
    assert kept == sorted(kept)  # event order is kept
    np.testing.assert_array_equal(small.weights(), selected.weights()[kept])
    np.testing.assert_array_equal(selected.subsample(0.1, seed=4).weights(), small.weights())
    assert selected.subsample(0.1, seed=6).weights().tolist() != small.weights().tolist()

    # bootstrap: every event kept, coordinates unchanged, weight times a Poisson(1) count.
    assert len(replica) == len(selected)
    np.testing.assert_array_equal(p4_columns(replica, "recoil"), p4_columns(selected, "recoil"))
    np.testing.assert_array_equal(replica.evaluate(run, real=True), selected.evaluate(run, real=True))
    counts = replica.weights() / selected.weights()
    np.testing.assert_allclose(counts, np.round(counts), atol=1e-12)
    assert set(np.round(counts).astype(int)) >= {0, 1, 2}
    assert abs(np.mean(counts) - 1.0) < 5 / np.sqrt(len(selected))
    np.testing.assert_array_equal(selected.bootstrap(seed=5).weights(), replica.weights())


# ---- "Bin event data" ----


def test_bin_event_data():
    run = ld.scalar("run")
    selected = run_events().select((run >= 12000) & (run < 13000))

    uniform = ld.Bin.uniform(20, low=12000.0, high=13000.0)
    explicit = ld.Bin(np.linspace(12000.0, 13000.0, 21, dtype=np.float32))

    run_bins = selected.bin_by(run, bins=explicit)
    first_bin_data = run_bins[0].dataset

    edges = [12000.0 + 50.0 * i for i in range(21)]
    assert uniform.edges == edges and explicit.edges == edges
    # Every interval in edge order, each with its index, limits and dataset.
    assert len(run_bins) == 20
    values = selected.evaluate(run, real=True)
    for k, item in enumerate(run_bins):
        assert (item.index, item.low, item.high) == (k, edges[k], edges[k + 1])
        assert item.limits == (edges[k], edges[k + 1])
        inside = (values >= edges[k]) & (values < edges[k + 1])
        np.testing.assert_array_equal(item.dataset.evaluate(run, real=True), values[inside])
        np.testing.assert_array_equal(item.dataset.weights(), selected.weights()[inside])
    assert first_bin_data.evaluate(run, real=True).min() >= 12000.0
    assert first_bin_data.evaluate(run, real=True).max() < 12050.0
    assert sum(len(item.dataset) for item in run_bins) == len(selected)
    # The uniform specification gives the same bins.
    assert [len(b.dataset) for b in selected.bin_by(run, bins=uniform)] == [len(b.dataset) for b in run_bins]


def test_empty_bins_are_included():
    run = ld.scalar("run")
    events = ld.Dataset.from_arrays(scalars={"run": np.array([12010.0, 12990.0, 12995.0])})
    run_bins = events.bin_by(run, bins=ld.Bin.uniform(20, low=12000.0, high=13000.0))
    assert [len(b.dataset) for b in run_bins] == [1] + [0] * 18 + [2]
    assert [b.index for b in run_bins] == list(range(20))


# ---- "Write transformed data" ----


def test_write_transformed_data(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = ld.scalar("run")
    selected = run_events().select((run >= 12000) & (run < 13000))

    selected.write_to(ld.ParquetSink("selected.parquet", precision="f64"))

    columns = ["beam_e", "beam_px", "beam_py", "beam_pz", "recoil_e", "recoil_px", "recoil_py",
               "recoil_pz", "run", "weight"]
    table = pq.read_table("selected.parquet")
    assert table.column_names == columns
    assert all(t == pa.float64() for t in table.schema.types)
    assert table.num_rows == len(selected)
    back = ld.read_parquet("selected.parquet")
    assert back.p4_names() == ["beam", "recoil"] and back.scalar_names() == ["run"]
    for name in ("beam", "recoil"):
        np.testing.assert_array_equal(p4_columns(back, name), p4_columns(selected, name))
    np.testing.assert_array_equal(back.evaluate(run, real=True), selected.evaluate(run, real=True))
    np.testing.assert_array_equal(back.weights(), selected.weights())


def test_write_f32_rounds_every_column_to_float32(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    selected = run_events(100)
    sink = ld.ParquetSink("selected32.parquet", precision="f32")
    assert (sink.path, sink.precision) == ("selected32.parquet", "f32")
    selected.write_to(sink)
    table = pq.read_table("selected32.parquet")
    assert all(t == pa.float32() for t in table.schema.types)
    back = ld.read_parquet("selected32.parquet")
    rounded = p4_columns(selected, "recoil").astype(np.float32).astype(np.float64)
    np.testing.assert_array_equal(p4_columns(back, "recoil"), rounded)
    np.testing.assert_array_equal(back.weights(), selected.weights().astype(np.float32).astype(np.float64))


def test_parquet_sink_checks_its_precision_when_made():
    # laddu checks precision= when the sink is made, with this message.
    for precision in ("f16", "F32", "double", "auto"):
        with pytest.raises(ValueError, match="precision must be 'f32' or 'f64'"):
            ld.ParquetSink("x.parquet", precision=precision)
    with pytest.raises(TypeError):
        ld.ParquetSink("x.parquet", "f32")  # precision is keyword-only
