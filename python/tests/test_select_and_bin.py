"""Selections, binning, from_batches and slicing, against the same operations done in numpy."""

from fractions import Fraction

import numpy as np
import pytest

import laddu_cpp as ld


def events(n=500, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, n)
    y = rng.normal(0, 1, n)
    w = rng.uniform(0.5, 1.5, n)
    return ld.Dataset.from_arrays(scalars={"x": x, "y": y}, weights=w), x, y, w


def test_comparisons_give_predicates_that_select_as_numpy_does():
    data, xv, yv, w = events()
    x, y = ld.scalar("x"), ld.scalar("y")
    cases = [
        (x > 0.5, xv > 0.5),
        (x >= 0.5, xv >= 0.5),
        (x < -1, xv < -1),
        (x <= -1, xv <= -1),
        (0.5 < x, xv > 0.5),  # reflected: Expr.__gt__
        ((x > -1) & (x < 1), (xv > -1) & (xv < 1)),
        ((x < -1) | (y > 1), (xv < -1) | (yv > 1)),
        (~(x > 0), ~(xv > 0)),
        (x * x + y < 1, xv * xv + yv < 1),
        (x < y, xv < yv),  # expression against expression
    ]
    for predicate, expected in cases:
        assert isinstance(predicate, ld.Predicate)
        np.testing.assert_array_equal(predicate.mask(data), expected, err_msg=repr(predicate))
        selected = data.select(predicate)
        assert len(selected) == expected.sum()
        np.testing.assert_array_equal(selected.column("x"), xv[expected])
        np.testing.assert_array_equal(selected.weights(), w[expected])


def test_between_closes_the_interval_as_asked():
    edges = np.array([0.0, 0.5, 1.0, 1.5])
    data = ld.Dataset.from_arrays(scalars={"x": edges})
    x = ld.scalar("x")
    expected = {
        "left": [True, True, False, False],
        "right": [False, True, True, False],
        "both": [True, True, True, False],
        "neither": [False, True, False, False],
        True: [True, True, True, False],
        False: [False, True, False, False],
    }
    for closed, mask in expected.items():
        np.testing.assert_array_equal(ld.Predicate.between(x, 0.0, 1.0, closed=closed).mask(data), mask)
    # laddu's default includes both ends; the bounds may be expressions.
    np.testing.assert_array_equal(ld.Predicate.between(x, 0.0, 1.0).mask(data), expected["both"])
    np.testing.assert_array_equal(
        ld.Predicate.between(x, low=ld.constant(0.0), high=ld.scalar("x") * 0.0 + 1.0, closed="left").mask(data),
        expected["left"],
    )
    with pytest.raises(ValueError, match="closed must be"):
        ld.Predicate.between(x, 0.0, 1.0, closed="middle")
    with pytest.raises(ld.ModelError, match="low <= high"):
        ld.Predicate.between(x, 1.0, 0.0)


def test_select_by_boolean_mask_and_its_errors():
    data, xv, _, w = events(100)
    mask = xv > 0
    np.testing.assert_array_equal(data.select(mask).weights(), w[mask])
    with pytest.raises(ld.DataError, match="99 entries but the dataset has 100"):
        data.select(mask[:-1])
    with pytest.raises(TypeError, match="ld.Predicate"):
        data.select(xv)  # floats are not a mask
    with pytest.raises(TypeError, match="no truth value"):
        bool(ld.scalar("x") > 0)
    with pytest.raises(TypeError, match="compares with a real number"):
        _ = ld.scalar("x") < "a"
    with pytest.raises(ld.DataError, match="z"):
        data.select(ld.scalar("z") > 0)  # a column the dataset lacks


def test_dataset_evaluate_matches_numpy():
    data, xv, yv, _ = events(50)
    x, y = ld.scalar("x"), ld.scalar("y")
    # x·y + 1 is a dot (docs/ir.md): the product is fused, so each value is the exact
    # x·y + 1 rounded once, which numpy's two roundings miss near cancellation.
    exact = np.array([float(Fraction(a) * Fraction(b) + 1) for a, b in zip(xv, yv)])
    np.testing.assert_array_equal(data.evaluate(x * y + 1).real, exact)
    np.testing.assert_allclose(data.evaluate(x * y + 1), xv * yv + 1, rtol=2e-15)
    values = data.evaluate(ld.cis(x), real=False)
    np.testing.assert_allclose(values, np.exp(1j * xv), rtol=1e-14)


