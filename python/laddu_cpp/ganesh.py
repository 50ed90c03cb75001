"""laddu's ``ld.ganesh`` vocabulary: fit configurations, terminators and the MCMC settings.

Besides LBFGSBConfig, NelderMeadConfig and MigradConfig, ``fit(config=...)`` runs ganesh's other
minimisers (laddu-cpp's extension; ``_ganesh_minimizers.py``): CMAESConfig, PSOConfig,
DifferentialEvolutionConfig, SimulatedAnnealingConfig, ConjugateGradientConfig and
TrustRegionConfig, with their terminators. A setting out of range is a GaneshConfigError (a
ValueError), a value of the wrong type a TypeError.

``likelihood.fit(config=ld.ganesh.LBFGSBConfig(), terminators=[ld.ganesh.MaxSteps(1000)])``
chooses the method from the config and caps the iterations with MaxSteps; any other fit
terminator is a callable ``(iteration, value, x) -> bool`` that returns False to stop.

``likelihood.sample(ld.ganesh.AIESInit(walkers), config=ld.ganesh.AIESConfig(...), seed=s,
terminators=[ld.ganesh.MaxSteps(n)])`` runs the affine-invariant ensemble sampler and returns an
``MCMCSummary`` (laddu_cpp's C++ sampler, ``include/laddu/fit/ensemble_sampler.hpp``); with
``ESSInit`` and ``ESSConfig`` it runs the ensemble slice sampler
(``include/laddu/fit/ensemble_slice_sampler.hpp``). Sampling
terminators are ``MaxSteps``, ``AutocorrelationTerminator`` or callables
``(step, StatusSnapshot) -> bool`` that return True to stop.
"""

# Imports under private names: every public name of ld.ganesh is laddu's vocabulary.
import math as _math
import reprlib as _reprlib
from collections.abc import Sequence as _Sequence

import numpy as _np

from ._core import FitResult as MinimizationSummary  # what Likelihood.fit returns (ganesh's name)
from ._core import MCMCSummary

__all__ = [
    "MaxSteps",
    "LBFGSBConfig",
    "NelderMeadConfig",
    "MoreThuenteLineSearch",
    "HagerZhangLineSearch",
    "LBFGSBFTerminator",
    "LBFGSBGTerminator",
    "LBFGSBInfNormGTerminator",
    "NelderMeadFTerminator",
    "NelderMeadXTerminator",
    "MigradConfig",
    "AIESInit",
    "AIESConfig",
    "AIESMove",
    "ESSInit",
    "ESSConfig",
    "ESSMove",
    "ChainStorage",
    "AutocorrelationTerminator",
    "MCMCSummary",
    "MinimizationSummary",
    "EvalCounts",
    "StatusMessage",
    "StatusSnapshot",
    "AdamConfig",
    "AdamEMATerminator",
    "GaneshError",
    "GaneshConfigError",
    "GaneshNumericalError",
    "GaneshCallbackError",
]


class MaxSteps:
    """Stops a fit or a sampling run after ``steps`` steps."""

    def __init__(self, steps: int) -> None:
        if isinstance(steps, bool) or int(steps) != steps or int(steps) <= 0:
            raise ValueError(f"MaxSteps needs a positive whole step count, got {_reprlib.repr(steps)}")
        self.steps = int(steps)

    def __repr__(self) -> str:
        return f"MaxSteps({self.steps})"


def _observed(step: int, status: "StatusSnapshot", observer: str) -> int:
    """The step number an observer was called with; TypeError unless (int, StatusSnapshot)."""
    if isinstance(step, bool) or not hasattr(type(step), "__index__"):
        raise TypeError(f"{observer} takes (step, StatusSnapshot), got a step of type "
                        f"{type(step).__name__}")
    if not isinstance(status, StatusSnapshot):
        raise TypeError(f"{observer} takes (step, StatusSnapshot), got a status of type "
                        f"{type(status).__name__}")
    return step.__index__()


class ProgressObserver:
    """ganesh's concise progress observer: every ``interval`` steps it prints one line,
    ``step=<n> <status>``, to standard output. Pass it in ``observers=`` of ``fit``,
    ``fit_stochastic`` or ``sample``."""

    def __init__(self, *, interval: int = 1) -> None:
        if isinstance(interval, bool) or int(interval) != interval:
            raise TypeError(f"interval must be an int, got {_reprlib.repr(interval)}")
        self.interval = max(int(interval), 1)

    def __call__(self, step: int, status: "StatusSnapshot") -> None:
        step = _observed(step, status, "ProgressObserver")
        if step % self.interval == 0:
            print(f"step={step} {status.message}", flush=True)

    def __repr__(self) -> str:
        return f"ProgressObserver(interval={self.interval})"


