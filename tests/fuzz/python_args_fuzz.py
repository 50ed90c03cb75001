"""Fuzzes the argument parsing of the laddu_cpp Python module (issue 21).

Every public callable (module functions, class constructors, static and instance methods,
operators, property setters) is called with generated arguments: mostly plausible ones, with at
least one hostile value (wrong types, None, NaN and infinities, negative and huge ints such as
2**64, empty, huge and nested lists, strings with lone surrogates, bytes, numpy arrays of the
wrong dtype or shape, dicts with bad keys, objects whose __float__ or __iter__ raise, ...).

The calls run in forked children, a batch per child, so a segfault or an abort ends only the
child; the parent names the call that was running. A call that runs longer than --timeout is a
hang. The acceptable outcomes are a return value, or one of TypeError, ValueError,
OverflowError, KeyError, IndexError, OSError (an unwritable output path), a laddu_cpp error
(except InternalError, which means a bug) or the exception a hostile argument raised itself.
Two more checks catch silent acceptance: a negative count (n, samples, threads, l, ...) and a NaN setting (fractions, bounds, masses of
NBodyPhaseSpace, ...) must not be accepted.

Instance methods and properties are called on the fixtures of python_fixtures.py; the hostile
values come from hostile_values.py. The script first checks that every class whose methods or
properties it calls has a make_<Class> fixture or a NO_FIXTURE entry, and exits with status 2,
one line per class, when one has neither (not under --replay). A callable counts as reached
once a call got hold of it, its fixture made.

Call i is a function of (seed, i) only, so ``--replay I --seed S`` rebuilds and runs exactly the
call a failure report names, in this process (tests/fuzz/README.md).

    python_args_fuzz.py --seed 1 --seconds 15 [--timeout 10] [--artifacts DIR]
    python_args_fuzz.py --seed 1 --replay 1234
    python_args_fuzz.py --list
"""

from __future__ import annotations

import argparse
import faulthandler
import inspect
import math
import os
import random
import re
import select
import signal
import sys
import tempfile
import time
import traceback
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # no BLAS threads in a process we fork

import numpy as np  # noqa: E402

import laddu_cpp as ld  # noqa: E402
from hostile_values import Boom, hostile_values  # noqa: E402
from python_fixtures import NO_FIXTURE, FixtureError, Fixtures, fixture_problems  # noqa: E402

# ---- What may not be called ---------------------------------------------------------------------

# Callables left out, with why. Everything else public is fuzzed.
SKIPPED = {
    # Ends the job by design (MPI_Abort); in a world of one it does nothing, which the
    # test_capabilities suite checks.
    "mpi.abort": "ends the MPI job by design",
    # Initialise MPI in every forked child (slow, and MPI may not be re-initialised).
    "mpi.barrier": "initialises MPI",
    "mpi.rank": "initialises MPI",
    "mpi.size": "initialises MPI",
    "mpi.is_root": "initialises MPI",
    # Pickling helpers of pybind11 enums and objects, not argument parsing of ours.
    "__reduce__": "pickling",
    "__reduce_ex__": "pickling",
}

# Arguments that set how much work a call does. Hostile values for them stay out of the range
# that is valid but slow (2**40 events is not a parsing bug): negative, too large for the C++
# type, wrong type. Their plausible values are small, and they are always given (a default such
# as bootstrap_fit's samples=100 is valid but slow).
SIZE_PARAMS = {"n", "samples", "restarts", "max_steps", "chunk_size", "threads", "bins"}

# Counts that must never be accepted negative (the call must raise).
NON_NEGATIVE = {"n", "samples", "restarts", "max_steps", "chunk_size", "threads", "l"}

# Plain float settings where NaN is meaningless and must raise. (Operands that become
# expression constants may be NaN: an expression is evaluated later, per event.)
NO_NAN = {
    "lambda_",
    "fraction",
    "parent_mass",
    "beam_energy_min",
    "beam_energy_max",
    "kk_mass_max",
    "pol_magnitude_min",
    "pol_magnitude_max",
    "max_intensity",
    "q_r",
    "low",
    "high",
    "edges",
    "masses",
    "range",
}

