"""ld.read_root / ld.RootSource on TTrees written by uproot: every compression uproot writes,
several baskets, float and double branches read value for value, integer and bool branches
skipped, trees in subdirectories, globs and lists of files, and damaged files as ld.DataError.
Files ROOT itself wrote with each branch's last basket kept inside the TTree (ROOT 5, interrupted
jobs, TDirectory::WriteObject) read value for value.
ld.RootSink (Dataset.write_to): files read value for value by uproot, by jsroot under node
(tests/root_interop), and by ld.read_root; bad sinks and paths as errors."""

import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import laddu_cpp as ld

uproot = pytest.importorskip("uproot")

COMPRESSIONS = {
    "none": None,
    "zlib": uproot.ZLIB(4),
    "lz4": uproot.LZ4(4),
    "zstd": uproot.ZSTD(4),
    "lzma": uproot.LZMA(4),
}

BRANCHES = {
    "beam_e": np.float64, "beam_px": np.float64, "beam_py": np.float64, "beam_pz": np.float64,
    "kaon_e": np.float32, "kaon_px": np.float32, "kaon_py": np.float32, "kaon_pz": np.float32,
    "mass": np.float64, "ratio": np.float32, "weight": np.float32, "run": np.int32, "event": np.int64,
    "accepted": np.bool_,
}


def chunk(rng, n):
    out = {}
    for name, dtype in BRANCHES.items():
        if dtype == np.bool_:
            out[name] = rng.integers(0, 2, n).astype(bool)
        elif np.issubdtype(dtype, np.integer):
            out[name] = rng.integers(0, 1000, n).astype(dtype)
        else:
            # Multiples of 1/8: exact in float32 too, and with zero low mantissa bytes, so every
            # basket compresses (uproot stores a basket as is when compressing does not help).
            out[name] = (np.round(rng.normal(size=n) * 64) / 8).astype(dtype)
    return out


def write_tree(path, compression, chunks=(300, 1, 250, 449), seed=5, tree="events"):
    """A TTree of BRANCHES with one basket per chunk; returns the values written."""
    rng = np.random.default_rng(seed)
    written = {name: [] for name in BRANCHES}
    with uproot.recreate(path, compression=compression) as f:
        f.mktree(tree, BRANCHES)
        for n in chunks:
            values = chunk(rng, n)
            f[tree].extend(values)
            for name in BRANCHES:
                written[name].append(values[name])
    return {name: np.concatenate(parts) for name, parts in written.items()}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    base = tmp_path_factory.mktemp("root")
    out = {}
    for i, (name, compression) in enumerate(COMPRESSIONS.items()):
        path = base / f"{name}.root"
        out[name] = (path, write_tree(path, compression, seed=i))
    return out


def assert_events(dataset, values):
    assert dataset.p4_names() == ["beam", "kaon"]
    assert dataset.scalar_names() == ["mass", "ratio"]  # integer and bool branches are skipped
    for p4 in ("beam", "kaon"):
        expected = np.column_stack([values[f"{p4}_{c}"].astype(np.float64) for c in ("e", "px", "py", "pz")])
        assert np.array_equal(dataset.p4(p4), expected), p4
    for scalar in ("mass", "ratio"):
        assert np.array_equal(dataset.column(scalar), values[scalar].astype(np.float64)), scalar
    assert np.array_equal(dataset.weights(), values["weight"].astype(np.float64))


@pytest.mark.parametrize("compression", list(COMPRESSIONS))
def test_every_compression_reads_value_for_value(files, compression):
    path, values = files[compression]
    branch = uproot.open(path)["events"]["beam_px"]
    assert branch.num_baskets == 4
    basket = branch.basket(0)
    assert (basket.compressed_bytes < basket.uncompressed_bytes) == (compression != "none")
    for cache in ("fastest", "resident", "streaming"):
        dataset = ld.read_root(path, cache=cache)
        assert len(dataset) == 1000
        assert_events(dataset, values)
    source = ld.RootSource(str(path))
    assert (len(source), source.tree, source.p4_names()) == (1000, "events", ["beam", "kaon"])
    assert_events(ld.Dataset(source), values)


def test_streamed_projection_reads_only_what_an_expression_needs(files):
    path, values = files["zstd"]
    dataset = ld.read_root(path, cache="streaming", memory="64 MiB")
    energy = dataset.evaluate(ld.Vec4.event("kaon").e(), real=True)
    assert np.array_equal(np.asarray(energy), values["kaon_e"].astype(np.float64))


