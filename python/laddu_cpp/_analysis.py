"""The parts of laddu's likelihood API that need a term's model and datasets after construction.

``NLL`` and ``ExtendedNLL`` here are the compiled classes plus the ``model``, ``data``,
``accepted_mc`` and ``execution`` they were built from (and the seconds building took), which
lets a ``Likelihood``

* prepare its terms again with its own ``execution=``, as laddu prepares every term with the
  likelihood's execution,
* report ``diagnostics()`` (laddu's ``LikelihoodDiagnostics`` and ``DatasetDiagnostics``),
* project a term by its name, and onto generated MC (``acceptance_corrected=True``), and
* refit Poisson-bootstrap replicas of its data (``bootstrap_fit``),

as laddu does. Everything else runs in the compiled core.
"""

from __future__ import annotations

import math
import operator
import time

import numpy as np

from . import _core
from ._estimates import Ensemble


def _build_term(term, base, model, data, accepted_mc, execution, name):
    # Without an execution, as laddu's NLL is built, the term is checked now (the model compiles,
    # the datasets have its columns) and prepared when first used, so that a Likelihood with
    # its own execution= prepares it once, with that. An explicit default Execution keeps the
    # memory decisions readable afterwards (execution.memory_decisions()).
    defer = execution is None
    if defer:
        execution = _core.Execution()
    base.__init__(term, model, data=data, accepted_mc=accepted_mc, execution=execution, name=name, _defer=defer)
    term.model, term.data, term.accepted_mc, term.execution = model, data, accepted_mc, execution


def _prepare_seconds(term):
    """The wall time preparing the data, the accepted MC and the normalisation took (a term
    built without an execution is prepared by this call if it was not yet)."""
    return term._info()["prepare_seconds"]


class NLL(_core.NLL):
    """N_w ln(Σ_acc w I) − Σ_data w ln I (laddu's normalised NLL).

    With ``execution`` the term is prepared now; without one (laddu's form) it is prepared when
    first used, or with a ``Likelihood``'s ``execution=``. ``prepare_seconds`` is the preparation's
    wall time."""

    def __init__(self, model, *, data, accepted_mc, execution=None, name="nll"):
        _build_term(self, _core.NLL, model, data, accepted_mc, execution, name)

    prepare_seconds = property(_prepare_seconds)


class ExtendedNLL(_core.ExtendedNLL):
    """Σ_acc w I − Σ_data w ln I (laddu's extended NLL); preparation as for NLL."""

    def __init__(self, model, *, data, accepted_mc, execution=None, name="extended_nll"):
        _build_term(self, _core.ExtendedNLL, model, data, accepted_mc, execution, name)

    prepare_seconds = property(_prepare_seconds)


def _with_execution(term, execution):
    """`term` prepared with `execution`: itself when it already is (or is a penalty), else the
    same term built again from its model and datasets."""
    if not isinstance(term, _core.UnbinnedNLL) or getattr(term, "execution", None) is execution:
        return term
    if not hasattr(term, "model"):
        raise _core.ModelError(
            f"term '{term.name}' was not built with ld.NLL or ld.ExtendedNLL, so it cannot be "
            "prepared again with the likelihood's execution; build it with ld.NLL"
        )
    return type(term)(term.model, data=term.data, accepted_mc=term.accepted_mc, execution=execution, name=term.name)


