"""laddu-cpp's ROOT writer read by independent readers for every codec it writes (the Python
RootSink has laddu's signature, so codecs are chosen in C++: root_write_check writes the files,
$LADDU_ROOT_WRITE_CHECK names it). uproot, jsroot (node, tests/root_interop) and, where its pip
wheel is installed (``pip install ROOT``; not in the test venv), ROOT itself must read every value
bit for bit, with the tree name, branch titles and basket/cluster boundaries; ld.read_root too.
Each reader is optional (a skip names what is missing), so this file also runs in a venv that has
only ROOT, numpy and pytest.
Run: ``ctest --preset relassert -R root_writer_interop``.
"""

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from jsroot_reader import read_with_jsroot  # noqa: E402
ENTRIES = 10_000
BASKET = 3_000
NAMES = ["beam_e", "beam_px", "beam_py", "beam_pz", "pol_angle", "weight"]
FILES = [f"{codec}_{precision}.root" for codec in ("none", "zlib", "lz4", "zstd") for precision in ("f64", "f32")]


def expected(column, precision):
    """write_check.cpp's value(column, i): one correctly rounded division per value."""
    x = np.arange(ENTRIES, dtype=np.float64)
    values = (x - 5000.0 + column) / (column + 3)
    return values.astype(np.float32 if precision == "f32" else np.float64)


def same_bits(ours, theirs):
    a = np.ascontiguousarray(ours, dtype=np.float64).view(np.uint64)
    b = np.ascontiguousarray(theirs, dtype=np.float64).view(np.uint64)
    return a.shape == b.shape and bool(np.all(a == b))


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    tool = os.environ.get("LADDU_ROOT_WRITE_CHECK")
    if not tool:
        pytest.skip("LADDU_ROOT_WRITE_CHECK is not set (run through ctest)")
    out = tmp_path_factory.mktemp("root_writer")
    subprocess.run([tool, str(out)], check=True, timeout=600)
    return out


@pytest.mark.parametrize("name", FILES)
def test_uproot_reads_every_codec(written, name):
    uproot = pytest.importorskip("uproot", reason="uproot comes from the test venv (scripts/make-venv.sh)")
    ld = pytest.importorskip("laddu_cpp")
    precision = name.split("_")[1][:3]
    with uproot.open(written / name) as f:
        tree = f["events"]
        assert tree.num_entries == ENTRIES and tree.keys() == NAMES
        arrays = tree.arrays(library="np")
        for column, branch in enumerate(NAMES):
            assert tree[branch].title == f"{branch}/{'F' if precision == 'f32' else 'D'}"
            assert list(tree[branch].member("fBasketEntry")[:5]) == [0, 3000, 6000, 9000, ENTRIES]
            assert same_bits(arrays[branch], expected(column, precision)), branch
    back = ld.read_root(str(written / name))
    for column, branch in enumerate(NAMES):
        assert same_bits(back.column(branch), expected(column, precision)), branch


def test_jsroot_reads_every_codec(written):
    for name in FILES:
        precision = name.split("_")[1][:3]
        read = read_with_jsroot(written / name, "events")
        assert read["entries"] == ENTRIES and list(read["branches"]) == NAMES, name
        for column, branch in enumerate(NAMES):
            values = np.array(read["branches"][branch]["values"], dtype=np.float64)
            assert same_bits(values, expected(column, precision)), f"{name}: {branch}"


def test_root_reads_every_codec(written):
    ROOT = pytest.importorskip("ROOT", reason="ROOT is not installed (its pip wheel: pip install ROOT)")
    for name in FILES:
        precision = name.split("_")[1][:3]
        f = ROOT.TFile.Open(str(written / name))
        assert f and not f.IsZombie() and not f.TestBit(ROOT.TFile.kRecovered), name
        assert f.GetStreamerInfoList().GetEntries() == 18, name
        tree = f.Get("events")
        assert tree.GetEntries() == ENTRIES, name
        clusters = tree.GetClusterIterator(0)
        starts = [clusters()]
        while starts[-1] < ENTRIES:
            starts.append(clusters())
        assert starts[:4] == [0, BASKET, 2 * BASKET, 3 * BASKET], name
        arrays = ROOT.RDataFrame(tree).AsNumpy(NAMES)
        for column, branch in enumerate(NAMES):
            assert tree.GetBranch(branch).GetTitle() == f"{branch}/{'F' if precision == 'f32' else 'D'}"
            assert same_bits(arrays[branch], expected(column, precision)), f"{name}: {branch}"
        f.Close()
