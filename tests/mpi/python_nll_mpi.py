"""Run under mpirun -np 2 (ctest python_nll_mpi): ld.Execution(mpi=True) shares the K-matrix
benchmark NLL's events across the ranks; for every partitioning its value and gradient equal,
bit for bit (float.hex), the single-process NLL that each rank also computes alone. Exits 1 on
any rank that sees a difference; only rank 0 prints.
"""

import sys

import laddu_cpp as ld


def main() -> int:
    rank, size = ld.mpi.rank(), ld.mpi.size()
    data = ld.generate_ksks(3 * 4096 + 123, seed=31)
    accepted = ld.generate_ksks(4 * 4096 + 7, seed=32)
    model = ld.kmatrix_benchmark_model()
    single = ld.NLL(model, data=data, accepted_mc=accepted, execution=ld.Execution(threads=1))
    params = [0.25] * len(single.parameter_names)
    expected_value = single.value(params)
    expected_value_g, expected_gradient = single.value_and_gradient(params)
    problems = []
    for partitioning in ("contiguous", "rows", "file_groups"):
        execution = ld.Execution(threads=1, mpi=True, partitioning=partitioning)
        if not execution.mpi:
            problems.append(f"{partitioning}: Execution(mpi=True).mpi is False")
        nll = ld.NLL(model, data=data, accepted_mc=accepted, execution=execution)
        value = nll.value(params)
        value_g, gradient = nll.value_and_gradient(params)
        if value.hex() != expected_value.hex() or value_g.hex() != expected_value_g.hex():
            problems.append(f"{partitioning}: value {value.hex()} != {expected_value.hex()}")
        if [g.hex() for g in gradient] != [g.hex() for g in expected_gradient]:
            problems.append(f"{partitioning}: gradients differ")
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
