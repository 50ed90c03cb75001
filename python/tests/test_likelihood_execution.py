"""ld.Likelihood(terms, execution=), Likelihood.diagnostics() and Model.value_and_gradient, as in
laddu 0.21.4: the likelihood's execution runs every term, the diagnostics come from the prepared
terms, and the per-event gradients from the runtime's gradient program."""

import numpy as np
import pytest

import laddu_cpp as ld

HAS_JIT = ld.capabilities()["jit"]
BACKENDS = ["cpu", "jit"] if HAS_JIT else ["cpu"]
LADDU_DATASET_FIELDS = [
    "term", "role", "storage", "local_events", "global_events", "local_batches", "sum_weights",
    "resident_bytes", "uses_quadratic_normalization", "normalization_strategy",
    "normalization_basis_count", "normalization_coherent_group_count", "normalization_has_residual",
    "normalization_retained_bytes", "normalization_preparation_passes", "normalization_cache_reused",
    "normalization_tag_reused_parent", "normalization_fallback_reason", "source_traversals",
]


def datasets(n=2500):
    x = np.linspace(1.1, 2.1, n)
    data = ld.Dataset.from_arrays(scalars={"x": x}, weights=np.linspace(0.5, 1.5, n))
    mc = ld.Dataset.from_arrays(scalars={"x": np.linspace(1.0, 2.2, 2 * n)}, weights=np.linspace(0.9, 1.1, 2 * n))
    return data, mc


def mc_pass_model():
    """|(x - a)(x + b)|² + 0.1 e^(a x): the exponential mixes a and x non-separably, and laddu's
    auto rule proves nothing non-negative about it, so the accepted MC is a pass over its events."""
    a = ld.parameter("a", initial=0.7)
    b = ld.parameter("b", initial=0.3)
    x = ld.scalar("x")
    return ld.Model(((x - a) * (x + b)).norm_sqr() + 0.1 * (a * x).exp())


def hermitian_model():
    """|c0 + c1 x|²: the fast normalisation applies (two amplitudes, one coherent group)."""
    c0 = ld.complex(ld.parameter("c0", initial=1.0), ld.parameter("c0 im", fixed=0.0))
    c1 = ld.complex(ld.parameter("c1 re", initial=0.4), ld.parameter("c1 im", initial=-0.2))
    return ld.Model((c0 + c1 * ld.scalar("x")).norm_sqr())


def bits(evaluation):
    value, gradient = evaluation
    return value.hex(), [g.hex() for g in gradient]


# ---- Likelihood(execution=) ----


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("make_model", [mc_pass_model, hermitian_model])
def test_the_tutorial_form_runs_the_terms_with_the_likelihoods_execution(backend, make_model):
    model, (data, mc) = make_model(), datasets()
    execution = ld.Execution(backend, threads=2)
    likelihood = ld.Likelihood([ld.NLL(model, data=data, accepted_mc=mc, name="signal")], execution=execution)
    (term,) = likelihood.terms
    assert term.execution is execution
    assert term.backend == ("jit" if backend == "jit" else "interpreter")
    direct = ld.Likelihood([ld.NLL(model, data=data, accepted_mc=mc, name="signal", execution=ld.Execution(backend, threads=2))])
    point = [p * 1.1 + 0.05 for p in likelihood.default_parameters]
    assert bits(likelihood.value_and_gradient(point)) == bits(direct.value_and_gradient(point))
    assert likelihood.value(point).hex() == direct.value(point).hex()


def test_a_term_built_without_an_execution_is_prepared_once_with_the_likelihoods():
    model, (data, mc) = mc_pass_model(), datasets()
    nll = ld.NLL(model, data=data, accepted_mc=mc, name="signal")
    execution = ld.Execution("cpu", threads=2)
    likelihood = ld.Likelihood([nll], execution=execution)
    # laddu's form: the term passed in was only checked, so nothing was prepared twice.
    assert nll.execution.memory_decisions() == []
    assert len(execution.memory_decisions()) == 2  # the data and the accepted MC, once
    point = [0.6, 0.2]
    eager = ld.NLL(model, data=data, accepted_mc=mc, execution=ld.Execution("cpu", threads=2))
    assert bits(likelihood.value_and_gradient(point)) == bits(eager.value_and_gradient(point))
    # Used on its own, the deferred term prepares on first use, with the same bits.
    assert nll.execution.memory_decisions() == []
    assert bits(nll.value_and_gradient(point)) == bits(eager.value_and_gradient(point))
    assert len(nll.execution.memory_decisions()) == 2
    assert nll.prepare_seconds > 0


