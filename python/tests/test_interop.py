"""Interop: iminuit minimises an ld.Likelihood with the exact gradient; matplotlib plots it."""

import pathlib
import runpy
import sys

import pytest

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python" / "iminuit_fit.py"


@pytest.fixture(scope="module")
def example():
    pytest.importorskip("iminuit")
    return runpy.run_path(str(EXAMPLE))


def test_iminuit_recovers_the_true_mass_and_width(example):
    truth = {"mass": 1.02, "width": 0.12}
    data, mc = example["generate"](5000, truth, seed=1)
    minuit = example["fit"](data, mc, {"mass": 0.98, "width": 0.09})
    assert minuit.valid
    for name, value in truth.items():
        assert abs(minuit.values[name] - value) < 3 * minuit.errors[name], (name, minuit.values[name])
    # The exact gradient means MIGRAD needs few calls.
    assert minuit.nfcn < 200


def test_matplotlib_writes_the_projection_png(example, tmp_path):
    pytest.importorskip("matplotlib")
    truth = {"mass": 1.02, "width": 0.12}
    data, mc = example["generate"](2000, truth, seed=2)
    minuit = example["fit"](data, mc, truth)
    path = tmp_path / "fit.png"
    example["plot"](data, mc, minuit, str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
