"""Run under mpirun -np 2 with POCL_DEVICES="pthread pthread" (ctest python_gpu_mpi_np2: PoCL then
offers two OpenCL devices): Execution('gpu', mpi=True) takes device local_rank % 2 on each rank
by default, and the K-matrix benchmark NLL on the GPUs over both ranks equals, bit for bit, the
GPU NLL of one process and, in f64, the CPU's. Exits 1 on any rank that sees a difference; only
rank 0 prints.
"""

import sys

import laddu_cpp as ld


def main() -> int:
    problems = []
    devices = ld.devices()
    if len(devices) < 2:
        problems.append(f"expected two OpenCL devices (POCL_DEVICES), got {len(devices)}")
    execution = ld.Execution("gpu", precision="f64", mpi=True)
    expected_device = ld.mpi.local_rank() % max(len(devices), 1)
    if execution.device_index != expected_device:
        problems.append(f"rank {ld.mpi.rank()}: device {execution.device_index}, "
                        f"expected {expected_device}")
    if ld.Execution("gpu", device=0, precision="f64", mpi=True).device_index != 0:
        problems.append("an explicit device= was not kept under MPI")
    data = ld.generate_ksks(2 * 4096 + 77, seed=41)
    accepted = ld.generate_ksks(3 * 4096 + 5, seed=42)
    model = ld.kmatrix_benchmark_model()
    params = None
    values = {}
    for label, exe in (("cpu", ld.Execution("cpu", threads=1)),
                       ("gpu", ld.Execution("gpu", precision="f64")),
                       ("gpu over ranks", execution)):
        nll = ld.NLL(model, data=data, accepted_mc=accepted, execution=exe)
        params = params or [0.25] * len(nll.parameter_names)
        value, gradient = nll.value_and_gradient(params)
        values[label] = (value.hex(), [g.hex() for g in gradient])
    for label in ("gpu", "gpu over ranks"):
        if values[label] != values["cpu"]:
            problems.append(f"{label}: NLL {values[label][0]} != CPU {values['cpu'][0]} "
                            "(or the gradients differ)")
    if ld.mpi.is_root():
        print(f"{ld.mpi.size()} ranks: " + ("; ".join(problems) if problems else
                                           "one device per rank, same as one process"))
    ld.mpi.barrier()
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