def test_a_float32_execution_reaches_the_terms():
    model, (data, mc) = mc_pass_model(), datasets()
    f32 = ld.Execution("cpu", precision="f32")
    given = ld.Likelihood([ld.ExtendedNLL(model, data=data, accepted_mc=mc)], execution=f32)
    direct = ld.ExtendedNLL(model, data=data, accepted_mc=mc, execution=ld.Execution("cpu", precision="f32"))
    f64 = ld.ExtendedNLL(model, data=data, accepted_mc=mc)
    assert bits(given.value_and_gradient([0.6, 0.2])) == bits(direct.value_and_gradient([0.6, 0.2]))
    assert given.value([0.6, 0.2]) != f64.value([0.6, 0.2])


def test_terms_built_with_that_execution_and_penalties_are_used_as_they_are():
    model, (data, mc) = mc_pass_model(), datasets()
    execution = ld.Execution("cpu")
    nll = ld.NLL(model, data=data, accepted_mc=mc, execution=execution)
    other = ld.ExtendedNLL(model, data=data, accepted_mc=mc, name="other")
    ridge = ld.RidgePenalty(["a"], lambda_=0.5)
    likelihood = ld.Likelihood([nll, other, ridge], execution=execution)
    kept, rebuilt, penalty = likelihood.terms
    assert kept is nll and penalty is ridge
    assert rebuilt is not other and rebuilt.execution is execution and rebuilt.name == "other"
    assert other.execution is not execution  # the term passed in is left as it was
    assert likelihood.parameter_names == ["a", "b"]


def test_without_an_execution_the_terms_keep_their_own():
    model, (data, mc) = mc_pass_model(), datasets()
    interpreter = ld.Execution("cpu")
    nll = ld.NLL(model, data=data, accepted_mc=mc, execution=interpreter)
    likelihood = ld.Likelihood([nll])
    assert likelihood.execution is None
    assert likelihood.terms[0] is nll and likelihood.terms[0].backend == "interpreter"


def test_terms_that_cannot_be_rebuilt_and_bad_executions_are_errors():
    model, (data, mc) = mc_pass_model(), datasets()
    bare = ld._core.NLL(model, data=data, accepted_mc=mc, name="bare")
    with pytest.raises(ld.ModelError, match="'bare' was not built with ld.NLL"):
        ld.Likelihood([bare], execution=ld.Execution("cpu"))
    assert ld.Likelihood([bare]).terms[0] is bare
    with pytest.raises(TypeError, match="execution must be an ld.Execution"):
        ld.Likelihood([ld.NLL(model, data=data, accepted_mc=mc)], execution="cpu")


def test_bootstrap_replicas_use_the_likelihoods_execution():
    model, (data, mc) = mc_pass_model(), datasets(600)
    execution = ld.Execution("cpu", threads=2)
    likelihood = ld.Likelihood([ld.NLL(model, data=data, accepted_mc=mc)], execution=execution)
    before = len(execution.memory_decisions())
    fits = likelihood.bootstrap_fit(2, seed=3, max_steps=50)
    assert len(fits.fits) == 2
    # each replica prepares its data and its accepted MC with the likelihood's execution
    assert len(execution.memory_decisions()) == before + 4


# ---- diagnostics() ----


