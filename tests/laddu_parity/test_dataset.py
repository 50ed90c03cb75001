"""Datasets: construction from arrays and from Parquet written by either library, weights,
selections, binning, bootstrap and subsample replicas, concatenation and slicing.

Every event carries a scalar `idx` (its index in the original arrays), so "which events were
kept" is compared exactly by evaluating `idx` on the result.
"""

import numpy as np
import pytest

from conftest import (KSKS_P4S, assert_values_close, both_datasets, counter_uniform, ksks_arrays, laddu, ld,
                      multiplicity, poisson1)

N_EVENTS = 3000


@pytest.fixture(scope="module")
def arrays():
    p4s, scalars = ksks_arrays(N_EVENTS, seed=21)
    rng = np.random.default_rng(21)
    scalars["idx"] = np.arange(N_EVENTS, dtype=np.float64)
    # Values on a grid of quarters, so interval ends and bin edges are hit exactly.
    scalars["x"] = rng.integers(-8, 9, size=N_EVENTS) / 4.0
    weights = rng.uniform(0.2, 1.8, size=N_EVENTS)
    weights[::7] *= -0.5  # some negative weights (background subtraction)
    return p4s, scalars, weights


@pytest.fixture(scope="module")
def datasets(arrays):
    p4s, scalars, weights = arrays
    return both_datasets(p4s, scalars, weights)


def ids(dataset, lib):
    return np.asarray(dataset.evaluate(lib.scalar("idx"), real=True)).astype(np.int64)


def laddu_p4(dataset, name):
    v = laddu.Vec4.event(name)
    return np.column_stack([np.asarray(dataset.evaluate(c, real=True)) for c in (v.e(), v.px(), v.py(), v.pz())])


def assert_same_events(theirs, ours, what):
    """Same events (by idx, in order) with the same weights, bit for bit."""
    np.testing.assert_array_equal(ids(ours, ld), ids(theirs, laddu), err_msg=f"{what}: kept events")
    np.testing.assert_array_equal(np.asarray(ours.weights()), np.asarray(theirs.weights()), err_msg=f"{what}: weights")
    assert len(ours) == len(theirs)


# ---- construction ------------------------------------------------------------------------


def test_from_arrays_names_length_weights(arrays, datasets):
    p4s, scalars, weights = arrays
    theirs, ours = datasets
    assert len(ours) == len(theirs) == N_EVENTS
    assert ours.p4_names() == theirs.p4_names()
    assert ours.scalar_names() == theirs.scalar_names()
    np.testing.assert_array_equal(ours.weights(), theirs.weights())
    np.testing.assert_array_equal(ours.weights(), weights)
    assert_values_close(ours.sum_weights(), theirs.sum_weights(), what="sum_weights")
    assert ours.sum_weights() == pytest.approx(float(np.sum(weights)), rel=1e-14)
    for name in KSKS_P4S:
        np.testing.assert_array_equal(ours.p4(name), laddu_p4(theirs, name))
        np.testing.assert_array_equal(ours.p4(name), p4s[name])


def test_from_arrays_without_weights_and_float32():
    p4s, scalars = ksks_arrays(200, seed=2)
    p4s32 = {k: v.astype(np.float32) for k, v in p4s.items()}
    scalars32 = {k: v.astype(np.float32) for k, v in scalars.items()}
    theirs, ours = both_datasets(p4s32, scalars32)
    np.testing.assert_array_equal(ours.weights(), np.ones(200))
    np.testing.assert_array_equal(theirs.weights(), np.ones(200))
    assert ours.sum_weights() == theirs.sum_weights() == 200.0
    np.testing.assert_array_equal(ours.p4("beam"), laddu_p4(theirs, "beam"))
    np.testing.assert_array_equal(
        ours.evaluate(ld.scalar("pol_angle"), real=True), theirs.evaluate(laddu.scalar("pol_angle"), real=True)
    )


def test_evaluate_complex_and_real(datasets):
    theirs, ours = datasets

    def build(lib):
        return lib.scalar("x") * lib.cis(lib.scalar("pol_angle")) + lib.Vec4.event("beam").e()

    ours_c = np.asarray(ours.evaluate(build(ld), real=False))
    theirs_c = np.asarray(theirs.evaluate(build(laddu), real=False))
    assert ours_c.dtype == theirs_c.dtype == np.complex128
    assert_values_close(ours_c, theirs_c, what="complex evaluate")
    assert_values_close(
        ours.evaluate(build(ld).real(), real=True), theirs.evaluate(build(laddu).real(), real=True), what="real"
    )