class DebugObserver:
    """ganesh's verbose observer: prints every step's status to standard output."""

    def __call__(self, step: int, status: "StatusSnapshot") -> None:
        step = _observed(step, status, "DebugObserver")
        print(f"Step: {step}\n{status!r}", flush=True)

    def __repr__(self) -> str:
        return "DebugObserver()"


_EPSILON = 2.220446049250313e-16  # f64::EPSILON, from which ganesh's default tolerances come


class GaneshError(Exception):
    """ganesh's base error."""


class GaneshConfigError(GaneshError, ValueError):
    """A setting out of range (ganesh's config error). Also a ValueError, the error laddu-cpp's
    ld.ganesh raises for bad values."""


class GaneshNumericalError(GaneshError):
    """ganesh's numerical failure (laddu-cpp reports those in a fit's message instead)."""


class GaneshCallbackError(GaneshError):
    """ganesh's error from a callback (laddu-cpp lets a callback's own exception through)."""


def _real(value: float, what: str) -> float:
    """``value`` as a float; TypeError for anything but a real number."""
    if isinstance(value, bool) or not isinstance(value, (int, float, _np.integer, _np.floating)):
        raise TypeError(f"{what} must be a float, got {type(value).__name__}")
    return float(value)


def _in_open(value: float, what: str, low: float, high: float) -> float:
    value = _real(value, what)
    if not low < value < high:
        raise GaneshConfigError(f"{what} must be in ({low:g}, {high:g}), got {_reprlib.repr(value)}")
    return value