# OSError: an output path that cannot be written (a hostile 300-character name), as open() raises.
ALLOWED = (TypeError, ValueError, OverflowError, KeyError, IndexError, OSError)


# ---- Targets and their signatures ------------------------------------------------------------


class Param:
    def __init__(self, name, annotation="", default=False, kind="pos"):
        self.name = name
        self.annotation = annotation
        self.default = default  # has a default
        self.kind = kind  # "pos" (positional or keyword), "kw" (keyword only), "var"

    def __repr__(self):
        return f"{self.name}:{self.annotation}{'=' if self.default else ''}"


def split_top(text):
    """Splits at commas outside brackets and quotes."""
    parts, depth, current, quote = [], 0, "", None
    for c in text:
        if quote:
            current += c
            if c == quote:
                quote = None
            continue
        if c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        current += c
    if current.strip():
        parts.append(current.strip())
    return parts


def pybind_signatures(func):
    """The overloads of a pybind11 function, from its docstring, as lists of Param (self left
    out)."""
    doc = getattr(func, "__doc__", None) or ""
    name = getattr(func, "__name__", "")
    overloads = []
    for line in doc.splitlines():
        m = re.match(r"^(?:\d+\. )?" + re.escape(name) + r"\((.*)\) -> ", line)
        if not m or m.group(1) == "*args, **kwargs":
            continue
        params, kind = [], "pos"
        for part in split_top(m.group(1)):
            if part == "*":
                kind = "kw"
                continue
            if part.startswith("*"):
                params.append(Param(part.strip("*").split(":")[0], "", True, "var"))
                continue
            head, _, default = part.partition(" = ")
            pname, _, annotation = head.partition(": ")
            params.append(Param(pname.strip(), annotation.strip(), bool(default), kind))
        if params and params[0].name == "self":
            params = params[1:]
        overloads.append(params)
    return overloads


def python_signatures(func):
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return []
    params = []
    for p in sig.parameters.values():
        if p.name == "self":
            continue
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            params.append(Param(p.name, "", True, "var"))
            continue
        annotation = "" if p.annotation is p.empty else str(p.annotation)
        kind = "kw" if p.kind == p.KEYWORD_ONLY else "pos"
        params.append(Param(p.name, annotation, p.default is not p.empty, kind))
    return [params]


def signatures(func):
    return pybind_signatures(func) or python_signatures(func) or [[]]


class Target:
    """One callable: how to get it from the fixtures, and its overloads."""

    def __init__(self, name, resolve, func, owner_fixture=None, setter=False):
        self.name = name
        self.resolve = resolve  # fixtures -> callable
        self.owner_fixture = owner_fixture
        self.overloads = [[Param("value")]] if setter else signatures(func)


FUZZED_DUNDERS = {
    "__init__", "__call__", "__getitem__", "__setitem__", "__len__", "__iter__", "__float__",
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
    "__rtruediv__", "__pow__", "__rpow__", "__matmul__", "__and__", "__or__", "__invert__",
    "__neg__", "__pos__", "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__",
    "__repr__", "__str__", "__hash__", "__setstate__", "__getstate__", "__int__", "__index__",
    "__contains__", "__bool__",
}  # fmt: skip


def getter(obj, attr):
    return lambda: getattr(obj, attr)


def setter(obj, attr):
    return lambda value: setattr(obj, attr, value)


