"""The GIL is released while the engine works: another Python thread keeps running during an
evaluation, a fit, a selection and generation; calls from several threads give the results one
thread gives."""

import concurrent.futures
import threading
import time

import numpy as np

import laddu_cpp as ld


def progress_while(call):
    """How many times a Python loop in another thread ran while `call` ran in this one."""
    ticks = [0]
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks[0] += 1
            time.sleep(0)

    counter = threading.Thread(target=count)
    counter.start()
    try:
        before = ticks[0]
        result = call()
        during = ticks[0] - before
    finally:
        done.set()
        counter.join()
    return result, during


nll_data = []


def kmatrix_nll(n=20000):
    events = ld.generate_ksks(n, seed=1, kk_mass_max=2.0)
    nll_data[:] = [events]
    model = ld.kmatrix_benchmark_model()
    # The interpreter: long enough a pass for the probe to count (the JIT is several times faster).
    return ld.NLL(model, data=events, accepted_mc=events, execution=ld.Execution("cpu", threads=1)), model


def test_the_probe_tells_a_held_gil_from_a_released_one():
    # Control: accurate_sum keeps the GIL (it reads a Python list), so the other thread
    # barely runs; a released GIL lets it run hundreds of times in the same time.
    # The other thread may also run while this one waits for a core (a loaded machine), which
    # only adds ticks: the least of three runs is the probe's reading.
    values = list(np.random.default_rng(0).uniform(size=2_000_000))
    during = min(progress_while(lambda: ld.accurate_sum(values))[1] for _ in range(3))
    assert during < 10


def test_evaluations_release_the_gil():
    nll, model = kmatrix_nll(100000)
    params = [0.25] * len(model.free_parameter_names)
    # Several calls, so that the probe counts over tens of milliseconds however fast one is.
    _, during = progress_while(lambda: [nll.value_and_gradient(params) for _ in range(8)])
    assert during > 50
    _, during = progress_while(
        lambda: [model.evaluate(nll_data[0], parameters=params) for _ in range(8)])
    assert during > 50


def test_fit_selection_and_generation_release_the_gil():
    x = ld.scalar("x")
    rng = np.random.default_rng(0)
    data = ld.Dataset.from_arrays(scalars={"x": rng.uniform(-1, 1, 1_000_000)})
    for call in (
        lambda: ld.generate_ksks(200000, seed=2),
        lambda: data.select((x > -0.5) & (x < 0.5)),
        lambda: data.bin_by(x, bins=ld.Bin.uniform(10, low=-1.0, high=1.0)),
    ):
        _, during = progress_while(call)
        assert during > 20

    c = ld.complex(ld.parameter("a", initial=0.5), ld.parameter("b", initial=0.1))
    model = ld.Model((ld.parameter("s", fixed=1.0) + c * x).norm_sqr())
    nll = ld.NLL(model, data=data, accepted_mc=data, execution=ld.Execution(threads=1))
    result, during = progress_while(lambda: ld.Likelihood([nll]).fit())
    assert result.converged
    assert during > 20


def test_fits_and_projections_from_several_threads_agree_with_one_thread():
    nll, model = kmatrix_nll(3000)
    likelihood = ld.Likelihood([nll])
    params = [0.25] * len(model.free_parameter_names)
    expected_value = nll.value_and_gradient(params)
    expected_weights = likelihood.projection(nll).weights(params)

    def work(_):
        return nll.value_and_gradient(params), likelihood.projection(nll).weights(params)

    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        for (value, gradient), weights in pool.map(work, range(8)):
            assert value == expected_value[0]
            np.testing.assert_array_equal(gradient, expected_value[1])
            np.testing.assert_array_equal(weights, expected_weights)