def _choice(value: str, what: str, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, one of {', '.join(allowed)}; got {type(value).__name__}")
    if value not in allowed:
        raise GaneshConfigError(f"{what} must be one of {', '.join(allowed)}, got {_reprlib.repr(value)}")
    return value


def _names(parameter_names: object) -> list[str] | None:
    if parameter_names is None:
        return None
    if isinstance(parameter_names, (str, bytes)) or not isinstance(parameter_names, _Sequence):
        raise TypeError("parameter_names must be a sequence of str or None")
    if not all(isinstance(name, str) for name in parameter_names):
        raise TypeError("parameter_names must be a sequence of str or None")
    return list(parameter_names)


def _no_transform(transform: object, config: str) -> None:
    if transform is not None:
        raise ValueError(f"{config}(transform=) is not supported by laddu-cpp: bounded parameters are "
                         "handled natively (L-BFGS-B) or by laddu-cpp's own transform (Nelder-Mead); "
                         "leave transform=None")


class MoreThuenteLineSearch:
    """ganesh's strong-Wolfe line search for L-BFGS-B: extrapolate until the value rises or the slope
    turns, then bisect the bracket (Nocedal & Wright Alg. 3.5/3.6 after Moré & Thuente 1994).
    ``c1`` (sufficient decrease) and ``c2`` (curvature), 0 < c1 < c2 < 1; ``max_iterations``
    extrapolation steps and ``max_zoom`` bisections."""

    def __init__(self, *, c1: float = 1e-4, c2: float = 0.9, max_iterations: int = 20, max_zoom: int = 20) -> None:
        self.c1, self.c2 = _real(c1, "c1"), _real(c2, "c2")
        if not 0.0 < self.c1 < self.c2 < 1.0:
            raise ValueError(f"MoreThuenteLineSearch requires 0 < c1 < c2 < 1, got c1={_reprlib.repr(c1)}, c2={_reprlib.repr(c2)}")
        self.max_iterations = _whole(max_iterations, "max_iterations", 0)
        self.max_zoom = _whole(max_zoom, "max_zoom", 0)

    def __repr__(self) -> str:
        return (f"MoreThuenteLineSearch(c1={self.c1}, c2={self.c2}, max_iterations={self.max_iterations}, "
                f"max_zoom={self.max_zoom})")


class HagerZhangLineSearch:
    """Hager & Zhang's (2006) approximate-Wolfe line search for L-BFGS-B: ``delta`` and ``sigma``
    (0 < delta < sigma < 1), the slack ``epsilon`` · |f| of the approximate conditions, the
    bisection point ``theta`` and the bracket shrink ``gamma`` (both in (0, 1)), at most
    ``max_iterations`` bracket updates of at most ``max_bisects`` bisections."""

    def __init__(self, *, delta: float = 0.1, sigma: float = 0.9, epsilon: float = 1e-6, theta: float = 0.5,
                 gamma: float = 0.66, max_iterations: int = 100, max_bisects: int = 50) -> None:
        self.delta, self.sigma = _real(delta, "delta"), _real(sigma, "sigma")
        if not 0.0 < self.delta < self.sigma < 1.0:
            raise ValueError(f"HagerZhangLineSearch requires 0 < delta < sigma < 1, got delta={_reprlib.repr(delta)}, "
                             f"sigma={_reprlib.repr(sigma)}")
        self.epsilon = _positive_finite(_real(epsilon, "epsilon"), "epsilon")
        self.theta = _in_open(theta, "theta", 0.0, 1.0)
        self.gamma = _in_open(gamma, "gamma", 0.0, 1.0)
        self.max_iterations = _whole(max_iterations, "max_iterations", 0)
        self.max_bisects = _whole(max_bisects, "max_bisects", 0)

    def __repr__(self) -> str:
        return (f"HagerZhangLineSearch(delta={self.delta}, sigma={self.sigma}, epsilon={self.epsilon}, "
                f"theta={self.theta}, gamma={self.gamma}, max_iterations={self.max_iterations}, "
                f"max_bisects={self.max_bisects})")


def _bounds(bounds: object) -> list[tuple[float, float]] | None:
    if bounds is None:
        return None
    if isinstance(bounds, (str, bytes)) or not isinstance(bounds, _Sequence):
        raise TypeError("bounds must be a sequence of (lower, upper) pairs or None")
    out = []
    for pair in bounds:
        if isinstance(pair, (str, bytes)) or not isinstance(pair, _Sequence) or len(pair) != 2:
            raise TypeError(f"each bound must be a (lower, upper) pair, got {_reprlib.repr(pair)}")
        lower = -_math.inf if pair[0] is None else _real(pair[0], "a lower bound")
        upper = _math.inf if pair[1] is None else _real(pair[1], "an upper bound")
        if not lower < upper:
            raise ValueError(f"bounds must be ordered (lower < upper) and not NaN, got {_reprlib.repr(pair)}")
        out.append((lower, upper))
    return out


class LBFGSBConfig:
    """L-BFGS-B with the analytic gradient (the default fit), with ganesh's options:
    ``history_size`` curvature pairs kept (the L-BFGS memory); ``max_step``, the largest line-search
    step α (a multiple of the search direction); ``error_mode`` "exact_hessian" (uncertainties from
    the Hessian at the minimum) or "skip" (none: NaN); ``line_search`` a MoreThuenteLineSearch or
    HagerZhangLineSearch (None: laddu-cpp's projected backtracking); ``bounds`` one (lower, upper)
    per parameter (None for an open end) replacing the parameters' bounds in this fit;
    ``parameter_names`` (if given) must be the likelihood's. ``transform`` is not supported."""

    method = "lbfgsb"

    def __init__(self, *, history_size: int = 10, max_step: float = 1e8, error_mode: str = "exact_hessian",
                 line_search: MoreThuenteLineSearch | HagerZhangLineSearch | None = None,
                 bounds: _Sequence[tuple[float | None, float | None]] | None = None,
                 parameter_names: _Sequence[str] | None = None, transform: object | None = None) -> None:
        _no_transform(transform, "LBFGSBConfig")
        self.history_size = _whole(history_size, "history_size", 1)
        self.max_step = _positive_finite(_real(max_step, "max_step"), "max_step")
        self.error_mode = _choice(error_mode, "error_mode", ("exact_hessian", "skip"))
        if line_search is not None and not isinstance(line_search, (MoreThuenteLineSearch, HagerZhangLineSearch)):
            raise TypeError("line_search must be ld.ganesh.MoreThuenteLineSearch, ld.ganesh.HagerZhangLineSearch "
                            f"or None, got {type(line_search).__name__}")
        self.line_search = line_search
        self.bounds = _bounds(bounds)
        self.parameter_names = _names(parameter_names)

    def __repr__(self) -> str:
        return (f"LBFGSBConfig(history_size={self.history_size}, max_step={self.max_step}, "
                f"error_mode={self.error_mode!r}, line_search={self.line_search!r}, bounds={self.bounds!r})")


class NelderMeadConfig:
    """The Nelder-Mead simplex (no gradient), with ganesh's options: the ``reflection`` (> 0),
    ``expansion`` (> max(1, reflection)), ``contraction`` and ``shrink`` (in (0, 1)) coefficients;
    the start simplex, vertex k moving x_k to x_k (1 + ``initial_step``), or to
    ``initial_zero_step`` when x_k = 0, or ``initial_simplex``, n + 1 vertices given in the
    parameters; ``expansion_method`` "greedy_minimization" (keep the better of the reflected and
    expanded points) or "greedy_expansion" (keep the expanded one). ``parameter_names`` (if given)
    must be the likelihood's; ``transform`` is not supported."""

    method = "nelder_mead"

    def __init__(self, *, reflection: float = 1.0, expansion: float = 2.0, contraction: float = 0.5,
                 shrink: float = 0.5, initial_step: float = 0.05, initial_zero_step: float = 0.00025,
                 expansion_method: str = "greedy_minimization",
                 initial_simplex: _Sequence[_Sequence[float]] | None = None,
                 parameter_names: _Sequence[str] | None = None, transform: object | None = None) -> None:
        _no_transform(transform, "NelderMeadConfig")
        self.reflection = _positive_finite(_real(reflection, "reflection"), "reflection")
        self.expansion = _real(expansion, "expansion")
        if not (_math.isfinite(self.expansion) and self.expansion > 1.0 and self.expansion > self.reflection):
            raise ValueError(f"expansion must be finite and greater than 1 and than reflection ({self.reflection}), "
                             f"got {_reprlib.repr(expansion)}")
        self.contraction = _in_open(contraction, "contraction", 0.0, 1.0)
        self.shrink = _in_open(shrink, "shrink", 0.0, 1.0)
        self.initial_step = _positive_finite(_real(initial_step, "initial_step"), "initial_step")
        self.initial_zero_step = _positive_finite(_real(initial_zero_step, "initial_zero_step"), "initial_zero_step")
        self.expansion_method = _choice(expansion_method, "expansion_method",
                                        ("greedy_minimization", "greedy_expansion"))
        if initial_simplex is not None:
            try:
                simplex = _np.asarray(initial_simplex, dtype=float)
            except (TypeError, ValueError) as error:
                raise TypeError("initial_simplex must be n + 1 vertices of n floats each") from error
            if simplex.ndim != 2 or simplex.shape[1] < 1 or simplex.shape[0] != simplex.shape[1] + 1:
                raise ValueError(f"initial_simplex must have dimension + 1 vertices of equal length, got shape "
                                 f"{simplex.shape}")
            if not _np.all(_np.isfinite(simplex)):
                raise ValueError("initial_simplex vertices must be finite")
            initial_simplex = simplex.tolist()
        self.initial_simplex = initial_simplex
        self.parameter_names = _names(parameter_names)

    def __repr__(self) -> str:
        return (f"NelderMeadConfig(reflection={self.reflection}, expansion={self.expansion}, "
                f"contraction={self.contraction}, shrink={self.shrink}, initial_step={self.initial_step}, "
                f"initial_zero_step={self.initial_zero_step}, expansion_method={self.expansion_method!r}, "
                f"initial_simplex={self.initial_simplex!r})")


class _Tolerance:
    """A ganesh L-BFGS-B terminator: a positive, finite ``eps_abs``."""

    def __init__(self, eps_abs: float) -> None:
        self.eps_abs = _positive_finite(_real(eps_abs, "eps_abs"), "eps_abs")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(eps_abs={self.eps_abs})"


class LBFGSBFTerminator(_Tolerance):
    """Stops L-BFGS-B when a step changes the value by less than ``eps_abs`` (absolute). Given
    to ``fit``, it replaces laddu-cpp's relative value-change rule."""

    def __init__(self, *, eps_abs: float = _math.sqrt(_EPSILON)) -> None:
        super().__init__(eps_abs)


class LBFGSBGTerminator(_Tolerance):
    """Stops L-BFGS-B when the gradient's Euclidean norm is below ``eps_abs``. Given to ``fit``,
    it (with any LBFGSBInfNormGTerminator) replaces laddu-cpp's projected-gradient rule."""

    def __init__(self, *, eps_abs: float = _math.cbrt(_EPSILON)) -> None:
        super().__init__(eps_abs)


class LBFGSBInfNormGTerminator(_Tolerance):
    """Stops L-BFGS-B when the projected gradient's largest component is below ``eps_abs``
    (laddu-cpp's default rule, there with 1e-6)."""

    def __init__(self, *, eps_abs: float = _math.cbrt(_EPSILON)) -> None:
        super().__init__(eps_abs)


class NelderMeadFTerminator:
    """Stops Nelder-Mead on the vertex values: ``kind`` "stddev" (their standard deviation),
    "absolute" (f_worst − f_best) or "amoeba" (2 (f_worst − f_best) / (|f_worst| + |f_best|)) at
    most ``tolerance``."""

    def __init__(self, *, kind: str = "stddev", tolerance: float = _EPSILON ** 0.25) -> None:
        self.kind = _choice(kind, "kind", ("amoeba", "absolute", "stddev"))
        self.tolerance = _positive_finite(_real(tolerance, "tolerance"), "tolerance")

    def __repr__(self) -> str:
        return f"NelderMeadFTerminator(kind={self.kind!r}, tolerance={self.tolerance})"


class NelderMeadXTerminator:
    """Stops Nelder-Mead on the vertices: ``kind`` "diameter" (largest ∞-norm distance from the
    best vertex), "higham" (largest 1-norm distance / max(1, ‖best‖₁)), "rowan" (‖worst − best‖₂
    relative to the start simplex's) or "singer" (volume relative to the start simplex, against
    toleranceⁿ) at most ``tolerance``."""

    def __init__(self, *, kind: str = "singer", tolerance: float = _EPSILON ** 0.25) -> None:
        self.kind = _choice(kind, "kind", ("diameter", "higham", "rowan", "singer"))
        self.tolerance = _positive_finite(_real(tolerance, "tolerance"), "tolerance")

    def __repr__(self) -> str:
        return f"NelderMeadXTerminator(kind={self.kind!r}, tolerance={self.tolerance})"


class MigradConfig:
    """A MIGRAD-like variable-metric minimiser (laddu-cpp's addition)."""

    method = "migrad"


def _positive_finite(value: float, what: str, above: float = 0.0) -> float:
    value = float(value)
    if not _math.isfinite(value) or value <= above:
        raise GaneshConfigError(f"{what} must be finite and above {above:g}, got {_reprlib.repr(value)}")
    return value


def _walker_array(walkers, sampler: str, minimum: int) -> _np.ndarray:
    """The walkers as an (n_walkers, n_parameters) float array, checked as ganesh checks them."""
    array = _np.asarray(walkers, dtype=float)
    if array.ndim != 2:
        raise ValueError(f"walkers must be an (n_walkers, n_parameters) array, got shape {array.shape}")
    if array.shape[0] < minimum:
        raise ValueError(f"{sampler} requires at least {minimum} walkers, got {array.shape[0]}")
    if array.shape[1] < 1:
        raise ValueError(f"{sampler} walker dimension must be at least 1")
    if not _np.all(_np.isfinite(array)):
        raise ValueError("walker positions must be finite")
    return array


def _storage_and_names(chain_storage, parameter_names):
    """A sampler config's chain storage (a ChainStorage or None) and parameter names (None or a
    list of str)."""
    if chain_storage is not None and not isinstance(chain_storage, ChainStorage):
        raise TypeError("chain_storage must be an ld.ganesh.ChainStorage")
    return chain_storage, _names(parameter_names)


class AIESInit:
    """The starting ensemble: an (n_walkers, n_parameters) array, at least two walkers."""

    def __init__(self, walkers: _Sequence[_Sequence[float]] | _np.ndarray) -> None:
        self.walkers = _walker_array(walkers, "AIES", 2)

    def __repr__(self) -> str:
        return f"AIESInit(walkers={self.walkers.shape[0]}, parameters={self.walkers.shape[1]})"


class AIESMove:
    """One weighted move of the ensemble sampler: ``stretch(scale=, weight=)`` or
    ``walk(weight=)``."""

    def __init__(self, kind: str, scale: float, weight: float) -> None:
        self.kind = kind
        self.scale = scale
        weight = float(weight)
        if not _math.isfinite(weight) or weight < 0.0:
            raise ValueError(f"a move weight must be finite and non-negative, got {_reprlib.repr(weight)}")
        self.weight = weight

    @staticmethod
    def stretch(*, scale: float = 2.0, weight: float = 1.0) -> "AIESMove":
        return AIESMove("stretch", _positive_finite(scale, "the stretch scale", 1.0), weight)

    @staticmethod
    def walk(*, weight: float = 1.0) -> "AIESMove":
        return AIESMove("walk", 2.0, weight)

    def __repr__(self) -> str:
        if self.kind == "walk":
            return f"AIESMove.walk(weight={self.weight})"
        return f"AIESMove.stretch(scale={self.scale}, weight={self.weight})"


class ChainStorage:
    """Which samples the chains keep: ``full()``, ``rolling(window)`` (the last ``window``) or
    ``sampled(keep_every, max_samples=)`` (the start and every ``keep_every``-th step, at most
    ``max_samples`` of them, the most recent)."""

    def __init__(self, kind: str, window: int = 0, keep_every: int = 1, max_samples: int | None = None) -> None:
        self.kind = kind
        self.window = window
        self.keep_every = keep_every
        self.max_samples = max_samples

    @staticmethod
    def full() -> "ChainStorage":
        return ChainStorage("full")

    @staticmethod
    def rolling(window: int) -> "ChainStorage":
        if int(window) <= 0:
            raise ValueError(f"the rolling window must be positive, got {_reprlib.repr(window)}")
        return ChainStorage("rolling", window=int(window))

    @staticmethod
    def sampled(keep_every: int, *, max_samples: int | None = None) -> "ChainStorage":
        if int(keep_every) <= 0 or (max_samples is not None and int(max_samples) <= 0):
            raise ValueError("keep_every and max_samples must be positive")
        return ChainStorage("sampled", keep_every=int(keep_every),
                            max_samples=None if max_samples is None else int(max_samples))

    def __repr__(self) -> str:
        if self.kind == "rolling":
            return f"ChainStorage.rolling({self.window})"
        if self.kind == "sampled":
            return f"ChainStorage.sampled({self.keep_every}, max_samples={self.max_samples})"
        return "ChainStorage.full()"


class AIESConfig:
    """Settings of the affine-invariant ensemble sampler (laddu's defaults).

    ``moves``: AIESMove objects (or (AIESMove, weight) pairs); without them every step is a
    stretch move with ``stretch_scale``. ``parameter_names`` label the summary. ``transform``
    is not supported: walkers move in the parameters themselves, which is exact for the bounds
    (proposals outside them are rejected)."""

    def __init__(self, *, stretch_scale: float = 2.0, moves: _Sequence[AIESMove] | None = None,
                 chain_storage: ChainStorage | None = None, parameter_names: _Sequence[str] | None = None,
                 transform: object | None = None) -> None:
        if transform is not None:
            raise ValueError("AIESConfig(transform=) is not supported by laddu-cpp: walkers move in the "
                             "parameters themselves; leave transform=None")
        self.stretch_scale = _positive_finite(stretch_scale, "stretch_scale", 1.0)
        if moves is not None:
            resolved = []
            for move in moves:
                if isinstance(move, tuple):
                    move, weight = move
                    move = AIESMove(move.kind, move.scale, weight)
                if not isinstance(move, AIESMove):
                    raise TypeError("moves must be ld.ganesh.AIESMove objects")
                resolved.append(move)
            if not resolved or all(m.weight == 0.0 for m in resolved):
                raise ValueError("AIES move weights must include a positive entry")
            moves = resolved
        self.moves = moves
        self.chain_storage, self.parameter_names = _storage_and_names(chain_storage, parameter_names)

    def __repr__(self) -> str:
        return f"AIESConfig(stretch_scale={self.stretch_scale}, moves={self.moves}, chain_storage={self.chain_storage})"


def _whole(value: int, what: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, _np.integer)):
        raise TypeError(f"{what} must be an int, got {type(value).__name__}")
    if int(value) < minimum:
        raise GaneshConfigError(f"{what} must be at least {minimum}, got {_reprlib.repr(value)}")
    return int(value)