def class_targets(prefix, cls, fixture):
    targets = []
    if not getattr(cls, "__abstractmethods__", None) and cls.__init__ is not object.__init__:
        targets.append(Target(f"{prefix}()", lambda fx, c=cls: c, cls.__init__))
    elif isinstance(cls, type) and cls.__module__.startswith("laddu_cpp"):
        # No Python-visible constructor: calling the class must still raise cleanly.
        targets.append(Target(f"{prefix}()", lambda fx, c=cls: c, cls))
    for attr in sorted(dir(cls)):
        if attr.startswith("_") and attr not in FUZZED_DUNDERS or attr == "__init__":
            continue
        if attr in SKIPPED:
            continue
        raw = inspect.getattr_static(cls, attr)
        owner = next((k for k in cls.__mro__ if attr in vars(k)), object)
        # What a class inherits from a builtin (object's, str's for StatusMessage, BaseException's
        # for the error classes) is CPython's code, not laddu_cpp's.
        if owner.__module__ == "builtins":
            continue
        name = f"{prefix}.{attr}"
        if isinstance(raw, property):
            # The instance is fetched when the target is resolved, as for methods, so a missing
            # fixture is the "fixture" outcome rather than an exception of the call.
            if raw.fset is not None:
                targets.append(
                    Target(name + " = ", lambda fx, a=attr, f=fixture: setter(fx.get(f), a),
                           None, fixture, setter=True)
                )
            targets.append(Target(name, lambda fx, a=attr, f=fixture: getter(fx.get(f), a),
                                  None, fixture))
            targets[-1].overloads = [[]]
        elif isinstance(raw, staticmethod) or type(raw).__name__ == "builtin_function_or_method":
            func = getattr(cls, attr)
            targets.append(Target(name, lambda fx, c=cls, a=attr: getattr(c, a), func))
        elif callable(raw) or inspect.isfunction(raw):
            func = getattr(cls, attr)
            targets.append(
                Target(name, lambda fx, a=attr, f=fixture: getattr(fx.get(f), a), func, fixture)
            )
    return targets


def module_targets(prefix, module, names, seen_ids=None):
    seen_ids = set() if seen_ids is None else seen_ids
    targets = []
    for name in sorted(names):
        full = f"{prefix}{name}"
        if full in SKIPPED or name.startswith("_"):
            continue
        obj = getattr(module, name)
        if id(obj) in seen_ids:
            continue  # ld.amplitudes.q is ld.q
        seen_ids.add(id(obj))
        if isinstance(obj, type):
            if issubclass(obj, BaseException):
                targets.append(Target(full + "()", lambda fx, c=obj: c, obj))
                continue
            targets += class_targets(full, obj, obj.__name__)
        elif inspect.ismodule(obj):
            sub = [n for n in dir(obj) if not n.startswith("_")]
            targets += module_targets(f"{name}.", obj, sub, seen_ids)
        elif callable(obj):
            targets.append(Target(full, lambda fx, m=module, n=name: getattr(m, n), obj))
    return targets


def all_targets(with_excluded=False):
    """Every fuzzed callable; with_excluded adds the instance callables of the NO_FIXTURE classes
    (for the start-up check)."""
    targets = module_targets("", ld, ld.__all__)
    # Classes reached only through return values.
    for cls_name in ("GeneratedProjection",):
        cls = getattr(ld._analysis, cls_name)
        targets += [t for t in class_targets(cls_name, cls, cls_name) if not t.name.endswith("()")]
    seen, unique = set(), []
    for t in targets:
        if t.name not in seen and (with_excluded or t.owner_fixture not in NO_FIXTURE):
            seen.add(t.name)
            unique.append(t)
    return unique


def check_fixtures():
    """False, with one line per class on stderr, unless every class with instance callables has
    a fixture or a NO_FIXTURE entry: without one its methods would never be reached."""
    owners = {}
    for t in all_targets(with_excluded=True):
        if t.owner_fixture is not None:
            owners.setdefault(t.owner_fixture, []).append(t.name)
    problems = fixture_problems(owners)
    for line in problems:
        print(f"python_args_fuzz: {line}", file=sys.stderr)
    return not problems


# ---- Argument generation --------------------------------------------------------------------

STRING_CHOICES = {
    "device": ["cpu", "auto", "jit"],
    "precision": ["f64", "f32"],
    "autodiff": ["auto", "forward", "reverse"],
    "partitioning": ["contiguous", "strided", "files"],
    "method": ["lbfgsb", "nelder_mead", "migrad", "cmaes", "pso", "differential_evolution",
               "simulated_annealing", "conjugate_gradient", "trust_region"],
    "closed": ["both", "left", "right", "neither"],
    "nulls": ["error", "nan"],
    "cache": ["fastest", "resident", "streaming"],
    "reflectivity": ["+", "-"],
    "tag": ["S", "D"],
    "name": ["a", "b", "kshort1", "decay", "x"],
    "edge": ["x", "k1", "k2"],
    "unit": ["GeV", ""],
}

