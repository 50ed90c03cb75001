"""laddu's read_root and ours on the same TTrees written by uproot: the same four-momenta,
scalars and weights bit for bit, for every compression both read (laddu 0.21.4's reader cannot
decompress ZSTD baskets), several baskets, float and double branches, integer and bool branches
skipped, globs of several files and a named tree."""

import numpy as np
import pytest

from conftest import laddu, ld
from test_data_io import assert_same_events

uproot = pytest.importorskip("uproot")

BRANCHES = {
    "beam_e": np.float64, "beam_px": np.float64, "beam_py": np.float64, "beam_pz": np.float64,
    "proton_e": np.float32, "proton_px": np.float32, "proton_py": np.float32, "proton_pz": np.float32,
    "mass": np.float64, "ratio": np.float32, "weight": np.float64, "run": np.int32, "accepted": np.bool_,
}


def write_tree(path, compression, seed, chunks=(200, 3, 300), tree="events"):
    rng = np.random.default_rng(seed)
    with uproot.recreate(path, compression=compression) as f:
        f.mktree(tree, BRANCHES)
        for n in chunks:
            values = {}
            for name, dtype in BRANCHES.items():
                if dtype == np.bool_:
                    values[name] = rng.integers(0, 2, n).astype(bool)
                elif dtype == np.int32:
                    values[name] = rng.integers(0, 100, n).astype(dtype)
                else:
                    values[name] = (rng.normal(size=n) * 3).astype(dtype)
            f[tree].extend(values)


@pytest.mark.parametrize("compression", [None, uproot.ZLIB(5), uproot.LZ4(3), uproot.LZMA(2)],
                         ids=["none", "zlib", "lz4", "lzma"])
def test_read_root_matches_laddu(tmp_path, compression):
    path = str(tmp_path / "events.root")
    write_tree(path, compression, seed=3)
    theirs, ours = laddu.read_root(path), ld.read_root(path)
    assert len(ours) == len(theirs) == 503
    assert (ours.p4_names(), ours.scalar_names()) == (theirs.p4_names(), theirs.scalar_names())
    assert_same_events(ours, theirs)
    assert_same_events(ld.Dataset(ld.RootSource(path)), laddu.Dataset(laddu.RootSource(path)))


def test_read_root_glob_and_named_tree_match_laddu(tmp_path):
    for i in range(3):
        write_tree(str(tmp_path / f"part{i}.root"), uproot.ZLIB(1), seed=10 + i, chunks=(50 + i,), tree="kin")
    pattern = str(tmp_path / "part*.root")
    theirs, ours = laddu.read_root(pattern, tree="kin"), ld.read_root(pattern, tree="kin")
    assert len(ours) == len(theirs) == 153
    assert_same_events(ours, theirs)
    assert_same_events(ld.read_root(pattern, cache="streaming"), laddu.read_root(pattern, cache="streaming"))
    for lib in (laddu, ld):
        with pytest.raises(lib.LadduError):
            lib.read_root(pattern, tree="missing")