def test_evaluate_is_complex_by_default_and_real_with_real_true(datasets):
    theirs, ours = datasets
    assert np.asarray(theirs.evaluate(laddu.scalar("x"))).dtype == np.complex128
    assert np.asarray(ours.evaluate(ld.scalar("x"))).dtype == np.complex128
    np.testing.assert_array_equal(np.asarray(theirs.evaluate(laddu.scalar("x"))), ours.evaluate(ld.scalar("x")))
    np.testing.assert_array_equal(theirs.evaluate(laddu.scalar("x"), real=True),
                                  ours.evaluate(ld.scalar("x"), real=True))


# ---- Parquet -----------------------------------------------------------------------------


@pytest.mark.parametrize("writer", ["laddu", "laddu_cpp"])
@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_parquet_written_by_either_is_read_by_both(tmp_path, datasets, writer, precision):
    theirs, ours = datasets
    path = tmp_path / f"events_{writer}_{precision}.parquet"
    if writer == "laddu":
        theirs.write_to(laddu.ParquetSink(str(path), precision=precision))
    else:
        ours.write_to(ld.ParquetSink(str(path), precision=precision))
    theirs_read = laddu.read_parquet(str(path))
    ours_read = ld.read_parquet(str(path))
    assert len(ours_read) == len(theirs_read) == N_EVENTS
    assert ours_read.p4_names() == theirs_read.p4_names()
    assert sorted(ours_read.scalar_names()) == sorted(theirs_read.scalar_names())
    np.testing.assert_array_equal(ours_read.weights(), theirs_read.weights())
    for name in KSKS_P4S:
        np.testing.assert_array_equal(ours_read.p4(name), laddu_p4(theirs_read, name))
    for name in ["x", "idx", "pol_angle", "pol_magnitude"]:
        np.testing.assert_array_equal(
            ours_read.evaluate(ld.scalar(name), real=True), theirs_read.evaluate(laddu.scalar(name), real=True)
        )
    # f64 round trips bit for bit; f32 rounds each value once.
    expected_beam = ours.p4("beam") if precision == "f64" else ours.p4("beam").astype(np.float32).astype(np.float64)
    np.testing.assert_array_equal(ours_read.p4("beam"), expected_beam)


# ---- selections --------------------------------------------------------------------------


def mkk(lib):
    return (lib.Vec4.event("kshort1") + lib.Vec4.event("kshort2")).m()


PREDICATES = {
    "lt": lambda lib: lib.scalar("x") < 0.5,
    "le": lambda lib: lib.scalar("x") <= 0.5,
    "gt": lambda lib: lib.scalar("x") > -0.25,
    "ge": lambda lib: lib.scalar("x") >= -0.25,
    "and": lambda lib: (mkk(lib) > 1.2) & (mkk(lib) < 1.8),
    "or": lambda lib: (lib.scalar("x") < -1.0) | (lib.scalar("x") >= 1.25),
    "not": lambda lib: ~(lib.scalar("pol_magnitude") < 0.35),
    "expr_vs_expr": lambda lib: lib.scalar("x") < lib.scalar("pol_angle"),
    "nested": lambda lib: ((lib.scalar("x") >= 0.0) | (mkk(lib) < 1.5)) & ~(lib.scalar("pol_angle") > 1.0),
}


@pytest.mark.parametrize("name", sorted(PREDICATES))
def test_select_keeps_the_same_events(datasets, arrays, name):
    theirs, ours = datasets
    selected_theirs = theirs.select(PREDICATES[name](laddu))
    selected_ours = ours.select(PREDICATES[name](ld))
    assert_same_events(selected_theirs, selected_ours, name)
    assert 0 < len(selected_ours) < N_EVENTS
    assert_values_close(selected_ours.sum_weights(), selected_theirs.sum_weights(), what="selected sum_weights")