EXPR_NAMES = {
    "s", "q", "costheta", "phi", "mass", "width", "mass1", "mass2", "pol_angle", "pol_magnitude",
    "magnitude", "phase", "re", "im", "x", "y", "z", "e", "px", "py", "pz", "value", "k", "other",
    "a", "b", "matrix", "rhs", "exponent", "base", "alpha", "beta", "gamma", "expression",
    "variable", "energy", "index",
}  # fmt: skip


def plausible(rng, param, fx, owner):
    """A value of the right kind for `param` (the other arguments of a call)."""
    name, ann = param.name, param.annotation
    n_events = 16

    def expr_or_number():
        return rng.choice([lambda: fx.get("Expr"), lambda: 1.5, lambda: 0.5 + 0.5j,
                           lambda: fx.get("m"), lambda: 2])()

    if name in SIZE_PARAMS:
        return rng.choice([0, 1, 2, 3]) if name != "bins" else rng.choice([2, [0.9, 1.2, 2.0]])
    if name in ("parameters", "initial") and "Expr" not in ann:
        defaults = list(getattr(owner, "default_parameters", []) or [])
        return rng.choice([None, defaults, dict(zip(getattr(owner, "parameter_names", []),
                                                     defaults)), np.array(defaults)])
    if name in ("tags",):
        return rng.choice([["S"], "S", None, ["S", "D"]])
    if name in STRING_CHOICES and ("str" in ann or ann in ("", "object")):
        return rng.choice(STRING_CHOICES[name])
    if name == "path":
        return rng.choice([fx.get("input_parquet"), [fx.get("input_parquet")],
                           os.path.join(fx.workdir, "out.parquet")])
    if name == "memory":
        return rng.choice([None, "1 MiB", 10**6, "50% available"])
    if name == "selection":
        return rng.choice([fx.get("Predicate"), np.ones(n_events, dtype=bool)])
    if name == "range":
        return (0.9, 2.0)
    if name == "factory":
        return lambda columns: iter([{"p4s": {}, "scalars": {"x": np.ones(3)}}])
    if name in ("intensities", "weights"):
        return np.ones(n_events)
    if name in ("names", "incoming", "outgoing"):
        return rng.choice([["a"], ["a", "b"], ["x"]])
    if name == "production":
        return [1.0, fx.get("Expr"), 0.5j]
    if name in ("observed", "alternative"):
        return (0.14, 0.14, 1.0)
    if name in ("j", "m_prime", "j1", "j2", "j3", "m1", "m2", "m3") or (name == "m" and "object" in ann):
        return rng.choice([1, 0, 0.5, ld.J(1), -1])
    if name == "elements":
        return [1.0, fx.get("Expr")]
    if name == "rows":
        return [[1.0, 0.0], [0.0, 2.0]]
    if name in ("edges",) and "Edge" not in ann:
        return [0.0, 1.0, 2.0]
    if name == "masses":
        return [0.5, 0.5]
    if name == "p4s":
        return {"kshort1": np.ones((n_events, 4))}
    if name == "scalars":
        return {"x": np.ones(n_events)}
    if name == "terms":
        return [fx.get("NLL"), fx.get("RidgePenalty")]
    if name == "term":
        return rng.choice([fx.get("NLL"), "nll"])
    if name == "events" and "Int" in ann:
        return rng.choice([0, 1, 3])
    if name in ("generated_mc", "data", "accepted_mc", "events", "dataset"):
        return fx.get("Dataset")
    if name == "model":
        return fx.get("Model")
    if name == "progress":
        return lambda i, v, x: None
    if name == "init":
        return fx.get(rng.choice(["AIESInit", "ESSInit"]))
    if name == "config":
        return rng.choice([ld.ganesh.LBFGSBConfig(), fx.get("CMAESConfig"), fx.get("PSOConfig"),
                           fx.get("DifferentialEvolutionConfig"), fx.get("SimulatedAnnealingConfig"),
                           fx.get("ConjugateGradientConfig"), fx.get("TrustRegionConfig")])
    if name == "terminators":
        return [ld.ganesh.MaxSteps(3)]
    if name == "sink":
        return fx.get(rng.choice(["ParquetSink", "RootSink"]))
    if name in ("state",):
        return ()
    # By type.
    for cls_name in ("Expr", "Vec3", "Vec4", "Dataset", "Model", "Execution", "Edge", "Vertex",
                     "Predicate", "Bin", "EventData", "NLL", "UnbinnedNLL", "ParquetSink", "RootSink",
                     "LikelihoodTerm", "J", "Sheet", "BarrierKind", "Likelihood",
                     "StatusSnapshot"):
        if re.search(r"\b" + cls_name + r"\b", ann):
            if "None" in ann and rng.random() < 0.2:
                return None
            return fx.get(cls_name)
    if name in EXPR_NAMES or name.startswith("arg"):
        return expr_or_number()
    if "Float" in ann or ann == "float":
        return rng.choice([0.0, 1.5, -2.0, 0.3, 1])
    if "Int" in ann or ann == "int":
        return rng.choice([0, 1, 2, 3])
    if ann == "bool":
        return rng.choice([True, False])
    if ann.startswith("str"):
        return rng.choice(["x", "S", "kshort1"])
    if "Sequence[str]" in ann or "list[str]" in ann:
        return ["S"]
    if "Sequence" in ann or "list" in ann:
        return [1.0, 2.0]
    if "ndarray" in ann or "Buffer" in ann:
        return np.ones(n_events)
    if "dict" in ann:
        return {}
    if "Callable" in ann:
        return lambda *a: None
    return expr_or_number()


