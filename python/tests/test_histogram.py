"""ld.Histogram (laddu's 1-D histogram), ld.HistogramNd and the plotting helper: analytic counts
and errors, validation, closure against numpy, from_dataset, and PNG output."""

import math

import numpy as np
import pytest

import laddu_cpp as ld

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


# ---- Histogram ----


def test_from_values_counts_flow_and_quadrature_errors():
    values = [-0.1, 0.0, 0.25, 0.5, 0.75, 1.0]
    weights = [10.0, 1.0, 2.0, 1.0, 2.0, 20.0]
    h = ld.Histogram.from_values(values, bins=2, limits=(0.0, 1.0), weights=weights)
    assert h.counts == [3.0, 3.0]
    assert h.errors == pytest.approx([math.sqrt(5.0), math.sqrt(5.0)])
    assert (h.underflow, h.overflow) == (10.0, 20.0)
    assert h.total_weight() == 6.0
    assert h.total_weight(include_flow=True) == 36.0
    assert h.bins == 2
    assert h.limits == (0.0, 1.0)
    assert h.bin_edges == [0.0, 0.5, 1.0]


def test_constructor_defaults_and_explicit_errors():
    h = ld.Histogram([4.0, -9.0], bin_edges=np.array([0.0, 1.0, 2.0]), underflow=1.0, overflow=2.0)
    assert h.errors == [2.0, 3.0]  # sqrt(|count|)
    h = ld.Histogram(np.array([1.0, 2.0], dtype=np.float32), bin_edges=[0, 1, 2], errors=[0.5, 0.25])
    assert h.errors == [0.5, 0.25]
    assert h.counts == [1.0, 2.0]


def test_fill_with_weight_and_error():
    h = ld.Histogram.from_values_with_edges([], bin_edges=[0.0, 1.0, 3.0])
    h.fill(0.5, weight=3.0)
    h.fill(0.5, weight=-4.0)
    h.fill(2.0, weight=10.0, error=3.0)
    h.fill(2.5, weight=20.0, error=4.0)
    h.fill(3.0)  # the last edge is overflow
    h.fill(-1.0, weight=2.0)
    assert h.counts == [-1.0, 30.0]
    assert h.errors == [5.0, 5.0]
    assert (h.underflow, h.overflow) == (2.0, 1.0)


def test_bin_index_and_center():
    h = ld.Histogram.from_values([], bins=4, limits=(0.0, 1.0))
    assert [h.bin_index(v) for v in (-0.1, 0.0, 0.249, 0.25, 0.999, 1.0, math.nan)] == [None, 0, 0, 1, 3, None, None]
    assert h.bin_center(0) == 0.125
    assert h.bin_center(4) is None


def test_setters_and_set_bin():
    h = ld.Histogram.from_values([], bins=2, limits=(0.0, 1.0))
    h.counts = np.array([2.0, -3.0])
    h.errors = [0.5, 1.5]
    h.set_bin(1, count=4.0)
    h.set_bin(0, error=0.25)
    assert h.counts == [2.0, 4.0]
    assert h.errors == [0.25, 1.5]
    with pytest.raises(ld.DataError, match="bin error"):
        h.set_bin(0, count=9.0, error=-1.0)
    assert h.counts == [2.0, 4.0]  # all or nothing
    with pytest.raises(ld.DataError, match="less than 2"):
        h.set_bin(2, count=1.0)
    with pytest.raises(ld.DataError, match="number of bins"):
        h.counts = [1.0]
    with pytest.raises(ld.DataError, match="finite"):
        h.counts = [1.0, math.inf]
    with pytest.raises(ld.DataError, match="nonnegative"):
        h.errors = [1.0, -1.0]


