"""Overhead of one value_and_gradient call from Python on a 10-event dataset (issue: < 20 µs).

Run: PYTHONPATH=build/release/python /usr/bin/python3 bench/python_overhead.py
"""

import time
import timeit

import numpy as np

import laddu_cpp as ld


def main() -> None:
    rng = np.random.default_rng(0)
    data = ld.Dataset.from_arrays(scalars={"x": rng.uniform(-1, 1, 10)})
    x = ld.scalar("x")
    c0 = ld.complex(ld.parameter("a0", initial=1.0), ld.parameter("b0", initial=0.0))
    c1 = ld.complex(ld.parameter("a1", initial=0.5), ld.parameter("b1", initial=0.2))
    model = ld.Model((c0 * ld.cis(x) + c1 * ld.cis(2 * x) * x).norm_sqr() + 0.01)
    nll = ld.NLL(model, data=data, accepted_mc=data, execution=ld.Execution(threads=1))
    params = np.array([0.9, -0.1, 0.4, 0.3])
    # A penalty costs nothing in C++: its time is the binding's own overhead.
    penalty = ld.Likelihood([ld.RidgePenalty(["a0", "b0", "a1", "b1"], lambda_=1.0)])
    for label, call in (
        ("binding floor (ridge, ndarray)", lambda: penalty.value_and_gradient(params)),
        ("value_and_gradient(ndarray)", lambda: nll.value_and_gradient(params)),
        ("value(ndarray)", lambda: nll.value(params)),
        ("value_and_gradient(list)", lambda: nll.value_and_gradient([0.9, -0.1, 0.4, 0.3])),
    ):
        n = 20000
        wall = min(timeit.repeat(call, number=n, repeat=5)) / n
        # CPU time of this process: what the call costs when the machine is shared (wall time
        # then also counts the time other processes hold the cores).
        cpu = min(timeit.repeat(call, number=n, repeat=5, timer=time.process_time)) / n
        print(f"{label:32s} {wall * 1e6:8.2f} us wall {cpu * 1e6:8.2f} us cpu per call")


if __name__ == "__main__":
    main()