class Call:
    def __init__(self, index, target, params, args, kwargs, hostile):
        self.index = index
        self.target = target
        self.params = params  # the overload's named parameters
        self.args = args
        self.kwargs = kwargs
        self.hostile = hostile  # names of the parameters given hostile values

    def describe(self):
        def short(v):
            r = safe_repr(v)
            return r if len(r) <= 120 else r[:117] + "..."

        parts = [short(a) for a in self.args] + [f"{k}={short(v)}" for k, v in self.kwargs.items()]
        text = f"{self.target.name}({', '.join(parts)})  [hostile: {', '.join(self.hostile) or '-'}]"
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def safe_repr(value):
    try:
        r = repr(value)
    except Exception as e:  # noqa: BLE001
        r = f"<{type(value).__name__}: repr raised {type(e).__name__}>"
    return r.encode("utf-8", "backslashreplace").decode("utf-8")


def pick_target(seed, index, targets):
    """The target of call `index`, without building any fixture (the parent's view)."""
    return targets[random.Random(f"{seed}/{index}").randrange(len(targets))]


def make_call(seed, index, targets, fx):
    """Call `index` of run `seed`: a function of both only (and of the target list)."""
    rng = random.Random(f"{seed}/{index}")
    target = targets[rng.randrange(len(targets))]  # first draw: see pick_target
    params = rng.choice(target.overloads)
    owner = None
    if target.owner_fixture is not None:
        try:
            owner = fx.get(target.owner_fixture)
        except FixtureError:
            owner = None
    real = [p for p in params if p.kind != "var"]
    n_hostile = 0 if not real else (1 if rng.random() < 0.75 else rng.randint(1, len(real)))
    hostile = set(rng.sample(range(len(real)), n_hostile)) if real else set()
    args, kwargs, hostile_names = [], {}, []
    for i, p in enumerate(real):
        if p.default and i not in hostile and p.name not in SIZE_PARAMS and rng.random() < 0.5:
            continue  # leave it at its default (the later ones then go by keyword)
        if i in hostile:
            value = hostile_values(rng, size_param=p.name in SIZE_PARAMS)
            hostile_names.append(p.name)
        else:
            try:
                value = plausible(rng, p, fx, owner)
            except FixtureError:
                value = None
        if p.kind == "kw" or len(args) < i or kwargs or rng.random() < 0.15:
            kwargs[p.name] = value
        else:
            args.append(value)
    # Now and then the shape of the call itself is wrong.
    shape = rng.random()
    if shape < 0.04:
        args.append(hostile_values(rng))
        hostile_names.append("<extra positional>")
    elif shape < 0.08:
        # Not a keyword *name* with a lone surrogate: pybind11 (3.1 and upstream) aborts while
        # writing its "incompatible function arguments" message for one (tests/fuzz/README.md).
        kwargs[rng.choice(["bogus", "é", "self", "__class__"])] = hostile_values(rng)
        hostile_names.append("<unknown keyword>")
    elif shape < 0.11 and (args or kwargs):
        if kwargs:
            kwargs.pop(next(iter(kwargs)))
        else:
            args.pop()
        hostile_names.append("<missing argument>")
    elif not real and shape < 0.3:
        args.append(hostile_values(rng))
        hostile_names.append("<extra positional>")
    return Call(index, target, real, args, kwargs, hostile_names)


