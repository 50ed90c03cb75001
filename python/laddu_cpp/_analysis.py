"""The parts of laddu's likelihood API that need a term's model and datasets after construction.

``NLL`` and ``ExtendedNLL`` here are the compiled classes plus the ``model``, ``data``,
``accepted_mc`` and ``execution`` they were built from, which lets a ``Likelihood``

* project a term by its name, and onto generated MC (``acceptance_corrected=True``), and
* refit Poisson-bootstrap replicas of its data (``bootstrap_fit``),

as laddu does. Everything else runs in the compiled core.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from . import _core


class NLL(_core.NLL):
    """N_w ln(Σ_acc w I) − Σ_data w ln I (laddu's normalised NLL)."""

    def __init__(self, model, *, data, accepted_mc, execution=None, name="nll"):
        super().__init__(model, data=data, accepted_mc=accepted_mc, execution=execution, name=name)
        self.model, self.data, self.accepted_mc, self.execution = model, data, accepted_mc, execution


class ExtendedNLL(_core.ExtendedNLL):
    """Σ_acc w I − Σ_data w ln I (laddu's extended NLL)."""

    def __init__(self, model, *, data, accepted_mc, execution=None, name="extended_nll"):
        super().__init__(model, data=data, accepted_mc=accepted_mc, execution=execution, name=name)
        self.model, self.data, self.accepted_mc, self.execution = model, data, accepted_mc, execution


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


class BootstrapFits:
    """The replica fits of Likelihood.bootstrap_fit, each beside its seed."""

    def __init__(self, seeds, fits):
        self.seeds = list(seeds)
        self.fits = list(fits)

    def __len__(self):
        return len(self.fits)

    def _converged(self):
        return np.array([f.values for f in self.fits if f.converged], dtype=float)

    def mean(self):
        """Per parameter: the mean over the converged replicas (NaN when none converged)."""
        values = self._converged()
        n = len(self.fits[0].parameter_names) if self.fits else 0
        return list(values.mean(axis=0)) if len(values) else [math.nan] * n

    def std(self):
        """Per parameter: the sample standard deviation over the converged replicas."""
        values = self._converged()
        n = len(self.fits[0].parameter_names) if self.fits else 0
        return list(values.std(axis=0, ddof=1)) if len(values) > 1 else [math.nan] * n


def bootstrap_fit(self, samples, initial=None, *, seed=0, **fit_options):
    """laddu's bootstrap_fit: replica k refits every NLL term on data.bootstrap(seed + k) (the
    accepted MC and any penalty terms unchanged) from `initial`."""
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
        if isinstance(term, _core.UnbinnedNLL) and not isinstance(term.data, _core.Dataset):
            raise _core.FitError(
                f"term '{term.name}' reads its data lazily (ld.EventData); bootstrap replicas need "
                "the events in memory: build the term on data.to_dataset()"
            )
    seeds = [seed + k for k in range(samples)]
    fits = []
    for s in seeds:
        terms = [
            type(t)(t.model, data=t.data.bootstrap(s), accepted_mc=t.accepted_mc, execution=t.execution, name=t.name)
            if isinstance(t, _core.UnbinnedNLL)
            else t
            for t in self.terms
        ]
        fits.append(_core.Likelihood(terms).fit(initial, **fit_options))
    return BootstrapFits(seeds, fits)


_core.Likelihood.projection = projection
_core.Likelihood.bootstrap_fit = bootstrap_fit
