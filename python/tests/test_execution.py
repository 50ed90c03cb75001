"""ld.Execution, memory budgets and backend discovery, following laddu's tutorial "Execution
backends, memory, and MPI" block by block (those that need no GPU, ROOT or mpirun)."""

import re

import numpy as np
import pytest

import laddu_cpp as ld

HAS_JIT = ld.capabilities()["jit"]
HAS_GPU = bool(ld.devices())  # any OpenCL device (ld.gpu.devices() lists only GPUs, as laddu)


def model_and_data(n=3000):
    x = np.linspace(1.1, 2.1, n)
    data = ld.Dataset.from_arrays(scalars={"x": x}, weights=np.linspace(0.5, 1.5, n))
    mc = ld.Dataset.from_arrays(scalars={"x": np.linspace(1.0, 2.2, 2 * n)})
    a = ld.parameter("a", initial=0.7)
    model = ld.Model(((ld.scalar("x") - a) * (ld.scalar("x") + 1.0)).norm_sqr() + 0.1)
    return model, data, mc


# ---- "Local backends" ----


def test_local_backends_block():
    automatic = ld.Execution("auto")
    cpu = ld.Execution("cpu", threads=8, precision="f64")
    assert (automatic.backend, cpu.backend, cpu.precision, cpu.threads) == ("auto", "cpu", "f64", 8)
    if HAS_JIT:
        jit = ld.Execution("jit", threads=8, precision="f64")
        assert jit.backend == "jit"
    else:
        with pytest.raises(ld.BackendError, match="without LLVM"):
            ld.Execution("jit", threads=8, precision="f64")
    if HAS_GPU:
        gpu = ld.Execution("gpu", device=0, precision="f32")
        assert (gpu.backend, gpu.precision) == ("gpu", "f32")
        assert ld.Execution("gpu").precision == "f32"  # laddu's "auto" on the GPU
    else:
        # The message says what to use instead (no device, or no OpenCL backend built).
        with pytest.raises(ld.BackendError, match=r"OpenCL"):
            ld.Execution("gpu", device=0, precision="f32")
        assert ld.devices() == [] and ld.gpu.devices() == [] and ld.gpu.is_available() is False


def test_one_execution_object_for_the_likelihood():
    # The tutorial's form: the likelihood's execution prepares its terms.
    model, data, mc = model_and_data()
    backend = "jit" if HAS_JIT else "cpu"
    execution = ld.Execution(backend, threads=2, precision="f64")
    likelihood = ld.Likelihood([ld.NLL(model, data=data, accepted_mc=mc, name="signal")], execution=execution)
    assert likelihood.terms[0].execution is execution
    assert likelihood.terms[0].backend == ("jit" if HAS_JIT else "interpreter")
    reference = ld.Likelihood([ld.NLL(model, data=data, accepted_mc=mc, name="signal", execution=ld.Execution("cpu", threads=1))])
    value, gradient = likelihood.value_and_gradient([0.4])
    ref_value, ref_gradient = reference.value_and_gradient([0.4])
    assert value.hex() == ref_value.hex()
    assert [g.hex() for g in gradient] == [g.hex() for g in ref_gradient]


def test_execution_and_no_execution_are_the_same():
    model, data, mc = model_and_data()
    default = ld.Execution()
    assert repr(default) == ('Execution(backend="auto", precision=F64, autodiff=Auto, '
                             'normalization=Auto, rank=0, world_size=1)')
    assert (default.backend, default.precision, default.autodiff, default.normalization) == ("auto", "f64", "auto", "auto")
    assert (default.rank, default.world_size, default.is_distributed, default.mpi) == (0, 1, False, False)
    assert default.memory == "unlimited"
    left_out = ld.NLL(model, data=data, accepted_mc=mc).value_and_gradient([0.3])
    given = ld.NLL(model, data=data, accepted_mc=mc, execution=ld.Execution()).value_and_gradient([0.3])
    assert left_out[0].hex() == given[0].hex()
    assert [g.hex() for g in left_out[1]] == [g.hex() for g in given[1]]
    np.testing.assert_array_equal(model.evaluate(data), model.evaluate(data, execution=ld.Execution()))