# ---- Running calls and judging outcomes ------------------------------------------------------


def judge(call, outcome):
    """None when the outcome is acceptable, else why not."""
    kind, error = outcome
    if kind == "exception":
        if isinstance(error, ld.InternalError):
            return f"ld.InternalError (an assertion, i.e. a bug): {error}"
        if isinstance(error, (ld.Error, Boom, FixtureError) + ALLOWED):
            return None
        return f"untyped exception {type(error).__module__}.{type(error).__name__}: {error}"
    # Returned: check the silent acceptances.
    values = dict(call.kwargs)
    for p, v in zip(call.params, call.args):
        values.setdefault(p.name, v)
    for name, v in values.items():
        if name in NON_NEGATIVE and isinstance(v, (int, np.integer)) and not isinstance(v, bool) \
                and v < 0:
            return f"silently accepted a negative {name} = {v}"
        if name in NO_NAN and contains_nan(v):
            return f"silently accepted NaN in {name} = {safe_repr(v)[:80]}"
    return None


def contains_nan(v):
    if isinstance(v, float):
        return math.isnan(v)
    if isinstance(v, (list, tuple)):
        return any(isinstance(x, float) and math.isnan(x) for x in v)
    if isinstance(v, np.ndarray) and v.dtype.kind == "f":
        return bool(np.isnan(v).any())
    if isinstance(v, np.floating):
        return bool(np.isnan(v))
    return False


def run_call(call, fx):
    try:
        func = call.target.resolve(fx)
    except FixtureError as e:
        return ("fixture", e)
    try:
        result = func(*call.args, **call.kwargs)
        safe_repr(result)
        return ("ok", result)
    except BaseException as e:  # noqa: BLE001 - judged by judge() (SystemExit included)
        return ("exception", e)


def child(seed, start, stop, deadline, targets, workdir, out_fd):
    """Runs calls start.. until stop or the deadline, reporting each on out_fd."""
    os.chdir(workdir)
    faulthandler.enable(all_threads=True)
    warnings.simplefilter("ignore")  # numpy's ComplexWarning and the like, by the thousand
    # What the calls print (the ganesh observers print their argument) would bury the report.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    fx = Fixtures(workdir)
    out = os.fdopen(out_fd, "w", buffering=1)
    for index in range(start, stop):
        if time.monotonic() > deadline:
            break
        call = make_call(seed, index, targets, fx)
        out.write(f"S {index}\n")
        started = time.monotonic()
        kind, value = run_call(call, fx)
        took = time.monotonic() - started
        verdict = None if kind == "fixture" else judge(call, (kind, value))
        label = kind if kind != "exception" else type(value).__name__
        if verdict:
            out.write(f"F {index} {call.target.name}\t{verdict!s:.400}".replace("\n", "\\n") + "\n")
        else:
            out.write(f"R {index} {call.target.name}\t{label}\t{took:.3f}\n")
    out.flush()
    os._exit(0)