@pytest.mark.parametrize("closed", ["both", "left", "right", "neither"])
def test_between_with_explicit_closure(datasets, closed):
    theirs, ours = datasets
    # laddu's bounds must be expressions; laddu-cpp takes numbers or expressions.
    selected_theirs = theirs.select(
        laddu.Predicate.between(laddu.scalar("x"), low=laddu.Expr(-0.5), high=laddu.Expr(0.5), closed=closed)
    )
    selected_ours = ours.select(ld.Predicate.between(ld.scalar("x"), low=-0.5, high=0.5, closed=closed))
    assert_same_events(selected_theirs, selected_ours, f"between closed={closed}")
    x = ours.evaluate(ld.scalar("x"), real=True)
    expected = {
        "both": (x >= -0.5) & (x <= 0.5),
        "left": (x >= -0.5) & (x < 0.5),
        "right": (x > -0.5) & (x <= 0.5),
        "neither": (x > -0.5) & (x < 0.5),
    }[closed]
    assert len(selected_ours) == int(expected.sum())


def test_between_default_closure(datasets):
    """laddu's Predicate.between includes both ends by default; so does laddu-cpp's."""
    theirs, ours = datasets
    selected_theirs = theirs.select(laddu.Predicate.between(laddu.scalar("x"), low=laddu.Expr(-0.5), high=laddu.Expr(0.5)))
    selected_ours = ours.select(ld.Predicate.between(ld.scalar("x"), low=-0.5, high=0.5))
    with_expressions = ours.select(ld.Predicate.between(ld.scalar("x"), low=ld.constant(-0.5), high=ld.scalar("x") * 0.0 + 0.5))
    assert_same_events(selected_theirs, with_expressions, "between with expression bounds")
    assert_same_events(selected_theirs, selected_ours, "between default")
    x = np.asarray(ours.evaluate(ld.scalar("x"), real=True))
    assert len(selected_ours) == int(((x >= -0.5) & (x <= 0.5)).sum())


def test_select_then_select_and_boolean_mask(datasets):
    theirs, ours = datasets
    twice_theirs = theirs.select(laddu.scalar("x") > -1.0).select(mkk(laddu) < 1.6)
    twice_ours = ours.select(ld.scalar("x") > -1.0).select(mkk(ld) < 1.6)
    assert_same_events(twice_theirs, twice_ours, "select twice")
    # laddu-cpp also takes a boolean mask; it selects what the predicate selects.
    mask = ld.Predicate.mask(ld.scalar("x") > -1.0, ours)
    assert_same_events(theirs.select(laddu.scalar("x") > -1.0), ours.select(mask), "mask")


# ---- binning -----------------------------------------------------------------------------


BINNINGS = {
    "edges_inside": lambda lib: lib.Bin([-1.0, -0.25, 0.0, 0.75, 1.5]),
    "edges_to_max": lambda lib: lib.Bin([-2.0, -1.0, 0.0, 1.0, 2.0]),  # x = 2.0 is the top edge
    "uniform": lambda lib: lib.Bin.uniform(7, low=-1.75, high=1.75),
}


@pytest.mark.parametrize("name", sorted(BINNINGS))
def test_bin_by_same_bins_same_events(datasets, name):
    theirs, ours = datasets
    bins_theirs = list(theirs.bin_by(laddu.scalar("x"), bins=BINNINGS[name](laddu)))
    bins_ours = list(ours.bin_by(ld.scalar("x"), bins=BINNINGS[name](ld)))
    assert len(bins_ours) == len(bins_theirs)
    x = np.asarray(ours.evaluate(ld.scalar("x"), real=True))
    for b_theirs, b_ours in zip(bins_theirs, bins_ours, strict=True):
        assert (b_ours.index, b_ours.low, b_ours.high) == (b_theirs.index, b_theirs.low, b_theirs.high)
        assert_same_events(b_theirs.dataset, b_ours.dataset, f"{name} bin {b_ours.index}")
    # Independent: half-open bins, the last one closed on its top edge (laddu's rule).
    edges = BINNINGS[name](ld).edges
    top = len(edges) - 2
    for k, b in enumerate(bins_ours):
        inside = (x >= edges[k]) & ((x < edges[k + 1]) | ((k == top) & (x == edges[k + 1])))
        np.testing.assert_array_equal(ids(b.dataset, ld), np.flatnonzero(inside))
    if name == "edges_to_max":
        assert np.any(x == 2.0) and 2.0 in ids_values(bins_ours[-1].dataset)