class ESSInit:
    """The starting ensemble of the ensemble slice sampler: an (n_walkers, n_parameters) array,
    at least three walkers (the differential move needs two walkers besides the one it moves)."""

    def __init__(self, walkers: _Sequence[_Sequence[float]] | _np.ndarray) -> None:
        self.walkers = _walker_array(walkers, "ESS", 3)

    def __repr__(self) -> str:
        return f"ESSInit(walkers={self.walkers.shape[0]}, parameters={self.walkers.shape[1]})"


class ESSMove:
    """One weighted direction move of the ensemble slice sampler: ``differential(weight=)``,
    ``gaussian(weight=)`` or ``global_(scale=, rescale_covariance=, components=, weight=)`` (also
    reachable as ``getattr(ESSMove, "global")``, laddu's name): directions from a variational
    Gaussian mixture fitted to the walkers, for multimodal posteriors."""

    def __init__(self, kind: str, weight: float, scale: float = 1.0, rescale_covariance: float = 0.001,
                 components: int = 5) -> None:
        if kind not in ("differential", "gaussian", "global"):
            raise ValueError(f"ESSMove kind must be differential, gaussian or global, got {_reprlib.repr(kind)}")
        self.kind = kind
        weight = float(weight)
        if not _math.isfinite(weight) or weight < 0.0:
            raise ValueError(f"a move weight must be finite and non-negative, got {_reprlib.repr(weight)}")
        self.weight = weight
        self.scale = _positive_finite(scale, "the global move's scale")
        self.rescale_covariance = _positive_finite(rescale_covariance, "rescale_covariance")
        self.components = _whole(components, "components", 2)

    @staticmethod
    def differential(*, weight: float = 1.0) -> "ESSMove":
        return ESSMove("differential", weight)

    @staticmethod
    def gaussian(*, weight: float = 1.0) -> "ESSMove":
        return ESSMove("gaussian", weight)

    @staticmethod
    def global_(*, scale: float = 1.0, rescale_covariance: float = 0.001, components: int = 5,
                weight: float = 1.0) -> "ESSMove":
        return ESSMove("global", weight, scale, rescale_covariance, components)

    def __repr__(self) -> str:
        if self.kind == "global":
            return (f"ESSMove.global_(scale={self.scale}, rescale_covariance={self.rescale_covariance}, "
                    f"components={self.components}, weight={self.weight})")
        return f"ESSMove.{self.kind}(weight={self.weight})"