def test_bin_by_splits_like_digitize_and_keeps_empty_bins():
    data, xv, _, w = events(2000)
    x = ld.scalar("x")
    edges = np.array([-3.0, -1.0, 0.0, 0.25, 2.5, 3.0])  # the last bin is empty
    binned = data.bin_by(x, bins=ld.Bin(edges))
    assert len(binned) == binned.n_bins == 5
    assert binned.edges == list(edges)
    assert binned.range == (-3.0, 3.0)
    index = np.digitize(xv, edges) - 1
    for k, item in enumerate(binned):
        assert item.index == k
        assert (item.low, item.high) == (edges[k], edges[k + 1]) == item.limits
        np.testing.assert_array_equal(item.dataset.column("x"), xv[index == k])
        np.testing.assert_array_equal(item.dataset.weights(), w[index == k])
    assert len(binned[4].dataset) == 0
    assert len(binned[-1].dataset) == 0
    with pytest.raises(IndexError):
        binned[5]
    assert sum(len(d) for d in binned.datasets()) == len(data)


def test_bin_by_with_a_count_and_range_as_older_laddu():
    data, xv, _, _ = events(1000)
    binned = data.bin_by(ld.scalar("x"), 4, (-1.0, 1.0))
    counts = [len(item.dataset) for item in binned]
    expected, _ = np.histogram(xv, bins=4, range=(-1.0, 1.0))
    # numpy closes the last bin on the right, as laddu does; no x is exactly 1.0 here.
    assert counts == list(expected)
    on_edges = ld.Dataset.from_arrays(scalars={"x": np.array([-1.0, -0.5, 0.5, 1.0, 1.0 + 1e-16, 1.5])})
    counts = [len(item.dataset) for item in on_edges.bin_by(ld.scalar("x"), 4, (-1.0, 1.0))]
    assert counts == [1, 1, 0, 3]  # 0.5, and 1.0 (twice: 1.0 + 1e-16 == 1.0) closes the last bin
    uniform = ld.Bin.uniform(4, low=-1.0, high=1.0)
    assert uniform.edges == [-1.0, -0.5, 0.0, 0.5, 1.0]
    with pytest.raises(ValueError, match="needs range"):
        data.bin_by(ld.scalar("x"), 4)
    with pytest.raises(ld.ModelError, match="increase strictly"):
        ld.Bin([0.0, 1.0, 1.0])
    with pytest.raises(ld.ModelError, match="at least two edges"):
        ld.Bin([0.0])
    with pytest.raises(ld.ModelError, match="low < high"):
        ld.Bin.uniform(3, low=1.0, high=0.0)


SCHEMA = {"p4s": ["beam"], "scalars": ["s"], "weights": True}


def batch_factory(p4, s, w, calls, size=8):
    def factory(*, chunk_size, rank, nranks):
        calls.append((chunk_size, rank, nranks))
        for lo in range(0, len(s), size):
            hi = min(lo + size, len(s))
            yield {"p4s": {"beam": p4[lo:hi]}, "scalars": {"s": s[lo:hi]}, "weights": w[lo:hi]}

    return factory


def test_from_batches_calls_the_factory_on_every_traversal():
    rng = np.random.default_rng(3)
    p4 = rng.normal(size=(30, 4))
    s = rng.normal(size=30)
    w = rng.uniform(size=30)
    calls = []
    data = ld.Dataset.from_batches(batch_factory(p4, s, w, calls), schema=SCHEMA, length=30)
    assert calls == [] and not data.is_resident  # nothing is read until a traversal
    whole = ld.Dataset.from_arrays(p4s={"beam": p4}, scalars={"s": s}, weights=w)
    assert len(data) == 30 and calls == []  # length= is the count
    np.testing.assert_array_equal(data.p4("beam"), whole.p4("beam"))
    np.testing.assert_array_equal(data.weights(), w)
    assert data.sum_weights() == whole.sum_weights()
    assert len(calls) == 3 and all(call[1:] == (0, 1) for call in calls)
    x = ld.scalar("s")
    np.testing.assert_array_equal(data.evaluate(x, real=True), s)
    np.testing.assert_array_equal(data.select(x > 0).weights(), w[s > 0])
    # Without length= one traversal counts the events, once.
    calls.clear()
    counted = ld.Dataset.from_batches(batch_factory(p4, s, w, calls, size=7), schema=SCHEMA)
    assert len(counted) == 30 and len(counted) == 30 and len(calls) == 1


