"""laddu's uncertainty vocabulary: ``Ensemble`` (named parameter draws, optionally paired with the
bootstrap likelihood replicas they were fitted on), ``Estimate`` (a central value and its draws)
and ``BinnedEstimate`` (the same per bin).

Draws of two estimates are combined draw by draw when they come from the same uncertainty source
(``source_id``), and paired by a fixed pseudo-random index map otherwise, exactly as laddu 0.21.4
does, so arithmetic on estimates of one ensemble keeps their correlation.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from . import _core

_source_ids = itertools.count(1)
_U64 = (1 << 64) - 1


def next_source_id():
    """A process-wide identifier for a new independent uncertainty source."""
    return next(_source_ids)


def _naive_sum(values):
    # Left to right in double, as laddu's iterator sums (Python's sum() compensates from 3.12).
    total = 0.0
    for v in values:
        total += v
    return total


def _float_vector(values, what):
    try:
        array = np.array(values, dtype=float)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{what} must be a sequence of numbers: {error}") from None
    if array.ndim != 1:
        raise _core.ModelError(f"{what} must be one-dimensional, got shape {array.shape}")
    return array


def _source_id(value, what="source_id"):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    value = int(value)
    if not 0 <= value <= _U64:
        raise OverflowError(f"{what} must lie in [0, 2**64), got {value}")
    return value


class Ensemble:
    """Named free-parameter draws that propagate uncertainty into cross sections: rows of
    ``parameter_names``-ordered values. From ``Likelihood.bootstrap_fit`` each draw is paired with
    the replica likelihood (resampled data) it was fitted on; from ``from_mcmc`` or
    ``from_arrays`` the draws are evaluated against the original data."""

    def __init__(self, *args, **kwargs):
        raise TypeError("build an Ensemble with Ensemble.from_arrays, Ensemble.from_mcmc or "
                        "Likelihood.bootstrap_fit")

    @classmethod
    def _make(cls, parameter_names, draws, source_id=None, replicas=(), seeds=(), fits=()):
        names = list(parameter_names)
        if not all(isinstance(n, str) for n in names):
            raise TypeError("parameter_names must be a sequence of str")
        rows = np.array(draws, dtype=float)
        if rows.ndim != 2 or rows.shape[0] == 0:
            raise _core.ModelError("an ensemble must contain at least one draw: pass a 2-D array "
                                   "of shape (draws, parameters)")
        if rows.shape[1] != len(names) or not np.all(np.isfinite(rows)):
            raise _core.ModelError(
                f"every ensemble draw must be finite and have {len(names)} values (one per "
                f"parameter name), got shape {rows.shape}")
        self = object.__new__(cls)
        self._names = names
        self._draws = rows
        self._source_id = next_source_id() if source_id is None else source_id
        self._replicas = list(replicas)
        self.seeds = list(seeds)
        self.fits = list(fits)
        return self

    @staticmethod
    def from_arrays(values, *, parameter_names, source_id=None):
        """An ensemble from a 2-D array of draws (rows) in ``parameter_names`` order."""
        if isinstance(parameter_names, str):
            raise TypeError("parameter_names must be a sequence of names, not one string")
        try:
            rows = np.array(values, dtype=float)
        except (TypeError, ValueError) as error:
            raise TypeError(f"values must be a 2-D array of numbers: {error}") from None
        return Ensemble._make(list(parameter_names), rows, _source_id(source_id))

    @staticmethod
    def from_mcmc(summary, *, discard, thin=1):
        """The chain of an ``MCMCSummary`` after dropping the first ``discard`` steps of every
        walker and keeping every ``thin``-th step, walker by walker."""
        discard, thin = int(discard), int(thin)
        names = getattr(summary, "parameter_names", None)
        if names is None:
            raise _core.ModelError("MCMC summary has no parameter names: sample a likelihood, or "
                                   "give the sampler config parameter_names")
        chain = np.asarray(summary.chain, dtype=float)
        if thin <= 0:
            raise _core.ModelError(f"MCMC thinning must be positive, got {thin}")
        if discard < 0 or chain.ndim != 3 or chain.shape[0] == 0 or discard >= chain.shape[1]:
            raise _core.ModelError(f"MCMC discard must leave at least one step in every walker "
                                   f"(chain shape {chain.shape}, discard={discard})")
        rows = chain[:, discard::thin, :].reshape(-1, chain.shape[2])
        return Ensemble._make(list(names), rows)

    @property
    def parameter_names(self):
        """Names of the draw columns."""
        return list(self._names)

    @property
    def source_id(self):
        """The uncertainty source these draws belong to."""
        return self._source_id

    @property
    def draws(self):
        """The draws, shape (draws, parameters)."""
        return self._draws.copy()

    @property
    def replicas(self):
        """The bootstrap replica likelihoods paired with the draws (empty unless from
        bootstrap_fit)."""
        return list(self._replicas)

    def __len__(self):
        return int(self._draws.shape[0])

    def _converged(self):
        if not self.fits:
            return self._draws
        return np.array([f.x for f in self.fits if f.converged], dtype=float).reshape(-1, len(self._names))

    def mean(self):
        """Per parameter: the mean over the draws (from bootstrap_fit: over converged replicas;
        NaN when none converged). laddu-cpp."""
        values = self._converged()
        return list(values.mean(axis=0)) if len(values) else [math.nan] * len(self._names)

    def std(self):
        """Per parameter: the sample standard deviation over the draws (bootstrap_fit: the
        converged replicas). laddu-cpp."""
        values = self._converged()
        return list(values.std(axis=0, ddof=1)) if len(values) > 1 else [math.nan] * len(self._names)

    def __repr__(self):
        return f"Ensemble(draws={len(self)}, parameters={len(self._names)}, source_id={self._source_id})"


class Estimate:
    """A central value with optional uncertainty draws (``Estimate(central, *, draws=None,
    source_id=None)``). Arithmetic with another Estimate or a float propagates the draws."""

    __slots__ = ("_central", "_draws", "_source_id")

    def __init__(self, central, *, draws=None, source_id=None):
        central = float(central)
        values = _float_vector([] if draws is None else draws, "draws")
        if not math.isfinite(central) or not np.all(np.isfinite(values)):
            raise _core.ModelError("estimate central value and draws must be finite")
        source = _source_id(source_id)
        if source is None and len(values):
            source = next_source_id()
        self._set(central, values, source)

    def _set(self, central, draws, source_id):
        self._central = central
        self._draws = draws
        self._source_id = source_id

    @classmethod
    def _make(cls, central, draws, source_id):
        self = object.__new__(cls)
        self._set(float(central), np.asarray(draws, dtype=float), source_id)
        return self

    @property
    def central(self):
        """The central value."""
        return self._central

    @property
    def draws(self):
        """The uncertainty draws (empty without an ensemble)."""
        return self._draws.copy()

    @property
    def source_id(self):
        """The uncertainty source of the draws (None without draws)."""
        return self._source_id

    def _need(self, count):
        if len(self._draws) < count:
            raise _core.ModelError(
                f"estimate needs at least {'one uncertainty draw' if count == 1 else 'two uncertainty draws'}, "
                f"has {len(self._draws)}: pass ensemble= to the cross section")

    def mean(self):
        """Mean of the draws."""
        self._need(1)
        return _naive_sum(self._draws.tolist()) / len(self._draws)

    def std(self):
        """Standard deviation of the draws (Bessel-corrected)."""
        self._need(2)
        mean = self.mean()
        return math.sqrt(_naive_sum([(v - mean) ** 2 for v in self._draws.tolist()]) / (len(self._draws) - 1))

    def quantile(self, probability):
        """The linearly interpolated draw quantile at ``probability`` in [0, 1]."""
        probability = float(probability)
        if not 0.0 <= probability <= 1.0:
            raise _core.ModelError(f"quantile probability must lie in [0, 1], got {probability}")
        self._need(1)
        values = sorted(self._draws.tolist())
        position = probability * (len(values) - 1)
        lower, upper = math.floor(position), math.ceil(position)
        fraction = position - lower
        return values[lower] * (1.0 - fraction) + values[upper] * fraction

    def median(self):
        """The 0.5 quantile of the draws."""
        return self.quantile(0.5)

    def interval(self, level=0.68):
        """The equal-tailed interval holding ``level`` of the draws, 0 < level < 1."""
        level = float(level)
        if not 0.0 < level < 1.0:
            raise _core.ModelError(f"interval level must lie in (0, 1), got {level}")
        tail = (1.0 - level) * 0.5
        return (self.quantile(tail), self.quantile(1.0 - tail))

    def _binary(self, other, op):
        if isinstance(other, Estimate):
            right = other
        elif isinstance(other, (int, float, np.floating, np.integer)) and not isinstance(other, bool):
            right = Estimate._make(float(other), np.empty(0), None)
        else:
            return NotImplemented
        return _combine(self, right, op)

    def __add__(self, other):
        return self._binary(other, lambda a, b: a + b)

    def __sub__(self, other):
        return self._binary(other, lambda a, b: a - b)

    def __mul__(self, other):
        return self._binary(other, lambda a, b: a * b)

    def __truediv__(self, other):
        return self._binary(other, _divide)

    def __radd__(self, other):
        return self._binary(other, lambda a, b: b + a)

    def __rsub__(self, other):
        return self._binary(other, lambda a, b: b - a)

    def __rmul__(self, other):
        return self._binary(other, lambda a, b: b * a)

    def __rtruediv__(self, other):
        return self._binary(other, lambda a, b: _divide(b, a))

    def __repr__(self):
        if len(self._draws) > 1:
            return f"Estimate({self._central!r}, draws={len(self._draws)}, std={self.std():.6g})"
        return f"Estimate({self._central!r})"


def _divide(a, b):
    # IEEE division as laddu's f64 (x / 0 is ±inf or NaN, not ZeroDivisionError).
    return float(np.float64(a) / np.float64(b)) if b == 0.0 else a / b


def _combine(left, right, op):
    nl, nr = len(left._draws), len(right._draws)
    count = 0 if nl == 0 and nr == 0 else (nr if nl == 0 else (nl if nr == 0 else min(nl, nr)))
    same = left._source_id == right._source_id
    draws = []
    for index in range(count):
        a = left._draws[index] if index < nl else left._central
        # laddu's pairing of unrelated sources: (index · 6364136223846793005 + 1) mod 2^64.
        j = index if same else (((index * 6364136223846793005) & _U64) + 1) & _U64
        j = j % max(nr, 1)
        b = right._draws[j] if j < nr else right._central
        draws.append(op(float(a), float(b)))
    if nl and not nr:
        source = left._source_id
    elif nr and not nl:
        source = right._source_id
    elif nl and nr:
        source = left._source_id if same else next_source_id()
    else:
        source = None
    return Estimate._make(op(left._central, right._central), np.array(draws, dtype=float), source)


class BinnedEstimate:
    """Central values per (flattened, row-major) bin, with one row of bin values per draw."""

    def __init__(self, *args, **kwargs):
        raise TypeError("BinnedEstimate is returned by CrossSection.differential")

    @classmethod
    def _make(cls, central, draws):
        self = object.__new__(cls)
        self._central = [float(v) for v in central]
        self._draws = [[float(v) for v in row] for row in draws]
        return self

    @property
    def central(self):
        """Central value per bin."""
        return list(self._central)

    @property
    def draws(self):
        """Bin values per draw."""
        return [list(row) for row in self._draws]

    def interval(self, level=0.68):
        """Per bin: the equal-tailed interval holding ``level`` of the draws."""
        if not self._draws:
            raise _core.ModelError("binned estimate has no uncertainty draws: pass ensemble= to "
                                   "the cross section")
        lower, upper = [], []
        for k, central in enumerate(self._central):
            low, high = Estimate._make(central, [row[k] for row in self._draws], None).interval(level)
            lower.append(low)
            upper.append(high)
        return lower, upper

    def covariance(self):
        """The sample covariance between bins over the draws (Bessel-corrected)."""
        if len(self._draws) < 2:
            raise _core.ModelError("binned estimate needs at least two uncertainty draws: pass an "
                                   "ensemble with two or more draws")
        count = float(len(self._draws))
        bins = len(self._central)
        means = [_naive_sum([row[k] for row in self._draws]) / count for k in range(bins)]
        return [[_naive_sum([(row[a] - means[a]) * (row[b] - means[b]) for row in self._draws]) / (count - 1.0)
                 for b in range(bins)] for a in range(bins)]

    def __len__(self):
        return len(self._central)

    def __repr__(self):
        return f"BinnedEstimate(bins={len(self._central)}, draws={len(self._draws)})"