setattr(ESSMove, "global", ESSMove.global_)  # laddu's name, a Python keyword


class ESSConfig:
    """Settings of the ensemble slice sampler (laddu's defaults): the initial slice
    ``bracket_width``, the cap ``max_shrink_steps`` on bracket expansions and contractions per
    walker and step, ``adaptive_steps`` (the direction scale μ adapts during the first
    adaptive_steps + 1 steps, as ganesh), the initial μ ``direction_scale``, ``moves``
    (ESSMove objects or (ESSMove, weight) pairs; without them every step is differential) and
    ``chain_storage``. ``transform`` is not supported (see AIESConfig)."""

    def __init__(self, *, bracket_width: float = 1.0, max_shrink_steps: int = 1000, adaptive_steps: int = 0,
                 direction_scale: float = 1.0, moves: _Sequence[ESSMove] | None = None,
                 chain_storage: ChainStorage | None = None, parameter_names: _Sequence[str] | None = None,
                 transform: object | None = None) -> None:
        if transform is not None:
            raise ValueError("ESSConfig(transform=) is not supported by laddu-cpp: walkers move in the "
                             "parameters themselves; leave transform=None")
        self.bracket_width = _positive_finite(bracket_width, "ESS bracket_width")
        self.max_shrink_steps = _whole(max_shrink_steps, "ESS max_shrink_steps", 1)
        self.adaptive_steps = _whole(adaptive_steps, "ESS adaptive_steps", 0)
        self.direction_scale = _positive_finite(direction_scale, "ESS direction_scale")
        if moves is not None:
            if isinstance(moves, (str, bytes)) or not isinstance(moves, _Sequence):
                raise TypeError("moves must be a sequence of ld.ganesh.ESSMove objects")
            resolved = []
            for move in moves:
                if isinstance(move, tuple) and len(move) == 2 and isinstance(move[0], ESSMove):
                    move, weight = move
                    move = ESSMove(move.kind, weight, move.scale, move.rescale_covariance, move.components)
                if not isinstance(move, ESSMove):
                    raise TypeError(f"moves must be ld.ganesh.ESSMove objects, got {type(move).__name__}")
                resolved.append(move)
            if not resolved or all(m.weight == 0.0 for m in resolved):
                raise ValueError("ESS move weights must be finite, non-negative, and include a positive entry")
            moves = resolved
        self.moves = moves
        self.chain_storage, self.parameter_names = _storage_and_names(chain_storage, parameter_names)

    def __repr__(self) -> str:
        return (f"ESSConfig(bracket_width={self.bracket_width}, max_shrink_steps={self.max_shrink_steps}, "
                f"adaptive_steps={self.adaptive_steps}, direction_scale={self.direction_scale}, "
                f"moves={self.moves}, chain_storage={self.chain_storage})")