@pytest.mark.parametrize("n,low,high", [(7, 0.1, 0.83), (10, -1.3, 2.9), (3, 0.0, 0.3), (13, -0.7, 0.11)])
def test_uniform_bin_edges_bit_for_bit(n, low, high):
    """laddu's uniform edges are low + i·((high − low)/n): the last one need not be `high`."""
    theirs = laddu.Bin.uniform(n, low=low, high=high).edges
    ours = ld.Bin.uniform(n, low=low, high=high).edges
    width = (high - low) / n
    assert [float.hex(e) for e in ours] == [float.hex(e) for e in theirs]
    assert ours == [low + i * width for i in range(n + 1)]


def ids_values(dataset):
    return set(np.asarray(dataset.evaluate(ld.scalar("x"), real=True)).tolist())


def test_bin_by_weighted_counts(datasets):
    theirs, ours = datasets
    bins = [-1.6, -1.0, -0.4, 0.2, 0.8, 1.4, 2.0]
    counts_theirs = [b.dataset.sum_weights() for b in theirs.bin_by(mkk(laddu) - 1.0 + laddu.scalar("x"), bins=laddu.Bin(bins))]
    counts_ours = [b.dataset.sum_weights() for b in ours.bin_by(mkk(ld) - 1.0 + ld.scalar("x"), bins=ld.Bin(bins))]
    assert_values_close(counts_ours, counts_theirs, what="weighted bin counts")


# ---- bootstrap and subsample ------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 12345, 2**63 + 5])
def test_bootstrap_keeps_laddus_events_with_independent_multiplicities(datasets, arrays, seed):
    """Poisson(1) bootstrap: every event stays (drawn 0 times: weight 0), as in laddu; the
    multiplicities come from the seed mixed by splitmix64 before the event index is hashed in
    (laddu hashes seed ^ index, docs/laddu_parity.md), checked in pure Python."""
    theirs, ours = datasets
    b_theirs, b_ours = theirs.bootstrap(seed=seed), ours.bootstrap(seed=seed)
    assert len(b_ours) == len(b_theirs) == N_EVENTS
    assert_replica(b_theirs, b_ours, f"bootstrap({seed})", arrays[2], [seed])
    # laddu's own weights follow the unmixed formula
    np.testing.assert_array_equal(
        b_theirs.weights(), [arrays[2][i] * poisson1(counter_uniform(seed, i)) for i in range(N_EVENTS)])


def test_bootstrap_default_seed(datasets, arrays):
    theirs, ours = datasets
    assert_replica(theirs.bootstrap(), ours.bootstrap(), "bootstrap()", arrays[2], [0])


def test_bootstrap_replicas_are_independent_across_seeds():
    """laddu's bug, and ours fixed: the total multiplicity of N unit-weight events is Poisson(N),
    so over consecutive seeds its variance is about N. laddu's seed ^ index hash makes every
    replica of a 512-event sample with a seed below 512 a permutation of one multiset of
    multiplicities: the replica yields are all equal and a bootstrap cannot see the yield's
    uncertainty (a cross section's bootstrap error then misses its Poisson part)."""
    n, seeds = 512, range(300)
    totals = {}
    for lib in (laddu, ld):
        data = lib.Dataset.from_arrays(p4s={}, scalars={"x": np.zeros(n)})
        totals[lib] = np.array([float(np.sum(data.bootstrap(seed=s).weights())) for s in seeds])
    # 300 draws: the sample variance lies within ±25 % of n far beyond 3 sigma (sd ≈ 8 %)
    assert 0.75 * n < np.var(totals[ld], ddof=1) < 1.25 * n
    assert abs(np.mean(totals[ld]) - n) < 5 * np.sqrt(n / len(seeds))
    assert np.var(totals[laddu], ddof=1) < 0.01 * n


@pytest.mark.parametrize("fraction,seed", [(0.0, 3), (0.25, 0), (0.5, 7), (0.9, 99), (1.0, 5)])
def test_subsample_same_events(datasets, fraction, seed):
    theirs, ours = datasets
    assert_same_events(theirs.subsample(fraction, seed=seed), ours.subsample(fraction, seed=seed), f"subsample({fraction})")


def test_subsample_out_of_range_is_an_error(datasets):
    theirs, ours = datasets
    with pytest.raises(Exception):
        theirs.subsample(1.5, seed=0)
    with pytest.raises(ld.DataError):
        ours.subsample(1.5, seed=0)


