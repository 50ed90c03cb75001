"""Datasets from numpy and Parquet, and Model.evaluate against a direct numpy computation."""

import os

import numpy as np
import pytest

import laddu_cpp as ld


def make_arrays(n=1000, seed=3):
    rng = np.random.default_rng(seed)
    p = rng.uniform(-1, 1, size=(n, 3))
    e = np.sqrt((p**2).sum(axis=1) + 0.25)
    kaon = np.column_stack([e, p])
    return kaon, rng.uniform(0.0, 2.0, size=n), rng.uniform(0.5, 1.5, size=n)


def breit_wigner_model():
    s = ld.scalar("s")
    mass = ld.parameter("mass", initial=1.0, bounds=(0.5, 1.5))
    width = ld.parameter("width", initial=0.1, bounds=(0.01, 0.5))
    return ld.Model((1.0 / (mass**2 - s - 1j * mass * width)).norm_sqr())


def test_from_arrays_keeps_names_lengths_and_weights():
    kaon, s, w = make_arrays()
    data = ld.Dataset.from_arrays(p4s={"kaon": kaon}, scalars={"s": s}, weights=w)
    assert len(data) == 1000
    assert data.p4_names() == ["kaon"]
    assert data.scalar_names() == ["s"]
    np.testing.assert_array_equal(data.weights(), w)
    np.testing.assert_array_equal(data.p4("kaon"), kaon)
    assert data.sum_weights() == pytest.approx(w.sum(), rel=1e-15)


def test_float32_inputs_are_promoted():
    kaon, s, _ = make_arrays()
    data = ld.Dataset.from_arrays(p4s={"kaon": kaon.astype(np.float32)}, scalars={"s": s.astype(np.float32)})
    np.testing.assert_array_equal(data.column("s"), s.astype(np.float32).astype(np.float64))
    np.testing.assert_array_equal(data.weights(), np.ones(len(s)))


def test_bad_shapes_name_the_expected_shape():
    kaon, s, _ = make_arrays()
    with pytest.raises(ValueError, match=r"shape \(N, 4\)"):
        ld.Dataset.from_arrays(p4s={"kaon": kaon[:, :3]})
    with pytest.raises(ValueError, match="one-dimensional"):
        ld.Dataset.from_arrays(scalars={"s": kaon})
    with pytest.raises(ValueError, match="same number of events"):
        ld.Dataset.from_arrays(p4s={"kaon": kaon}, scalars={"s": s[:10]})
    with pytest.raises(ValueError, match="must hold numbers"):
        ld.Dataset.from_arrays(scalars={"s": np.array(["a", "b"])})


def test_model_evaluate_matches_numpy():
    kaon, s, w = make_arrays()
    data = ld.Dataset.from_arrays(p4s={"kaon": kaon}, scalars={"s": s}, weights=w)
    model = breit_wigner_model()
    m, g = 1.02, 0.2
    values = model.evaluate(data, parameters=[m, g])
    expected = np.abs(1.0 / (m**2 - s - 1j * m * g)) ** 2
    np.testing.assert_allclose(values, expected, rtol=1e-13)
    # A partial dict keeps the other parameters at their defaults.
    by_name = model.evaluate(data, parameters={"width": g})
    np.testing.assert_allclose(by_name, np.abs(1.0 / (1.0 - s - 1j * 1.0 * g)) ** 2, rtol=1e-13)
    # Threads do not change a single bit.
    one = model.evaluate(data, parameters=[m, g], execution=ld.Execution(threads=1))
    two = model.evaluate(data, parameters=[m, g], execution=ld.Execution(threads=2))
    np.testing.assert_array_equal(one, two)


def test_complex_evaluate_and_four_momentum_components():
    kaon, s, _ = make_arrays()
    data = ld.Dataset.from_arrays(p4s={"kaon": kaon}, scalars={"s": s})
    c = ld.parameter("c", initial=0.5)
    # m^2 of the kaon is 0.25 by construction; the model is c * m^2 * exp(i s).
    x = ld.scalar("s")
    model = ld.Model(c * ld.cis(x) * 4.0)
    values = model.evaluate(data, real=False)
    np.testing.assert_allclose(values, 0.5 * 4.0 * np.exp(1j * s), rtol=1e-14)