class Likelihood(_core.Likelihood):
    """A sum of terms sharing parameters by name (laddu's ``Likelihood(terms, *, execution=None)``).

    With ``execution``, every NLL and ExtendedNLL term runs with it: a term built with another
    execution object is built again from its model and datasets with this one (its results are
    then bit-identical to building the term with ``execution`` directly; the term passed in is
    left as it was). Without it the terms keep the executions they were built with. Penalties
    are used as they are."""

    def __init__(self, terms, *, execution=None):
        terms = list(terms)
        if execution is not None:
            if not isinstance(execution, _core.Execution):
                raise TypeError(f"execution must be an ld.Execution, not {type(execution).__name__}")
            terms = [_with_execution(term, execution) for term in terms]
        super().__init__(terms)
        # Holding the Python objects keeps their model, datasets and execution attributes.
        self._terms = terms
        self.execution = execution

    @property
    def terms(self):
        """The terms, in order (those prepared with ``execution`` where it was given)."""
        return list(self._terms)

    def diagnostics(self):
        """laddu's ``LikelihoodDiagnostics``: per-dataset preparation records, evaluation counts
        and the memory decisions of the execution (of each term's execution when the likelihood
        has none)."""
        datasets = []
        for term in self._terms:
            if isinstance(term, _core.UnbinnedNLL):
                info = term._info()
                seconds = info["prepare_seconds"]
                datasets.append(DatasetDiagnostics(term.name, "observed", info, info["data"], seconds))
                datasets.append(DatasetDiagnostics(term.name, "accepted_mc", info, info["accepted"], seconds))
        if self.execution is not None:
            executions = [self.execution]
        else:
            executions = []
            for term in self._terms:
                execution = getattr(term, "execution", None)
                if execution is not None and all(execution is not e for e in executions):
                    executions.append(execution)
        decisions = [decision for execution in executions for decision in execution.memory_decisions()]
        objective, gradient = self._evaluation_counts
        return LikelihoodDiagnostics(datasets, objective, gradient, decisions)


def _read_only(name, doc):
    return property(lambda self: self._fields[name], doc=doc)