def test_diagnostics_of_an_mc_pass_term():
    model, (data, mc) = mc_pass_model(), datasets()
    execution = ld.Execution("cpu", threads=2)
    likelihood = ld.Likelihood([ld.NLL(model, data=data, accepted_mc=mc, name="signal")], execution=execution)
    diagnostics = likelihood.diagnostics()
    assert isinstance(diagnostics, ld.LikelihoodDiagnostics)
    observed, accepted = diagnostics.datasets
    assert all(isinstance(d, ld.DatasetDiagnostics) for d in diagnostics.datasets)
    for d in (observed, accepted):
        for field in LADDU_DATASET_FIELDS:
            getattr(d, field)
        assert d.term == "signal" and d.storage == "resident" and d.backend == "interpreter"
        assert d.local_batches == 1 and d.cache_columns >= 1 and d.prepare_seconds > 0
        assert d.source_traversals is None and d.normalization_cache_reused is None
    assert (observed.role, accepted.role) == ("observed", "accepted_mc")
    assert (observed.global_events, accepted.global_events) == (len(data), len(mc))
    assert observed.local_events == len(data)
    assert observed.sum_weights == pytest.approx(np.sum(data.weights()), rel=1e-14)
    assert accepted.sum_weights == pytest.approx(np.sum(mc.weights()), rel=1e-14)
    assert observed.normalization_strategy is None and accepted.normalization_strategy == "general"
    assert not accepted.uses_quadratic_normalization and accepted.normalization_basis_count is None
    decisions = execution.memory_decisions()
    assert diagnostics.memory_decisions == decisions
    by_label = {d["prepared_for"]: d for d in decisions}
    assert observed.bytes_per_event == by_label["the data"]["bytes_per_event"]
    assert accepted.bytes_per_event == by_label["the accepted Monte Carlo"]["bytes_per_event"]
    assert observed.memory_decision == by_label["the data"]["decision"]
    assert observed.resident_bytes >= observed.bytes_per_event * len(data) - observed.bytes_per_event
    assert "LikelihoodDiagnostics(datasets=2" in repr(diagnostics)
    assert "role='accepted_mc'" in repr(accepted)


def test_diagnostics_of_a_fast_normalization_term():
    model, (data, mc) = hermitian_model(), datasets()
    likelihood = ld.Likelihood([ld.ExtendedNLL(model, data=data, accepted_mc=mc, name="fast")])
    assert likelihood.terms[0].uses_fast_normalization
    observed, accepted = likelihood.diagnostics().datasets
    assert accepted.uses_quadratic_normalization and accepted.normalization_strategy == "hermitian"
    assert accepted.normalization_basis_count == 2
    assert accepted.normalization_coherent_group_count == 1
    assert accepted.normalization_has_residual is False
    assert accepted.normalization_retained_bytes == 2 * 2 * 16 == accepted.resident_bytes
    assert accepted.global_events == len(mc) and accepted.storage == "resident"
    # the matrix keeps no events: no cache, no batches, no weight sum
    assert accepted.bytes_per_event is None and accepted.cache_columns is None
    assert accepted.local_batches is None and accepted.sum_weights is None
    assert observed.normalization_strategy is None and observed.bytes_per_event > 0
    # without a likelihood execution: the decisions of the term's own execution (the data only)
    decisions = likelihood.diagnostics().memory_decisions
    assert [d["prepared_for"] for d in decisions] == ["the data"]
    assert accepted.normalization_from_data_cache is False
    assert observed.normalization_from_data_cache is None


def test_the_data_as_accepted_mc_reads_the_data_cache_with_the_same_value():
    model, n = hermitian_model(), 2500
    x, w = np.linspace(1.1, 2.1, n), np.linspace(0.5, 1.5, n)
    data = ld.Dataset.from_arrays(scalars={"x": x}, weights=w)
    copy = ld.Dataset.from_arrays(scalars={"x": x.copy()}, weights=w.copy())
    shared = ld.NLL(model, data=data, accepted_mc=data, name="shared")
    separate = ld.NLL(model, data=data, accepted_mc=copy, name="separate")
    _, accepted = ld.Likelihood([shared]).diagnostics().datasets
    _, accepted_copy = ld.Likelihood([separate]).diagnostics().datasets
    assert accepted.normalization_from_data_cache is True
    assert accepted_copy.normalization_from_data_cache is False
    point = [0.6, 0.2, -0.3]
    assert bits(shared.value_and_gradient(point)) == bits(separate.value_and_gradient(point))


def linear_model():
    """p1 |x| + p2 x² + 1/2: parameter-only coefficients times event-only bases."""
    x = ld.scalar("x")
    return ld.Model(ld.parameter("p1", initial=1.0) * x.abs() + ld.parameter("p2", initial=0.7) * x * x + 0.5)