def test_evaluate_errors_name_what_is_wrong():
    kaon, s, _ = make_arrays()
    data = ld.Dataset.from_arrays(p4s={"kaon": kaon}, scalars={"t": s})
    model = breit_wigner_model()
    with pytest.raises(ld.DataError, match=r"\[s\].*scalars \[t\]"):
        model.evaluate(data)
    good = ld.Dataset.from_arrays(scalars={"s": s})
    with pytest.raises(ValueError, match="expected 2 parameter values"):
        model.evaluate(good, parameters=[1.0])
    with pytest.raises(ld.ModelError, match="nope.*mass, width"):
        model.evaluate(good, parameters={"nope": 1.0})
    with pytest.raises(ld.ModelError, match="'mass' is not a free parameter.*\\[width\\]"):
        model.fix("mass", 1.0).evaluate(good, parameters={"mass": 2.0})


def test_memory_budget_is_enforced_with_a_clear_message():
    _, s, _ = make_arrays()
    data = ld.Dataset.from_arrays(scalars={"s": s})
    with pytest.raises(ld.DataError, match="memory budget"):
        breit_wigner_model().evaluate(data, execution=ld.Execution(memory="1 KiB"))
    with pytest.raises(ValueError, match="cannot parse memory budget 'lots'"):
        ld.Execution(memory="lots")


def test_parquet_round_trip(tmp_path):
    kaon, s, w = make_arrays()
    data = ld.Dataset.from_arrays(p4s={"kaon": kaon}, scalars={"s": s}, weights=w)
    path = tmp_path / "events.parquet"
    data.write_to(ld.ParquetSink(str(path)))
    back = ld.read_parquet(path)
    assert back.p4_names() == ["kaon"]
    np.testing.assert_array_equal(back.p4("kaon"), kaon)
    np.testing.assert_array_equal(back.column("s"), s)
    np.testing.assert_array_equal(back.weights(), w)
    f32 = tmp_path / "f32.parquet"
    data.write_to(ld.ParquetSink(str(f32), precision="f32"))
    np.testing.assert_array_equal(ld.read_parquet(str(f32)).column("s"), s.astype(np.float32))
    # A pathlib.Path, and a name that is not UTF-8 (bytes, or str with surrogate escapes).
    odd = os.path.join(os.fsencode(tmp_path), b"run\xff[1].parquet")
    sink = ld.ParquetSink(tmp_path / "p.parquet")
    assert sink.path == str(tmp_path / "p.parquet")
    data.write_to(ld.ParquetSink(odd))
    assert ld.ParquetSink(odd).path == os.fsdecode(odd)
    np.testing.assert_array_equal(ld.read_parquet(odd).column("s"), s)
    np.testing.assert_array_equal(ld.read_parquet(os.fsdecode(odd)).column("s"), s)


def test_reading_a_missing_or_corrupt_file_is_a_data_error(tmp_path):
    with pytest.raises(ld.DataError):
        ld.read_parquet(str(tmp_path / "absent.parquet"))
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 this is not parquet PAR1")
    with pytest.raises(ld.DataError, match="bad.parquet"):
        ld.read_parquet(str(bad))


def test_slicing_and_bootstrap():
    kaon, s, w = make_arrays()
    data = ld.Dataset.from_arrays(p4s={"kaon": kaon}, scalars={"s": s}, weights=w)
    part = data[100:200]
    assert len(part) == 100
    np.testing.assert_array_equal(part.column("s"), s[100:200])
    b1 = data.bootstrap(7)
    b2 = data.bootstrap(7)
    np.testing.assert_array_equal(b1.weights(), b2.weights())
    ratio = b1.weights() / w
    assert np.all(np.isclose(ratio, np.round(ratio)))  # integer multiplicities


def test_evaluate_keeps_its_compiled_model_and_prepared_data_while_both_live():
    import gc

    from laddu_cpp import _core

    kaon, s, w = make_arrays()
    data = ld.Dataset.from_arrays(p4s={"kaon": kaon}, scalars={"s": s}, weights=w)
    model = breit_wigner_model()
    first = model.evaluate(data)
    cache = _core._evaluation_cache
    assert model in cache
    assert cache[model].datasets == 1
    # The same call again, other parameters and another execution: the same values as a fresh
    # model would give.
    np.testing.assert_array_equal(model.evaluate(data), first)
    np.testing.assert_array_equal(model.evaluate(data, parameters={"mass": 1.1}),
                                  breit_wigner_model().evaluate(data, parameters={"mass": 1.1}))
    np.testing.assert_array_equal(model.evaluate(data, execution=ld.Execution("cpu", threads=1)),
                                  first)
    # A fixed model is another object with its own entry.
    fixed = model.fix("mass", 1.1)
    np.testing.assert_array_equal(fixed.evaluate(data), model.evaluate(data, parameters={"mass": 1.1}))
    # Neither the model nor the dataset is kept alive by the cache.
    del data
    gc.collect()
    assert len(cache) == 2
    assert cache[model].datasets == 0
    del model, fixed
    gc.collect()
    assert len(cache) == 0