def test_globs_and_lists_chain_files_in_order(files, tmp_path):
    (tmp_path / "set").mkdir()
    a = write_tree(tmp_path / "set/a.root", uproot.ZLIB(1), chunks=(10, 20), seed=1)
    b = write_tree(tmp_path / "set/b.root", uproot.LZ4(1), chunks=(5,), seed=2)
    both = {name: np.concatenate([a[name], b[name]]) for name in BRANCHES}
    assert_events(ld.read_root(str(tmp_path / "set/*.root")), both)
    assert_events(ld.read_root([tmp_path / "set/a.root", str(tmp_path / "set/b.root")]), both)
    with pytest.raises(ld.DataError, match="no file matches"):
        ld.read_root(str(tmp_path / "none/*.root"))


def test_tree_selection_and_subdirectories(tmp_path):
    path = tmp_path / "trees.root"
    with uproot.recreate(path) as f:
        f.mktree("first", {"x": np.float64})
        f["first"].extend({"x": np.arange(3.0)})
        f.mktree("second", {"y": np.float32})
        f["second"].extend({"y": np.arange(5, dtype=np.float32)})
        f.mktree("dir/sub/third", {"z_e": np.float64, "z_px": np.float64, "z_py": np.float64, "z_pz": np.float64})
        f["dir/sub/third"].extend({c: np.ones(2) for c in ("z_e", "z_px", "z_py", "z_pz")})
    assert ld.read_root(path).scalar_names() == ["x"]  # laddu's default: the first TTree
    assert ld.RootSource(path).tree == "first"
    assert len(ld.read_root(path, tree="second")) == 5
    nested = ld.read_root(path, tree="dir/sub/third")
    assert nested.p4_names() == ["z"] and len(nested) == 2
    with pytest.raises(ld.DataError, match="no TTree 'missing'.*first"):
        ld.read_root(path, tree="missing")
    with pytest.raises(ValueError):
        ld.read_root(path, tree="")


def test_unreadable_branches_are_skipped_unless_needed(tmp_path):
    path = tmp_path / "arrays.root"
    with uproot.recreate(path) as f:
        f.mktree("t", {"m": np.float64, "hits": (np.float64, (3,)), "beam_e": np.int32})
        f["t"].extend({"m": np.arange(4.0), "hits": np.zeros((4, 3)), "beam_e": np.arange(4, dtype=np.int32)})
    assert ld.read_root(path).scalar_names() == ["m"]
    with uproot.recreate(path) as f:
        f.mktree("t", {"weight": (np.float64, (3,)), "m": np.float64})
        f["t"].extend({"weight": np.zeros((2, 3)), "m": np.arange(2.0)})
    with pytest.raises(ld.DataError, match="branch 'weight'.*weight column.*array"):
        ld.read_root(path)
    with uproot.recreate(path) as f:
        f.mktree("t", {"p_e": np.float64, "p_px": np.float64, "p_py": np.float64, "p_pz": np.int64})
        f["t"].extend({c: np.arange(2).astype(t) for c, t in (("p_e", float), ("p_px", float), ("p_py", float),
                                                               ("p_pz", np.int64))})
    with pytest.raises(ld.DataError, match="branch 'p_pz'.*four-momentum 'p'"):
        ld.read_root(path)


