"""ganesh's other minimisers for ``ld.ganesh``: CMA-ES, particle swarm, differential evolution,
simulated annealing, nonlinear conjugate gradient and trust region configs with their
terminators, the transform specifications (Bounds, ScaleTransform, PeriodicTransform,
TransformChain), VectorInit and MultiStartSummary.

``likelihood.fit(config=ld.ganesh.CMAESConfig(...))`` runs that minimiser (laddu-cpp's C++ code,
``include/laddu/fit/minimizer.hpp``); laddu 0.21.4's own ``Likelihood.fit`` takes only
NelderMeadConfig and LBFGSBConfig. The stochastic configs take ``seed=`` (laddu-cpp's addition,
default 0 as ganesh's default generator): a fit is a function of its seed. ganesh 0.28.1's names,
defaults and validation; see each class.
"""

import math as _math
import reprlib as _reprlib
from collections.abc import Sequence as _Sequence

import numpy as _np

from .ganesh import (
    _EPSILON,
    GaneshConfigError,
    HagerZhangLineSearch,
    MoreThuenteLineSearch,
    _choice,
    _names,
    _positive_finite,
    _real,
    _whole,
)

_TRANSFORM_MESSAGE = ("{config}(transform=) is not supported by laddu-cpp: bounded parameters are mapped "
                      "by laddu-cpp's own transform (MINUIT's, as laddu does); leave transform=None")


def _no_transform(transform: object, config: str) -> None:
    if transform is not None:
        if not isinstance(transform, (Bounds, ScaleTransform, PeriodicTransform, TransformChain)):
            raise GaneshConfigError("transform must be a Ganesh bounds, scale, periodic, or transform-chain object "
                             f"(ld.ganesh.Bounds, ScaleTransform, PeriodicTransform, TransformChain), got "
                             f"{type(transform).__name__}")
        raise GaneshConfigError(_TRANSFORM_MESSAGE.format(config=config))


def _seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, _np.integer)):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    if not 0 <= int(seed) < 2**64:
        raise GaneshConfigError(f"seed must be in [0, 2**64), got {_reprlib.repr(seed)}")
    return int(seed)


def _population(value: int, what: str, minimum: int) -> int:
    """0 (ganesh's size from the dimension) or at least ``minimum``."""
    value = _whole(value, what, 0)
    if value != 0 and value < minimum:
        raise GaneshConfigError(f"{what} must be 0 (the default size) or at least {minimum}, got {_reprlib.repr(value)}")
    return value


def _non_negative(value: float, what: str) -> float:
    value = _real(value, what)
    if not (_math.isfinite(value) and value >= 0.0):
        raise GaneshConfigError(f"{what} must be finite and non-negative, got {_reprlib.repr(value)}")
    return value


def _pairs(value: object, what: str, allow_infinite: bool) -> list[tuple[float, float]]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (_Sequence, _np.ndarray)):
        raise TypeError(f"{what} must be a sequence of (lower, upper) pairs")
    out = []
    for pair in value:
        if isinstance(pair, (str, bytes)) or not isinstance(pair, (_Sequence, _np.ndarray)) or len(pair) != 2:
            raise TypeError(f"each entry of {what} must be a (lower, upper) pair, got {_reprlib.repr(pair)}")
        lower, upper = _real(pair[0], f"a lower bound of {what}"), _real(pair[1], f"an upper bound of {what}")
        finite = _math.isfinite(lower) and _math.isfinite(upper)
        if not lower < upper or (not allow_infinite and not finite):
            kind = "ordered (lower < upper)" if allow_infinite else "finite and ordered (lower < upper)"
            raise GaneshConfigError(f"{what} must be {kind}, got ({_reprlib.repr(lower)}, {_reprlib.repr(upper)})")
        out.append((lower, upper))
    if not out:
        raise GaneshConfigError(f"{what} must not be empty")
    return out


# ---- transforms (ganesh's Transform specifications) -------------------------------------------