def hybrid_model():
    """|c0 + c1 x|² + 0.1 e^(a x): a coherent group and a non-separable residual."""
    a = ld.parameter("a", initial=0.3)
    return ld.Model(hermitian_model().expression + 0.1 * (a * ld.scalar("x")).exp())


@pytest.mark.parametrize(
    "make_model, normalization, strategy, residual",
    [
        (linear_model, "verify", "linear_statistics", False),
        (linear_model, "auto", "general", None),  # p1 |x| is not proven non-negative
        (hybrid_model, "verify", "hybrid", True),
        (hybrid_model, "auto", "general", None),  # laddu proves nothing about exp
        (hermitian_model, "verify", "hermitian", False),
        (mc_pass_model, "general", "general", None),
    ],
)
def test_diagnostics_name_the_normalization_strategy(make_model, normalization, strategy, residual):
    model, (data, mc) = make_model(), datasets()
    execution = ld.Execution("cpu", threads=2, normalization=normalization)
    likelihood = ld.Likelihood([ld.NLL(model, data=data, accepted_mc=mc, name="t")], execution=execution)
    observed, accepted = likelihood.diagnostics().datasets
    assert observed.normalization_strategy is None
    assert accepted.normalization_strategy == strategy
    assert accepted.normalization_has_residual is residual
    assert accepted.uses_quadratic_normalization == (strategy != "general")
    general = ld.Likelihood(
        [ld.NLL(model, data=data, accepted_mc=mc, name="t")],
        execution=ld.Execution("cpu", threads=2, normalization="general"),
    )
    point = [p * 1.1 + 0.05 for p in likelihood.default_parameters]
    value, gradient = likelihood.value_and_gradient(point)
    expected_value, expected_gradient = general.value_and_gradient(point)
    assert value == pytest.approx(expected_value, rel=1e-12)
    np.testing.assert_allclose(gradient, expected_gradient, rtol=1e-10, atol=1e-10 * abs(expected_value))


def test_linear_statistics_report_their_bases():
    (data, mc) = datasets()
    term = ld.NLL(linear_model(), data=data, accepted_mc=mc, execution=ld.Execution("cpu", normalization="verify"))
    accepted = ld.Likelihood([term]).diagnostics().datasets[1]
    assert accepted.normalization_basis_count == 3  # |x|, x², 1
    assert accepted.normalization_coherent_group_count == 0
    assert accepted.normalization_retained_bytes == 3 * 16


def test_diagnostics_count_value_and_gradient_calls_fits_included():
    model, (data, mc) = mc_pass_model(), datasets(800)
    likelihood = ld.Likelihood([ld.NLL(model, data=data, accepted_mc=mc)], execution=ld.Execution("cpu"))
    first = likelihood.diagnostics()
    assert (first.objective_evaluations, first.gradient_evaluations) == (0, 0)
    likelihood.value([0.5, 0.2])
    likelihood.nll([0.5, 0.2])
    likelihood.value_and_gradient([0.5, 0.2])
    counted = likelihood.diagnostics()
    assert (counted.objective_evaluations, counted.gradient_evaluations) == (2, 1)
    assert (first.objective_evaluations, first.gradient_evaluations) == (0, 0)  # a snapshot
    result = likelihood.fit([0.5, 0.2])
    after = likelihood.diagnostics()
    # every evaluation of the fit (its Hessian's included) is counted
    assert after.gradient_evaluations - 1 == result.gradient_evaluations > 0
    assert after.objective_evaluations == 2  # L-BFGS-B asks for values with gradients only


def test_streamed_data_is_reported_as_streaming(tmp_path):
    model, (data, mc) = mc_pass_model(), datasets(5000)
    path = tmp_path / "data.parquet"
    data.write_to(ld.ParquetSink(str(path)))
    lazy = ld.read_parquet(str(path), memory="1 MiB", cache="streaming")
    likelihood = ld.Likelihood([ld.NLL(model, data=lazy, accepted_mc=mc)], execution=ld.Execution("cpu"))
    observed = likelihood.diagnostics().datasets[0]
    assert observed.storage == "streaming" and observed.resident_bytes == 0
    assert observed.local_batches >= 1 and observed.cache_columns is None
    eager = ld.NLL(model, data=data, accepted_mc=mc, execution=ld.Execution("cpu"))
    assert bits(likelihood.value_and_gradient([0.4, 0.1])) == bits(eager.value_and_gradient([0.4, 0.1]))