def test_normalized_and_density():
    h = ld.Histogram([2.0, 6.0], bin_edges=[0.0, 1.0, 3.0], underflow=4.0, overflow=8.0, errors=[1.0, 3.0])
    n = h.normalized()
    assert n.counts == [0.25, 0.75]
    assert n.errors == [0.125, 0.375]
    assert (n.underflow, n.overflow) == (0.0, 0.0)
    f = h.normalized(include_flow=True)
    assert f.total_weight(include_flow=True) == pytest.approx(1.0)
    assert f.underflow == pytest.approx(0.2)
    d = h.density()
    assert d.counts == [0.25, 0.375]
    assert d.errors == [0.125, 0.1875]
    signed = ld.Histogram([-1.0, 3.0], bin_edges=[0.0, 1.0, 2.0])
    with pytest.raises(ld.DataError, match="signed=True"):
        signed.density()
    assert signed.density(signed=True).counts == [-0.5, 1.5]
    with pytest.raises(ld.DataError, match="must be positive"):
        ld.Histogram([0.0], bin_edges=[0.0, 1.0]).normalized()


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: ld.Histogram([1.0], bin_edges=[0.0]), "at least 2 edges"),
        (lambda: ld.Histogram([1.0, 2.0], bin_edges=[0.0, 1.0]), "one more bin edge"),
        (lambda: ld.Histogram([1.0, 2.0], bin_edges=[0.0, 1.0, 1.0]), "strictly increasing"),
        (lambda: ld.Histogram([math.nan], bin_edges=[0.0, 1.0]), "count 0 must be finite"),
        (lambda: ld.Histogram([1.0], bin_edges=[0.0, 1.0], overflow=math.inf), "overflow"),
        (lambda: ld.Histogram.from_values([0.5], bins=0, limits=(0.0, 1.0)), "at least 1"),
        (lambda: ld.Histogram.from_values([0.5], bins=2**40, limits=(0.0, 1.0)), "use fewer bins"),
        (lambda: ld.Histogram.from_values([0.5], bins=2, limits=(1.0, 0.0)), "greater than the lower"),
        (lambda: ld.Histogram.from_values([0.5], bins=2, limits=(0.0, math.nan)), "limits must be finite"),
        (lambda: ld.Histogram.from_values([math.nan], bins=2, limits=(0.0, 1.0)), "fill value"),
        (lambda: ld.Histogram.from_values([0.5], bins=2, limits=(0.0, 1.0), weights=[1.0, 2.0]), "one entry per value"),
        (lambda: ld.Histogram.from_values_with_edges([0.5], bin_edges=[0.0, 1.0], weights=[math.inf]), "fill weight"),
        (lambda: ld.Histogram.from_json('{"counts": [1]}'), "no field"),
    ],
)
def test_invalid_input_is_a_data_error(make, match):
    with pytest.raises(ld.DataError, match=match) as info:
        make()
    assert isinstance(info.value, ld.LadduError)
    assert "\n" not in str(info.value)


def test_wrong_types_are_type_errors():
    with pytest.raises(TypeError):
        ld.Histogram("abc", bin_edges=[0.0, 1.0])
    with pytest.raises(TypeError):
        ld.Histogram([[1.0]], bin_edges=[0.0, 1.0])
    with pytest.raises(TypeError):
        ld.Histogram(np.ones((1, 1)), bin_edges=[0.0, 1.0])
    with pytest.raises(TypeError):
        ld.Histogram.from_values([0.5], bins=-1, limits=(0.0, 1.0))
    with pytest.raises(TypeError):
        ld.Histogram([1.0], bin_edges=[0.0, 1.0]).fill(0.5, 1.0)  # weight is keyword-only


def test_json_round_trip():
    h = ld.Histogram.from_values([0.1, 0.5, 0.7, -1.0, 3.0], bins=2, limits=(0.0, 1.0), weights=[1, 2, 0.1, 4, 5])
    text = h.to_json()
    assert text.startswith('{"counts":[1.0,2.1],"bin_edges":[0.0,0.5,1.0]')
    back = ld.Histogram.from_json(text)
    assert (back.counts, back.errors, back.underflow, back.overflow) == (h.counts, h.errors, 4.0, 5.0)