def fuzz(args):
    targets = all_targets()
    workdir = tempfile.mkdtemp(prefix="laddu-python-fuzz-")
    os.makedirs(args.artifacts, exist_ok=True)
    start_time = time.monotonic()
    deadline = start_time + args.seconds
    index, calls, failures = 0, 0, []
    outcomes, covered, slowest = {}, set(), (0.0, -1, "")
    batch = 100
    while time.monotonic() < deadline and (args.runs == 0 or index < args.runs):
        stop = index + batch if args.runs == 0 else min(index + batch, args.runs)
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            try:
                child(args.seed, index, stop, deadline, targets, workdir, write_fd)
            finally:
                os._exit(70)
        os.close(write_fd)
        running, buffer, hung = None, b"", False
        while True:
            ready, _, _ = select.select([read_fd], [], [], args.timeout)
            if not ready:
                hung = True
                os.kill(pid, signal.SIGKILL)
                break
            chunk = os.read(read_fd, 65536)
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                text = line.decode("utf-8", "backslashreplace")
                tag, _, rest = text.partition(" ")
                number, _, detail = rest.partition(" ")
                if tag == "S":
                    running = int(number)
                    continue
                running = None
                calls += 1
                name, _, what = detail.partition("\t")
                index = int(number) + 1
                if tag == "F":
                    covered.add(name)
                    failures.append(report(args, int(number), name, what))
                else:
                    label, _, took = what.partition("\t")
                    if label != "fixture":  # the call never got its callable: not reached
                        covered.add(name)
                    outcomes[label] = outcomes.get(label, 0) + 1
                    slowest = max(slowest, (float(took), int(number), name))
        os.close(read_fd)
        _, status = os.waitpid(pid, 0)
        if running is not None:
            calls += 1
            if hung:
                why = f"hang: no return within {args.timeout} s"
            elif os.WIFSIGNALED(status):
                why = f"crash: killed by {signal.Signals(os.WTERMSIG(status)).name}"
            else:
                why = f"the process exited with status {os.WEXITSTATUS(status)} during the call"
            name = pick_target(args.seed, running, targets).name
            failures.append(report(args, running, name, why))
            index = running + 1
        elif os.WIFSIGNALED(status) or os.WEXITSTATUS(status) != 0:
            # Between calls: the fuzzer's own code failed (its traceback is above).
            failures.append(report(args, index, "<fuzzer>", f"a worker ended with status {status} "
                                   "outside a call"))
            index += 1
        if args.max_failures and len(failures) >= args.max_failures:
            break
    seconds = time.monotonic() - start_time
    print(
        f"python_args_fuzz: {calls} calls in {seconds:.1f} s ({calls / seconds:.0f} calls/s), "
        f"seed {args.seed}, {len(covered)} of {len(targets)} callables reached, "
        f"{len(failures)} failures"
    )
    print("  outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items(),
                                                                        key=lambda kv: -kv[1])))
    print(f"  slowest call: {slowest[0]:.2f} s, call {slowest[1]} ({slowest[2]})")
    return 1 if failures else 0


def report(args, index, name, why):
    path = os.path.join(args.artifacts, f"python-args-seed{args.seed}-call{index}.txt")
    command = f"{sys.executable} {os.path.abspath(__file__)} --seed {args.seed} --replay {index}"
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"{name}: {why}\nreproduce with: {command}\n")
    print(f"FAILURE call {index}: {name}: {why}\n  written to {path}\n  reproduce with: {command}",
          file=sys.stderr)
    return (index, name, why)


def replay(args):
    targets = all_targets()
    workdir = tempfile.mkdtemp(prefix="laddu-python-fuzz-")
    os.chdir(workdir)
    faulthandler.enable(all_threads=True)
    fx = Fixtures(workdir)
    call = make_call(args.seed, args.replay, targets, fx)
    print(f"call {args.replay} (seed {args.seed}): {call.describe()}", flush=True)
    kind, value = run_call(call, fx)
    if kind == "exception":
        traceback.print_exception(type(value), value, value.__traceback__)
    else:
        print(f"{kind}: {safe_repr(value)[:400]}")
    verdict = None if kind == "fixture" else judge(call, (kind, value))
    print("verdict:", verdict or "acceptable")
    return 1 if verdict else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=15.0, help="time budget")
    parser.add_argument("--runs", type=int, default=0, help="stop after this many calls")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds one call may take")
    parser.add_argument("--artifacts", default=".", help="where failure reports go")
    parser.add_argument("--max-failures", type=int, default=20, help="stop after this many")
    parser.add_argument("--replay", type=int, help="run call REPLAY of --seed in this process")
    parser.add_argument("--list", action="store_true", help="list the fuzzed callables")
    args = parser.parse_args()
    if args.replay is None and not check_fixtures():
        return 2
    if args.list:
        for t in all_targets():
            print(t.name, t.overloads)
        return 0
    if args.replay is not None:
        return replay(args)
    return fuzz(args)


if __name__ == "__main__":
    sys.exit(main())
