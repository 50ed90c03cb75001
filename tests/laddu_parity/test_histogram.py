"""Histogram: every method of laddu's Histogram run on the same inputs in laddu and laddu-cpp.

laddu-cpp follows laddu-physics/src/histogram.rs step for step (edges low + i * width, the same
summation order), so counts, errors, edges and flows agree exactly, not just to a tolerance.
Invalid inputs raise laddu's LadduError in both (ld.DataError is an ld.LadduError). Deviations,
listed in docs/laddu_parity.md: laddu-cpp's from_json checks what it reads (laddu accepts an
invalid histogram from JSON) and reports malformed JSON as ld.DataError (laddu: ValueError).
"""

import math

import numpy as np
import pytest

from conftest import laddu, ld

LIBS = (laddu, ld)


def state(h):
    """Everything a Histogram reports, as plain Python values."""
    return {
        "counts": list(h.counts),
        "errors": list(h.errors),
        "bin_edges": list(h.bin_edges),
        "underflow": h.underflow,
        "overflow": h.overflow,
        "bins": h.bins,
        "limits": tuple(h.limits),
        "total_weight": h.total_weight(),
        "total_weight_flow": h.total_weight(include_flow=True),
    }


def both(build):
    """build(lib) for laddu and laddu_cpp; their states must be identical."""
    theirs, ours = (build(lib) for lib in LIBS)
    assert state(ours) == state(theirs)
    return theirs, ours


def events(seed, n=500):
    rng = np.random.default_rng(seed)
    return rng.normal(0.3, 0.8, n), rng.uniform(-0.5, 2.0, n)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_from_values_and_from_values_with_edges(seed):
    values, weights = events(seed)
    both(lambda lib: lib.Histogram.from_values(values, bins=7, limits=(-1.3, 1.9)))
    both(lambda lib: lib.Histogram.from_values(values, bins=13, limits=(-1.0, 2.0), weights=weights))
    both(lambda lib: lib.Histogram.from_values(list(values), bins=3, limits=(0.1, 0.7), weights=list(weights)))
    both(lambda lib: lib.Histogram.from_values(values.astype(np.float32), bins=5, limits=(-2.0, 2.0)))
    edges = np.array([-1.0, -0.25, 0.0, 0.1, 0.9, 2.0])
    both(lambda lib: lib.Histogram.from_values_with_edges(values, bin_edges=edges, weights=weights))
    # values exactly on edges, including the last edge (overflow in both)
    on_edges = np.concatenate([edges, edges, [-5.0, 5.0]])
    both(lambda lib: lib.Histogram.from_values_with_edges(on_edges, bin_edges=list(edges)))


def test_constructor_errors_flow_and_json():
    kwargs = {"bin_edges": [0.0, 0.5, 2.0, 2.5], "underflow": 1.5, "overflow": -0.5}
    both(lambda lib: lib.Histogram([4.0, -9.0, 0.3], **kwargs))
    both(lambda lib: lib.Histogram(np.array([4.0, 9.0, 0.3]), errors=np.array([0.1, 0.0, 2.0]), **kwargs))
    theirs, ours = both(lambda lib: lib.Histogram.from_values([0.1, 0.5, 0.7, -1.0, 3.0], bins=2, limits=(0.0, 1.0),
                                                              weights=[1.0, 2.0, 0.1, 4.0, 5.0]))
    assert ours.to_json() == theirs.to_json()
    assert state(ld.Histogram.from_json(theirs.to_json())) == state(theirs)
    assert state(laddu.Histogram.from_json(ours.to_json())) == state(ours)


