"""ld.read_root / ld.RootSource on TTrees written by uproot: every compression uproot writes,
several baskets, float and double branches read value for value, integer and bool branches
skipped, trees in subdirectories, globs and lists of files, and damaged files as ld.DataError."""

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