# ---- Model.value_and_gradient ----


def test_model_value_and_gradient_values_are_evaluates_and_gradients_match_differences():
    model, (data, _) = mc_pass_model(), datasets(700)
    point = {"a": 0.6, "b": 0.25}
    values, gradients = model.value_and_gradient(data, parameters=point)
    assert values.dtype == np.complex128 and gradients.dtype == np.complex128
    assert values.shape == (len(data),) and gradients.shape == (len(data), 2)
    np.testing.assert_array_equal(values, model.evaluate(data, parameters=point, real=False))
    for k, name in enumerate(model.parameter_names):
        h = 1e-6
        up = model.evaluate(data, parameters={**point, name: point[name] + h})
        down = model.evaluate(data, parameters={**point, name: point[name] - h})
        np.testing.assert_allclose(gradients[:, k].real, (up - down) / (2 * h), rtol=1e-6, atol=1e-6)
    assert not gradients.imag.any()
    real_values, real_gradients = model.value_and_gradient(data, parameters=[0.6, 0.25], real=True)
    assert real_values.dtype == np.float64 and real_gradients.dtype == np.float64
    np.testing.assert_array_equal(real_values, values.real)
    np.testing.assert_array_equal(real_gradients, gradients.real)


def test_model_gradients_sum_to_the_extended_likelihoods_gradient():
    model, (data, mc) = mc_pass_model(), datasets(900)
    point = [0.55, 0.35]
    extended = ld.ExtendedNLL(model, data=data, accepted_mc=mc)
    _, expected = extended.value_and_gradient(point)
    data_values, data_gradients = model.value_and_gradient(data, parameters=point, real=True)
    _, mc_gradients = model.value_and_gradient(mc, parameters=point, real=True)
    ours = mc.weights() @ mc_gradients - data.weights() @ (data_gradients / data_values[:, None])
    np.testing.assert_allclose(ours, expected, rtol=1e-10)


def test_complex_model_gradients_are_complex():
    a = ld.parameter("a", initial=0.8)
    m = ld.parameter("m", initial=1.3)
    model = ld.Model(ld.complex(a, 0.5) * ld.cis(m * ld.scalar("x")))
    data, _ = datasets(300)
    x = np.linspace(1.1, 2.1, 300)
    values, gradients = model.value_and_gradient(data)
    np.testing.assert_allclose(values, (0.8 + 0.5j) * np.exp(1.3j * x), rtol=1e-14)
    np.testing.assert_allclose(gradients[:, 0], np.exp(1.3j * x), rtol=1e-14)
    np.testing.assert_allclose(gradients[:, 1], 1j * x * (0.8 + 0.5j) * np.exp(1.3j * x), rtol=1e-13)
    _, real = model.value_and_gradient(data, real=True)
    np.testing.assert_array_equal(real, gradients.real)
    # The values are the gradient program's output 0: evaluate()'s bits on every backend.
    for backend in BACKENDS:
        execution = ld.Execution(backend)
        values, _ = model.value_and_gradient(data, execution=execution)
        np.testing.assert_array_equal(values, model.evaluate(data, real=False, execution=execution))


@pytest.mark.parametrize("backend", BACKENDS)
def test_model_gradients_are_bit_identical_for_any_thread_count(backend):
    model, (data, _) = mc_pass_model(), datasets(3000)
    one = model.value_and_gradient(data, execution=ld.Execution(backend, threads=1))
    three = model.value_and_gradient(data, execution=ld.Execution(backend, threads=3))
    np.testing.assert_array_equal(one[0], three[0])
    np.testing.assert_array_equal(one[1], three[1])


def test_model_value_and_gradient_argument_errors():
    model, (data, _) = mc_pass_model(), datasets(10)
    with pytest.raises(ld.Error):
        model.value_and_gradient(data, parameters={"nope": 1.0})
    with pytest.raises(TypeError):
        model.value_and_gradient([1, 2, 3])
    empty = ld.Dataset.from_arrays(scalars={"x": np.zeros(0)})
    values, gradients = model.value_and_gradient(empty)
    assert values.shape == (0,) and gradients.shape == (0, 2)