class Bounds:
    """ganesh's smooth parameter bounds: one (lower, upper) pair per parameter (an end may be
    infinite). laddu-cpp's fits take bounds from the parameters (or LBFGSBConfig.bounds), so this
    is a specification only; a config's ``transform=`` does not accept it."""

    def __init__(self, bounds: _Sequence[tuple[float, float]]) -> None:
        self.bounds = _pairs(bounds, "bounds", allow_infinite=True)

    def __repr__(self) -> str:
        return f"Bounds({self.bounds!r})"


class ScaleTransform:
    """ganesh's per-parameter characteristic scales (each finite and nonzero)."""

    def __init__(self, scales: _Sequence[float]) -> None:
        if isinstance(scales, (str, bytes)) or not isinstance(scales, (_Sequence, _np.ndarray)):
            raise TypeError("scales must be a sequence of floats")
        self.scales = [_real(s, "a scale") for s in scales]
        if not self.scales or not all(_math.isfinite(s) and s != 0.0 for s in self.scales):
            raise GaneshConfigError(f"scale multipliers must be nonempty, finite, and nonzero, got {_reprlib.repr(self.scales)}")

    def __repr__(self) -> str:
        return f"ScaleTransform({self.scales!r})"


class PeriodicTransform:
    """ganesh's per-parameter optional periodic intervals: a (lower, upper) pair, finite and
    ordered, or None for a parameter that is not periodic."""

    def __init__(self, intervals: _Sequence[tuple[float, float] | None]) -> None:
        if isinstance(intervals, (str, bytes)) or not isinstance(intervals, _Sequence):
            raise TypeError("intervals must be a sequence of (lower, upper) pairs or None")
        self.intervals = [None if i is None else _pairs([i], "a periodic interval", allow_infinite=False)[0]
                          for i in intervals]
        if not self.intervals:
            raise GaneshConfigError("intervals must not be empty")

    def __repr__(self) -> str:
        return f"PeriodicTransform({self.intervals!r})"


class TransformChain:
    """ganesh's transform sequence applied in the given order (at least one of Bounds,
    ScaleTransform, PeriodicTransform or TransformChain)."""

    def __init__(self, transforms: _Sequence[object]) -> None:
        try:
            items = list(transforms)
        except TypeError as error:
            raise TypeError("transforms must be an iterable of ganesh transforms") from error
        for item in items:
            if not isinstance(item, (Bounds, ScaleTransform, PeriodicTransform, TransformChain)):
                raise GaneshConfigError("expected a Ganesh bounds, scale, periodic, or transform-chain object, got "
                                 f"{type(item).__name__}")
        if not items:
            raise GaneshConfigError("a transform chain requires at least one transform")
        self.transforms = items

    def __repr__(self) -> str:
        return f"TransformChain({self.transforms!r})"


class VectorInit:
    """ganesh's validated start vector (non-empty, finite); ``Likelihood.fit(initial=...)``
    accepts it as laddu does. ``values`` is a numpy array."""

    def __init__(self, values: _Sequence[float]) -> None:
        try:
            array = _np.asarray(values, dtype=float)
        except (TypeError, ValueError) as error:
            raise TypeError("VectorInit needs a sequence of floats") from error
        if array.ndim != 1 or array.size == 0 or not _np.all(_np.isfinite(array)):
            raise GaneshConfigError("initial values must be non-empty and finite")
        self._values = array.copy()

    @property
    def values(self) -> _np.ndarray:
        return self._values.copy()

    def __len__(self) -> int:
        return int(self._values.size)

    def __iter__(self):
        return iter(self._values.tolist())

    def __repr__(self) -> str:
        return f"VectorInit({self._values.tolist()!r})"