def test_matches_numpy_histogram_away_from_the_last_edge():
    rng = np.random.default_rng(3)
    values = rng.normal(size=2000)
    weights = rng.uniform(0.5, 2.0, size=2000)
    edges = np.array([-2.0, -1.0, -0.2, 0.0, 0.7, 2.5])
    h = ld.Histogram.from_values_with_edges(values, bin_edges=edges, weights=weights)
    counts, _ = np.histogram(values, bins=edges, weights=weights)
    sumw2, _ = np.histogram(values, bins=edges, weights=weights**2)
    np.testing.assert_allclose(h.counts, counts, rtol=1e-12)
    np.testing.assert_allclose(h.errors, np.sqrt(sumw2), rtol=1e-12)
    assert h.underflow == pytest.approx(weights[values < -2.0].sum())
    assert h.overflow == pytest.approx(weights[values >= 2.5].sum())


# ---- from_dataset ----


def test_from_dataset_uses_the_expression_and_the_event_weights():
    x = np.array([0.1, 0.4, 0.45, 0.9, 1.5, -0.2])
    w = np.array([1.0, 2.0, 0.5, 3.0, 4.0, 5.0])
    dataset = ld.Dataset.from_arrays(scalars={"x": x}, weights=w)
    expr = 2.0 * ld.scalar("x")
    h = ld.Histogram.from_dataset(expr, dataset, bins=2, limits=(0.0, 2.0))
    manual = ld.Histogram.from_values(2.0 * x, bins=2, limits=(0.0, 2.0), weights=w)
    assert h.counts == manual.counts
    assert h.errors == manual.errors
    assert (h.underflow, h.overflow) == (5.0, 4.0)
    e = ld.Histogram.from_dataset(ld.scalar("x"), dataset, bin_edges=[0.0, 0.42, 1.0])
    assert e.counts == [3.0, 3.5]


def test_from_dataset_rejects_bad_binning_and_non_finite_values():
    dataset = ld.Dataset.from_arrays(scalars={"x": np.array([0.5, -1.0])})
    with pytest.raises(ld.DataError, match="not both or neither"):
        ld.Histogram.from_dataset(ld.scalar("x"), dataset)
    with pytest.raises(ld.DataError, match="not both or neither"):
        ld.Histogram.from_dataset(ld.scalar("x"), dataset, bins=2, limits=(0, 1), bin_edges=[0, 1])
    with pytest.raises(ld.DataError, match="both bins= and limits="):
        ld.Histogram.from_dataset(ld.scalar("x"), dataset, bins=2)
    with pytest.raises(ld.DataError, match="event 1"):
        ld.Histogram.from_dataset(ld.scalar("x").sqrt(), dataset, bins=2, limits=(0, 1))
    with pytest.raises(TypeError, match="ld.Dataset"):
        ld.Histogram.from_dataset(ld.scalar("x"), "data.parquet", bins=2, limits=(0, 1))


# ---- HistogramNd ----