CHAINS = {
    "select_then_bootstrap": lambda d, lib: d.select(lib.scalar("x") >= 0.0).bootstrap(seed=4),
    "bootstrap_then_select": lambda d, lib: d.bootstrap(seed=4).select(lib.scalar("x") >= 0.0),
    "bootstrap_then_subsample": lambda d, lib: d.bootstrap(seed=4).subsample(0.5, seed=8),
    "subsample_then_bootstrap": lambda d, lib: d.subsample(0.5, seed=8).bootstrap(seed=4),
    "subsample_twice": lambda d, lib: d.subsample(0.5, seed=8).subsample(0.5, seed=9),
    "bootstrap_twice": lambda d, lib: d.bootstrap(seed=4).bootstrap(seed=5),
    "select_then_subsample": lambda d, lib: d.select(lib.scalar("x") >= 0.0).subsample(0.5, seed=8),
}


# The bootstrap seeds of each chain (their multiplicities differ from laddu's by design).
CHAIN_SEEDS = {"select_then_bootstrap": [4], "bootstrap_then_select": [4], "bootstrap_then_subsample": [4],
               "subsample_then_bootstrap": [4], "bootstrap_twice": [4, 5]}


@pytest.mark.parametrize("name", sorted(CHAINS))
def test_chained_replicas(datasets, arrays, name):
    """Replica operations after other operations: which event index seeds each draw."""
    theirs, ours = datasets
    if name in CHAIN_SEEDS:
        assert_replica(CHAINS[name](theirs, laddu), CHAINS[name](ours, ld), name, arrays[2], CHAIN_SEEDS[name],
                       keyed_on_row=name == "select_then_bootstrap")
    else:
        assert_same_events(CHAINS[name](theirs, laddu), CHAINS[name](ours, ld), name)


def assert_replica(theirs, ours, what, base_weights, seeds, keyed_on_row=False):
    """laddu's events (by idx, in order); our weights: the base weight times our multiplicity
    for each bootstrap seed, keyed on the original event index (on the row of the selection for
    a bootstrap after a select, which starts a new source as in laddu)."""
    kept = ids(ours, ld)
    np.testing.assert_array_equal(kept, ids(theirs, laddu), err_msg=f"{what}: kept events")
    keys = range(len(kept)) if keyed_on_row else kept
    expected = []
    for i, k in zip(kept, keys):
        weight = base_weights[i]
        for seed in seeds:  # one multiplication per bootstrap, in order
            weight = weight * multiplicity(seed, k)
        expected.append(weight)
    np.testing.assert_array_equal(np.asarray(ours.weights()), expected, err_msg=f"{what}: weights")


def test_subsample_then_bootstrap_independently(datasets, arrays):
    """Independent: the counter-based draws in pure Python, keyed on the original index."""
    _, ours = datasets
    weights = arrays[2]
    kept = [i for i in range(N_EVENTS) if counter_uniform(8, i) < 0.5]
    expected = [weights[i] * multiplicity(4, i) for i in kept]
    replica = ours.subsample(0.5, seed=8).bootstrap(seed=4)
    np.testing.assert_array_equal(ids(replica, ld), kept)
    np.testing.assert_array_equal(replica.weights(), expected)


# ---- laddu-cpp additions: concatenation and slicing -------------------------------------


def test_concat_and_slices_match_laddu_built_from_the_same_rows(arrays):
    """laddu 0.21.4 has no Dataset concatenation or slicing; laddu-cpp's equal laddu datasets
    built from the concatenated or sliced arrays."""
    p4s, scalars, weights = arrays
    half = N_EVENTS // 2

    def part(rows):
        return ({k: v[rows] for k, v in p4s.items()}, {k: v[rows] for k, v in scalars.items()}, weights[rows])

    first_t, first_o = both_datasets(*part(slice(0, half)))
    second_t, second_o = both_datasets(*part(slice(half, None)))
    whole_t, _ = both_datasets(p4s, scalars, weights)
    assert_same_events(whole_t, first_o + second_o, "concat")
    assert_same_events(whole_t, first_o.concat(second_o), "concat()")
    _, ours = both_datasets(p4s, scalars, weights)
    for rows in [slice(10, 500), slice(0, N_EVENTS, 3), slice(N_EVENTS - 7, None)]:
        theirs_part, _ = both_datasets(*part(rows))
        assert_same_events(theirs_part, ours[rows], f"slice {rows}")