class MultiStartSummary:
    """ganesh's multistart result: ``runs`` (the fits, e.g. ``likelihood.fit_restarts(...)``),
    ``best_run_index`` (the lowest fx, None without runs), ``restart_count`` (runs after the
    first) and ``best``. laddu-cpp builds it from a list of fit results."""

    def __init__(self, runs: _Sequence[object]) -> None:
        runs = list(runs)
        for run in runs:
            if not hasattr(run, "fx"):
                raise TypeError(f"each run must be a fit result (with fx), got {type(run).__name__}")
        self._runs = runs
        finite = [(float(r.fx), i) for i, r in enumerate(runs) if not _math.isnan(float(r.fx))]
        self._best = min(finite)[1] if finite else (0 if runs else None)

    @property
    def runs(self) -> list:
        return list(self._runs)

    @property
    def best_run_index(self) -> int | None:
        return self._best

    @property
    def restart_count(self) -> int:
        return max(len(self._runs) - 1, 0)

    @property
    def best(self):
        return None if self._best is None else self._runs[self._best]

    def __str__(self) -> str:
        best = "—" if self._best is None else str(self._best)
        lines = [f"MULTISTART SUMMARY: completed runs {len(self._runs)}, restarts {self.restart_count}, "
                 f"best run {best}", "run  best  status         f(x)           # f(x)"]
        for i, run in enumerate(self._runs):
            status = "Converged" if getattr(run, "converged", False) else "Not converged"
            evaluations = getattr(run, "value_evaluations", "")
            lines.append(f"{i:<4} {'Yes' if i == self._best else '':<5} {status:<14} {float(run.fx):<14.5f} "
                         f"{evaluations}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"MultiStart Summary: completed_runs={len(self._runs)}, restarts={self.restart_count}, "
                f"best_run={self._best!r}")


# ---- configs ------------------------------------------------------------------------------------

class CMAESConfig:
    """CMA-ES (Hansen's (μ/μ_w, λ) evolution strategy with active covariance update; no gradient):
    ``population_size`` λ (0: 4 + ⌊3 ln n⌋, else at least 2) and ``initial_sigma`` σ₀ (finite,
    > 0), the start step size in the (internal, for bounded parameters) coordinates. It stops on
    ganesh's CMA-ES rules (see the CMAES*Terminator classes), MaxSteps or a callback; the result
    is the best point sampled. ``seed`` (laddu-cpp) fixes the draws."""

    method = "cmaes"

    def __init__(self, *, population_size: int = 0, initial_sigma: float = 0.5,
                 parameter_names: _Sequence[str] | None = None, transform: object | None = None,
                 seed: int = 0) -> None:
        _no_transform(transform, "CMAESConfig")
        self.population_size = _population(population_size, "population_size", 2)
        self.initial_sigma = _positive_finite(_real(initial_sigma, "initial_sigma"), "initial_sigma")
        self.parameter_names = _names(parameter_names)
        self.seed = _seed(seed)

    def __repr__(self) -> str:
        return (f"CMAESConfig(population_size={self.population_size}, initial_sigma={self.initial_sigma}, "
                f"seed={self.seed})")


class PSOConfig:
    """Particle swarm (no gradient): ``particles`` (0: max(10 n, 20), else at least 2), the
    ``inertia``, ``cognitive`` and ``social`` weights (each >= 0), the start: particle 0 at the
    start point and the others uniform in start ± ``initial_scale`` (> 0), or all uniform in
    ``position_bounds`` (one finite (lower, upper) per parameter, in the parameters); ``topology``
    "global" or "ring" (the best within ``ring_radius`` places on each side); ``update_method``
    "synchronous" (neighbourhood bests of the start of the iteration) or "asynchronous" (each
    particle sees the moves before it); ``velocity_scale`` None (start at rest) or the half-width
    of uniform start velocities. ``seed`` (laddu-cpp) fixes the draws."""

    method = "pso"

    def __init__(self, *, particles: int = 0, inertia: float = 0.7298, cognitive: float = 1.49618,
                 social: float = 1.49618, initial_scale: float = 1.0,
                 position_bounds: _Sequence[tuple[float, float]] | None = None, topology: str = "global",
                 ring_radius: int = 1, update_method: str = "synchronous", velocity_scale: float | None = None,
                 parameter_names: _Sequence[str] | None = None, transform: object | None = None,
                 seed: int = 0) -> None:
        _no_transform(transform, "PSOConfig")
        self.particles = _population(particles, "particles", 2)
        self.inertia = _non_negative(inertia, "inertia")
        self.cognitive = _non_negative(cognitive, "cognitive")
        self.social = _non_negative(social, "social")
        self.initial_scale = _positive_finite(_real(initial_scale, "initial_scale"), "initial_scale")
        self.position_bounds = (None if position_bounds is None
                                else _pairs(position_bounds, "position_bounds", allow_infinite=False))
        self.topology = _choice(topology, "topology", ("global", "ring"))
        self.ring_radius = _whole(ring_radius, "ring_radius", 0)
        self.update_method = _choice(update_method, "update_method", ("synchronous", "asynchronous"))
        self.velocity_scale = None if velocity_scale is None else _non_negative(velocity_scale, "velocity_scale")
        self.parameter_names = _names(parameter_names)
        self.seed = _seed(seed)

    def __repr__(self) -> str:
        return (f"PSOConfig(particles={self.particles}, inertia={self.inertia}, cognitive={self.cognitive}, "
                f"social={self.social}, initial_scale={self.initial_scale}, "
                f"position_bounds={self.position_bounds!r}, topology={self.topology!r}, "
                f"ring_radius={self.ring_radius}, update_method={self.update_method!r}, "
                f"velocity_scale={self.velocity_scale!r}, seed={self.seed})")