def test_nd_closure_against_numpy_histogramdd():
    rng = np.random.default_rng(7)
    points = rng.normal(size=(5000, 3))
    weights = rng.uniform(-0.5, 2.0, size=5000)
    edges = [np.linspace(-2, 2, 5), np.array([-3.0, -1.0, 0.0, 0.5, 3.0]), np.linspace(-1, 1.5, 4)]
    h = ld.HistogramNd.from_values(points, bin_edges=edges, weights=weights)
    counts, _ = np.histogramdd(points, bins=edges, weights=weights)
    sumw2, _ = np.histogramdd(points, bins=edges, weights=weights**2)
    assert h.shape == (4, 4, 3) == counts.shape
    assert h.ndim == 3
    np.testing.assert_allclose(h.counts, counts, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(h.errors, np.sqrt(sumw2), rtol=1e-12)
    assert h.total_weight(include_flow=True) == pytest.approx(weights.sum())
    assert h.outside == pytest.approx(weights.sum() - counts.sum())
    columns = ld.HistogramNd.from_values(list(points.T), bin_edges=edges, weights=weights)
    np.testing.assert_array_equal(columns.counts, h.counts)
    assert h.bin_edges[1] == [-3.0, -1.0, 0.0, 0.5, 3.0]


def test_nd_density_integrates_to_one_and_matches_numpy():
    rng = np.random.default_rng(11)
    x, y = rng.uniform(0, 1, 1000), rng.uniform(0, 2, 1000)
    edges = [np.array([0.0, 0.2, 1.0]), np.array([0.0, 0.5, 1.0, 2.0])]
    h = ld.HistogramNd.from_values([x, y], bin_edges=edges)
    d = h.density()
    expected, _ = np.histogramdd(np.stack([x, y], axis=1), bins=edges, density=True)
    np.testing.assert_allclose(d.counts, expected, rtol=1e-12)
    np.testing.assert_allclose(h.bin_volumes(), np.outer([0.2, 0.8], [0.5, 0.5, 1.0]))
    assert (d.counts * h.bin_volumes()).sum() == pytest.approx(1.0)
    np.testing.assert_allclose(d.errors, np.sqrt(h.counts) / (1000 * h.bin_volumes()), rtol=1e-12)


def test_nd_fill_bin_index_and_validation():
    h = ld.HistogramNd([[0.0, 1.0, 2.0], [0.0, 1.0, 2.0, 3.0]])
    h.fill([0.5, 2.5], weight=2.0)
    h.fill([2.0, 0.5])  # the last edge is outside
    assert h.counts[0, 2] == 2.0
    assert h.outside == 1.0
    assert h.bin_index([1.5, 0.0]) == (1, 0)
    assert h.bin_index([1.5, 3.0]) is None
    with pytest.raises(ld.DataError, match="fill value"):
        h.fill([math.nan, 0.5])
    with pytest.raises(ld.DataError, match="coordinates"):
        h.fill([0.5])
    with pytest.raises(ld.DataError, match="strictly increasing"):
        ld.HistogramNd([[0.0, 1.0], [2.0, 2.0]])
    with pytest.raises(ld.DataError, match="one column per axis"):
        ld.HistogramNd.from_values([[0.5]], bin_edges=[[0.0, 1.0], [0.0, 1.0]])
    with pytest.raises(ld.DataError, match="equal lengths"):
        ld.HistogramNd.from_values([[0.5], [0.5, 0.6]], bin_edges=[[0.0, 1.0], [0.0, 1.0]])
    with pytest.raises(TypeError):
        ld.HistogramNd("edges")
    assert "laddu-cpp extension" in ld.HistogramNd.__doc__


# ---- plotting ----


def test_plot_writes_png(tmp_path):
    pytest.importorskip("matplotlib")
    h = ld.Histogram.from_values(np.linspace(0, 1, 50), bins=5, limits=(0.0, 1.0))
    path = tmp_path / "hist.png"
    ax = h.plot(path, label="uniform", xlabel="x", title="t")
    assert ax is not None
    assert path.read_bytes()[:8] == PNG_MAGIC
    path2 = tmp_path / "density.png"
    ld.plot_histogram(h, str(path2), density=True, errors=False)
    assert path2.read_bytes()[:8] == PNG_MAGIC
    nd = ld.HistogramNd.from_values(np.random.default_rng(1).uniform(size=(100, 2)), bin_edges=[[0, 0.5, 1], [0, 1]])
    path3 = tmp_path / "nd.png"
    nd.plot(path3)
    assert path3.read_bytes()[:8] == PNG_MAGIC


def test_plot_argument_errors(tmp_path):
    pytest.importorskip("matplotlib")
    h = ld.Histogram([1.0], bin_edges=[0.0, 1.0])
    with pytest.raises(ValueError, match="end the file name"):
        h.plot(tmp_path / "no_extension")
    assert not (tmp_path / "no_extension").exists()
    with pytest.raises(TypeError, match="label"):
        h.plot(label=3)
    with pytest.raises(TypeError, match="hist must be"):
        ld.plot_histogram([1.0, 2.0])
    with pytest.raises(ValueError, match="1-D and 2-D"):
        ld.HistogramNd([[0, 1], [0, 1], [0, 1]]).plot()


def test_plot_without_matplotlib_says_how_to_install(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(ImportError, match="pip install matplotlib"):
        ld.Histogram([1.0], bin_edges=[0.0, 1.0]).plot()
