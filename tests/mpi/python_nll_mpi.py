"""Run under mpirun -np 2 (ctest python_nll_mpi): ld.Execution(mpi=True) shares the K-matrix
benchmark NLL's events across the ranks; for every partitioning its value and gradient equal,
bit for bit (float.hex), the single-process NLL that each rank also computes alone. The events
come from memory, then from Parquet and ROOT files read lazily (each rank reads only its share;
"file_groups" deals the files' row groups or baskets). Every rank writes its own copy of the
same files (the writers are deterministic), so no file is shared between processes. Exits 1 on
any rank that sees a difference; only rank 0 prints.
"""

import os
import sys
import tempfile

import laddu_cpp as ld


def compare(model, data, accepted, label):
    single = ld.NLL(model, data=data, accepted_mc=accepted, execution=ld.Execution(threads=1))
    params = [0.25] * len(single.parameter_names)
    expected_value = single.value(params)
    expected_value_g, expected_gradient = single.value_and_gradient(params)
    problems = []
    for partitioning in ("contiguous", "rows", "file_groups"):
        execution = ld.Execution(threads=1, mpi=True, partitioning=partitioning)
        if not execution.mpi:
            problems.append(f"{label} {partitioning}: Execution(mpi=True).mpi is False")
        nll = ld.NLL(model, data=data, accepted_mc=accepted, execution=execution)
        value = nll.value(params)
        value_g, gradient = nll.value_and_gradient(params)
        if value.hex() != expected_value.hex() or value_g.hex() != expected_value_g.hex():
            problems.append(f"{label} {partitioning}: value {value.hex()} != {expected_value.hex()}")
        if [g.hex() for g in gradient] != [g.hex() for g in expected_gradient]:
            problems.append(f"{label} {partitioning}: gradients differ")
    return problems, expected_value


def main() -> int:
    size = ld.mpi.size()
    model = ld.kmatrix_benchmark_model()
    data = ld.generate_ksks(3 * 4096 + 123, seed=31)
    accepted = ld.generate_ksks(4 * 4096 + 7, seed=32)
    problems, in_memory = compare(model, data, accepted, "memory")
    with tempfile.TemporaryDirectory(prefix=f"laddu-mpi-{ld.mpi.rank()}-") as directory:
        # Each sample in three files of unequal sizes: three fragments for "file_groups".
        for name, dataset in (("data", data), ("accepted", accepted)):
            cuts = [0, 4000, 8500, len(dataset)]
            for k in range(3):
                part = dataset[cuts[k]:cuts[k + 1]]
                part.write_to(ld.ParquetSink(os.path.join(directory, f"{name}_{k}.parquet")))
                part.write_to(ld.RootSink(os.path.join(directory, f"{name}_{k}.root"), tree="events"))
        for kind, read in (("parquet", ld.read_parquet), ("root", ld.read_root)):
            files = [read(os.path.join(directory, f"{name}_*.{kind}")) for name in ("data", "accepted")]
            found, value = compare(model, *files, kind)
            # The files hold the same events in the same order: the same NLL, bit for bit.
            problems += found + ([f"{kind}: NLL {value.hex()} != {in_memory.hex()} in memory"]
                                 if value.hex() != in_memory.hex() else [])
    try:
        ld.Execution(mpi=True, partitioning="blocks")
        problems.append("an unknown partitioning was accepted")
    except ValueError:  # laddu's type for a bad option
        pass
    if ld.mpi.is_root():
        print(f"{size} ranks: " + ("; ".join(problems) if problems else "same as one process"))
    ld.mpi.barrier()
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