class DifferentialEvolutionConfig:
    """Differential evolution, DE/rand/1/bin (no gradient): ``population_size`` (0: max(10 n, 4),
    else at least 4), ``differential_weight`` F (finite, > 0), ``crossover_probability`` CR (in
    [0, 1]) and ``initial_scale`` (> 0): the members start uniform in start ± it. ``seed``
    (laddu-cpp) fixes the draws."""

    method = "differential_evolution"

    def __init__(self, *, population_size: int = 0, differential_weight: float = 0.8,
                 crossover_probability: float = 0.9, initial_scale: float = 1.0,
                 parameter_names: _Sequence[str] | None = None, transform: object | None = None,
                 seed: int = 0) -> None:
        _no_transform(transform, "DifferentialEvolutionConfig")
        self.population_size = _population(population_size, "population_size", 4)
        self.differential_weight = _positive_finite(_real(differential_weight, "differential_weight"),
                                                    "differential_weight")
        self.crossover_probability = _real(crossover_probability, "crossover_probability")
        if not 0.0 <= self.crossover_probability <= 1.0:
            raise GaneshConfigError(f"crossover_probability must be finite and between 0 and 1, got {_reprlib.repr(crossover_probability)}")
        self.initial_scale = _positive_finite(_real(initial_scale, "initial_scale"), "initial_scale")
        self.parameter_names = _names(parameter_names)
        self.seed = _seed(seed)

    def __repr__(self) -> str:
        return (f"DifferentialEvolutionConfig(population_size={self.population_size}, "
                f"differential_weight={self.differential_weight}, "
                f"crossover_probability={self.crossover_probability}, initial_scale={self.initial_scale}, "
                f"seed={self.seed})")


class SimulatedAnnealingConfig:
    """Simulated annealing (no gradient): Gaussian proposals x + ``proposal_scale`` · N(0, 1)
    (scale finite, > 0), Metropolis acceptance at temperature T, T ← ``cooling_rate`` · T (rate in
    (0, 1)) from ``initial_temperature`` (> 0). Stops when T falls below a
    SimulatedAnnealingTerminator's min_temperature (default 1e-3), MaxSteps or a callback; the
    result is the best point seen. ``seed`` (laddu-cpp) fixes the draws."""

    method = "simulated_annealing"

    def __init__(self, *, initial_temperature: float = 1.0, cooling_rate: float = 0.999,
                 proposal_scale: float = 0.1, parameter_names: _Sequence[str] | None = None,
                 transform: object | None = None, seed: int = 0) -> None:
        _no_transform(transform, "SimulatedAnnealingConfig")
        self.initial_temperature = _real(initial_temperature, "initial_temperature")
        if not (_math.isfinite(self.initial_temperature) and self.initial_temperature > 0.0):
            raise GaneshConfigError(f"Initial temperature must be greater than 0, got {_reprlib.repr(initial_temperature)}")
        self.cooling_rate = _real(cooling_rate, "cooling_rate")
        if not 0.0 < self.cooling_rate < 1.0:
            raise GaneshConfigError(f"Cooling rate must be in (0, 1), got {_reprlib.repr(cooling_rate)}")
        self.proposal_scale = _positive_finite(_real(proposal_scale, "proposal_scale"), "proposal_scale")
        self.parameter_names = _names(parameter_names)
        self.seed = _seed(seed)

    def __repr__(self) -> str:
        return (f"SimulatedAnnealingConfig(initial_temperature={self.initial_temperature}, "
                f"cooling_rate={self.cooling_rate}, proposal_scale={self.proposal_scale}, seed={self.seed})")


