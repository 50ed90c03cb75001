"""Execution, memory budgets and backend discovery: the same calls on laddu 0.21.4 and laddu-cpp
give the same reprs, defaults, parsed byte counts, errors and capability keys. GPU execution is
left out (laddu-cpp has none; laddu's wheel may find a software adapter)."""

import re

import pytest

from conftest import laddu, ld

EXECUTIONS = [
    ((), {}),
    (("auto",), {}),
    (("cpu",), {"threads": 8, "precision": "f64"}),
    (("cpu",), {"precision": "f32", "autodiff": "reverse"}),
    ((" CPU ",), {"precision": "double", "autodiff": "forward"}),
    (("auto",), {"precision": "single", "partitioning": "files"}),
    (("cpu",), {"threads": 1, "memory": "2 GiB", "mpi": False}),
    ((), {"memory": 4096, "normalization": "auto", "partitioning": "rows"}),
    (("cpu",), {"normalization": "general"}),
    ((), {"normalization": " Verify "}),
]

BUDGETS = ["2 GiB", "512 MiB", "1.5 GB", "4096", " 8 gib ", "1 bytes", "1.5 KiB", ".5 kb", "1.999 B",
           "0.1 B", "18446744073709551615 B", "18446744073709551.615 KB", "70% available", "10 % free",
           "5%remaining", "50% total", "70%", "33.3% total", "100%", "AUTO", 0, 1, 2**40, True]

BAD_BUDGETS = ["0", "", ".", "lots", "1e9", "-1", "1.2.3 B", "1 XB", "bytes", "0%", "101%",
               "nan%", "18446744073709551616 B", "70% of free", -1, 2.5, None, [1]]


def outcome(call):
    try:
        return repr(call())
    except Exception as error:  # noqa: BLE001 - the exception class is what is compared
        return type(error).__name__


