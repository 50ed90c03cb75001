"""Python and C++ give the same bits: value_and_gradient of the K-matrix benchmark NLL on events
generated from Python, against tools/nll_reference.cpp (the C++ API, printed with %a).

The C++ comparison runs when LADDU_PY_NLL_REFERENCE names the tool (ctest sets it)."""

import os
import subprocess

import numpy as np
import pytest

import laddu_cpp as ld

TOOL = os.environ.get("LADDU_PY_NLL_REFERENCE")


def benchmark_nll(dataset, threads=None):
    model = ld.kmatrix_benchmark_model()
    nll = ld.NLL(model, data=dataset, accepted_mc=dataset, execution=ld.Execution(threads=threads))
    return nll, [0.25] * len(model.free_parameter_names)


@pytest.mark.skipif(not TOOL, reason="set LADDU_PY_NLL_REFERENCE to the nll_reference tool")
def test_value_and_gradient_equal_the_cpp_program_bit_for_bit(tmp_path):
    events = ld.generate_ksks(3000, seed=21, kk_mass_max=2.0)
    path = tmp_path / "ksks.parquet"
    events.write_to(ld.ParquetSink(str(path), precision="f64"))
    lines = subprocess.run([TOOL, str(path)], check=True, capture_output=True, text=True).stdout.split()
    expected = [float.fromhex(line) for line in lines]

    for dataset in (ld.read_parquet(path), events):  # the file the tool read, and the generated data
        nll, params = benchmark_nll(dataset)
        value, gradient = nll.value_and_gradient(params)
        assert len(gradient) + 1 == len(expected) == 35
        assert value.hex() == expected[0].hex()
        assert [g.hex() for g in gradient] == [e.hex() for e in expected[1:]]
        assert nll.value(params).hex() == expected[0].hex()


def test_thread_count_does_not_change_the_bits():
    events = ld.generate_ksks(2000, seed=22, kk_mass_max=2.0)
    one, params = benchmark_nll(events, threads=1)
    two, _ = benchmark_nll(events, threads=2)
    v1, g1 = one.value_and_gradient(params)
    v2, g2 = two.value_and_gradient(params)
    assert v1.hex() == v2.hex()
    np.testing.assert_array_equal(g1, g2)