class ConjugateGradientConfig:
    """Nonlinear conjugate gradient with the analytic gradient: ``update`` the β formula,
    "fletcher_reeves", "polak_ribiere_plus" (default), "hestenes_stiefel_plus", "dai_yuan" or
    "hager_zhang"; ``line_search`` a MoreThuenteLineSearch (None: its defaults) or
    HagerZhangLineSearch. Stops on ConjugateGradientGTerminator (‖g‖₂ below ∛ε by default),
    laddu-cpp's gradient and value-change rules, MaxSteps or a callback."""

    method = "conjugate_gradient"

    def __init__(self, *, update: str = "polak_ribiere_plus",
                 line_search: MoreThuenteLineSearch | HagerZhangLineSearch | None = None,
                 parameter_names: _Sequence[str] | None = None, transform: object | None = None) -> None:
        _no_transform(transform, "ConjugateGradientConfig")
        self.update = _choice(update, "update", ("fletcher_reeves", "polak_ribiere_plus", "hestenes_stiefel_plus",
                                                 "dai_yuan", "hager_zhang"))
        if line_search is not None and not isinstance(line_search, (MoreThuenteLineSearch, HagerZhangLineSearch)):
            raise TypeError("line_search must be ld.ganesh.MoreThuenteLineSearch, ld.ganesh.HagerZhangLineSearch "
                            f"or None, got {type(line_search).__name__}")
        self.line_search = line_search
        self.parameter_names = _names(parameter_names)

    def __repr__(self) -> str:
        return f"ConjugateGradientConfig(update={self.update!r}, line_search={self.line_search!r})"


class TrustRegionConfig:
    """Trust region on the Hessian from central differences of the analytic gradient:
    ``subproblem`` "dogleg" or "cauchy_point", ``initial_radius`` and ``max_radius`` (finite,
    > 0), and ``eta`` in [0, 1), the least ratio of actual to predicted decrease that accepts a
    step. Stops on TrustRegionGTerminator (‖g‖₂ below ∛ε by default), laddu-cpp's gradient and
    value-change rules, MaxSteps or a callback."""

    method = "trust_region"

    def __init__(self, *, subproblem: str = "dogleg", initial_radius: float = 1.0, max_radius: float = 1000.0,
                 eta: float = 1e-4, parameter_names: _Sequence[str] | None = None,
                 transform: object | None = None) -> None:
        _no_transform(transform, "TrustRegionConfig")
        self.subproblem = _choice(subproblem, "subproblem", ("dogleg", "cauchy_point"))
        self.initial_radius = _real(initial_radius, "initial_radius")
        if not (_math.isfinite(self.initial_radius) and self.initial_radius > 0.0):
            raise GaneshConfigError(f"Initial radius must be finite and greater than 0, got {_reprlib.repr(initial_radius)}")
        self.max_radius = _real(max_radius, "max_radius")
        if not (_math.isfinite(self.max_radius) and self.max_radius > 0.0):
            raise GaneshConfigError(f"Maximum radius must be finite and greater than 0, got {_reprlib.repr(max_radius)}")
        self.eta = _real(eta, "eta")
        if not (_math.isfinite(self.eta) and 0.0 <= self.eta < 1.0):
            raise GaneshConfigError(f"eta must be finite and in the range [0, 1), got {_reprlib.repr(eta)}")
        self.parameter_names = _names(parameter_names)

    def __repr__(self) -> str:
        return (f"TrustRegionConfig(subproblem={self.subproblem!r}, initial_radius={self.initial_radius}, "
                f"max_radius={self.max_radius}, eta={self.eta})")


# ---- terminators --------------------------------------------------------------------------------
# Given to ``fit(terminators=...)`` they join the method's default rules (as in ganesh): a looser
# threshold than the default's stops earlier, a stricter one changes nothing.