class AutocorrelationTerminator:
    """Every ``n_check`` steps computes the mean integrated autocorrelation time τ̄ over the samples
    after the first ``discard`` fraction; stops (if ``terminate``) once ``n_taus_threshold`` · τ̄ is
    below the step count and τ̄ changed by less than ``dtau_threshold`` since the last check.
    ``taus`` holds τ̄ of every check after the run; ``verbose`` prints each check."""

    def __init__(self, *, n_check: int = 50, n_taus_threshold: int = 50, dtau_threshold: float = 0.01,
                 discard: float = 0.5, terminate: bool = True, sokal_window: float | None = None,
                 verbose: bool = False) -> None:
        if int(n_check) <= 0 or int(n_taus_threshold) <= 0:
            raise ValueError("n_check and n_taus_threshold must be positive")
        if not 0.0 <= float(discard) < 1.0:
            raise ValueError(f"discard must be in [0, 1), got {_reprlib.repr(discard)}")
        self.n_check = int(n_check)
        self.n_taus_threshold = int(n_taus_threshold)
        self.dtau_threshold = _positive_finite(dtau_threshold, "dtau_threshold")
        self.discard = float(discard)
        self.terminate = bool(terminate)
        self.sokal_window = None if sokal_window is None else _positive_finite(sokal_window, "sokal_window")
        self.verbose = bool(verbose)
        self.taus: list[float] = []


