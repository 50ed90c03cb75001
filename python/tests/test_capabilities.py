"""ld.capabilities() (laddu's answer, plus why a backend is missing), the version, and, when
laddu_cpp was installed from the wheel (scripts/check-wheel.sh), what the installed package holds."""

import importlib.metadata
import os
import pathlib
import re

import numpy as np
import pytest

import laddu_cpp as ld

# laddu 0.21.4's keys and their types (laddu.capabilities()).
LADDU_KEYS = {
    "backend": str,
    "jit": bool,
    "gpu": bool,
    "mpi": bool,
    "likelihood": bool,
    "fit": bool,
    "generation": bool,
}
SOURCE_ROOT = pathlib.Path(__file__).resolve().parents[2]


def small_model_and_data():
    data = ld.Dataset.from_arrays(scalars={"x": np.linspace(-1.0, 1.0, 64)})
    model = ld.Model((ld.parameter("a", initial=0.5) + ld.scalar("x")).norm_sqr() + 0.1)
    return model, data


def test_capabilities_has_laddus_keys_and_types_then_the_details():
    caps = ld.capabilities()
    for key, kind in LADDU_KEYS.items():
        assert isinstance(caps[key], kind), key
    assert list(caps)[: len(LADDU_KEYS)] == list(LADDU_KEYS)
    assert caps["backend"] == "local"
    assert caps["likelihood"] and caps["fit"] and caps["generation"] and caps["interpreter"]
    assert "OpenCL" in caps["gpu_detail"] or "GPU backend" in caps["gpu_detail"]
    assert all(isinstance(caps[k], str) and caps[k] for k in ("jit_detail", "mpi_detail"))
    assert ld.capabilities() == caps


def test_capabilities_has_the_keys_laddu_reports():
    laddu = pytest.importorskip("laddu")
    theirs = laddu.capabilities()
    ours = ld.capabilities()
    assert set(theirs) <= set(ours)
    for key, value in theirs.items():
        assert type(ours[key]) is type(value), key


def test_jit_flag_says_whether_the_jit_runs():
    caps = ld.capabilities()
    model, data = small_model_and_data()
    if caps["jit"]:
        assert re.fullmatch(r"LLVM 19\.\d+\.\d+", caps["jit_detail"]), caps["jit_detail"]
        jit = model.evaluate(data, parameters=[0.3], execution=ld.Execution("jit"))
        cpu = model.evaluate(data, parameters=[0.3], execution=ld.Execution("cpu"))
        np.testing.assert_allclose(jit, cpu, rtol=1e-14)
    else:
        assert caps["jit_detail"].startswith("built without the JIT: "), caps["jit_detail"]
        with pytest.raises(ld.BackendError, match="without LLVM"):
            ld.Execution("jit")


def test_mpi_flag_matches_the_mpi_helpers():
    caps = ld.capabilities()
    assert caps["mpi"] == ld.mpi.available
    if caps["mpi"]:
        assert caps["mpi_detail"].startswith("MPI "), caps["mpi_detail"]
    else:
        assert caps["mpi_detail"].startswith("built without MPI: "), caps["mpi_detail"]
        with pytest.raises(ld.BackendError, match="without MPI"):
            ld.Execution(mpi=True)


def test_version_is_the_cmake_project_version():
    cmake = (SOURCE_ROOT / "CMakeLists.txt").read_text()
    match = re.search(r"project\(laddu_cpp\s+VERSION\s+([0-9]+\.[0-9]+\.[0-9]+)", cmake)
    assert match, "CMakeLists.txt has no project(laddu_cpp VERSION x.y.z)"
    assert ld.__version__ == match.group(1)


def installed_distribution():
    """The laddu-cpp distribution that laddu_cpp was imported from, or None (the build tree)."""
    try:
        dist = importlib.metadata.distribution("laddu-cpp")
    except importlib.metadata.PackageNotFoundError:
        return None
    init = pathlib.Path(dist.locate_file("laddu_cpp/__init__.py")).resolve()
    return dist if init == pathlib.Path(ld.__file__).resolve() else None


def test_installed_wheel_metadata_and_files():
    dist = installed_distribution()
    if dist is None:
        # scripts/check-wheel.sh sets this: there, laddu_cpp must come from the installed wheel.
        assert not os.environ.get("LADDU_CPP_EXPECT_INSTALLED"), (
            f"laddu_cpp imported from {ld.__file__}, not from an installed laddu-cpp"
        )
        pytest.skip("laddu_cpp runs from the build tree, not an installed wheel")
    assert dist.version == ld.__version__
    assert any(r.startswith("numpy>=") for r in dist.requires or [])
    files = [str(f) for f in dist.files]
    package = sorted(f for f in files if not f.split("/")[0].endswith(".dist-info"))
    assert all(f.startswith("laddu_cpp/") for f in package), package
    names = {f.split("/", 1)[1] for f in package}
    expected = {p.name for p in (SOURCE_ROOT / "python" / "laddu_cpp").iterdir() if p.is_file()}
    assert expected <= names, expected - names
    core = [n for n in names if n.startswith("_core.") and n.endswith(".so")]
    assert len(core) == 1, names
    extra = names - expected - set(core)
    assert all(n.endswith(".pyc") for n in extra), extra