class SimulatedAnnealingTerminator:
    """Stops simulated annealing when the temperature falls below ``min_temperature`` (> 0)."""

    def __init__(self, *, min_temperature: float = 1e-3) -> None:
        self.min_temperature = _positive_finite(_real(min_temperature, "min_temperature"), "min_temperature")

    def __repr__(self) -> str:
        return f"SimulatedAnnealingTerminator(min_temperature={self.min_temperature})"


class _GradientNorm:
    def __init__(self, eps_abs: float) -> None:
        self.eps_abs = _positive_finite(_real(eps_abs, "eps_abs"), "eps_abs")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(eps_abs={self.eps_abs})"


class ConjugateGradientGTerminator(_GradientNorm):
    """Stops the conjugate gradient when ‖g‖₂ < ``eps_abs``."""

    def __init__(self, *, eps_abs: float = _math.cbrt(_EPSILON)) -> None:
        super().__init__(eps_abs)


class TrustRegionGTerminator(_GradientNorm):
    """Stops the trust region when ‖g‖₂ < ``eps_abs``."""

    def __init__(self, *, eps_abs: float = _math.cbrt(_EPSILON)) -> None:
        super().__init__(eps_abs)


class _CMAESValue:
    _default = 0.0

    def __init__(self, *, value: float | None = None) -> None:
        value = self._default if value is None else value
        value = _real(value, "value")
        if not (_math.isfinite(value) and value >= 0.0):
            raise GaneshConfigError(f"value must be finite and non-negative, got {_reprlib.repr(value)}")
        self.value = value

    def __repr__(self) -> str:
        return f"{type(self).__name__}(value={self.value})"


class CMAESSigmaTerminator(_CMAESValue):
    """Stops CMA-ES when σ √λ_max(C) <= ``value`` (default 1e-10)."""

    _default = 1e-10


class CMAESConditionCovTerminator(_CMAESValue):
    """Stops CMA-ES when C's condition number exceeds ``value`` (default 1e14)."""

    _default = 1e14


class CMAESTolXUpTerminator(_CMAESValue):
    """Stops CMA-ES when σ √λ_max(C) grows beyond ``value`` · σ₀ (default 1e4)."""

    _default = 1e4


class CMAESTolFunTerminator(_CMAESValue):
    """Stops CMA-ES when the recent best values and this generation's span less than ``value``
    (default 1e-12)."""

    _default = 1e-12


class CMAESTolXTerminator(_CMAESValue):
    """Stops CMA-ES when σ √C_kk and σ |p_c,k| are all below ``value`` (0: 1e-12 σ₀)."""

    _default = 0.0


class _CMAESRule:
    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class CMAESNoEffectAxisTerminator(_CMAESRule):
    """Stops CMA-ES when a 0.1 σ step along a principal axis leaves the mean unchanged (on by
    default)."""


class CMAESNoEffectCoordTerminator(_CMAESRule):
    """Stops CMA-ES when a 0.2 σ √C_kk step leaves a coordinate of the mean unchanged (on by
    default)."""


class CMAESEqualFunValuesTerminator(_CMAESRule):
    """Stops CMA-ES when the best value was equal over the last 10 + ⌈30 n / λ⌉ generations (on
    by default)."""


class CMAESStagnationTerminator(_CMAESRule):
    """Stops CMA-ES when the best and median values stop improving (on by default)."""


NAMES = [
    "Bounds", "ScaleTransform", "PeriodicTransform", "TransformChain", "VectorInit", "MultiStartSummary",
    "CMAESConfig", "PSOConfig", "DifferentialEvolutionConfig", "SimulatedAnnealingConfig",
    "ConjugateGradientConfig", "TrustRegionConfig", "SimulatedAnnealingTerminator",
    "ConjugateGradientGTerminator", "TrustRegionGTerminator", "CMAESSigmaTerminator",
    "CMAESConditionCovTerminator", "CMAESTolXUpTerminator", "CMAESTolFunTerminator", "CMAESTolXTerminator",
    "CMAESNoEffectAxisTerminator", "CMAESNoEffectCoordTerminator", "CMAESEqualFunValuesTerminator",
    "CMAESStagnationTerminator",
]