class EvalCounts:
    """Objective (f), gradient (g) and Hessian (h) evaluations of a run."""

    def __init__(self, f: int, g: int, h: int) -> None:
        self.f, self.g, self.h = f, g, h

    def __repr__(self) -> str:
        return f"EvalCounts(f={self.f}, g={self.g}, h={self.h})"


class StatusMessage(str):
    """How a run ended: ``success`` and ``text``. It is also the text itself (a str), so code
    that treats a fit's message as text keeps working."""

    success: bool
    text: str

    def __new__(cls, success: bool, text: str) -> "StatusMessage":
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, not {type(text).__name__}")
        message = super().__new__(cls, text)
        message.success, message.text = bool(success), text
        return message

    def __repr__(self) -> str:
        return f"StatusMessage(success={self.success}, text={self.text!r})"


class StatusSnapshot:
    """What terminators and observers see after a step: ``step``, ``success``, ``message``."""

    def __init__(self, step: int, success: bool, message: str) -> None:
        self.step, self.success, self.message = step, success, message

    def __repr__(self) -> str:
        return f"StatusSnapshot(step={self.step}, success={self.success}, message={self.message!r})"


class AdamConfig:
    """Adam's settings for ``Likelihood.fit_stochastic`` (ganesh's defaults). ``transform`` is not
    supported: bounded parameters are transformed as the other fits transform them."""

    def __init__(self, *, alpha: float = 0.001, beta_1: float = 0.9, beta_2: float = 0.999, epsilon: float = 1e-8,
                 parameter_names: _Sequence[str] | None = None, transform: object | None = None) -> None:
        if transform is not None:
            raise ValueError("AdamConfig(transform=) is not supported by laddu-cpp; leave transform=None")
        self.alpha = _positive_finite(alpha, "alpha")
        self.epsilon = _positive_finite(epsilon, "epsilon")
        for name, value in (("beta_1", beta_1), ("beta_2", beta_2)):
            if not 0.0 <= float(value) < 1.0:
                raise ValueError(f"{name} must be in the range [0, 1), got {_reprlib.repr(value)}")
        self.beta_1, self.beta_2 = float(beta_1), float(beta_2)
        self.parameter_names = _names(parameter_names)

    def __repr__(self) -> str:
        return f"AdamConfig(alpha={self.alpha}, beta_1={self.beta_1}, beta_2={self.beta_2}, epsilon={self.epsilon})"