def test_options_are_spelled_as_laddu_spells_them():
    e = ld.Execution(" CPU ", precision="double", autodiff="Reverse", partitioning="files")
    assert (e.backend, e.precision, e.autodiff) == ("cpu", "f64", "reverse")
    assert ld.Execution(precision="single").precision == "f32"
    assert ld.Execution(precision="auto").precision == "f64"
    with pytest.raises(TypeError):
        ld.Execution("cpu", 4)  # everything after backend is keyword-only
    cases = [
        (dict(backend="tpu"), "backend must be 'auto', 'cpu', 'jit', or 'gpu'"),
        (dict(precision="f16"), "precision must be"),
        (dict(autodiff="central"), "autodiff must be"),
        (dict(normalization="exact"), "normalization must be"),
        (dict(partitioning="random"), "partitioning must be"),
        (dict(threads=0), "threads must be greater than zero"),
        (dict(backend="cpu", device=0), "settings require backend='gpu'"),
        (dict(device="0000:01:00.0"), "selection requires backend='gpu'"),
        (dict(backend="gpu", threads=2), "threads only applies to CPU and JIT"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ValueError, match=re.escape(message)):
            ld.Execution(**kwargs)
    with pytest.raises(OverflowError):
        ld.Execution(threads=-1)
    with pytest.raises(ValueError, match="normalization must be 'auto', 'general', or 'verify'"):
        ld.Execution(normalization="exact")


def test_normalization_modes_give_the_same_likelihood():
    model = ld.kmatrix_benchmark_model()
    data = ld.generate_ksks(3000, seed=5)
    params = [0.25] * len(model.free_parameter_names)
    results = {}
    for mode in ("auto", "general", "verify"):
        execution = ld.Execution("cpu", normalization=mode)
        assert execution.normalization == mode
        assert f"normalization={mode.capitalize()}" in repr(execution)
        nll = ld.NLL(model, data=data, accepted_mc=data, execution=execution)
        results[mode] = nll.value_and_gradient(params)
    # verify computes the matrix's value (and checks it against the event pass), so it has the
    # bits of auto; the event pass agrees to rounding.
    assert results["verify"][0] == results["auto"][0]
    assert list(results["verify"][1]) == list(results["auto"][1])
    assert results["general"][0] == pytest.approx(results["auto"][0], rel=1e-12)


# ---- "Memory planning" ----


def test_memory_planning_block():
    plan = ld.MemoryPlan(host="2 GiB", device="70% available")
    assert repr(plan) == 'MemoryPlan(host="2147483648 B", device=Some("70% available"))'
    # The tutorial's backend is "gpu" (an OpenCL device when one exists); here the same plan on
    # the CPU too.
    if HAS_GPU:
        assert ld.Execution("gpu", device=0, precision="f32", memory=plan).backend == "gpu"
    else:
        with pytest.raises(ld.BackendError, match="OpenCL"):
            ld.Execution("gpu", device=0, precision="f32", memory=plan)
    # normalization="general": the accepted MC is a prepared dataset too (the model is
    # separable, so "auto" would fold it into the normalisation statistics instead).
    execution = ld.Execution("cpu", precision="f32", memory=plan, normalization="general")
    assert execution.memory == "2147483648 B"
    assert execution.memory_decisions() == []
    model, data, mc = model_and_data()
    ld.NLL(model, data=data, accepted_mc=mc, execution=execution)
    decisions = execution.memory_decisions()
    assert len(decisions) == 2  # the data and the accepted MC
    for decision, events in zip(decisions, (len(data), len(mc))):
        assert decision["label"] == "CPU prepared dataset"
        assert decision["strategy"] == "resident" and decision["chunk_events"] == events
        assert decision["events"] == events and decision["budget_bytes"] == 2 << 30
        assert decision["bytes_per_event"] > 8  # float cache columns and the double weight
        assert 0 < decision["estimated_peak_bytes"] <= decision["budget_bytes"]
        assert decision["actual_high_water_bytes"] is None
        assert "resident" in decision["decision"]
    report = execution.memory_report()
    (host,) = report["resources"]
    assert host["id"] == "host" and host["capacity_source"] == "operating_system"
    assert 0 < host["available_bytes"] <= host["total_bytes"]
    assert report["process"]["resident_bytes"] > 0
    (pool,) = report["pools"]
    laddu_keys = ("resource_id", "requested", "effective_bytes", "planned_bytes")
    assert {key: pool[key] for key in laddu_keys} == {
        "resource_id": "host", "requested": "2147483648 B", "effective_bytes": 2 << 30,
        "planned_bytes": sum(d["estimated_peak_bytes"] for d in decisions)}
    # The NLL is gone, so its leases are back in the pool; the log keeps what was leased.
    assert pool["leased_bytes"] == 0 and pool["available_bytes"] == 2 << 30
    assert pool["leases"] == []
    granted = [d["label"] for d in pool["decisions"] if d["kind"] == "granted"]
    assert granted[0] == "the data (resident cache)"


def test_work_prepared_with_one_execution_shares_its_budget():
    model, data, _ = model_and_data(20000)
    other = ld.Dataset.from_arrays(scalars={"x": np.linspace(1.2, 2.0, len(data))})
    unlimited = ld.Execution("cpu", threads=1)
    model.evaluate(data, execution=unlimited)
    (alone,) = unlimited.memory_decisions()
    # Either dataset fits the budget alone (its cache read a chunk at a time); once the first
    # holds its cache, the second streams.
    budget = alone["held_bytes"] + alone["held_bytes"] // 2
    execution = ld.Execution("cpu", threads=1, memory=budget)
    first = model.evaluate(data, execution=execution)
    second = model.evaluate(other, execution=execution)
    resident, streaming = execution.memory_decisions()
    assert resident["strategy"] == "resident" and streaming["strategy"] == "streaming"
    assert streaming["available_bytes"] == budget - resident["held_bytes"]
    assert resident["held_bytes"] + streaming["estimated_peak_bytes"] <= budget
    (pool,) = execution.memory_report()["pools"]
    assert [lease["label"] for lease in pool["leases"]] == [
        "a prepared model (resident cache)", "a prepared model (streaming)"]
    assert pool["leased_bytes"] == resident["held_bytes"] + streaming["held_bytes"]
    assert pool["leased_bytes"] + pool["available_bytes"] == budget
    np.testing.assert_array_equal(first, model.evaluate(data))
    np.testing.assert_array_equal(second, model.evaluate(other))


def test_work_prepared_with_a_copy_is_recorded_and_streaming_is_reported():
    model, data, _ = model_and_data(20000)
    execution = ld.Execution("cpu", threads=1, memory="300 KiB")
    values = model.evaluate(data, execution=execution)
    np.testing.assert_array_equal(values, model.evaluate(data))
    (decision,) = execution.memory_decisions()
    assert decision["strategy"] == "streaming" and 0 < decision["chunk_events"] < len(data)
    assert decision["estimated_peak_bytes"] <= 300 * 1024


def test_budgets_are_byte_counts_strings_or_percentages():
    assert repr(ld.MemoryBudget("2 GiB")) == 'MemoryBudget("2147483648 B")'
    assert repr(ld.MemoryBudget(4096)) == 'MemoryBudget("4096 B")'
    assert repr(ld.MemoryBudget("70% available")) == 'MemoryBudget("70% available")'
    assert repr(ld.MemoryBudget("50% total")) == 'MemoryBudget("50% total")'
    assert repr(ld.MemoryBudget("auto")) == 'MemoryBudget("auto")'
    assert repr(ld.MemoryBudget(ld.MemoryBudget.percent_total(25))) == 'MemoryBudget("25% total")'
    total = ld.MemoryState().host.total_bytes
    assert ld.MemoryBudget("50% total").resolve() == total // 2
    assert ld.MemoryBudget.bytes(10).resolve() == 10
    assert ld.Execution(memory="50% total").memory == "50% total"
    assert ld.Execution(memory=ld.MemoryBudget(1 << 20)).memory == "1048576 B"
    for bad in ("lots", "0", "1e9", "150% total", -1, 2.5, None):
        with pytest.raises(ValueError):
            ld.MemoryBudget(bad)
    with pytest.raises(ValueError, match=r"\(0, 100\]"):
        ld.MemoryBudget.percent_available(0)
    with pytest.raises(TypeError):
        ld.MemoryPlan("2 GiB")  # host= is keyword-only


def test_memory_state_and_resources():
    state = ld.MemoryState()
    host = state.host
    assert (host.id, host.name, host.capacity_source) == ("host", "Host memory", "operating_system")
    assert (host.adapter_index, host.vendor_id, host.device_id, host.pci_bus_id) == (None,) * 4
    assert re.fullmatch(r'MemoryResource\(name="Host memory", total_bytes=Some\(\d+\), '
                        r'available_bytes=Some\(\d+\), source=OperatingSystem\)', repr(host))
    assert repr(host.budget("50% total")) == 'MemoryBudget("50% total")'
    assert state.devices == []
    state.override_device_capacity("gpu0", 1000, available_bytes=5000, name="Fake")
    (device,) = state.devices
    assert (device.id, device.name, device.total_bytes, device.available_bytes, device.capacity_source) == (
        "gpu0", "Fake", 1000, 1000, "user")
    assert [r["id"] for r in state.report()["resources"]] == ["gpu0", "host"]
    with pytest.raises(ValueError, match="total_bytes must be greater than zero"):
        state.override_device_capacity("gpu1", 0)
    state.refresh()
    assert ld.MemoryState.current() is ld.MemoryState.current()
    with pytest.raises(TypeError):
        ld.MemoryResource()


# ---- "Automatic differentiation" ----


def test_autodiff_block():
    model, data, mc = model_and_data()
    forward = ld.Execution("jit" if HAS_JIT else "cpu", precision="f64", autodiff="forward")
    reverse = ld.Execution("cpu", precision="f64", autodiff="reverse")  # the tutorial's is "gpu"
    if not HAS_GPU:
        with pytest.raises(ld.BackendError):
            ld.Execution("gpu", precision="f32", autodiff="reverse")
    f = ld.NLL(model, data=data, accepted_mc=mc, execution=forward).value_and_gradient([0.2])
    r = ld.NLL(model, data=data, accepted_mc=mc, execution=reverse).value_and_gradient([0.2])
    assert f[0] == pytest.approx(r[0], rel=1e-14)
    np.testing.assert_allclose(f[1], r[1], rtol=1e-12)


# ---- backend discovery ----


def test_backend_discovery():
    caps = ld.capabilities()
    assert ld.backend() == caps["backend"] == "local"
    assert ld.gpu.is_available() == (len(ld.gpu.devices()) > 0)
    if not caps["gpu"]:
        assert ld.gpu.devices() == []
    assert ld.gpu.Device.__name__ == "Device"
    if not ld.mpi.available:
        with pytest.raises(ld.BackendError, match="without MPI"):
            ld.Execution(mpi=True, partitioning="file_groups")