def test_fill_set_bin_and_setters():
    def build(lib):
        h = lib.Histogram.from_values_with_edges([], bin_edges=[0.0, 1.0, 3.0, 3.5])
        h.fill(0.5)
        h.fill(0.5, weight=3.0)
        h.fill(0.7, weight=-4.0)
        h.fill(2.0, weight=10.0, error=3.0)
        h.fill(3.0, error=0.0)
        h.fill(3.5, weight=2.0)  # the last edge: overflow
        h.fill(-1.0, weight=7.0, error=1.0)
        h.set_bin(2, count=11.0)
        h.set_bin(0, error=0.75)
        h.set_bin(1, count=-2.0, error=4.0)
        return h

    both(build)

    def setters(lib):
        h = lib.Histogram.from_values([0.2, 0.6], bins=2, limits=(0.0, 1.0))
        h.counts = np.array([5.0, -6.0])
        h.errors = [0.5, 2.5]
        return h

    both(setters)


def test_bin_index_and_bin_center():
    edges = [-1.0, -0.2, 0.0, 0.35, 1.0]
    hists = [lib.Histogram.from_values_with_edges([], bin_edges=edges) for lib in LIBS]
    uniform = [lib.Histogram.from_values([], bins=10, limits=(0.0, 1.0)) for lib in LIBS]
    probes = [-2.0, -1.0, -0.2, -0.1999, 0.0, 0.35, 0.3499999, 0.999, 1.0, 7.0, math.nan, math.inf, -math.inf]
    probes += list(np.linspace(0.0, 1.0, 41))  # uniform edges computed as low + i * width
    for theirs, ours in (hists, uniform):
        assert [ours.bin_index(v) for v in probes] == [theirs.bin_index(v) for v in probes]
        assert [ours.bin_center(i) for i in range(12)] == [theirs.bin_center(i) for i in range(12)]


@pytest.mark.parametrize("include_flow", [False, True])
def test_normalized(include_flow):
    values, weights = events(4)
    theirs, ours = both(lambda lib: lib.Histogram.from_values(values, bins=6, limits=(-0.5, 1.5), weights=weights))
    assert state(ours.normalized(include_flow=include_flow)) == state(theirs.normalized(include_flow=include_flow))


@pytest.mark.parametrize("signed", [False, True])
def test_density(signed):
    values, _ = events(5)
    theirs, ours = both(lambda lib: lib.Histogram.from_values_with_edges(values, bin_edges=[-2.0, -0.1, 0.4, 0.45, 3.0]))
    assert state(ours.density(signed=signed)) == state(theirs.density(signed=signed))
    negative = [lib.Histogram([-1.0, 3.0], bin_edges=[0.0, 1.0, 3.0]) for lib in LIBS]
    if signed:
        assert state(negative[1].density(signed=True)) == state(negative[0].density(signed=True))
    else:
        for lib, h in zip(LIBS, negative, strict=True):
            with pytest.raises(lib.LadduError):
                h.density()