@pytest.mark.parametrize("args,kwargs", EXECUTIONS)
def test_execution_reprs_and_properties(args, kwargs):
    theirs = laddu.Execution(*args, **kwargs)
    ours = ld.Execution(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    for name in ("backend", "precision", "autodiff", "normalization", "rank", "world_size", "is_distributed"):
        assert getattr(ours, name) == getattr(theirs, name), name


def test_execution_errors_have_laddu_types():
    cases = [
        lambda lib: lib.Execution("tpu"),
        lambda lib: lib.Execution(precision="f16"),
        lambda lib: lib.Execution(autodiff="central"),
        lambda lib: lib.Execution(normalization="exact"),
        lambda lib: lib.Execution(partitioning="random"),
        lambda lib: lib.Execution(threads=0),
        lambda lib: lib.Execution(threads=-1),
        lambda lib: lib.Execution("cpu", 4),
        lambda lib: lib.Execution("cpu", device=0),
        lambda lib: lib.Execution(device=0),
        lambda lib: lib.Execution("gpu", threads=2),
        lambda lib: lib.Execution(memory="lots"),
        lambda lib: lib.Execution(memory=-1),
    ]
    for case in cases:
        assert outcome(lambda: case(ld)) == outcome(lambda: case(laddu))


def test_execution_error_messages_match_for_option_names():
    for kwargs in ({"backend": "tpu"}, {"precision": "f16"}, {"autodiff": "x"}, {"normalization": "x"},
                   {"partitioning": "x"}, {"threads": 0}, {"backend": "gpu", "threads": 2}):
        with pytest.raises(ValueError) as theirs:
            laddu.Execution(**kwargs)
        with pytest.raises(ValueError, match=re.escape(str(theirs.value))):
            ld.Execution(**kwargs)


@pytest.mark.parametrize("value", BUDGETS)
def test_budget_text_parses_to_the_same_bytes(value):
    assert repr(ld.MemoryBudget(value)) == repr(laddu.MemoryBudget(value))


@pytest.mark.parametrize("value", BAD_BUDGETS)
def test_bad_budgets_are_refused_alike(value):
    assert outcome(lambda: ld.MemoryBudget(value)) == outcome(lambda: laddu.MemoryBudget(value))


def test_budget_constructors_and_plans():
    for make in (lambda lib: lib.MemoryBudget.bytes(1024), lambda lib: lib.MemoryBudget.percent_total(50),
                 lambda lib: lib.MemoryBudget.percent_available(70), lambda lib: lib.MemoryBudget.percent_total(33.3),
                 lambda lib: lib.MemoryBudget.percent_total(0), lambda lib: lib.MemoryBudget.percent_available(100.1),
                 lambda lib: lib.MemoryBudget(lib.MemoryBudget("2 GiB")),
                 lambda lib: lib.MemoryPlan(host="2 GiB", device="70% available"),
                 lambda lib: lib.MemoryPlan(host=lib.MemoryBudget.bytes(5)),
                 lambda lib: lib.MemoryPlan(host="1 GiB", device=None),
                 lambda lib: lib.MemoryPlan("2 GiB"), lambda lib: lib.MemoryPlan()):
        assert outcome(lambda: make(ld)) == outcome(lambda: make(laddu))


def test_memory_state_reads_the_same_host_total():
    ours, theirs = ld.MemoryState(), laddu.MemoryState()
    # laddu takes a smaller cgroup limit when there is one; laddu-cpp reads MemTotal.
    if theirs.host.capacity_source != "operating_system":
        pytest.skip("laddu reports a cgroup limit here")
    for name in ("id", "name", "total_bytes", "capacity_source", "adapter_index", "vendor_id", "device_id", "pci_bus_id"):
        assert getattr(ours.host, name) == getattr(theirs.host, name), name
    pattern = lambda text: re.sub(r"available_bytes=Some\(\d+\)", "available_bytes=Some(N)", text)  # noqa: E731
    assert pattern(repr(ours.host)) == pattern(repr(theirs.host))
    for state in (ours, theirs):
        state.override_device_capacity("gpu0", 1000, available_bytes=500, name="Fake")
    assert repr(ours.devices) == repr(theirs.devices)
    strip = lambda r: {k: v for k, v in r.items() if k not in ("available_bytes", "reserved_bytes", "high_water_bytes")}  # noqa: E731
    assert [strip(r) for r in ours.report()["resources"]] == [strip(r) for r in theirs.report()["resources"]]
    assert set(ours.report()["process"]) == set(theirs.report()["process"])


def test_memory_report_and_decision_keys():
    ours, theirs = ld.Execution("cpu", threads=1), laddu.Execution("cpu", threads=1)
    assert set(ours.memory_report()) == set(theirs.memory_report())
    assert ours.memory_decisions() == theirs.memory_decisions() == []
    import numpy as np

    x, y = np.linspace(1.0, 2.0, 500), np.linspace(0.9, 2.1, 700)
    arrays = lambda lib, v: lib.Dataset.from_arrays(**({"p4s": {}} if lib is laddu else {}), scalars={"x": v})  # noqa: E731
    model = lambda lib: lib.Model((lib.scalar("x") * lib.parameter("p", initial=1.0)).norm_sqr())  # noqa: E731
    ld.NLL(model(ld), data=arrays(ld, x), accepted_mc=arrays(ld, y), execution=ours).value([1.0])
    laddu.Likelihood([laddu.NLL(model(laddu), data=arrays(laddu, x), accepted_mc=arrays(laddu, y))],
                     execution=theirs).value([1.0])
    mine = ours.memory_decisions()
    prepared = [d for d in theirs.memory_decisions() if d["label"] == "CPU prepared dataset"]
    # Both prepare the data; the accepted MC of this model becomes laddu's "normalization
    # statistics" and laddu-cpp's normalisation matrix, neither a prepared dataset.
    assert len(mine) == len(prepared) == 1, (mine, theirs.memory_decisions())
    a, b = mine[0], prepared[0]
    assert set(b) <= set(a)
    assert (a["label"], a["strategy"], a["chunk_events"]) == (b["label"], b["strategy"], b["chunk_events"])


def test_capabilities_backend_and_gpu_discovery():
    assert set(laddu.capabilities()) <= set(ld.capabilities())
    for key, value in laddu.capabilities().items():
        assert type(ld.capabilities()[key]) is type(value), key
    assert ld.backend() == laddu.backend() == "local"
    assert {n for n in dir(laddu.gpu) if not n.startswith("_")} <= {n for n in dir(ld.gpu) if not n.startswith("_")}
    assert ld.gpu.devices() == [] and ld.gpu.is_available() is False