def test_truncated_files_are_data_errors(files, tmp_path):
    path, _ = files["zlib"]
    data = path.read_bytes()
    cut = tmp_path / "cut.root"
    for size in (0, 3, 50, 200, len(data) // 3, len(data) // 2, len(data) - 600, len(data) - 1):
        cut.write_bytes(data[:size])
        with pytest.raises(ld.DataError, match="cut.root"):
            ld.read_root(cut).to_resident()


# Run in a child: a crash (rather than an exception) must fail this test, not kill pytest.
FLIP_SCRIPT = textwrap.dedent("""
    import sys
    import laddu_cpp as ld
    source, target = sys.argv[1], sys.argv[2]
    data = bytearray(open(source, "rb").read())
    errors = 0
    for at in range(0, len(data), int(sys.argv[3])):
        bad = bytearray(data)
        bad[at] ^= 0x5A
        open(target, "wb").write(bad)
        try:
            ld.read_root(target).to_resident()
        except ld.DataError as error:
            assert "flip.root" in str(error), error
            errors += 1
    print(errors)
""")


@pytest.mark.parametrize("compression", ["none", "lz4", "zstd"])
def test_flipped_bytes_never_crash(files, tmp_path, compression):
    path, _ = files[compression]
    result = subprocess.run([sys.executable, "-c", FLIP_SCRIPT, str(path), str(tmp_path / "flip.root"), "37"],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert int(result.stdout) > 0


def test_a_flipped_lz4_basket_byte_fails_its_checksum(files, tmp_path):
    path, _ = files["lz4"]
    branch = uproot.open(path)["events"]["beam_px"]
    seek, nbytes = int(branch.member("fBasketSeek")[0]), int(branch.member("fBasketBytes")[0])
    data = bytearray(path.read_bytes())
    data[seek + nbytes - 10] ^= 0xFF  # inside the compressed block
    bad = tmp_path / "bad.root"
    bad.write_bytes(data)
    with pytest.raises(ld.DataError, match="basket 0 of branch 'beam_px'.*checksum"):
        ld.read_root(bad).to_resident()


# --- ld.RootSink: what laddu-cpp writes ---------------------------------------------------------

INTEROP = pathlib.Path(__file__).resolve().parents[2] / "tests" / "root_interop"
sys.path.insert(0, str(INTEROP))
from jsroot_reader import read_with_jsroot  # noqa: E402

SINK_EVENTS = 150_000  # three baskets of the writer's 65,536 entries


def sink_dataset(n=SINK_EVENTS, seed=11):
    rng = np.random.default_rng(seed)
    p4 = rng.normal(size=(n, 4)) * 3.0
    p4[:, 0] = np.abs(p4[:, 0]) + 10.0
    return ld.Dataset.from_arrays(
        p4s={"beam": p4}, scalars={"pol_angle": rng.uniform(-3, 3, n)}, weights=rng.normal(size=n)
    )


def written_columns(dataset, precision):
    names = [f"beam_{c}" for c in ("e", "px", "py", "pz")] + ["pol_angle", "weight"]
    dtype = np.float32 if precision == "f32" else np.float64
    return {name: dataset.column(name).astype(dtype) for name in names}


def assert_same_bits(ours, theirs, what):
    ours = np.ascontiguousarray(ours, dtype=np.float64)
    theirs = np.ascontiguousarray(theirs, dtype=np.float64)
    assert ours.shape == theirs.shape, f"{what}: {ours.shape} vs {theirs.shape}"
    bad = np.flatnonzero(ours.view(np.uint64) != theirs.view(np.uint64))
    assert bad.size == 0, f"{what}: {bad.size} values differ, first at {bad[0]}"


def test_root_sink_has_laddus_signature_and_readonly_attributes(tmp_path):
    sink = ld.RootSink(tmp_path / "out.root", tree="events", precision="f32")
    assert (sink.path, sink.tree, sink.precision) == (str(tmp_path / "out.root"), "events", "f32")
    default = ld.RootSink(str(tmp_path / "d.root"))
    assert (default.tree, default.precision) == ("tree", "f64")
    with pytest.raises(AttributeError):
        sink.tree = "other"
    with pytest.raises(ValueError, match="precision must be 'f32' or 'f64'"):
        ld.RootSink(tmp_path / "x.root", precision="f16")
    with pytest.raises(TypeError):
        ld.RootSink(tmp_path / "x.root", "events")  # tree is keyword-only
    with pytest.raises(TypeError, match="Dataset sink must be a ParquetSink or RootSink"):
        sink_dataset(5).write_to(str(tmp_path / "x.root"))


@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_uproot_reads_what_root_sink_writes_value_for_value(tmp_path, precision):
    dataset = sink_dataset()
    path = tmp_path / "sink.root"
    dataset.write_to(ld.RootSink(path, tree="events", precision=precision))
    expected = written_columns(dataset, precision)
    with uproot.open(path) as f:
        assert f.classnames() == {"events;1": "TTree"}
        assert {"TTree", "TBranch", "TLeafD", "TLeafF"} <= set(f.file.streamers)
        tree = f["events"]
        assert tree.num_entries == SINK_EVENTS
        assert tree.keys() == list(expected)
        arrays = tree.arrays(library="np")
        for name, values in expected.items():
            branch = tree[name]
            assert branch.title == f"{name}/{'F' if precision == 'f32' else 'D'}"
            assert branch.num_baskets == 3
            assert list(branch.member("fBasketEntry")[:4]) == [0, 65536, 131072, SINK_EVENTS]
            assert arrays[name].dtype == values.dtype
            assert_same_bits(arrays[name], values, name)
    back = ld.read_root(path)
    assert len(back) == SINK_EVENTS
    for name, values in expected.items():
        assert_same_bits(back.column(name), values, name)


def test_read_root_reads_a_root_sink_file_as_the_same_dataset(tmp_path):
    dataset = sink_dataset(1000)
    path = tmp_path / "same.root"
    dataset.write_to(ld.RootSink(path))
    back = ld.read_root(path)
    assert back.p4_names() == dataset.p4_names() and back.scalar_names() == dataset.scalar_names()
    assert_same_bits(back.p4("beam"), dataset.p4("beam"), "beam")
    assert_same_bits(back.weights(), dataset.weights(), "weights")
    # A file-backed dataset is written batch by batch as it is read.
    again = tmp_path / "again.root"
    ld.read_root(path, cache="streaming").write_to(ld.RootSink(again, precision="f32"))
    assert_same_bits(ld.read_root(again).weights(), dataset.weights().astype(np.float32), "weights")
    empty = tmp_path / "empty.root"
    dataset[0:0].write_to(ld.RootSink(empty))
    assert len(ld.read_root(empty)) == 0
    assert uproot.open(empty)["tree"].num_entries == 0


def test_root_sink_errors_name_the_file_and_leave_nothing(tmp_path):
    dataset = sink_dataset(10)
    with pytest.raises(ld.DataError, match="does not exist; create it"):
        dataset.write_to(ld.RootSink(tmp_path / "missing" / "x.root"))
    with pytest.raises(ld.DataError, match="tree name is empty"):
        dataset.write_to(ld.RootSink(tmp_path / "x.root", tree=""))
    with pytest.raises(ld.DataError, match="shorter tree name"):
        dataset.write_to(ld.RootSink(tmp_path / "x.root", tree="t" * 40000))
    if os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        with pytest.raises(ld.DataError, match="writable directory"):
            dataset.write_to(ld.RootSink(locked / "x.root"))
    assert sorted(p.name for p in tmp_path.iterdir()) == (["locked"] if os.geteuid() != 0 else [])


@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_jsroot_reads_what_root_sink_writes_value_for_value(tmp_path, precision):
    dataset = sink_dataset()
    path = tmp_path / "js.root"
    dataset.write_to(ld.RootSink(path, tree="events", precision=precision))
    read = read_with_jsroot(path, "events")
    expected = written_columns(dataset, precision)
    assert read["entries"] == SINK_EVENTS
    assert list(read["branches"]) == list(expected)
    for name, values in expected.items():
        branch = read["branches"][name]
        assert branch["title"] == f"{name}/{'F' if precision == 'f32' else 'D'}"
        assert_same_bits(np.array(branch["values"], dtype=np.float64), values, name)


FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "tests" / "root_interop" / "fixtures"


@pytest.mark.parametrize("name", ["embedded_mixed", "embedded_only"])
def test_baskets_kept_inside_the_tree_are_read(name):
    # tests/root_interop/make_fixtures.py wrote these with ROOT: entry i holds beam_e = 0.5 i,
    # beam_px = i - 3, beam_py = 0.25 i, beam_pz = -i, weight = 1 + i % 3.
    path = FIXTURES / f"{name}.root"
    tree = uproot.open(path)["events"]
    assert all(len(branch.embedded_baskets) == 1 for branch in tree.branches)
    i = np.arange(tree.num_entries, dtype=float)
    dataset = ld.read_root(str(path))
    assert dataset.n_events == tree.num_entries
    np.testing.assert_array_equal(dataset.weights(), 1.0 + i % 3)
    if name == "embedded_mixed":
        np.testing.assert_array_equal(dataset.column("beam_e"), 0.5 * i)
    else:
        p4 = np.asarray(dataset.p4("beam"))
        np.testing.assert_array_equal(p4, np.stack([0.5 * i, i - 3.0, 0.25 * i, -i], axis=1))
    # Streamed (batch by batch, across the boundary between the file's baskets and the kept one).
    streamed = ld.read_root(str(path), cache="streaming")
    np.testing.assert_array_equal(streamed.weights(), 1.0 + i % 3)
    assert streamed.sum_weights() == pytest.approx(float(np.sum(1.0 + i % 3)))