def test_a_likelihood_reads_a_factory_dataset_on_worker_threads():
    data, xv, _, w = events(2000)
    calls = []
    scalars = {"x": xv, "y": np.zeros_like(xv)}

    def factory(*, chunk_size, rank, nranks):
        calls.append(chunk_size)
        for lo in range(0, len(xv), 300):
            yield {"p4s": {}, "scalars": {k: v[lo : lo + 300] for k, v in scalars.items()}, "weights": w[lo : lo + 300]}

    lazy = ld.Dataset.from_batches(factory, schema={"p4s": [], "scalars": ["x", "y"], "weights": True},
                                   length=len(xv), cache="streaming")
    model = ld.Model(ld.parameter("a", initial=1.0) * ld.scalar("x") * ld.scalar("x") + 1.0)
    execution = ld.Execution("cpu", threads=2)
    lazy_nll = ld.NLL(model, data=lazy, accepted_mc=lazy, execution=execution)
    nll = ld.NLL(model, data=data, accepted_mc=data, execution=execution)
    assert lazy_nll.value([0.7]).hex() == nll.value([0.7]).hex()
    assert calls  # streaming: the factory was traversed


def test_from_batches_errors_name_the_batch():
    def mismatched(*, chunk_size, rank, nranks):
        yield {"p4s": {}, "scalars": {"a": np.zeros(2)}}
        yield {"p4s": {}, "scalars": {"b": np.zeros(2)}}

    only_a = {"p4s": [], "scalars": ["a"]}
    with pytest.raises(ld.DataError, match=r"batch 1 has p4s \[\], scalars \[b\]"):
        len(ld.Dataset.from_batches(mismatched, schema=only_a))
    with pytest.raises(ld.DataError, match="unknown key 'columns'"):
        ld.Dataset.from_batches(lambda **plan: [{"columns": {}}], schema=only_a).weights()
    with pytest.raises(ld.DataError, match="batch 0 is a 'list'"):
        ld.Dataset.from_batches(lambda **plan: [[1, 2]], schema=only_a).weights()
    with pytest.raises(ld.DataError, match="factory failed: ZeroDivisionError"):
        ld.Dataset.from_batches(lambda **plan: [1 / 0], schema=only_a).weights()
    with pytest.raises(ld.DataError, match="yielded 2 events but length=5"):
        ld.Dataset.from_batches(lambda **plan: [{"p4s": {}, "scalars": {"a": np.zeros(2)}}], schema=only_a,
                                length=5)[:1].weights()
    assert len(ld.Dataset.from_batches(lambda **plan: [], schema=only_a)) == 0
    with pytest.raises(TypeError, match="callable"):
        ld.Dataset.from_batches(3, schema=only_a)
    with pytest.raises(ValueError, match="schema is missing 'scalars'"):
        ld.Dataset.from_batches(mismatched, schema={"p4s": []})
    with pytest.raises(ValueError, match="cache must be"):
        ld.Dataset.from_batches(mismatched, schema=only_a, cache="sometimes")


def test_slices_with_steps_and_concatenation():
    data, xv, _, w = events(20)
    np.testing.assert_array_equal(data[2:15:3].column("x"), xv[2:15:3])
    np.testing.assert_array_equal(data[::2].weights(), w[::2])
    np.testing.assert_array_equal(data[5:9].column("x"), xv[5:9])
    with pytest.raises(ValueError, match="positive"):
        data[::-1]
    both = data[:5] + data[15:]
    np.testing.assert_array_equal(both.column("x"), np.concatenate([xv[:5], xv[15:]]))
    assert len(data[:5].concat(data[:5])) == 10