class AdamEMATerminator:
    """Stops Adam when the exponential moving average E ← beta_c E + (1 − beta_c) f of the batch
    values changes by less than ``eps_loss`` for ``patience`` steps in a row (the default
    terminator of ``fit_stochastic``; passing one replaces it)."""

    def __init__(self, *, beta_c: float = 0.9, eps_loss: float = _math.sqrt(2.220446049250313e-16),
                 patience: int = 1) -> None:
        if not 0.0 <= float(beta_c) < 1.0:
            raise ValueError(f"beta_c must be in the range [0, 1), got {_reprlib.repr(beta_c)}")
        if not float(eps_loss) >= 0.0 or int(patience) <= 0:
            raise ValueError("eps_loss must be non-negative and patience positive")
        self.beta_c, self.eps_loss, self.patience = float(beta_c), float(eps_loss), int(patience)

    def __repr__(self) -> str:
        return f"AdamEMATerminator(beta_c={self.beta_c}, eps_loss={self.eps_loss}, patience={self.patience})"


# ganesh's other minimisers, their terminators and the transform / start / multistart helpers
# (laddu-cpp runs them all from Likelihood.fit(config=...)).
from ._ganesh_minimizers import (  # noqa: E402  (they use the helpers above)
    NAMES as _MINIMIZER_NAMES,
    Bounds,
    CMAESConditionCovTerminator,
    CMAESConfig,
    CMAESEqualFunValuesTerminator,
    CMAESNoEffectAxisTerminator,
    CMAESNoEffectCoordTerminator,
    CMAESSigmaTerminator,
    CMAESStagnationTerminator,
    CMAESTolFunTerminator,
    CMAESTolXTerminator,
    CMAESTolXUpTerminator,
    ConjugateGradientConfig,
    ConjugateGradientGTerminator,
    DifferentialEvolutionConfig,
    MultiStartSummary,
    PeriodicTransform,
    PSOConfig,
    ScaleTransform,
    SimulatedAnnealingConfig,
    SimulatedAnnealingTerminator,
    TransformChain,
    TrustRegionConfig,
    TrustRegionGTerminator,
    VectorInit,
)

__all__ += _MINIMIZER_NAMES
