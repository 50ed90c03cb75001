"""The MPI failure matrix (ctest mpi_failure_matrix): one rank fails, somewhere, in some way;
every case must end on every rank within seconds, with a non-zero exit and the error named.

Each case runs `mpirun -np 2` on a small Python script (laddu_cpp) or on laddu-cpp's CLI (two
MPMD app contexts, so the ranks get different arguments) and checks the exit code, that the
output names the expected error, and that the job ended before the time limit. A rank that
leaves a collective out by its own program's choice (a rank that returns early without an
error) cannot be told from a slow rank and is not in the matrix (docs/distributed.md).

usage: failure_matrix.py MPIEXEC PYTHON [CLI KSKS_TOOL WORK_DIR]
Prints one line per case and a closing "N passed, N failed" line; exits 1 on any failure.
"""

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

LIMIT_SECONDS = 60

PRELUDE = """
import sys
import laddu_cpp as ld
rank = ld.mpi.rank()
data = ld.generate_ksks(3 * 4096 + 5, seed=11)
mc = ld.generate_ksks(3 * 4096 + 9, seed=12)
model = ld.kmatrix_benchmark_model()
def nll(**execution):
    return ld.NLL(model, data=data, accepted_mc=mc,
                  execution=ld.Execution(threads=1, mpi=True, **execution))
"""


@dataclass
class Case:
    name: str  # which rank fails, where, how
    expect: list  # strings the output must hold
    script: str = ""  # Python: run on every rank after PRELUDE
    cli: tuple = ()  # CLI: (rank 0 args, rank 1 args)


PYTHON_CASES = [
    Case(
        "rank 1 raises ValueError before the first collective; rank 0 waits in NLL.value",
        ["ValueError", "rank 1 of 2"],
        script="""
n = nll()
if rank == 1:
    raise ValueError("a user error on rank 1")
n.value([0.25] * len(n.parameter_names))
""",
    ),
    Case(
        "rank 0 raises RuntimeError between two evaluations; rank 1 waits in the second",
        ["RuntimeError", "rank 0 of 2"],
        script="""
n = nll()
p = [0.25] * len(n.parameter_names)
n.value(p)
if rank == 0:
    raise RuntimeError("rank 0 gave up")
n.value_and_gradient(p)
""",
    ),
    Case(
        "rank 1 eagerly reads a missing Parquet file; rank 0 builds the NLL",
        ["DataError", "rank 1 of 2"],
        script="""
if rank == 1:
    ld.read_parquet("/nonexistent/events.parquet")
n = nll()
n.value([0.25] * len(n.parameter_names))
""",
    ),
    Case(
        "rank 1 reads a corrupt Parquet file; rank 0 evaluates",
        ["DataError", "rank 1 of 2"],
        script="""
import tempfile, os
if rank == 1:
    path = os.path.join(tempfile.mkdtemp(), "corrupt.parquet")
    with open(path, "wb") as f:
        f.write(b"PAR1" + b"\\x00" * 64 + b"PAR1")
    ld.read_parquet(path)
n = nll()
n.value([0.25] * len(n.parameter_names))
""",
    ),
    Case(
        "rank 1 evaluates at a NaN parameter, rank 0 at finite ones",
        ["EvaluationError"],
        script="""
n = nll()
p = [0.25] * len(n.parameter_names)
if rank == 1:
    p[0] = float("nan")
n.value(p)
""",
    ),
    Case(
        "the ranks evaluate at different parameters",
        ["BackendError", "not evaluating the same thing"],
        script="""
n = nll()
n.value([0.25 + rank] * len(n.parameter_names))
""",
    ),
    Case(
        "the ranks prepare the NLL at different precisions",
        ["BackendError", "not evaluating the same thing"],
        script="""
n = nll(precision="f64" if rank == 0 else "f32")
n.value([0.25] * len(n.parameter_names))
""",
    ),
    Case(
        "rank 1 builds a model with different parameters than rank 0's",
        ["Error", "rank"],
        script="""
if rank == 1:
    model = ld.Model(ld.parameter("other") * ld.parameter("other"))
n = nll()
n.value([0.25] * len(n.parameter_names))
""",
    ),
]


def cli_cases(work):
    good = os.path.join(work, "ksks.parquet")
    bad_params = os.path.join(work, "bad-params.json")
    with open(bad_params, "w") as f:
        f.write("{not json")
    base = ["bench", "kmatrix", "--mpi", "--repeat", "1", "--threads", "1"]
    return [
        Case(
            "CLI: rank 1 gets a missing data file",
            ["rank 1 of 2"],
            cli=(base + ["--data", good], base + ["--data", os.path.join(work, "missing.parquet")]),
        ),
        Case(
            "CLI: rank 1 gets a malformed --params file",
            ["parameter file", "rank 1 of 2"],
            cli=(base + ["--data", good], base + ["--data", good, "--params", bad_params]),
        ),
    ]


def mpirun(mpiexec, contexts):
    """Runs one MPMD job: `contexts` is a list of per-rank argv."""
    command = [mpiexec, "--allow-run-as-root", "--oversubscribe", "--mca", "btl", "self,vader",
               "--mca", "oob_tcp_if_include", "lo"]
    for i, argv in enumerate(contexts):
        if i:
            command.append(":")
        command += ["-np", "1"] + argv
    start = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=LIMIT_SECONDS,
                              stdin=subprocess.DEVNULL)
        return done.returncode, done.stdout + done.stderr, time.monotonic() - start
    except subprocess.TimeoutExpired as hung:
        out = (hung.stdout or b"").decode(errors="replace") + (hung.stderr or b"").decode(
            errors="replace")
        return None, out, time.monotonic() - start


def judge(case, code, output, seconds):
    if code is None:
        return f"hung: still running after {LIMIT_SECONDS} s"
    if code == 0:
        return "exit code 0"
    missing = [e for e in case.expect if e not in output]
    if missing:
        return f"output lacks {missing}"
    return None


def main():
    if len(sys.argv) not in (3, 6):
        print(__doc__, file=sys.stderr)
        return 2
    mpiexec, python = sys.argv[1], sys.argv[2]
    runs = []
    with tempfile.TemporaryDirectory() as scratch:
        for case in PYTHON_CASES:
            path = os.path.join(scratch, "case.py")
            with open(path, "w") as f:
                f.write(PRELUDE + case.script)
            runs.append((case, mpirun(mpiexec, [[python, path], [python, path]])))
        if len(sys.argv) == 6:
            cli, tool, work = sys.argv[3], sys.argv[4], sys.argv[5]
            os.makedirs(work, exist_ok=True)
            subprocess.run([tool, "write", os.path.join(work, "ksks.parquet"), "20000", "1"],
                           check=True, capture_output=True)
            for case in cli_cases(work):
                runs.append((case, mpirun(mpiexec, [[cli] + case.cli[0], [cli] + case.cli[1]])))
    failed = 0
    for case, (code, output, seconds) in runs:
        problem = judge(case, code, output, seconds)
        status = "ok  " if problem is None else "FAIL"
        print(f"{status} {seconds:5.1f} s  exit {code}  {case.name}")
        if problem is not None:
            failed += 1
            print(f"     {problem}; output:\n" + "\n".join("     | " + line
                                                         for line in output.splitlines()[-15:]))
    print(f"{len(runs) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
