"""jsroot (from npm, pinned by package-lock.json) as an independent reader of ROOT files, for
python/tests/test_root_io.py and test_root_writer.py beside this file."""

import fcntl
import json
import os
import pathlib
import shutil
import subprocess
import tempfile

import pytest

HERE = pathlib.Path(__file__).resolve().parent


def jsroot_dir():
    """This directory with jsroot installed from its lock file: `npm ci --ignore-scripts` (jsroot's
    optional canvas/gl builds are not needed to read files) into tests/root_interop/node_modules
    (git-ignored) the first time, under a lock so parallel test runs install once. Skips the test
    without node and npm."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node/npm not found: jsroot (tests/root_interop) cannot run")
    if (HERE / "node_modules" / "jsroot").is_dir():
        return HERE
    with open(os.path.join(tempfile.gettempdir(), "laddu-root-interop-npm.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (HERE / "node_modules" / "jsroot").is_dir():
            return HERE
        flags = ["--ignore-scripts", "--no-audit", "--no-fund"]
        for extra in (["--offline"], []):
            done = subprocess.run(["npm", "ci", *extra, *flags], cwd=HERE, capture_output=True, timeout=600)
            if done.returncode == 0:
                return HERE
    pytest.fail("npm ci in tests/root_interop failed (jsroot from the npm registry): "
                + done.stderr.decode(errors="replace")[-1000:])


def read_with_jsroot(path, tree):
    """{"entries": N, "branches": {name: {"title": ..., "values": [...]}}} as jsroot reads the
    TTree `tree` of `path` (read_tree.mjs)."""
    work = jsroot_dir()
    result = subprocess.run(["node", str(work / "read_tree.mjs"), str(path), tree], cwd=work,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{path}: {result.stderr[-2000:]}"
    return json.loads(result.stdout)
