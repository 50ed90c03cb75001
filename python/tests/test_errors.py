"""The C++ exception tree arrives in Python with the same names and hierarchy."""

import pytest

import laddu_cpp as ld
from laddu_cpp import _core

KINDS = ["ModelError", "CompileError", "DataError", "EvaluationError", "BackendError", "FitError", "InternalError"]


@pytest.mark.parametrize("kind", KINDS)
def test_each_cpp_error_maps_to_the_python_class_of_the_same_name(kind):
    cls = getattr(ld, kind)
    with pytest.raises(cls, match="column 'beam_px' is missing"):
        _core._raise_error(kind, "column 'beam_px' is missing")


@pytest.mark.parametrize("kind", KINDS)
def test_every_error_is_an_ld_error_and_a_runtime_error(kind):
    cls = getattr(ld, kind)
    assert issubclass(cls, ld.Error)
    assert issubclass(cls, RuntimeError)
    with pytest.raises(ld.Error):
        _core._raise_error(kind, "x")


def test_branches_are_distinct():
    with pytest.raises(ld.DataError):
        try:
            _core._raise_error("DataError", "x")
        except ld.ModelError:  # pragma: no cover - must not happen
            pytest.fail("DataError caught as ModelError")


def test_a_message_with_invalid_utf8_keeps_its_text():
    # Messages quote paths and file bytes; bytes that are not UTF-8 become escapes, not an empty
    # message.
    with pytest.raises(ld.DataError) as caught:
        _core._raise_error("DataError", b"cannot open '/data/run\xff.parquet': no such file")
    assert str(caught.value) == "cannot open '/data/run\\xff.parquet': no such file"


def test_a_path_that_is_not_utf8_is_named_in_the_error(tmp_path):
    import os

    missing = os.path.join(os.fsencode(tmp_path), b"run\xff.parquet")
    for path in (missing, os.fsdecode(missing)):
        with pytest.raises(ld.DataError, match=r"run\\xff\.parquet"):
            ld.read_parquet(path)


def test_unknown_kind_is_a_value_error():
    with pytest.raises(ValueError, match="unknown error kind"):
        _core._raise_error("NoSuchError", "x")


def test_accurate_sum_recovers_cancelled_digits():
    assert ld.accurate_sum([1.0, 1e-16, -1.0]) == 1e-16
    assert sum([1.0, 1e-16, -1.0]) == 0.0


def _devices():
    return ["cpu", "jit"] if ld.capabilities()["jit"] else ["cpu"]


def _x_dataset(bad_at, bad_value, n=5000):
    import numpy as np

    x = np.linspace(1.1, 2.1, n)
    x[bad_at] = bad_value
    return ld.Dataset.from_arrays(scalars={"x": x})


@pytest.mark.parametrize("device", _devices())
@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_model_evaluate_names_the_event_and_what_made_it_nan(device, precision):
    execution = ld.Execution(device, threads=2, precision=precision)
    x = ld.scalar("x")
    p = ld.parameter("p", initial=1.0)
    data = _x_dataset(4321, 0.0)
    with pytest.raises(ld.EvaluationError, match=r"^the model value is nan at event 4321: sqrt\(-1\) is nan$"):
        ld.Model((x - p).sqrt()).evaluate(data, execution=execution)
    with pytest.raises(ld.EvaluationError, match=r"^the model value is -inf at event 4321: log\(0\) is -inf$"):
        ld.Model((x - p).log()).evaluate(data, parameters=[0.0], execution=execution)
    # A singular per-event matrix in solve, and the same message from every backend.
    singular = ld.Model(ld.solve(ld.matrix([[x + p, 1.0], [1.0, 1.0]]), ld.vector([1.0, x]))[0].norm_sqr())
    with pytest.raises(ld.EvaluationError, match=r"at event 4321: solve of a 2x2 matrix is singular: \[\[1, 1\], \[1, 1\]\]$"):
        singular.evaluate(_x_dataset(4321, 0.5), parameters=[0.5], execution=execution)
    # Variables keep their NaN for selections and binning.
    import numpy as np

    assert np.isnan(data.evaluate((x - 1.0).sqrt())[4321])


def test_a_nan_in_the_normalisation_pass_names_the_accepted_event():
    x = ld.scalar("x")
    model = ld.Model((x - ld.parameter("p", initial=1.0)).sqrt() + 1.0)
    nll = ld.NLL(model, data=_x_dataset(0, 1.5), accepted_mc=_x_dataset(1234, 0.0))
    with pytest.raises(ld.EvaluationError, match=r"^Real reduction requires a finite real value, got nan at event 1234: sqrt\(-1\) is nan$"):
        nll.value([1.0])
