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


def test_unknown_kind_is_a_value_error():
    with pytest.raises(ValueError, match="unknown error kind"):
        _core._raise_error("NoSuchError", "x")


def test_accurate_sum_recovers_cancelled_digits():
    assert ld.accurate_sum([1.0, 1e-16, -1.0]) == 1e-16
    assert sum([1.0, 1e-16, -1.0]) == 0.0