class DatasetDiagnostics:
    """How one dataset of a likelihood term was prepared (laddu's ``DatasetDiagnostics``).

    laddu's fields, filled from the prepared term. ``normalization_cache_reused``,
    ``normalization_tag_reused_parent``, ``normalization_fallback_reason`` and
    ``source_traversals`` are always None: laddu-cpp keeps no normalisation cache, no tag
    projections of it, no reason for not decomposing a model, and does not count reads. The
    other normalisation fields are None for the observed data (as in laddu) and for accepted MC
    evaluated by a pass over its events, except ``normalization_strategy`` (``"general"``).
    ``normalization_strategy`` is laddu's name of the strategy in use (``"hermitian"``,
    ``"linear_statistics"``, ``"hybrid"`` or ``"general"``); ``normalization_basis_count`` counts
    the statistics' matrix terms plus linear bases (laddu counts each packed matrix entry).
    ``sum_weights`` and ``local_batches`` are None for accepted MC folded into the statistics
    without a residual, which keeps no events (under ``"hybrid"`` they describe the residual's
    prepared events).

    laddu-cpp's own fields: ``backend`` (``"interpreter"`` or ``"jit"``, the term's),
    ``bytes_per_event`` and ``cache_bytes`` (the cache plan: its bytes per event and in all),
    ``cache_columns`` (the resident cache's slots), ``memory_decision`` (why it is resident or
    streamed), ``prepare_seconds`` (the whole term's build time, the same for both of its
    datasets); None where the dataset has no event cache. ``normalization_from_data_cache``
    (accepted MC folded into the statistics): True when the statistics were read from the data's
    event cache, the accepted MC being the data itself; None otherwise."""

    def __init__(self, term, role, info, events, prepare_seconds):
        memory = events["memory"]
        fast = role == "accepted_mc" and info["fast_normalization"]
        resident = memory is None or memory["strategy"] == "resident"
        if memory is None:
            batches = None
        elif resident:
            batches = 1 if events["local_events"] else 0
        else:
            batches = -(-events["local_events"] // max(memory["window_events"], 1))
        accepted = role == "accepted_mc"
        self._fields = {
            "term": term,
            "role": role,
            "storage": "resident" if resident else "streaming",
            "local_events": events["local_events"],
            "global_events": events["events"],
            "local_batches": batches,
            "sum_weights": events["sum_weights"],
            "resident_bytes": events["resident_bytes"],
            "uses_quadratic_normalization": fast,
            "normalization_strategy": info["normalization_strategy"] if accepted else None,
            "normalization_basis_count": (
                info["normalization_terms"] + info["normalization_bases"] if fast else None
            ),
            "normalization_coherent_group_count": info["normalization_groups"] if fast else None,
            "normalization_has_residual": info["normalization_has_residual"] if fast else None,
            "normalization_retained_bytes": info["normalization_bytes"] if fast else None,
            "normalization_preparation_passes": None,
            "normalization_cache_reused": None,
            "normalization_tag_reused_parent": None,
            "normalization_fallback_reason": None,
            "source_traversals": None,
            "backend": info["backend"],
            "bytes_per_event": None if memory is None else memory["bytes_per_event"],
            "cache_bytes": None if memory is None else memory["cache_bytes"],
            "cache_columns": events["cache_columns"],
            "memory_decision": None if memory is None else memory["decision"],
            "prepare_seconds": prepare_seconds,
            "normalization_from_data_cache": info["normalization_from_data_cache"] if fast else None,
        }

    def __repr__(self):
        return (f"DatasetDiagnostics(term={self.term!r}, role={self.role!r}, storage={self.storage!r}, "
                f"global_events={self.global_events}, backend={self.backend!r}, "
                f"normalization_strategy={self.normalization_strategy!r})")


for _name in (
    "term", "role", "storage", "local_events", "global_events", "local_batches", "sum_weights",
    "resident_bytes", "uses_quadratic_normalization", "normalization_strategy",
    "normalization_basis_count", "normalization_coherent_group_count", "normalization_has_residual",
    "normalization_retained_bytes", "normalization_preparation_passes", "normalization_cache_reused",
    "normalization_tag_reused_parent", "normalization_fallback_reason", "source_traversals",
    "backend", "bytes_per_event", "cache_bytes", "cache_columns", "memory_decision", "prepare_seconds",
    "normalization_from_data_cache",
):
    setattr(DatasetDiagnostics, _name, _read_only(_name, f"{_name} (see the class docstring)."))
del _name


class LikelihoodDiagnostics:
    """laddu's ``LikelihoodDiagnostics``: ``datasets`` (a ``DatasetDiagnostics`` per dataset, in
    term order, observed before accepted MC), ``objective_evaluations`` (value calls) and
    ``gradient_evaluations`` (value-and-gradient calls, those of fits and their Hessians
    included), ``memory_decisions`` (``Execution.memory_decisions()`` of the execution)."""

    def __init__(self, datasets, objective, gradient, decisions):
        self._fields = {
            "datasets": list(datasets),
            "objective_evaluations": objective,
            "gradient_evaluations": gradient,
            "memory_decisions": list(decisions),
        }

    datasets = _read_only("datasets", "list of DatasetDiagnostics, in term and role order.")
    objective_evaluations = _read_only("objective_evaluations", "int: value calls so far.")
    gradient_evaluations = _read_only("gradient_evaluations", "int: value-and-gradient calls so far.")
    memory_decisions = _read_only("memory_decisions", "list of dict: the execution's memory decisions.")

    def __repr__(self):
        return (f"LikelihoodDiagnostics(datasets={len(self.datasets)}, objective_evaluations="
                f"{self.objective_evaluations}, gradient_evaluations={self.gradient_evaluations})")


def _resolve_term(likelihood, term):
    if isinstance(term, str):
        names = [t.name for t in likelihood.terms]
        matches = [t for t in likelihood.terms if t.name == term]
        if len(matches) != 1:
            what = "no term" if not matches else f"{len(matches)} terms"
            raise _core.ModelError(f"{what} named '{term}' in this likelihood; terms: {names}")
        term = matches[0]
    if not isinstance(term, _core.UnbinnedNLL):
        raise _core.ModelError(f"only an NLL or ExtendedNLL term can be projected, not {type(term).__name__}")
    return term


class GeneratedProjection:
    """laddu's LikelihoodProjection with generated MC: weights over the generated events
    (acceptance-corrected) or, with ``acceptance_corrected=False``, over the accepted MC."""

    def __init__(self, likelihood, term, tags, generated_mc):
        if not hasattr(term, "model"):
            raise _core.ModelError("projection(generated_mc=) needs a term built with ld.NLL or ld.ExtendedNLL")
        self._likelihood = likelihood
        self._term = term
        self._accepted = likelihood._projection(term, tags=tags)
        self._model = term.model.projection(list(tags)) if tags else term.model
        self._generated = generated_mc
        self.tags = list(tags) if tags else []

    def _by_name(self, parameters):
        names = self._likelihood.parameter_names
        if parameters is None:
            return dict(zip(names, self._likelihood.default_parameters))
        if isinstance(parameters, dict):
            values = dict(zip(names, self._likelihood.default_parameters))
            unknown = [k for k in parameters if k not in values]
            if unknown:
                raise _core.ModelError(f"unknown parameter '{unknown[0]}'; parameters: [{', '.join(names)}]")
            values.update(parameters)
            return values
        values = [float(v) for v in parameters]
        if len(values) != len(names):
            raise ValueError(f"expected {len(names)} parameter values ([{', '.join(names)}]), got {len(values)}")
        return dict(zip(names, values))

    def weights(self, parameters=None, *, acceptance_corrected=True):
        """Per generated event w_g I_tags(θ) scaled as the accepted projection is (the full
        model's N_w / Σ_acc w I for NLL, 1 for ExtendedNLL); acceptance_corrected=False gives
        the accepted-MC weights."""
        if not acceptance_corrected:
            return self._accepted.weights(parameters)
        values = self._by_name(parameters)
        term_values = [values[n] for n in self._term.parameter_names]
        if isinstance(self._term, _core.NLL):
            scale = self._term.data_sum_weights / self._term.normalization_integral(term_values)
        else:
            scale = 1.0
        free = {n: values[n] for n in self._model.free_parameter_names}
        intensity = self._model.evaluate(self._generated, parameters=free, execution=self._term.execution)
        return self._generated.weights() * intensity * scale


def projection(self, term, *, tags=None, generated_mc=None):
    """laddu's likelihood.projection(term, generated_mc=, tags=): `term` is a term or its name."""
    term = _resolve_term(self, term)
    if isinstance(tags, str):
        tags = [tags]
    if generated_mc is None:
        return self._projection(term, tags=tags)
    return GeneratedProjection(self, term, tags, generated_mc)


def bootstrap_fit(self, samples, initial=None, *, seed=0, **fit_options):
    """laddu's bootstrap_fit: replica k resamples the data of every NLL term i with
    data.bootstrap(seed + k + i·0x9E3779B97F4A7C15) (the accepted MC and any penalty terms
    unchanged) and refits from `initial`. Returns an ld.Ensemble whose draws are the replicas'
    fitted parameters, paired with the replica likelihoods (``replicas``) for cross sections,
    with ``seeds`` and ``fits`` (the FitResults) beside them."""
    # Counts and seeds as the compiled ld.bootstrap_fit takes them (size_t, uint64): an int, not a
    # float or an Expr, and not 2**64 (whose list of seeds alone would never be built).
    samples, seed = operator.index(samples), operator.index(seed)
    if samples <= 0:
        raise _core.FitError(f"bootstrap_fit needs at least one sample, got {samples}")
    if samples >= 2**64 or not 0 <= seed < 2**64 or seed + samples > 2**64:
        raise OverflowError(f"bootstrap_fit needs samples and seed + samples within 2**64, got "
                            f"samples={samples}, seed={seed}")
    for term in self.terms:
        if isinstance(term, _core.UnbinnedNLL) and not hasattr(term, "data"):
            raise _core.FitError(f"term '{term.name}' was not built with ld.NLL or ld.ExtendedNLL")
    seeds = [seed + k for k in range(samples)]
    fits, replicas = [], []
    for s in seeds:
        # laddu's Likelihood::bootstrap: term i of replica s resamples with seed s + i·0x9E3779B97F4A7C15.
        terms = [
            type(t)(t.model, data=t.data.bootstrap(seed=(s + i * 0x9E3779B97F4A7C15) % 2**64),
                    accepted_mc=t.accepted_mc, execution=t.execution, name=t.name)
            if isinstance(t, _core.UnbinnedNLL)
            else t
            for i, t in enumerate(self.terms)
        ]
        replica = Likelihood(terms, execution=getattr(self, "execution", None))
        fits.append(replica.fit(initial, **fit_options))
        replicas.append(replica)
    return Ensemble._make(self.parameter_names, [f.x for f in fits], replicas=replicas, seeds=seeds, fits=fits)


_core.Likelihood.projection = projection
_core.Likelihood.bootstrap_fit = bootstrap_fit