INVALID = [
    ("edges", lambda lib: lib.Histogram([1.0], bin_edges=[0.0])),
    ("lengths", lambda lib: lib.Histogram([1.0, 2.0], bin_edges=[0.0, 1.0])),
    ("increasing", lambda lib: lib.Histogram([1.0, 2.0], bin_edges=[0.0, 1.0, 1.0])),
    ("nan edge", lambda lib: lib.Histogram([1.0], bin_edges=[0.0, math.nan])),
    ("inf count", lambda lib: lib.Histogram([math.inf], bin_edges=[0.0, 1.0])),
    ("nan flow", lambda lib: lib.Histogram([1.0], bin_edges=[0.0, 1.0], underflow=math.nan)),
    ("negative error", lambda lib: lib.Histogram([1.0], bin_edges=[0.0, 1.0], errors=[-1.0])),
    ("errors length", lambda lib: lib.Histogram([1.0], bin_edges=[0.0, 1.0], errors=[1.0, 2.0])),
    ("zero bins", lambda lib: lib.Histogram.from_values([0.5], bins=0, limits=(0.0, 1.0))),
    ("limits order", lambda lib: lib.Histogram.from_values([0.5], bins=2, limits=(1.0, 1.0))),
    ("limits nan", lambda lib: lib.Histogram.from_values([0.5], bins=2, limits=(0.0, math.nan))),
    ("nan value", lambda lib: lib.Histogram.from_values([math.nan], bins=2, limits=(0.0, 1.0))),
    ("inf weight", lambda lib: lib.Histogram.from_values([0.5], bins=2, limits=(0.0, 1.0), weights=[math.inf])),
    ("weights length", lambda lib: lib.Histogram.from_values_with_edges([0.5], bin_edges=[0.0, 1.0], weights=[])),
    ("fill nan", lambda lib: lib.Histogram([1.0], bin_edges=[0.0, 1.0]).fill(math.nan)),
    ("fill error", lambda lib: lib.Histogram([1.0], bin_edges=[0.0, 1.0]).fill(0.5, error=-1.0)),
    ("set_bin index", lambda lib: lib.Histogram([1.0], bin_edges=[0.0, 1.0]).set_bin(1, count=1.0)),
    ("set_bin error", lambda lib: lib.Histogram([1.0], bin_edges=[0.0, 1.0]).set_bin(0, error=math.nan)),
    ("normalize zero", lambda lib: lib.Histogram([0.0], bin_edges=[0.0, 1.0], overflow=1.0).normalized()),
    ("normalize flow zero", lambda lib: lib.Histogram([1.0], bin_edges=[0.0, 1.0], overflow=-1.0).normalized(
        include_flow=True)),
    ("density flow", lambda lib: lib.Histogram([1.0], bin_edges=[0.0, 1.0], underflow=-1.0).density()),
    ("signed density zero", lambda lib: lib.Histogram([1.0, -1.0], bin_edges=[0.0, 1.0, 2.0]).density(signed=True)),
]


@pytest.mark.parametrize(("what", "make"), INVALID, ids=[what for what, _ in INVALID])
def test_invalid_inputs_raise_laddu_error_in_both(what, make):
    for lib in LIBS:
        with pytest.raises(lib.LadduError):
            make(lib)


def test_set_bin_is_all_or_nothing_in_both():
    for lib in LIBS:
        h = lib.Histogram([1.0, 2.0], bin_edges=[0.0, 1.0, 2.0])
        with pytest.raises(lib.LadduError):
            h.set_bin(0, count=5.0, error=-1.0)
        assert h.counts == [1.0, 2.0]


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.Histogram("abc", bin_edges=[0.0, 1.0]),
        lambda lib: lib.Histogram(np.ones((1, 1)), bin_edges=[0.0, 1.0]),
        lambda lib: lib.Histogram([1.0], bin_edges=None),
        lambda lib: lib.Histogram([1.0], [0.0, 1.0]),  # bin_edges is keyword-only
        lambda lib: lib.Histogram([1.0], bin_edges=[0.0, 1.0]).fill(0.5, 2.0),  # weight too
        lambda lib: lib.Histogram([1.0], bin_edges=[0.0, 1.0]).total_weight(True),
    ],
)
def test_wrong_types_raise_type_error_in_both(make):
    for lib in LIBS:
        with pytest.raises(TypeError):
            make(lib)


def test_histogram_feeds_laddus_scalar_source():
    """A laddu-cpp Histogram is accepted where laddu takes its Histogram (ScalarSource.histogram)."""
    ours = ld.Histogram([1.0, 3.0], bin_edges=[0.0, 1.0, 2.0])
    theirs = laddu.Histogram([1.0, 3.0], bin_edges=[0.0, 1.0, 2.0])
    assert ld.ScalarSource.histogram(ours).to_json() == ld.ScalarSource.histogram(theirs).to_json()


def test_same_public_surface():
    """laddu-cpp's Histogram has every public name laddu's has (plus from_dataset and plot)."""
    theirs = {n for n in dir(laddu.Histogram) if not n.startswith("_")}
    ours = {n for n in dir(ld.Histogram) if not n.startswith("_")}
    assert theirs <= ours
    assert ours - theirs == {"from_dataset", "plot"}
