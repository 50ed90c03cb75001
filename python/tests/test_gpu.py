"""ld.Execution("gpu", device=N, precision=...) end to end on the first OpenCL device (PoCL's CPU
device in CI): NLL value, gradient and a fit against the CPU, bit-identical repeats, device
discovery and the errors. Skipped when laddu_cpp has no GPU backend or no OpenCL device.
ld.devices() lists every OpenCL device (PoCL's CPU device too); ld.gpu.devices(), as laddu's,
only those of type GPU."""

import numpy as np
import pytest

import laddu_cpp as ld

pytestmark = pytest.mark.skipif(not ld.devices(), reason="no OpenCL device")


def model_and_data(n=4000):
    rng = np.random.default_rng(7)
    x = rng.uniform(1.0, 2.0, n)
    data = ld.Dataset.from_arrays(scalars={"x": x}, weights=rng.uniform(0.5, 1.5, n))
    mc = ld.Dataset.from_arrays(scalars={"x": np.linspace(1.0, 2.0, 2 * n)})
    a = ld.parameter("a", initial=0.7)
    b = ld.parameter("b", initial=-0.3)
    amp = ld.scalar("x") - a + (ld.scalar("x") * b).exp() * 1j
    model = ld.Model(amp.norm_sqr() + 0.1)
    return model, data, mc


def test_devices_describe_opencl_devices():
    devices = ld.devices()
    assert devices and [d.index for d in devices] == list(range(len(devices)))
    d = devices[0]
    assert d.backend == "opencl" and d.name and d.global_memory > 0
    assert d.device_type in ("gpu", "cpu") and isinstance(d.supports_f64, bool)
    assert repr(d).startswith("Device(index=0, name=")
    assert isinstance(d, ld.gpu.Device)
    assert ld.capabilities()["gpu"] is True
    gpus = [d.index for d in devices if d.device_type == "gpu"]
    assert [d.index for d in ld.gpu.devices()] == gpus
    assert ld.gpu.is_available() == bool(gpus)


@pytest.mark.parametrize("precision, rel", [("f64", 1e-10), ("f32", 2e-3)])
def test_nll_value_and_gradient_match_the_cpu(precision, rel):
    model, data, mc = model_and_data()
    cpu = ld.NLL(model, data=data, accepted_mc=mc, execution=ld.Execution("cpu", precision="f64"))
    execution = ld.Execution("gpu", device=0, precision=precision, normalization="general")
    gpu = ld.NLL(model, data=data, accepted_mc=mc, execution=execution)
    p = [0.6, -0.2]
    want_value, want_gradient = cpu.value_and_gradient(p)
    value, gradient = gpu.value_and_gradient(p)
    assert value == pytest.approx(want_value, rel=rel)
    scale = np.max(np.abs(want_gradient))
    np.testing.assert_allclose(gradient, want_gradient, atol=(5e-3 if precision == "f32" else 1e-10) * scale)
    # Deterministic: the same bits again.
    again_value, again_gradient = gpu.value_and_gradient(p)
    assert again_value == value and list(again_gradient) == list(gradient)


def test_fit_on_the_gpu_matches_the_cpu():
    model, data, mc = model_and_data()
    results = {}
    for name, execution in (("cpu", ld.Execution("cpu")), ("gpu", ld.Execution("gpu", precision="f64"))):
        likelihood = ld.Likelihood([ld.NLL(model, data=data, accepted_mc=mc, execution=execution)])
        results[name] = likelihood.fit([0.6, -0.2])
        assert results[name].converged, results[name].message
    np.testing.assert_allclose(results["gpu"].x, results["cpu"].x, rtol=1e-6, atol=1e-8)


def test_device_errors_name_the_devices():
    count = len(ld.devices())
    with pytest.raises(ld.BackendError, match=f"no OpenCL device {count + 5}.*{ld.devices()[0].name[:8]}"):
        ld.Execution("gpu", device=count + 5)
    with pytest.raises(ld.BackendError, match="no OpenCL device matches"):
        ld.Execution("gpu", device="no such device name")
    assert ld.Execution("gpu", device=ld.devices()[0].name).backend == "gpu"


def test_a_device_budget_streams_the_cache_through_the_device():
    # MemoryPlan(device=): resident input columns stay within it and the event cache is planned
    # to fit it, so a cache larger than the budget streams in windows, with the same NLL bits.
    data = ld.generate_ksks(6000, seed=41)
    accepted = ld.generate_ksks(9000, seed=42)
    model = ld.kmatrix_benchmark_model()
    results = []
    for memory in (None, ld.MemoryPlan(host="4 GiB", device="2 MiB")):
        execution = ld.Execution("gpu", precision="f64", memory=memory)
        nll = ld.NLL(model, data=data, accepted_mc=accepted, execution=execution)
        value, gradient = nll.value_and_gradient([0.25] * len(nll.parameter_names))
        results.append((value.hex(), [g.hex() for g in gradient]))
        strategies = {d["strategy"] for d in execution.memory_decisions()}
        budgets = {d["budget_bytes"] for d in execution.memory_decisions()}
        if memory is None:
            assert strategies == {"resident"}
        else:
            assert strategies == {"streaming"} and budgets == {2 * 1024 * 1024}
    assert results[0] == results[1]
    tiny = ld.Execution("gpu", precision="f64", memory=ld.MemoryPlan(host="4 GiB", device="300 KiB"))
    with pytest.raises(ld.DataError, match="of GPU"):
        ld.NLL(model, data=data, accepted_mc=accepted, execution=tiny)
    # The CPU ignores the device budget.
    cpu = ld.Execution("cpu", memory=ld.MemoryPlan(host="4 GiB", device="300 KiB"))
    assert ld.NLL(model, data=data, accepted_mc=accepted, execution=cpu).value(
        [0.25] * len(ld.NLL(model, data=data, accepted_mc=accepted).parameter_names)) > 0
