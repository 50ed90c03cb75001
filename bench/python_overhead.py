"""Overhead of one value_and_gradient call from Python on a 10-event dataset (issue: < 20 µs).

Run: PYTHONPATH=build/release/python /usr/bin/python3 bench/python_overhead.py
"""

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
    for label, call in (
        ("value_and_gradient(ndarray)", lambda: nll.value_and_gradient(params)),
        ("value(ndarray)", lambda: nll.value(params)),
        ("value_and_gradient(list)", lambda: nll.value_and_gradient([0.9, -0.1, 0.4, 0.3])),
    ):
        n = 20000
        best = min(timeit.repeat(call, number=n, repeat=5)) / n
        print(f"{label:32s} {best * 1e6:8.2f} us per call")


if __name__ == "__main__":
    main()
